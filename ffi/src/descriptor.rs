//! The C descriptors of tools, resources, templates and prompts, the configuration that
//! holds them, and the [`Device`] they make.
//!
//! Descriptors are meant to be `static const` arrays in flash. They are read through
//! raw pointers on every request, so they must stay valid and unchanged for the
//! server's life.

use core::ffi::c_void;

use emcp::device::{Completion, PromptGet, ReadError, ResourceRead, Step, Target, ToolCall};
use emcp::model::registry::{
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations,
};
use emcp::state::policy::Verdict;
use emcp::wire::json::Value;
use emcp::Device;

use crate::call::emcp_tool_call;
use crate::prompt::{emcp_completion, emcp_prompt_get};
use crate::read::emcp_resource_read;
use crate::status::{emcp_status, is_ok, EMCP_NOT_FOUND, EMCP_PENDING, EMCP_RETRY_LATER};
use crate::text::emcp_str;

/// A tool hint (annotation): unset, false or true. Zero-initialised means unset.
pub type emcp_hint = u8;
/// The hint is not given (the specification's default applies).
pub const EMCP_HINT_UNSET: emcp_hint = 0;
/// The hint is false.
pub const EMCP_HINT_FALSE: emcp_hint = 1;
/// The hint is true.
pub const EMCP_HINT_TRUE: emcp_hint = 2;

fn hint(h: emcp_hint) -> Option<bool> {
    match h {
        EMCP_HINT_FALSE => Some(false),
        EMCP_HINT_TRUE => Some(true),
        _ => None,
    }
}

/// Whether a tool's calls may or must run as tasks (`execution.taskSupport`). Read by a
/// library built with the `tasks` feature (`EMCP_TASKS`); ignored otherwise.
/// Zero-initialised means forbidden.
pub type emcp_task_support = u8;
/// Never a task (the default).
pub const EMCP_TASK_FORBIDDEN: emcp_task_support = 0;
/// A task when the client accepts tasks and the call takes long (its `call` callback
/// returns `EMCP_PENDING`); otherwise an ordinary call.
pub const EMCP_TASK_OPTIONAL: emcp_task_support = 1;
/// Only as a task: a client that does not ask for one gets the protocol's error
/// (-32021 in 2026-07-28, -32601 in 2025-11-25). The tool needs a `poll` callback to
/// stay pending.
pub const EMCP_TASK_REQUIRED: emcp_task_support = 2;

/// Writes output bytes (to a UART, a socket): `bytes` points to `len` bytes, valid until
/// it returns. Returns `EMCP_OK` when all were taken.
pub type emcp_write_fn = Option<
    unsafe extern "C" fn(userdata: *mut c_void, bytes: *const u8, len: usize) -> emcp_status,
>;
/// Runs a tool (or continues it, as the `poll` callback). Returns `EMCP_OK` when the
/// result is complete, `EMCP_PENDING` to be polled again later (only when
/// `emcp_call_can_defer` said so), anything else for a failure (an `isError` result).
pub type emcp_tool_fn =
    Option<unsafe extern "C" fn(userdata: *mut c_void, call: *mut emcp_tool_call) -> emcp_status>;
/// The client cancelled a pending tool: `tool` is its index, `state` its state word.
pub type emcp_cancel_fn =
    Option<unsafe extern "C" fn(userdata: *mut c_void, tool: usize, state: u32)>;
/// Reads a resource. Returns `EMCP_OK`, `EMCP_NOT_FOUND`, or another status for a
/// failure (answered with the JSON-RPC internal error, -32603). A failure after content
/// was written: with an output buffer the response becomes that error; with a write
/// callback the partial contents were already sent and stand.
pub type emcp_read_fn = Option<
    unsafe extern "C" fn(userdata: *mut c_void, read: *mut emcp_resource_read) -> emcp_status,
>;
/// Renders a prompt's messages. Required arguments were checked already. Returns
/// `EMCP_OK`, `EMCP_NOT_FOUND` (answered as an unknown prompt) or another status for a
/// failure (the JSON-RPC internal error, -32603), as for reads.
pub type emcp_prompt_fn =
    Option<unsafe extern "C" fn(userdata: *mut c_void, get: *mut emcp_prompt_get) -> emcp_status>;
/// Decides whether a tool may run now, before it runs (after its arguments were
/// validated): device-side policy such as "destructive tools only while the arm switch
/// is closed" or a rate limit per tool.
///
/// `tool` is the tool's index, `args` the raw JSON text of its arguments object
/// (`ptr` NULL when the call has none; valid until the callback returns). `reason` and
/// `retry_after_ms` point to values the callback may write. Return:
/// - `EMCP_OK`: the tool runs;
/// - `EMCP_RETRY_LATER`: refused for now; `*retry_after_ms` says when to try again;
/// - `EMCP_DENIED` or any other status: refused (fail closed). `*reason` (initially
///   empty) may be set to a UTF-8 text that stays valid for the server's life (a string
///   literal); the client is shown it, or `tool refused by the device`.
///
/// A refusal is the tool's result with `isError: true`; the tool callback is not called.
pub type emcp_authorize_fn = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        tool: usize,
        args: emcp_str,
        reason: *mut emcp_str,
        retry_after_ms: *mut u32,
    ) -> emcp_status,
>;
/// Reads the device's clock: milliseconds since the Unix epoch with a real-time clock,
/// else since boot (task timestamps then read as early 1970).
pub type emcp_now_fn = Option<unsafe extern "C" fn(userdata: *mut c_void) -> u64>;
/// Offers completion values.
pub type emcp_complete_fn =
    Option<unsafe extern "C" fn(userdata: *mut c_void, completion: *mut emcp_completion)>;

/// Behaviour hints of a tool.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_tool_annotations {
    /// `readOnlyHint`.
    pub read_only: emcp_hint,
    /// `destructiveHint`.
    pub destructive: emcp_hint,
    /// `idempotentHint`.
    pub idempotent: emcp_hint,
    /// `openWorldHint`.
    pub open_world: emcp_hint,
}

/// A tool.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_tool {
    /// Unique name (required).
    pub name: emcp_str,
    /// Display title (optional).
    pub title: emcp_str,
    /// Description for the model (optional).
    pub description: emcp_str,
    /// JSON Schema of the arguments, a JSON object (required).
    pub input_schema: emcp_str,
    /// JSON Schema of `structuredContent` (optional).
    pub output_schema: emcp_str,
    /// Hints.
    pub annotations: emcp_tool_annotations,
    /// Runs the tool (required).
    pub call: emcp_tool_fn,
    /// Continues a pending call (optional: without it a tool never stays pending).
    pub poll: emcp_tool_fn,
    /// Told when the client cancels a pending call (optional), a task's included.
    pub cancel: emcp_cancel_fn,
    /// Whether calls may or must run as tasks (`EMCP_TASK_FORBIDDEN`, the
    /// zero-initialised default; `EMCP_TASK_OPTIONAL`; `EMCP_TASK_REQUIRED`). Honoured
    /// by a library built with tasks (`EMCP_TASKS`), ignored by one without.
    pub task_support: emcp_task_support,
    /// Writes a completed task's result again, each time the client fetches it: the
    /// server keeps no copy of what `call` and `poll` wrote while the task ran.
    /// Called with the job's last state word (`emcp_call_state`); it writes content as
    /// `call` does and returns `EMCP_OK` (anything else makes an `isError` result).
    /// Optional: without it a completed task's result is empty. Used only with tasks.
    pub result: emcp_tool_fn,
    /// The input schema compiled at build time (optional, NULL: the schema's text is
    /// walked on every call — required in a library built without the walker,
    /// emcp-ffi's `schema-walk`, which refuses a tool without its plan with
    /// `EMCP_INVALID_SCHEMA`): the words the generator `emcp-plan` (`cargo run -p
    /// emcp-host --bin emcp-plan`, docs/c-api.md) writes for exactly this
    /// `input_schema` text, 4-aligned, `plan_words` of them. `emcp_server_init`
    /// refuses words of another shape (`EMCP_INVALID_CONFIG`), or of another layout,
    /// byte order or text (`EMCP_INVALID_SCHEMA`, this tool's index). Honoured by a
    /// library built with plans (emcp-ffi's `plans` feature, on by default; the C
    /// board defines `EMCP_PLANS` for such a build), ignored by one without.
    pub plan: *const u32,
    /// How many words `plan` has (the generated header's `<NAME>_PLAN_WORDS`).
    pub plan_words: usize,
}

/// A resource at a fixed URI.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_resource {
    /// The URI (required).
    pub uri: emcp_str,
    /// Programmatic name (required).
    pub name: emcp_str,
    /// Display title (optional).
    pub title: emcp_str,
    /// Description (optional).
    pub description: emcp_str,
    /// MIME type (optional).
    pub mime_type: emcp_str,
    /// Size in bytes, when `has_size`.
    pub size: u64,
    /// Whether `size` is given.
    pub has_size: bool,
    /// Reads it (required).
    pub read: emcp_read_fn,
}

/// A family of resources (RFC 6570 level-1 template, e.g. `sensor://{name}/history`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_resource_template {
    /// The URI template (required).
    pub uri_template: emcp_str,
    /// Programmatic name (required).
    pub name: emcp_str,
    /// Display title (optional).
    pub title: emcp_str,
    /// Description (optional).
    pub description: emcp_str,
    /// MIME type (optional).
    pub mime_type: emcp_str,
    /// Reads a resource matching the template (required).
    pub read: emcp_read_fn,
}

/// An argument of a prompt.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_prompt_argument {
    /// Name (required).
    pub name: emcp_str,
    /// Display title (optional).
    pub title: emcp_str,
    /// Description (optional).
    pub description: emcp_str,
    /// Must be given.
    pub required: bool,
}

/// A prompt.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_prompt {
    /// Unique name (required).
    pub name: emcp_str,
    /// Display title (optional).
    pub title: emcp_str,
    /// Description (optional).
    pub description: emcp_str,
    /// Its arguments (may be NULL when `arguments_len` is 0).
    pub arguments: *const emcp_prompt_argument,
    /// Number of arguments (at most `EMCP_MAX_PROMPT_ARGUMENTS`).
    pub arguments_len: usize,
    /// Renders it (required).
    pub get: emcp_prompt_fn,
}

/// Most arguments a C prompt may declare.
pub const EMCP_MAX_PROMPT_ARGUMENTS: usize = 8;

/// Most static resources a configuration may hold (each has a subscription flag).
pub const EMCP_MAX_RESOURCES: usize = 32;
const _: () = assert!(EMCP_MAX_RESOURCES == emcp::state::subscription::MAX_RESOURCES);

/// Items per page of a list result when `emcp_config.page_size` is 0.
pub const EMCP_DEFAULT_PAGE_SIZE: usize = 16;
const _: () = assert!(EMCP_DEFAULT_PAGE_SIZE == emcp::Config::new("", "").page_size);

/// `ttlMs` of discover and list results when `emcp_config.list_ttl_ms` is 0 (an hour:
/// the descriptors are static), the default of the Rust API too.
pub const EMCP_DEFAULT_LIST_TTL_MS: u32 = 3_600_000;
const _: () = assert!(EMCP_DEFAULT_LIST_TTL_MS == emcp::Config::new("", "").list_ttl_ms);

/// Everything the server needs to know about the device.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct emcp_config {
    /// `serverInfo.name` (required).
    pub name: emcp_str,
    /// `serverInfo.version` (required).
    pub version: emcp_str,
    /// `serverInfo.title` (optional).
    pub title: emcp_str,
    /// Instructions for the model (optional).
    pub instructions: emcp_str,
    /// Tools (may be NULL when `tools_len` is 0).
    pub tools: *const emcp_tool,
    /// Number of tools.
    pub tools_len: usize,
    /// Resources (may be NULL when `resources_len` is 0). Needs a library built with
    /// the feature `resources` (the default): without it, `emcp_server_init` refuses
    /// a configuration with resources or templates (`EMCP_INVALID_CONFIG`).
    pub resources: *const emcp_resource,
    /// Number of resources (at most `EMCP_MAX_RESOURCES`).
    pub resources_len: usize,
    /// Resource templates (may be NULL when `templates_len` is 0).
    pub templates: *const emcp_resource_template,
    /// Number of templates.
    pub templates_len: usize,
    /// Prompts (may be NULL when `prompts_len` is 0). Needs the feature `prompts` (the
    /// default), as `resources` needs `resources`.
    pub prompts: *const emcp_prompt,
    /// Number of prompts.
    pub prompts_len: usize,
    /// Completion callback; NULL: the server does not offer completions. Needs the
    /// feature `completions` (the default), as `resources` needs `resources`.
    pub complete: emcp_complete_fn,
    /// Output callback; NULL: output collects in the output buffer given to
    /// `emcp_server_init`, to be taken with `emcp_server_take_output`.
    pub write: emcp_write_fn,
    /// Passed first to every callback.
    pub userdata: *mut c_void,
    /// Items per list page; 0 means `EMCP_DEFAULT_PAGE_SIZE`.
    pub page_size: usize,
    /// `ttlMs` of discover and list results; 0 means `EMCP_DEFAULT_LIST_TTL_MS` (so a
    /// zero-initialised configuration has the defaults of the Rust API).
    pub list_ttl_ms: u32,
    /// `ttlMs` of resource reads.
    pub read_ttl_ms: u32,
    /// Authorization callback; NULL: every tool call is allowed.
    pub authorize: emcp_authorize_fn,
    /// The device's clock, for tasks' timestamps and expiry (used only with tasks);
    /// NULL: time stands still at 0 and tasks never expire.
    pub now_ms: emcp_now_fn,
}

/// `items[index]` of a C array, or `None` past its end or when it is NULL.
///
/// # Safety
/// `items`, unless NULL, points to `len` initialised elements that stay unchanged for
/// `'a`.
unsafe fn nth<'a, T>(items: *const T, len: usize, index: usize) -> Option<&'a T> {
    if items.is_null() || index >= len {
        return None;
    }
    // SAFETY: not NULL and `index < len` (checked above), so `items.add(index)` stays
    // within the array this function's contract says `items` points to, and the element
    // there is initialised and unchanged for 'a.
    Some(unsafe { &*items.add(index) })
}

/// The device a C configuration describes.
#[derive(Debug)]
pub(crate) struct CDevice {
    pub(crate) config: &'static emcp_config,
    /// Resources changed through `emcp_server_resource_changed`; lives outside the
    /// server state (see `server::Storage`), so raising a flag from a callback or an
    /// interrupt never aliases the server.
    pub(crate) changes: *const emcp::state::subscription::ChangeFlags,
}

impl CDevice {
    // The `&'static` below: a configuration's arrays are never freed or changed while
    // the server that holds `config` is used (emcp_server_init's contract), and nothing
    // outside the server holds a `CDevice`.
    pub(crate) fn tool_desc(&self, i: usize) -> Option<&'static emcp_tool> {
        // SAFETY: emcp_server_init's contract: `tools` (unless NULL) points to
        // `tools_len` tools, unchanged while the server is used.
        unsafe { nth(self.config.tools, self.config.tools_len, i) }
    }
    pub(crate) fn resource_desc(&self, i: usize) -> Option<&'static emcp_resource> {
        // SAFETY: emcp_server_init's contract: `resources` (unless NULL) points to
        // `resources_len` resources, unchanged while the server is used.
        unsafe { nth(self.config.resources, self.config.resources_len, i) }
    }
    pub(crate) fn template_desc(&self, i: usize) -> Option<&'static emcp_resource_template> {
        // SAFETY: emcp_server_init's contract: `templates` (unless NULL) points to
        // `templates_len` templates, unchanged while the server is used.
        unsafe { nth(self.config.templates, self.config.templates_len, i) }
    }
    pub(crate) fn prompt_desc(&self, i: usize) -> Option<&'static emcp_prompt> {
        // SAFETY: emcp_server_init's contract: `prompts` (unless NULL) points to
        // `prompts_len` prompts, unchanged while the server is used.
        unsafe { nth(self.config.prompts, self.config.prompts_len, i) }
    }
    /// Argument `i` of a prompt (at most `EMCP_MAX_PROMPT_ARGUMENTS` count).
    fn prompt_arg(p: &'static emcp_prompt, i: usize) -> Option<&'static emcp_prompt_argument> {
        let len = p.arguments_len.min(EMCP_MAX_PROMPT_ARGUMENTS);
        // SAFETY: emcp_server_init's contract: a prompt's `arguments` (unless NULL)
        // points to `arguments_len` arguments, unchanged while the server is used; `len`
        // is no more than that.
        unsafe { nth(p.arguments, len, i) }
    }

    /// Every required text present and every text UTF-8; every required callback set;
    /// every array NULL only when empty; nothing declared that the library was built
    /// without (features `resources`, `prompts`, `completions`): such a device would
    /// silently lose it.
    pub(crate) fn check(&self) -> bool {
        let c = self.config;
        let compiled_in = (cfg!(feature = "resources") || c.resources_len + c.templates_len == 0)
            && (cfg!(feature = "prompts") || c.prompts_len == 0)
            && (cfg!(feature = "completions") || c.complete.is_none());
        if !compiled_in {
            return false;
        }
        // SAFETY: `emcp_config` is `repr(C)` and starts with its four texts, one after
        // another from offset 0 (asserted below): `leading_texts`' contract.
        texts_ok(unsafe { leading_texts::<_, 4>(c) }, 0b11) // name, version
            && all_ok(c.tools, c.tools_len, tool_ok)
            && all_ok(c.resources, c.resources_len, resource_ok)
            && all_ok(c.templates, c.templates_len, template_ok)
            && all_ok(c.prompts, c.prompts_len, prompt_ok)
    }
}

/// Whether descriptor texts are usable: text `i` present when bit `i` of `required`
/// is set (the others are optional), and every present one UTF-8.
#[inline(never)]
fn texts_ok(texts: &[emcp_str], required: u32) -> bool {
    texts.iter().enumerate().all(|(i, s)| {
        // SAFETY: emcp_server_init's contract: every descriptor text (unless NULL) points
        // to its `len` readable bytes, unchanged while the server is used.
        ((required >> i) & 1 == 0 && s.ptr.is_null()) || unsafe { s.get() }.is_some()
    })
}

/// The `N` texts a descriptor starts with, as one array (checked in one call of
/// [`texts_ok`] rather than gathered field by field).
///
/// # Safety
/// `D` is `repr(C)` and its first `N` fields are `emcp_str`: laid out one after
/// another from offset 0, exactly as an array (asserted for every descriptor below).
unsafe fn leading_texts<D, const N: usize>(descriptor: &D) -> &[emcp_str; N] {
    // SAFETY: this function's contract: the first `N` fields of `D` are `emcp_str`s laid
    // out as `[emcp_str; N]` from offset 0, so the array lies within `*descriptor`, is
    // initialised, aligned as `D` is (an `emcp_str` field at offset 0), and borrowed no
    // longer than `descriptor`.
    unsafe { &*core::ptr::from_ref(descriptor).cast::<[emcp_str; N]>() }
}

// Every descriptor starts with its texts, in a row (what `leading_texts` relies on):
// `repr(C)` keeps declaration order, so with the first text at offset 0 and the last
// exactly `N - 1` texts further, nothing lies between them.
const _: () = {
    use core::mem::offset_of;
    const S: usize = core::mem::size_of::<emcp_str>();
    assert!(offset_of!(emcp_config, name) == 0);
    assert!(offset_of!(emcp_config, instructions) == 3 * S);
    assert!(offset_of!(emcp_tool, name) == 0);
    assert!(offset_of!(emcp_tool, output_schema) == 4 * S);
    assert!(offset_of!(emcp_resource, uri) == 0);
    assert!(offset_of!(emcp_resource, mime_type) == 4 * S);
    assert!(offset_of!(emcp_resource_template, uri_template) == 0);
    assert!(offset_of!(emcp_resource_template, mime_type) == 4 * S);
    assert!(offset_of!(emcp_prompt, name) == 0);
    assert!(offset_of!(emcp_prompt, description) == 2 * S);
    assert!(offset_of!(emcp_prompt_argument, name) == 0);
    assert!(offset_of!(emcp_prompt_argument, description) == 2 * S);
};

/// Whether a C array is NULL only when empty and `ok` holds for each of its items.
fn all_ok<T>(items: *const T, len: usize, ok: fn(&T) -> bool) -> bool {
    if len == 0 {
        return true;
    }
    // SAFETY: not NULL (checked first); emcp_server_init's contract: a non-NULL array of
    // the configuration holds `len` initialised items, unchanged while the server is used.
    !items.is_null()
        && unsafe { core::slice::from_raw_parts(items, len) }
            .iter()
            .all(ok)
}

/// A tool's texts and its `call` callback.
fn tool_ok(t: &emcp_tool) -> bool {
    // SAFETY: `emcp_tool` is `repr(C)` and starts with its five texts in a row (asserted
    // above): `leading_texts`' contract.
    texts_ok(unsafe { leading_texts::<_, 5>(t) }, 0b1001) // name, input_schema
        && t.call.is_some()
        && task_support_ok(t.task_support)
        && (!cfg!(feature = "plans") || plan_shape_ok(t))
}

/// Whether a tool's plan words are absent, or 4-aligned and as many as a head and
/// whole properties (what their contents hold is checked by `PlanRef::fits`, when the
/// server is built).
#[cfg_attr(not(feature = "plans"), allow(dead_code))]
fn plan_shape_ok(t: &emcp_tool) -> bool {
    use emcp::model::schema::{plan::layout, MAX_PLAN_PROPERTIES};
    if t.plan.is_null() {
        return t.plan_words == 0;
    }
    let props = t.plan_words.checked_sub(layout::HEAD_WORDS);
    t.plan.is_aligned()
        && props.is_some_and(|w| {
            w % layout::PROPERTY_WORDS == 0 && w / layout::PROPERTY_WORDS <= MAX_PLAN_PROPERTIES
        })
}

/// A tool's plan: its head and properties read in place from the words.
#[cfg_attr(not(feature = "plans"), allow(dead_code))]
fn plan_of(t: &'static emcp_tool) -> Option<emcp::model::schema::PlanRef<'static>> {
    use emcp::model::schema::plan::{layout, Head, Property};
    if t.plan.is_null() {
        return None;
    }
    let count = t.plan_words.saturating_sub(layout::HEAD_WORDS) / layout::PROPERTY_WORDS;
    // SAFETY: `tool_ok` accepted this tool when the server was built: `plan` is not
    // NULL, 4-aligned and `plan_words` = HEAD_WORDS + count * PROPERTY_WORDS long, and
    // emcp_server_init's contract keeps those words readable and unchanged while the
    // server is used. `Head` and `Property` are `repr(C)`, 4-aligned at most, exactly
    // HEAD_WORDS and PROPERTY_WORDS words, and of integer fields only (emcp's
    // `layout` module asserts it): every bit pattern of those words is a value.
    let (head, properties) = unsafe {
        let head = &*t.plan.cast::<Head>();
        let first = t.plan.add(layout::HEAD_WORDS).cast::<Property>();
        (head, core::slice::from_raw_parts(first, count))
    };
    Some(emcp::model::schema::PlanRef::from_parts(
        text(&t.input_schema),
        head,
        properties,
    ))
}

/// A task support a tasks build knows (one without ignores the field).
#[cfg(feature = "tasks")]
fn task_support_ok(t: emcp_task_support) -> bool {
    t <= EMCP_TASK_REQUIRED
}
#[cfg(not(feature = "tasks"))]
fn task_support_ok(_: emcp_task_support) -> bool {
    true
}

/// A resource's texts and its `read` callback.
fn resource_ok(r: &emcp_resource) -> bool {
    // SAFETY: `emcp_resource` is `repr(C)` and starts with its five texts in a row
    // (asserted above): `leading_texts`' contract.
    texts_ok(unsafe { leading_texts::<_, 5>(r) }, 0b11) // uri, name
        && r.read.is_some()
}

/// A template's texts and its `read` callback.
fn template_ok(t: &emcp_resource_template) -> bool {
    // SAFETY: `emcp_resource_template` is `repr(C)` and starts with its five texts in a
    // row (asserted above): `leading_texts`' contract.
    texts_ok(unsafe { leading_texts::<_, 5>(t) }, 0b11) // uri_template, name
        && t.read.is_some()
}

/// A prompt's texts, its `get` callback and its arguments.
fn prompt_ok(p: &emcp_prompt) -> bool {
    // SAFETY: `emcp_prompt` is `repr(C)` and starts with its three texts in a row
    // (asserted above): `leading_texts`' contract.
    texts_ok(unsafe { leading_texts::<_, 3>(p) }, 0b1) // name
        && p.get.is_some()
        && p.arguments_len <= EMCP_MAX_PROMPT_ARGUMENTS
        && all_ok(p.arguments, p.arguments_len, argument_ok)
}

/// A prompt argument's texts.
fn argument_ok(a: &emcp_prompt_argument) -> bool {
    // SAFETY: `emcp_prompt_argument` is `repr(C)` and starts with its three texts in a
    // row (asserted above): `leading_texts`' contract.
    texts_ok(unsafe { leading_texts::<_, 3>(a) }, 0b1) // name
}

/// Text of a required descriptor field (`""` if it is somehow absent: the
/// configuration was checked at init). Out of line in the plain forms: called for
/// every required text of every descriptor, one copy is smaller than many.
#[cfg_attr(not(emcp_fast), inline(never))]
pub(crate) fn text(s: &emcp_str) -> &'static str {
    opt(s).unwrap_or("")
}

/// Text of an optional descriptor field. Not validated again: [`CDevice::check`] found
/// every descriptor text UTF-8 at init. Only for texts of a configuration that check
/// accepted.
pub(crate) fn opt(s: &emcp_str) -> Option<&'static str> {
    if s.ptr.is_null() {
        return None;
    }
    // SAFETY: not NULL (checked above). Every caller passes a text of the server's own
    // configuration, which `CDevice::check` accepted before the server existed: its
    // `len` bytes were found UTF-8 then, and emcp_server_init's contract keeps them in
    // place and unchanged while the server is used.
    Some(unsafe {
        core::str::from_utf8_unchecked(core::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len))
    })
}

impl Device for CDevice {
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        let t = self.tool_desc(index)?;
        let a = &t.annotations;
        let mut tool =
            Tool::new(text(&t.name), text(&t.input_schema)).annotations(ToolAnnotations {
                title: None,
                read_only: hint(a.read_only),
                destructive: hint(a.destructive),
                idempotent: hint(a.idempotent),
                open_world: hint(a.open_world),
            });
        tool.title = opt(&t.title);
        tool.description = opt(&t.description);
        tool.output_schema = opt(&t.output_schema);
        #[cfg(feature = "tasks")]
        {
            use emcp::model::registry::TaskSupport;
            tool.task_support = match t.task_support {
                EMCP_TASK_OPTIONAL => TaskSupport::Optional,
                EMCP_TASK_REQUIRED => TaskSupport::Required,
                _ => TaskSupport::Forbidden,
            };
        }
        Some(tool)
    }

    fn tool_name(&self, index: usize) -> Option<&'static str> {
        self.tool_desc(index).map(|t| text(&t.name))
    }

    /// The plan the descriptor carries (written by `emcp-plan` at build time); none
    /// without the `plans` feature (its code is then left out of the image).
    fn tool_plan(&self, index: usize) -> Option<emcp::model::schema::PlanRef<'static>> {
        match cfg!(feature = "plans") {
            true => plan_of(self.tool_desc(index)?),
            false => None,
        }
    }

    fn resource(&self, index: usize) -> Option<Resource<'static>> {
        let r = self.resource_desc(index)?;
        let mut res = Resource::new(text(&r.uri), text(&r.name));
        res.title = opt(&r.title);
        res.description = opt(&r.description);
        res.mime_type = opt(&r.mime_type);
        res.size = r.has_size.then_some(r.size);
        Some(res)
    }

    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'static>> {
        let t = self.template_desc(index)?;
        let mut tpl = ResourceTemplate::new(text(&t.uri_template), text(&t.name));
        tpl.title = opt(&t.title);
        tpl.description = opt(&t.description);
        tpl.mime_type = opt(&t.mime_type);
        Some(tpl)
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'static>> {
        let p = self.prompt_desc(index)?;
        let mut prompt = Prompt::new(text(&p.name));
        prompt.title = opt(&p.title);
        prompt.description = opt(&p.description);
        Some(prompt)
    }

    fn prompt_argument(&self, prompt: usize, index: usize) -> Option<PromptArgument<'static>> {
        let p = self.prompt_desc(prompt)?;
        let a = Self::prompt_arg(p, index)?;
        let mut arg = PromptArgument::new(text(&a.name));
        arg.title = opt(&a.title);
        arg.description = opt(&a.description);
        arg.required = a.required;
        Some(arg)
    }

    fn completions(&self) -> bool {
        self.config.complete.is_some()
    }

    fn authorize(&mut self, tool: usize, args: Option<Value<'_>>) -> Verdict {
        let Some(f) = self.config.authorize else {
            return Verdict::Allow;
        };
        let raw = args.map_or(&[][..], |a| a.raw());
        let args = emcp_str {
            ptr: if args.is_some() {
                raw.as_ptr().cast()
            } else {
                core::ptr::null()
            },
            len: raw.len(),
        };
        let mut reason = emcp_str {
            ptr: core::ptr::null(),
            len: 0,
        };
        let mut retry_after_ms = 0u32;
        // SAFETY: `f` is the configuration's authorization callback (set: it came out of
        // a `Some`), valid with `userdata` while the server is used (emcp_server_init's
        // contract), called with the arguments its type documents: `args` borrows the
        // request for the call, `reason` and `retry_after_ms` are live locals.
        let status = unsafe {
            f(
                self.config.userdata,
                tool,
                args,
                &mut reason,
                &mut retry_after_ms,
            )
        };
        match status {
            s if is_ok(s) => Verdict::Allow,
            EMCP_RETRY_LATER => Verdict::RetryAfter(retry_after_ms),
            // SAFETY: `emcp_authorize_fn`'s contract: a `reason` the callback set points to
            // its `len` bytes, valid as long as the server (it was set empty, NULL, before
            // the call).
            _ => Verdict::Deny(unsafe { reason.get() }.unwrap_or("tool refused by the device")),
        }
    }

    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        let Some(f) = self.tool_desc(call.tool()).and_then(|t| t.call) else {
            call.error("tool not implemented");
            return Step::Done;
        };
        let can_poll = self
            .tool_desc(call.tool())
            .is_some_and(|t| t.poll.is_some());
        run_tool(f, self.config.userdata, call, can_poll)
    }

    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match self.tool_desc(call.tool()).and_then(|t| t.poll) {
            Some(f) => run_tool(f, self.config.userdata, call, true),
            None => Step::Done,
        }
    }

    fn cancel_tool(&mut self, tool: usize, state: u32) {
        if let Some(f) = self.tool_desc(tool).and_then(|t| t.cancel) {
            // SAFETY: `f` is the tool's `cancel` callback (set: it came out of a `Some`),
            // valid with `userdata` while the server is used (emcp_server_init's
            // contract); it takes plain integers.
            unsafe { f(self.config.userdata, tool, state) }
        }
    }

    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        let f = match read.target() {
            Target::Resource(i) => self.resource_desc(i).and_then(|r| r.read),
            Target::Template(i) => self.template_desc(i).and_then(|t| t.read),
        };
        let f = f.ok_or(ReadError::NotFound)?;
        let handle = core::ptr::from_mut(read).cast::<emcp_resource_read>();
        // SAFETY: `f` is the descriptor's `read` callback (set: it came out of a
        // `Some`), valid with `userdata` while the server is used (emcp_server_init's
        // contract). `handle` comes from `read`, which is not used again until `f`
        // returns: the `emcp_read_*` functions alone reach it, during the call.
        let status = unsafe { f(self.config.userdata, handle) };
        match status {
            s if is_ok(s) => Ok(()),
            EMCP_NOT_FOUND => Err(ReadError::NotFound),
            _ => Err(ReadError::Failed),
        }
    }

    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        let f = self
            .prompt_desc(get.prompt())
            .and_then(|p| p.get)
            .ok_or(ReadError::NotFound)?;
        let handle = core::ptr::from_mut(get).cast::<emcp_prompt_get>();
        // SAFETY: `f` is the prompt's `get` callback (set: it came out of a `Some`),
        // valid with `userdata` while the server is used (emcp_server_init's contract).
        // `handle` comes from `get`, which is not used again until `f` returns: the
        // `emcp_prompt_*` functions alone reach it, during the call.
        let status = unsafe { f(self.config.userdata, handle) };
        match status {
            s if is_ok(s) => Ok(()),
            EMCP_NOT_FOUND => Err(ReadError::NotFound),
            _ => Err(ReadError::Failed),
        }
    }

    #[cfg(feature = "tasks")]
    fn now_ms(&self) -> u64 {
        match self.config.now_ms {
            // SAFETY: `f` is the configuration's clock callback (set: it came out of a
            // `Some`), valid with `userdata` while the server is used (emcp_server_init's
            // contract); it takes only `userdata`.
            Some(f) => unsafe { f(self.config.userdata) },
            None => 0,
        }
    }

    #[cfg(feature = "tasks")]
    fn task_result(&mut self, call: &mut ToolCall<'_>) {
        if let Some(f) = self.tool_desc(call.tool()).and_then(|t| t.result) {
            // A result is written at once: never pending.
            let _ = run_tool(f, self.config.userdata, call, false);
        }
    }

    fn take_changes(&mut self) -> u32 {
        // SAFETY: `changes` points at the flags beside the server in the same storage
        // (set by emcp_server_init before the server existed), in place as long as the
        // server; they are atomics, shared with `emcp_server_resource_changed` by design.
        unsafe { self.changes.as_ref() }.map_or(0, |c| c.take())
    }

    fn complete(&mut self, completion: &mut Completion<'_>) {
        if let Some(f) = self.config.complete {
            let handle = core::ptr::from_mut(completion).cast::<emcp_completion>();
            // SAFETY: `f` is the configuration's completion callback (set: it came out
            // of a `Some`), valid with `userdata` while the server is used
            // (emcp_server_init's contract). `handle` comes from `completion`, which is
            // not used again until `f` returns: the `emcp_completion_*` functions alone
            // reach it, during the call.
            unsafe { f(self.config.userdata, handle) }
        }
    }
}

fn run_tool(
    f: unsafe extern "C" fn(*mut c_void, *mut emcp_tool_call) -> emcp_status,
    userdata: *mut c_void,
    call: &mut ToolCall<'_>,
    can_poll: bool,
) -> Step {
    if !can_poll {
        call.forbid_defer();
    }
    let handle = core::ptr::from_mut(call).cast::<emcp_tool_call>();
    // SAFETY: `f` is the tool's `call` or `poll` callback (the caller took it out of a
    // `Some`), valid with `userdata` while the server is used (emcp_server_init's
    // contract). `handle` comes from `call`, which is not used again until `f` returns:
    // the `emcp_args_*` and `emcp_call_*` functions alone reach it, during the call.
    let status = unsafe { f(userdata, handle) };
    match status {
        s if is_ok(s) => Step::Done,
        EMCP_PENDING if can_poll => Step::Pending,
        _ => {
            // Any other status is the tool's own failure: an isError result.
            if !call.written() {
                call.error("tool failed");
            } else {
                call.set_error();
            }
            Step::Done
        }
    }
}

#[cfg(all(test, feature = "plans"))]
mod tests {
    extern crate std;
    use std::{boxed::Box, vec, vec::Vec};

    use super::*;
    use emcp::model::schema::plan::layout::{words, HEAD_WORDS, PROPERTY_WORDS};
    use emcp::model::schema::Plan;

    const LED: &str = r#"{"type":"object","properties":{"color":{"type":"string","enum":["off","red"]},"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["color"],"additionalProperties":false}"#;

    fn text_of(t: &'static str) -> emcp_str {
        emcp_str {
            ptr: t.as_ptr().cast(),
            len: t.len(),
        }
    }

    const NO_TEXT: emcp_str = emcp_str {
        ptr: core::ptr::null(),
        len: 0,
    };

    /// A tool whose schema is `schema` and whose plan is `plan_words` (leaked: the
    /// descriptor lives as long as a C image's).
    fn tool(schema: &'static str, plan_words: Vec<u32>) -> &'static emcp_tool {
        let words: &'static [u32] = Box::leak(plan_words.into_boxed_slice());
        Box::leak(Box::new(emcp_tool {
            name: text_of("t"),
            title: NO_TEXT,
            description: NO_TEXT,
            input_schema: text_of(schema),
            output_schema: NO_TEXT,
            annotations: emcp_tool_annotations {
                read_only: 0,
                destructive: 0,
                idempotent: 0,
                open_world: 0,
            },
            call: None,
            poll: None,
            cancel: None,
            task_support: 0,
            result: None,
            plan: if words.is_empty() {
                core::ptr::null()
            } else {
                words.as_ptr()
            },
            plan_words: words.len(),
        }))
    }

    fn plan_words(schema: &str, big_endian: bool) -> Vec<u32> {
        let plan = Plan::compile(schema);
        let mut out = vec![0u32; HEAD_WORDS + 8 * PROPERTY_WORDS];
        let n = words(&plan, big_endian, &mut out).unwrap();
        out.truncate(n);
        out
    }

    /// The words a generator writes, read in place, are the plan compiled in the
    /// program, and check arguments as it does.
    #[test]
    fn plan_words_read_in_place_are_the_plan() {
        let native = cfg!(target_endian = "big");
        for schema in [
            LED,
            r#"{"type":"object"}"#,
            r#"{"properties":{"a":{},"b":{"type":["string","null"]},"c":{"maxLength":3}},"required":["c","a"]}"#,
        ] {
            let plan = Plan::compile(schema);
            let t = tool(schema, plan_words(schema, native));
            assert!(plan_shape_ok(t));
            let read = plan_of(t).unwrap();
            assert!(read.fits(), "{schema}");
            assert_eq!(read.head(), plan.head());
            assert_eq!(read.properties(), plan.properties());
            for args in [
                r#"{"color":"red"}"#,
                r#"{"color":"blue"}"#,
                r#"{"c":"abcd","a":1}"#,
                "{}",
            ] {
                let a = emcp::wire::json::parse(args.as_bytes()).unwrap();
                assert_eq!(
                    read.validate(Some(a)).is_ok(),
                    plan.validate(Some(a)).is_ok()
                );
            }
        }
    }

    /// Words of another text, of the other byte order, or changed do not fit; words of
    /// the wrong shape are refused before they are read.
    #[test]
    fn foreign_or_broken_plans_are_refused() {
        let other = r#"{"type":"object","properties":{"color":{"type":"string","enum":["off","RED"]},"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["color"],"additionalProperties":false}"#;
        let native = cfg!(target_endian = "big");
        assert!(!plan_of(tool(other, plan_words(LED, native)))
            .unwrap()
            .fits());
        assert!(!plan_of(tool(LED, plan_words(LED, !native))).unwrap().fits());
        let good = plan_words(LED, native);
        for k in 0..good.len() {
            for flip in [1u32, 0x100, 0x10000, 0x0100_0000, 0x8000_0000] {
                let mut w = good.clone();
                w[k] ^= flip;
                let t = tool(LED, w);
                // Either refused, or read without a fault: the hash covers the text, not
                // the words, so a changed bound or flag is not noticed.
                if plan_of(t).unwrap().fits() {
                    let plan = Plan::compile(LED);
                    for args in [
                        r#"{"color":"red","brightness":7}"#,
                        r#"{"color":"x"}"#,
                        "{}",
                    ] {
                        let a = emcp::wire::json::parse(args.as_bytes()).unwrap();
                        let _ = plan_of(t).unwrap().validate(Some(a));
                        let _ = plan.validate(Some(a));
                    }
                }
            }
        }
        // Shapes: a head alone is a plan of no properties; a partial property, more
        // properties than a plan holds, a length without words are refused.
        let mut short = good.clone();
        short.pop();
        assert!(!plan_shape_ok(tool(LED, short)));
        assert!(!plan_shape_ok(tool(
            LED,
            vec![0; HEAD_WORDS + 9 * PROPERTY_WORDS]
        )));
        let mut none = *tool(LED, vec![]);
        assert!(plan_shape_ok(&none));
        none.plan_words = 3;
        assert!(!plan_shape_ok(&none));
        // Misaligned: one byte into the words.
        let mut odd = *tool(LED, good.clone());
        odd.plan = odd.plan.cast::<u8>().wrapping_add(1).cast::<u32>();
        assert!(!plan_shape_ok(&odd));
    }

    /// A library without the walker (`schema-walk`) refuses a tool with no plan; one
    /// with it walks that tool's schema. CI runs this both ways.
    #[test]
    fn a_tool_without_its_plan_needs_the_walker() {
        unsafe extern "C" fn call(
            _: *mut c_void,
            _: *mut crate::call::emcp_tool_call,
        ) -> emcp_status {
            crate::status::EMCP_OK
        }
        let native = cfg!(target_endian = "big");
        let mut tools = vec![*tool(LED, plan_words(LED, native)), *tool(LED, vec![])];
        for (t, name) in tools.iter_mut().zip(["planned", "bare"]) {
            t.name = text_of(name);
            t.call = Some(call);
        }
        let tools: &'static [emcp_tool] = Box::leak(tools.into_boxed_slice());
        // SAFETY: every field of `emcp_config` is an integer, a pointer, an `emcp_str`
        // or an optional function pointer: all-zero bytes are a valid value of each
        // (0, NULL, an empty text, None).
        let mut config: emcp_config = unsafe { core::mem::zeroed() };
        config.name = text_of("b");
        config.version = text_of("1");
        config.tools = tools.as_ptr();
        config.tools_len = tools.len();
        let changes = emcp::state::subscription::ChangeFlags::new();
        let device = CDevice {
            config: Box::leak(Box::new(config)),
            changes: &changes,
        };
        assert!(device.check());
        let checked = crate::server::CServer::check_device(&device);
        assert_eq!(
            checked.is_ok(),
            cfg!(feature = "schema-walk"),
            "{checked:?}"
        );
        if let Err(e) = checked {
            assert!(
                matches!(e, emcp::wire::error::ConfigError::NoPlan { tool: 1 }),
                "{e:?}"
            );
        }
    }
}
