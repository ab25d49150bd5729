//! The C descriptors of tools, resources, templates and prompts, the configuration that
//! holds them, and the [`Device`] they make.
//!
//! Descriptors are meant to be `static const` arrays in flash. They are read through
//! raw pointers on every request, so they must stay valid and unchanged for the
//! server's life.

use core::ffi::c_void;

use emcp::device::{Completion, PromptGet, ReadError, ResourceRead, Step, Target, ToolCall};
use emcp::registry::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations};
use emcp::Device;

use crate::call::emcp_tool_call;
use crate::prompt::{emcp_completion, emcp_prompt_get};
use crate::read::emcp_resource_read;
use crate::status::{emcp_status, is_ok, EMCP_NOT_FOUND, EMCP_PENDING};
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

/// Writes output bytes (to a UART, a socket). Returns `EMCP_OK` when all were taken.
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
/// failure (-32603). A failure after content was written: with an output buffer the
/// response becomes -32603; with a write callback the partial contents were already
/// sent and stand.
pub type emcp_read_fn = Option<
    unsafe extern "C" fn(userdata: *mut c_void, read: *mut emcp_resource_read) -> emcp_status,
>;
/// Renders a prompt's messages. Required arguments were checked already. Returns
/// `EMCP_OK`, `EMCP_NOT_FOUND` (answered as an unknown prompt) or another status for a
/// failure (-32603), as for reads.
pub type emcp_prompt_fn =
    Option<unsafe extern "C" fn(userdata: *mut c_void, get: *mut emcp_prompt_get) -> emcp_status>;
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
    /// Told when the client cancels a pending call (optional).
    pub cancel: emcp_cancel_fn,
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
    /// Its arguments (may be NULL when `arguments_len` is 0). At most 8.
    pub arguments: *const emcp_prompt_argument,
    /// Number of arguments.
    pub arguments_len: usize,
    /// Renders it (required).
    pub get: emcp_prompt_fn,
}

/// Most arguments a C prompt may declare.
pub const EMCP_MAX_PROMPT_ARGUMENTS: usize = 8;

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
    /// Resources.
    pub resources: *const emcp_resource,
    /// Number of resources (at most 32).
    pub resources_len: usize,
    /// Resource templates.
    pub templates: *const emcp_resource_template,
    /// Number of templates.
    pub templates_len: usize,
    /// Prompts.
    pub prompts: *const emcp_prompt,
    /// Number of prompts.
    pub prompts_len: usize,
    /// Completion callback; NULL: the server does not offer completions.
    pub complete: emcp_complete_fn,
    /// Output callback; NULL: output collects in the output buffer given to
    /// `emcp_server_init`, to be taken with `emcp_server_take_output`.
    pub write: emcp_write_fn,
    /// Passed first to every callback.
    pub userdata: *mut c_void,
    /// Items per list page; 0 means the default, 16.
    pub page_size: usize,
    /// `ttlMs` of discover and list results.
    pub list_ttl_ms: u32,
    /// `ttlMs` of resource reads.
    pub read_ttl_ms: u32,
}

/// `items[index]` of a C array, or `None` past its end or when it is NULL.
///
/// # Safety
/// `items` must point to `len` valid elements for `'a`.
unsafe fn nth<'a, T>(items: *const T, len: usize, index: usize) -> Option<&'a T> {
    if items.is_null() || index >= len {
        return None;
    }
    // SAFETY: index < len and `items` points to `len` elements.
    Some(unsafe { &*items.add(index) })
}

/// The device a C configuration describes.
#[derive(Debug)]
pub(crate) struct CDevice {
    pub(crate) config: &'static emcp_config,
    /// Resources changed through `emcp_server_resource_changed`; lives outside the
    /// server state (see `server::Storage`), so raising a flag from a callback or an
    /// interrupt never aliases the server.
    pub(crate) changes: *const emcp::subscription::ChangeFlags,
}

impl CDevice {
    pub(crate) fn tool_desc(&self, i: usize) -> Option<&'static emcp_tool> {
        // SAFETY: emcp_server_init's contract: the arrays outlive the server.
        unsafe { nth(self.config.tools, self.config.tools_len, i) }
    }
    pub(crate) fn resource_desc(&self, i: usize) -> Option<&'static emcp_resource> {
        // SAFETY: as above.
        unsafe { nth(self.config.resources, self.config.resources_len, i) }
    }
    pub(crate) fn template_desc(&self, i: usize) -> Option<&'static emcp_resource_template> {
        // SAFETY: as above.
        unsafe { nth(self.config.templates, self.config.templates_len, i) }
    }
    pub(crate) fn prompt_desc(&self, i: usize) -> Option<&'static emcp_prompt> {
        // SAFETY: as above.
        unsafe { nth(self.config.prompts, self.config.prompts_len, i) }
    }
    fn prompt_args(p: &'static emcp_prompt) -> impl Iterator<Item = &'static emcp_prompt_argument> {
        // SAFETY: as above.
        (0..p.arguments_len.min(EMCP_MAX_PROMPT_ARGUMENTS))
            .filter_map(move |i| unsafe { nth(p.arguments, p.arguments_len, i) })
    }

    /// Every required text present and every text UTF-8; every required callback set.
    pub(crate) fn check(&self) -> bool {
        let c = self.config;
        // SAFETY: emcp_server_init's contract for every descriptor text.
        unsafe {
            let req = |s: &emcp_str| s.get().is_some();
            let opt = |s: &emcp_str| s.is_absent_or_valid();
            if !(req(&c.name) && req(&c.version) && opt(&c.title) && opt(&c.instructions)) {
                return false;
            }
            let tools = (0..c.tools_len).filter_map(|i| self.tool_desc(i)).all(|t| {
                req(&t.name)
                    && opt(&t.title)
                    && opt(&t.description)
                    && req(&t.input_schema)
                    && opt(&t.output_schema)
                    && t.call.is_some()
            });
            let resources = (0..c.resources_len)
                .filter_map(|i| self.resource_desc(i))
                .all(|r| {
                    req(&r.uri)
                        && req(&r.name)
                        && opt(&r.title)
                        && opt(&r.description)
                        && opt(&r.mime_type)
                        && r.read.is_some()
                });
            let templates = (0..c.templates_len)
                .filter_map(|i| self.template_desc(i))
                .all(|t| {
                    req(&t.uri_template)
                        && req(&t.name)
                        && opt(&t.title)
                        && opt(&t.description)
                        && opt(&t.mime_type)
                        && t.read.is_some()
                });
            let prompts = (0..c.prompts_len)
                .filter_map(|i| self.prompt_desc(i))
                .all(|p| {
                    req(&p.name)
                        && opt(&p.title)
                        && opt(&p.description)
                        && p.get.is_some()
                        && p.arguments_len <= EMCP_MAX_PROMPT_ARGUMENTS
                        && (p.arguments_len == 0 || !p.arguments.is_null())
                        && Self::prompt_args(p)
                            .all(|a| req(&a.name) && opt(&a.title) && opt(&a.description))
                });
            let arrays = (c.tools_len == 0 || !c.tools.is_null())
                && (c.resources_len == 0 || !c.resources.is_null())
                && (c.templates_len == 0 || !c.templates.is_null())
                && (c.prompts_len == 0 || !c.prompts.is_null());
            arrays && tools && resources && templates && prompts
        }
    }
}

/// Text of a descriptor field (`""` for a required one that is somehow invalid: the
/// configuration was checked at init).
fn text(s: &emcp_str) -> &'static str {
    // SAFETY: emcp_server_init's contract.
    unsafe { s.get() }.unwrap_or("")
}

fn opt(s: &emcp_str) -> Option<&'static str> {
    // SAFETY: emcp_server_init's contract.
    unsafe { s.get() }
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
        Some(tool)
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
        let a = Self::prompt_args(p).nth(index)?;
        let mut arg = PromptArgument::new(text(&a.name));
        arg.title = opt(&a.title);
        arg.description = opt(&a.description);
        arg.required = a.required;
        Some(arg)
    }

    fn completions(&self) -> bool {
        self.config.complete.is_some()
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
            // SAFETY: a callback of the configuration, called as documented.
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
        // SAFETY: the handle is valid for the callback's duration only, as documented.
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
        // SAFETY: valid for the callback's duration only, as documented.
        let status = unsafe { f(self.config.userdata, handle) };
        match status {
            s if is_ok(s) => Ok(()),
            EMCP_NOT_FOUND => Err(ReadError::NotFound),
            _ => Err(ReadError::Failed),
        }
    }

    fn take_changes(&mut self) -> u32 {
        // SAFETY: points at the flags beside the server in the same storage, alive as
        // long as the server.
        unsafe { self.changes.as_ref() }.map_or(0, |c| c.take())
    }

    fn complete(&mut self, completion: &mut Completion<'_>) {
        if let Some(f) = self.config.complete {
            let handle = core::ptr::from_mut(completion).cast::<emcp_completion>();
            // SAFETY: valid for the callback's duration only, as documented.
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
    // SAFETY: the handle is valid for the callback's duration only, as documented.
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
