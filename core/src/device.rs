//! The device side: the [`Device`] trait a firmware implements, and the request
//! contexts its handlers read arguments from and write results through.
//!
//! Every context writes straight into the output [`Sink`](crate::json::Sink) as the
//! handler produces content — a 1 MiB blob needs no 1 MiB buffer. The response envelope
//! is opened lazily at the first content, so a handler may still decline (e.g. a
//! resource that does not exist) before writing anything.

use core::fmt;

use crate::json::writer::{member_key, MemberKey};
use crate::json::{JsonWriter, Str, Value};
use crate::registry::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use crate::rpc::{self, Id};

/// The opening of a text content block, up to its text (comma first, dropped when
/// none is due).
const TEXT_BLOCK: &[u8] = b",{\"type\":\"text\",\"text\":";

/// A result's opening and what follows its brace: initialize era, 2026-07-28.
#[cfg(target_pointer_width = "64")]
type Opening = (&'static [u8], &'static [u8]);

/// The result's opening with the `content` array and its first block, a text block,
/// up to its text.
#[cfg(target_pointer_width = "64")]
const RESULT_TEXT_BLOCK: Opening = (
    b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":",
    b",\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":",
);

/// The result's opening with `contents` and its first entry up to the uri.
#[cfg(target_pointer_width = "64")]
const RESULT_CONTENTS: Opening = (
    b",\"result\":{\"contents\":[{\"uri\":",
    b",\"result\":{\"resultType\":\"complete\",\"contents\":[{\"uri\":",
);

/// The end of a text block and the opening of the next one, up to its text.
#[cfg(target_pointer_width = "64")]
const NEXT_TEXT_BLOCK: &[u8] = b"},{\"type\":\"text\",\"text\":";

/// What a tool handler did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use]
pub enum Step {
    /// The result is complete (whatever was written is the result).
    Done,
    /// The work goes on: the server keeps the request as a job and calls
    /// [`Device::poll_tool`] again. Only allowed when [`ToolCall::can_defer`] is true and
    /// before anything was written; otherwise it counts as `Done`.
    Pending,
}

/// Why a resource could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ReadError {
    /// No such resource (answered with the era's not-found error).
    NotFound,
    /// The device failed to read it (-32603).
    Failed,
}

/// Severity of a log message (RFC 5424 order, least severe first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LogLevel {
    /// debug
    Debug,
    /// info
    Info,
    /// notice
    Notice,
    /// warning
    Warning,
    /// error
    Error,
    /// critical
    Critical,
    /// alert
    Alert,
    /// emergency
    Emergency,
}

impl LogLevel {
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: Str<'_>) -> Option<Self> {
        Self::ALL.into_iter().find(|l| s.eq_str(l.as_str()))
    }
}

/// A device: what it offers and the handlers that serve it.
///
/// Descriptors are looked up by index (`0..` until `None`), so they can live in `static`
/// arrays, in flash, or behind a C ABI. Every method has a default: a device implements
/// only the primitives it has.
pub trait Device {
    /// Tool number `index`.
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        let _ = index;
        None
    }
    /// The compiled input schema of tool number `index` ([`Tool::plan`]). The default
    /// reads it from [`Device::tool`]. A device whose tools never carry one (built at
    /// run time, e.g. from C descriptors) returns `None` here: its image then holds
    /// no code for plans.
    fn tool_plan(&self, index: usize) -> Option<&'static crate::schema::Plan<'static>> {
        self.tool(index).and_then(|t| t.plan)
    }
    /// Resource number `index`.
    fn resource(&self, index: usize) -> Option<Resource<'static>> {
        let _ = index;
        None
    }
    /// Resource template number `index`.
    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'static>> {
        let _ = index;
        None
    }
    /// Prompt number `index`.
    fn prompt(&self, index: usize) -> Option<Prompt<'static>> {
        let _ = index;
        None
    }
    /// Argument `index` of prompt `prompt`. The default reads
    /// [`Prompt::arguments`]; a device whose descriptors are not Rust slices (a C
    /// array) overrides this instead.
    fn prompt_argument(&self, prompt: usize, index: usize) -> Option<PromptArgument<'static>> {
        self.prompt(prompt)?.arguments.get(index).copied()
    }
    /// Whether the device answers `completion/complete`.
    fn completions(&self) -> bool {
        false
    }

    /// May tool `tool` run now, with these (already validated) arguments? Asked before
    /// every call ([`crate::policy`]); a refusal becomes a tool result with
    /// `isError: true` and the reason. The default allows everything.
    fn authorize(&mut self, tool: usize, args: Option<Value<'_>>) -> crate::policy::Verdict {
        let _ = (tool, args);
        crate::policy::Verdict::Allow
    }

    /// Run a tool. Arguments were already validated against its input schema.
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        call.error("tool not implemented");
        Step::Done
    }
    /// Continue a job that [`Device::call_tool`] left [`Step::Pending`]
    /// (`call.args()` is `None` now: keep what you need in the device or in
    /// [`ToolCall::set_state`]).
    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        let _ = call;
        Step::Done
    }
    /// The client cancelled a pending job (`tool` index, job `state`). No result is sent.
    fn cancel_tool(&mut self, tool: usize, state: u32) {
        let _ = (tool, state);
    }
    /// Read a resource (a static one, or one matching a template).
    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        let _ = read;
        Err(ReadError::NotFound)
    }
    /// Render a prompt. Required arguments were already checked. An error before
    /// anything was written is answered as for a read (`NotFound`: the prompt's
    /// not-found error; `Failed`: -32603).
    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        let _ = get;
        Ok(())
    }
    /// Suggest completions.
    fn complete(&mut self, completion: &mut Completion<'_>) {
        let _ = completion;
    }
    /// Bit mask of resource indices changed since the last call (e.g. set from an
    /// interrupt through a [`crate::subscription::ChangeFlags`]). Called by
    /// [`crate::Server::poll`] and after every request.
    fn take_changes(&mut self) -> u32 {
        0
    }
}

/// Per-request facts shared by the contexts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exchange<'a> {
    pub id: Id<'a>,
    pub modern: bool,
    pub progress_token: Option<&'a [u8]>,
    pub log_level: Option<LogLevel>,
    /// The input capabilities the client declared.
    #[cfg(feature = "input")]
    pub caps: crate::input::Capabilities,
}

impl<'a> Exchange<'a> {
    /// Open the result envelope (and `resultType` for 2026-07-28).
    pub(crate) fn begin_result(&self, w: &mut JsonWriter<'_>) {
        // On 64-bit hosts `resultType` goes out with the result's brace.
        #[cfg(target_pointer_width = "64")]
        if self.modern {
            rpc::begin_message(
                w,
                rpc::ID,
                self.id.raw(),
                b",\"result\":{\"resultType\":\"complete\"",
            );
            w.member_done();
            return;
        }
        rpc::begin_result(w, self.id);
        #[cfg(not(target_pointer_width = "64"))]
        if self.modern {
            w.member_lit(b",\"resultType\":\"complete\"");
        }
    }

    /// Open the result envelope and, in the same write, `levels - 1` containers more
    /// with `open` (the text after the result's brace, `resultType` added for
    /// 2026-07-28).
    #[cfg(target_pointer_width = "64")]
    fn begin_result_n(&self, w: &mut JsonWriter<'_>, open: Opening, levels: u8) {
        w.raw(rpc::ID);
        w.raw(self.id.raw());
        w.begin_raw_n(if self.modern { open.1 } else { open.0 }, levels);
    }

    /// Open the result envelope and, in it, the array the content goes into: `open` is
    /// its key and bracket after a comma (`,"content":[`), written at once.
    fn begin_list(&self, w: &mut JsonWriter<'_>, open: &'static [u8]) {
        self.begin_result(w);
        w.begin(open);
    }

    fn log(&self, w: &mut JsonWriter<'_>, level: LogLevel, logger: &str, data: &str) -> bool {
        if self.log_level.is_none_or(|min| level < min) {
            return false;
        }
        rpc::begin_notification(w, "message");
        w.key_raw(member_key!("level"));
        w.str_lit(level.as_str());
        w.key_raw(member_key!("logger"));
        w.str(logger);
        w.key_raw(member_key!("data"));
        w.str(data);
        rpc::end_response(w);
        true
    }

    fn progress<N: ProgressNumber>(
        &self,
        w: &mut JsonWriter<'_>,
        progress: N,
        total: Option<N>,
        message: Option<&str>,
    ) -> bool {
        let Some(token) = self.progress_token else {
            return false;
        };
        rpc::begin_notification(w, "progress");
        w.key_raw(member_key!("progressToken"));
        w.raw_value(token);
        w.key_raw(member_key!("progress"));
        progress.write(w);
        if let Some(t) = total {
            w.key_raw(member_key!("total"));
            t.write(w);
        }
        if let Some(m) = message {
            w.key_raw(member_key!("message"));
            w.str(m);
        }
        rpc::end_response(w);
        true
    }
}

/// A progress figure: written by its own writer method, so that integer progress
/// never reaches the `f64` formatter.
trait ProgressNumber: Copy {
    fn write(self, w: &mut JsonWriter<'_>);
}

impl ProgressNumber for f64 {
    fn write(self, w: &mut JsonWriter<'_>) {
        w.f64(self);
    }
}

impl ProgressNumber for u64 {
    fn write(self, w: &mut JsonWriter<'_>) {
        w.u64(self);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing written yet.
    Idle,
    /// Inside the `content` array.
    Content,
    /// Inside the `content` array after a whole text block, whose `}` is not written
    /// yet: what comes next (another block, `structuredContent`, the end of the
    /// array) writes it with its own text, one sink write for both. On 64-bit hosts
    /// (a small target keeps the smaller code).
    #[cfg(target_pointer_width = "64")]
    Block,
    /// A text string is open (parts may follow).
    Text,
    /// A base64 string is open (data may follow).
    Data,
    /// `content` closed (structured content written, or the result finished).
    Closed,
}

impl Phase {
    fn streaming(self) -> bool {
        matches!(self, Phase::Text | Phase::Data)
    }
}

/// A `tools/call` in progress: arguments in, content out.
///
/// Every content method returns whether the content was taken: `false` when the result
/// can no longer take it (after [`ToolCall::structured`]), or when a part does not fit
/// the open stream (text parts into a text block, data into an image/audio block).
pub struct ToolCall<'a> {
    pub(crate) w: JsonWriter<'a>,
    pub(crate) ex: Exchange<'a>,
    pub(crate) tool: usize,
    pub(crate) args: Option<Value<'a>>,
    /// The arguments filed by declared property while a compiled schema checked them
    /// ([`ToolCall::arg`] looks there first). On 64-bit hosts only: a small target
    /// keeps the walk, its flash being scarcer than its cycles.
    #[cfg(target_pointer_width = "64")]
    pub(crate) filed: Option<crate::schema::Filed<'a, 'a>>,
    pub(crate) can_defer: bool,
    pub(crate) state: u32,
    pub(crate) is_error: bool,
    phase: Phase,
    #[cfg(feature = "input")]
    pub(crate) input: crate::input::Input<'a>,
}

impl<'a> ToolCall<'a> {
    pub(crate) fn new(
        w: JsonWriter<'a>,
        ex: Exchange<'a>,
        tool: usize,
        args: Option<Value<'a>>,
    ) -> Self {
        Self {
            w,
            ex,
            tool,
            args,
            #[cfg(target_pointer_width = "64")]
            filed: None,
            can_defer: false,
            state: 0,
            is_error: false,
            phase: Phase::Idle,
            #[cfg(feature = "input")]
            input: crate::input::Input::default(),
        }
    }

    /// Index of the tool being called.
    pub fn tool(&self) -> usize {
        self.tool
    }
    /// The arguments object (`None` when absent, and when resuming a job).
    pub fn args(&self) -> Option<Value<'a>> {
        self.args
    }
    /// One argument by name.
    pub fn arg(&self, name: &str) -> Option<Value<'a>> {
        // A declared property's argument, as filed while the plan checked them.
        #[cfg(target_pointer_width = "64")]
        if let Some(value) = self.filed.as_ref().and_then(|f| f.get(name)) {
            return value;
        }
        self.args.and_then(|a| a.get(name))
    }
    /// Decode the arguments into a `#[derive(Deserialize)]` struct with serde-json-core;
    /// escaped strings are decoded into `scratch`.
    pub fn deserialize<'de, T: serde::Deserialize<'de>>(&self, scratch: &'de mut [u8]) -> Option<T>
    where
        'a: 'de,
    {
        let raw = self.args.map(|a| a.raw()).unwrap_or(b"{}");
        serde_json_core::from_slice_escaped(raw, scratch)
            .ok()
            .map(|(v, _)| v)
    }
    /// True when returning [`Step::Pending`] is allowed (a job slot is free and nothing
    /// was written yet).
    pub fn can_defer(&self) -> bool {
        self.can_defer && self.phase == Phase::Idle
    }
    /// Forbid [`Step::Pending`] for this call (e.g. the device could not continue it).
    pub fn forbid_defer(&mut self) {
        self.can_defer = false;
    }
    /// The job's state word (kept between polls).
    pub fn state(&self) -> u32 {
        self.state
    }
    /// Set the job's state word.
    pub fn set_state(&mut self, state: u32) {
        self.state = state;
    }
    /// Send `notifications/progress` if the client asked for progress (it sent a
    /// `progressToken`) and no content was written yet. Returns whether it was sent.
    /// Out of line on 32-bit targets (smaller there).
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    pub fn progress(&mut self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        self.phase == Phase::Idle && self.ex.progress(&mut self.w, progress, total, message)
    }
    /// [`progress`](Self::progress) in whole units: the same notification, written
    /// without `f64` (a firmware that only counts steps links no float formatting).
    pub fn progress_u64(
        &mut self,
        progress: u64,
        total: Option<u64>,
        message: Option<&str>,
    ) -> bool {
        self.phase == Phase::Idle && self.ex.progress(&mut self.w, progress, total, message)
    }
    /// Send `notifications/message` if the client enabled this level, before any
    /// content. Returns whether it was sent.
    pub fn log(&mut self, level: LogLevel, logger: &str, data: &str) -> bool {
        self.phase == Phase::Idle && self.ex.log(&mut self.w, level, logger, data)
    }

    /// Open a new content block: starts the result, or ends an open stream.
    fn block(&mut self) -> bool {
        match self.phase {
            Phase::Idle => {
                self.ex.begin_list(&mut self.w, b",\"content\":[");
                self.phase = Phase::Content;
                true
            }
            Phase::Content => true,
            #[cfg(target_pointer_width = "64")]
            Phase::Block => {
                self.w.end_object();
                self.phase = Phase::Content;
                true
            }
            Phase::Text | Phase::Data => {
                self.end_stream();
                true
            }
            Phase::Closed => false,
        }
    }

    fn end_stream(&mut self) {
        if self.phase.streaming() {
            self.w.string_end_any();
            self.w.end_object();
            self.phase = Phase::Content;
        }
    }

    fn block_head(&mut self, kind: &'static str) -> bool {
        if !self.block() {
            return false;
        }
        self.w.begin_object();
        self.w.key_raw(member_key!("type"));
        self.w.str_lit(kind);
        true
    }

    /// A text block up to its text (`{"type":"text","text":`, one write). On 64-bit
    /// hosts the same write also opens `content` for the first block, or ends a text
    /// block before it.
    fn text_head(&mut self) -> bool {
        #[cfg(target_pointer_width = "64")]
        match self.phase {
            Phase::Idle => {
                self.ex.begin_result_n(&mut self.w, RESULT_TEXT_BLOCK, 3);
                self.phase = Phase::Content;
                return true;
            }
            Phase::Block => {
                self.w.reopen(NEXT_TEXT_BLOCK);
                self.phase = Phase::Content;
                return true;
            }
            _ => {}
        }
        if !self.block() {
            return false;
        }
        self.w.begin(TEXT_BLOCK);
        true
    }

    /// On 64-bit hosts, when a text block's `}` is pending ([`Phase::Block`]): write
    /// it with `close`, which also ends `content` and may hold a key (`key`). False,
    /// having written nothing, otherwise.
    #[cfg(target_pointer_width = "64")]
    fn end_block(&mut self, close: &'static [u8], key: bool) -> bool {
        if self.phase != Phase::Block {
            return false;
        }
        self.w.end_n(close, 2);
        if key {
            self.w.after_key();
        }
        true
    }

    /// On 64-bit hosts, when a text block's `}` is pending ([`Phase::Block`]): write
    /// it with `close`, which also ends `content` and may hold a key (`key`). False,
    /// having written nothing, otherwise.
    #[cfg(not(target_pointer_width = "64"))]
    #[inline(always)]
    fn end_block(&mut self, _close: &'static [u8], _key: bool) -> bool {
        false
    }

    /// A text content block.
    pub fn text(&mut self, text: &str) -> bool {
        if !self.text_head() {
            return false;
        }
        self.w.str(text);
        // On 64-bit hosts its `}` goes with what follows.
        #[cfg(target_pointer_width = "64")]
        {
            self.phase = Phase::Block;
        }
        #[cfg(not(target_pointer_width = "64"))]
        self.w.end_object();
        true
    }
    /// A text content block formatted with `format_args!`.
    pub fn text_fmt(&mut self, args: fmt::Arguments<'_>) -> bool {
        if !self.text_head() {
            return false;
        }
        self.w.string_fmt(args);
        self.w.end_object();
        true
    }
    /// Start a text block written in parts with [`ToolCall::part`]; it ends at the next
    /// block or at the end of the result.
    pub fn text_begin(&mut self) -> bool {
        if !self.text_head() {
            return false;
        }
        self.w.string_begin();
        self.phase = Phase::Text;
        true
    }
    /// Append text to the block opened by [`ToolCall::text_begin`].
    pub fn part(&mut self, text: &str) -> bool {
        let open = self.phase == Phase::Text;
        if open {
            self.w.string_part(text);
        }
        open
    }
    fn media_begin(&mut self, kind: &'static str, mime: &str) -> bool {
        if !self.block_head(kind) {
            return false;
        }
        self.w.key_raw(member_key!("mimeType"));
        self.w.str(mime);
        self.w.key_raw(member_key!("data"));
        self.w.base64_begin();
        self.phase = Phase::Data;
        true
    }
    /// Start an image block; feed bytes with [`ToolCall::data`] (base64-encoded on the fly).
    pub fn image_begin(&mut self, mime: &str) -> bool {
        self.media_begin("image", mime)
    }
    /// Start an audio block; feed bytes with [`ToolCall::data`].
    pub fn audio_begin(&mut self, mime: &str) -> bool {
        self.media_begin("audio", mime)
    }
    /// Append raw bytes to the open image/audio block.
    pub fn data(&mut self, bytes: &[u8]) -> bool {
        let open = self.phase == Phase::Data;
        if open {
            self.w.base64_part(bytes);
        }
        open
    }
    /// An image block from bytes.
    pub fn image(&mut self, mime: &str, bytes: &[u8]) -> bool {
        let ok = self.image_begin(mime) && self.data(bytes);
        self.end_stream();
        ok
    }
    /// An audio block from bytes.
    pub fn audio(&mut self, mime: &str, bytes: &[u8]) -> bool {
        let ok = self.audio_begin(mime) && self.data(bytes);
        self.end_stream();
        ok
    }
    /// A `resource_link` block pointing at one of the device's resources.
    pub fn resource_link(&mut self, resource: &Resource<'_>) -> bool {
        if !self.block_head("resource_link") {
            return false;
        }
        // Same members as the Resource object, after `type`.
        self.w.key_raw(member_key!("uri"));
        self.w.str(resource.uri);
        self.w.key_raw(member_key!("name"));
        self.w.str(resource.name);
        crate::registry::opt_member(&mut self.w, member_key!("title"), resource.title);
        crate::registry::opt_member(
            &mut self.w,
            member_key!("description"),
            resource.description,
        );
        crate::registry::opt_member(&mut self.w, member_key!("mimeType"), resource.mime_type);
        self.w.end_object();
        true
    }
    /// An embedded text resource block.
    pub fn embedded_text(&mut self, uri: &str, mime: Option<&str>, text: &str) -> bool {
        if !self.block_head("resource") {
            return false;
        }
        self.w.key_raw(member_key!("resource"));
        write_contents_head(&mut self.w, uri, mime);
        self.w.key_raw(member_key!("text"));
        self.w.str(text);
        self.w.end_object();
        self.w.end_object();
        true
    }
    /// An embedded binary resource block (base64-encoded on the fly).
    pub fn embedded_blob(&mut self, uri: &str, mime: Option<&str>, bytes: &[u8]) -> bool {
        if !self.block_head("resource") {
            return false;
        }
        self.w.key_raw(member_key!("resource"));
        write_contents_head(&mut self.w, uri, mime);
        self.w.key_raw(member_key!("blob"));
        self.w.base64(bytes);
        self.w.end_object();
        self.w.end_object();
        true
    }
    /// `structuredContent`, written by `f`, after all content blocks (content offered
    /// later is refused). Tools with an `outputSchema` must return it; add a text block
    /// first for older clients.
    pub fn structured(&mut self, f: impl FnOnce(&mut JsonWriter<'_>)) -> bool {
        // A text block's `}`, `content`'s `]` and the key at once, when it can.
        if !self.end_block(b"}],\"structuredContent\":", true) {
            if !self.block() {
                return false;
            }
            self.w.end_array();
            self.w.key_raw(member_key!("structuredContent"));
        }
        f(&mut self.w);
        self.phase = Phase::Closed;
        true
    }
    /// Mark the result as a tool error (`isError: true`) with a text block saying why.
    /// The result is an error even when the text is refused (returns false then).
    pub fn error(&mut self, message: &str) -> bool {
        self.is_error = true;
        self.text(message)
    }
    /// Mark the result as a tool error without adding content.
    pub fn set_error(&mut self) {
        self.is_error = true;
    }

    /// The client's response to input request `key` of an earlier round (2026-07-28:
    /// from `inputResponses`; initialize era: the response to the request sent).
    /// Validate it: it comes from the client.
    #[cfg(feature = "input")]
    pub fn input(&self, key: &str) -> Option<Value<'a>> {
        self.input.get(key)
    }
    /// The state this handler kept for itself in the previous round
    /// ([`ToolCall::set_request_state`]), verified: never bytes the client made up.
    #[cfg(feature = "input")]
    pub fn request_state(&self) -> Option<&'a [u8]> {
        self.input.state
    }
    /// Keep `state` (at most [`crate::input::MAX_STATE`] bytes) for the next round,
    /// when this round asks for input. Returns false when too long.
    #[cfg(feature = "input")]
    pub fn set_request_state(&mut self, state: &[u8]) -> bool {
        self.input.set_state(state)
    }
    /// Whether the client declared capability `c`.
    #[cfg(feature = "input")]
    pub fn client_has(&self, c: crate::input::Capability) -> bool {
        self.ex.caps.has(c)
    }
    /// This tool needs capability `c`: false when the client did not declare it, and
    /// the request is then answered with -32021 (unless content was written).
    #[cfg(feature = "input")]
    pub fn require(&mut self, c: crate::input::Capability) -> bool {
        self.input.require(self.ex.caps, c)
    }
    /// Ask the client for input `key` (`c`: which kind; `params` writes the request's
    /// params object). 2026-07-28: the result becomes an input-required result listing
    /// every request of this round, and the client calls again with the responses;
    /// initialize era: the request goes to the client now and the tool is called again
    /// when every response has arrived. Either way the next round sees the responses
    /// through [`ToolCall::input`]. Only before any content. Returns false when the
    /// client lacks `c`, or the request cannot be made (see [`crate::input`]).
    #[cfg(feature = "input")]
    pub fn ask(
        &mut self,
        key: &str,
        c: crate::input::Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
    ) -> bool {
        let idle = self.phase == Phase::Idle;
        let asked = self.input.ask(&mut self.w, &self.ex, idle, key, c, params);
        if asked {
            self.phase = Phase::Closed;
        }
        asked
    }
    /// Whether any content was written already.
    pub fn written(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// The device refused the call ([`Device::authorize`]): a text block saying why,
    /// `isError`.
    pub(crate) fn refusal(&mut self, verdict: crate::policy::Verdict) {
        let ms = match verdict {
            crate::policy::Verdict::RetryAfter(ms) => ms,
            crate::policy::Verdict::Deny(reason) => {
                self.error(reason);
                return;
            }
            crate::policy::Verdict::Allow => return,
        };
        self.is_error = true;
        if self.text_head() {
            let mut buf = [0u8; 20];
            self.w.string_begin();
            self.w.string_part("Rate limit exceeded: retry in ");
            // Digits need no escaping.
            self.w
                .raw(crate::json::writer::decimal(u64::from(ms), &mut buf));
            self.w.string_part(" ms");
            self.w.string_end();
            self.w.end_object();
        }
    }

    /// An argument violated the input schema: a text block naming it, `isError`.
    pub(crate) fn violation(&mut self, v: &crate::schema::Violation<'_, '_>) {
        if self.text_head() {
            v.write_message(&mut self.w);
            self.w.end_object();
        }
        self.is_error = true;
    }

    /// Close the result (the server adds the trailer and ends the line).
    pub(crate) fn close(&mut self) {
        #[cfg(feature = "input")]
        if self.input.asking {
            self.w.end_object(); // inputRequests
            return;
        }
        // `block` opens the result or ends a stream; only a closed `content` refuses.
        if !self.end_block(b"}]", false) && self.block() {
            self.w.end_array();
        }
        self.phase = Phase::Closed;
        if self.is_error {
            self.w.member_lit(b",\"isError\":true");
        }
    }
}

fn write_contents_head(w: &mut JsonWriter<'_>, uri: &str, mime: Option<&str>) {
    w.begin(b",{\"uri\":");
    write_contents_rest(w, uri, mime);
}

/// A contents object's members after the `uri` key: its value, then `mimeType`.
fn write_contents_rest(w: &mut JsonWriter<'_>, uri: &str, mime: Option<&str>) {
    w.str(uri);
    crate::registry::opt_member(w, member_key!("mimeType"), mime);
}

/// The resource a `resources/read` names: a static one or a template match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Static resource number `n`.
    Resource(usize),
    /// Resource template number `n`.
    Template(usize),
}

/// A `resources/read` in progress. Content methods return whether the content was
/// taken (parts only fit the stream of their kind).
pub struct ResourceRead<'a> {
    pub(crate) w: JsonWriter<'a>,
    pub(crate) ex: Exchange<'a>,
    pub(crate) uri: &'a str,
    pub(crate) target: Target,
    pub(crate) template: Option<&'static str>,
    phase: Phase,
}

impl<'a> ResourceRead<'a> {
    pub(crate) fn new(
        w: JsonWriter<'a>,
        ex: Exchange<'a>,
        uri: &'a str,
        target: Target,
        template: Option<&'static str>,
    ) -> Self {
        Self {
            w,
            ex,
            uri,
            target,
            template,
            phase: Phase::Idle,
        }
    }
    /// The requested URI (decoded).
    pub fn uri(&self) -> &'a str {
        self.uri
    }
    /// Which resource or template it matched.
    pub fn target(&self) -> Target {
        self.target
    }
    /// The value of a template variable (still percent-encoded).
    pub fn var(&self, name: &str) -> Option<&'a str> {
        let template = self.template?;
        crate::template::var(template, self.uri, name)
    }

    /// Ready the `contents` array for an entry: open the result, or end an open
    /// stream. False once the result is closed.
    fn settle(&mut self) -> bool {
        match self.phase {
            Phase::Idle => self.ex.begin_list(&mut self.w, b",\"contents\":["),
            Phase::Text | Phase::Data => {
                self.w.string_end_any();
                self.w.end_object();
            }
            Phase::Content => {}
            #[cfg(target_pointer_width = "64")]
            Phase::Block => self.w.end_object(),
            Phase::Closed => return false,
        }
        self.phase = Phase::Content;
        true
    }

    /// Start a `contents` entry: its head, then the key of its body (`text` or `blob`).
    /// On 64-bit hosts the first entry opens with `contents`, in one write.
    fn open(&mut self, mime: Option<&str>, body: MemberKey) -> bool {
        #[cfg(target_pointer_width = "64")]
        if self.phase == Phase::Idle {
            self.ex.begin_result_n(&mut self.w, RESULT_CONTENTS, 3);
            self.phase = Phase::Content;
            write_contents_rest(&mut self.w, self.uri, mime);
            self.w.key_raw(body);
            return true;
        }
        if !self.settle() {
            return false;
        }
        write_contents_head(&mut self.w, self.uri, mime);
        self.w.key_raw(body);
        true
    }
    /// Text contents.
    pub fn text(&mut self, mime: Option<&str>, text: &str) -> bool {
        if !self.open(mime, member_key!("text")) {
            return false;
        }
        self.w.str(text);
        // On 64-bit hosts its `}` goes with what follows.
        #[cfg(target_pointer_width = "64")]
        {
            self.phase = Phase::Block;
        }
        #[cfg(not(target_pointer_width = "64"))]
        self.w.end_object();
        true
    }
    /// Text contents formatted with `format_args!`.
    pub fn text_fmt(&mut self, mime: Option<&str>, args: fmt::Arguments<'_>) -> bool {
        if !self.open(mime, member_key!("text")) {
            return false;
        }
        self.w.string_fmt(args);
        self.w.end_object();
        true
    }
    /// Start text contents written in parts with [`ResourceRead::part`] /
    /// [`ResourceRead::part_fmt`].
    pub fn text_begin(&mut self, mime: Option<&str>) -> bool {
        if !self.open(mime, member_key!("text")) {
            return false;
        }
        self.w.string_begin();
        self.phase = Phase::Text;
        true
    }
    /// Append text to the open text contents.
    pub fn part(&mut self, text: &str) -> bool {
        let open = self.phase == Phase::Text;
        if open {
            self.w.string_part(text);
        }
        open
    }
    /// Append formatted text to the open text contents.
    pub fn part_fmt(&mut self, args: fmt::Arguments<'_>) -> bool {
        let open = self.phase == Phase::Text;
        if open {
            self.w.string_part_fmt(args);
        }
        open
    }
    /// Start binary contents; feed bytes with [`ResourceRead::data`].
    pub fn blob_begin(&mut self, mime: Option<&str>) -> bool {
        if !self.open(mime, member_key!("blob")) {
            return false;
        }
        self.w.base64_begin();
        self.phase = Phase::Data;
        true
    }
    /// Append bytes to the open binary contents (base64-encoded on the fly).
    pub fn data(&mut self, bytes: &[u8]) -> bool {
        let open = self.phase == Phase::Data;
        if open {
            self.w.base64_part(bytes);
        }
        open
    }
    /// Binary contents from bytes.
    pub fn blob(&mut self, mime: Option<&str>, bytes: &[u8]) -> bool {
        self.blob_begin(mime) && self.data(bytes)
    }
    pub(crate) fn written(&self) -> bool {
        self.phase != Phase::Idle
    }
    pub(crate) fn close(&mut self) {
        // The last entry's `}` and the `]` at once, when it can.
        #[cfg(target_pointer_width = "64")]
        if self.phase == Phase::Block {
            self.w.end_n(b"}]", 2);
            self.phase = Phase::Closed;
            return;
        }
        self.settle();
        self.w.end_array();
        self.phase = Phase::Closed;
    }
}

/// A `prompts/get` in progress. Content methods return whether the content was taken.
pub struct PromptGet<'a> {
    pub(crate) w: JsonWriter<'a>,
    pub(crate) ex: Exchange<'a>,
    pub(crate) prompt: usize,
    pub(crate) args: Option<Value<'a>>,
    phase: Phase,
    #[cfg(feature = "input")]
    pub(crate) input: crate::input::Input<'a>,
}

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

impl<'a> PromptGet<'a> {
    pub(crate) fn new(
        w: JsonWriter<'a>,
        ex: Exchange<'a>,
        prompt: usize,
        args: Option<Value<'a>>,
    ) -> Self {
        Self {
            w,
            ex,
            prompt,
            args,
            phase: Phase::Idle,
            #[cfg(feature = "input")]
            input: crate::input::Input::default(),
        }
    }
    /// Index of the prompt.
    pub fn prompt(&self) -> usize {
        self.prompt
    }
    /// A string argument.
    pub fn arg(&self, name: &str) -> Option<Str<'a>> {
        self.args.and_then(|a| a.get(name)).and_then(|v| v.as_str())
    }
    /// The client's response to input request `key` ([`ToolCall::input`]).
    #[cfg(feature = "input")]
    pub fn input(&self, key: &str) -> Option<Value<'a>> {
        self.input.get(key)
    }
    /// The verified state of the previous round ([`ToolCall::request_state`]).
    #[cfg(feature = "input")]
    pub fn request_state(&self) -> Option<&'a [u8]> {
        self.input.state
    }
    /// Keep state for the next round ([`ToolCall::set_request_state`]).
    #[cfg(feature = "input")]
    pub fn set_request_state(&mut self, state: &[u8]) -> bool {
        self.input.set_state(state)
    }
    /// Ask the client for input ([`ToolCall::ask`]); 2026-07-28 only: in the
    /// initialize era a prompt cannot wait, and this returns false.
    #[cfg(feature = "input")]
    pub fn ask(
        &mut self,
        key: &str,
        c: crate::input::Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
    ) -> bool {
        let idle = self.phase == Phase::Idle;
        let asked = self.ex.modern && self.input.ask(&mut self.w, &self.ex, idle, key, c, params);
        if asked {
            self.phase = Phase::Closed;
        }
        asked
    }
    /// The result's description; only before the first message.
    pub fn description(&mut self, text: &str) -> bool {
        if self.phase != Phase::Idle {
            return false;
        }
        self.ex.begin_result(&mut self.w);
        self.w.key_raw(member_key!("description"));
        self.w.str(text);
        self.w.key_raw(member_key!("messages"));
        self.w.begin_array();
        self.phase = Phase::Content;
        true
    }
    /// Ready the `messages` array for a message: open the result, or end an open
    /// message. False once the result is closed.
    fn settle(&mut self) -> bool {
        match self.phase {
            Phase::Idle => self.description_less(),
            Phase::Text | Phase::Data => self.end_message(),
            Phase::Content => {}
            #[cfg(target_pointer_width = "64")]
            Phase::Block => {}
            Phase::Closed => return false,
        }
        true
    }
    fn message(&mut self, role: Role) -> bool {
        if !self.settle() {
            return false;
        }
        self.phase = Phase::Content;
        self.w.begin(b",{\"role\":");
        self.w.str_lit(match role {
            Role::User => "user",
            Role::Assistant => "assistant",
        });
        self.w.key_raw(member_key!("content"));
        self.w.begin_object();
        true
    }
    fn description_less(&mut self) {
        self.ex.begin_list(&mut self.w, b",\"messages\":[");
    }
    /// A text message.
    pub fn text(&mut self, role: Role, text: &str) -> bool {
        let ok = self.text_begin(role) && self.part(text);
        self.end_message();
        ok
    }
    /// Start a text message written in parts.
    pub fn text_begin(&mut self, role: Role) -> bool {
        if !self.message(role) {
            return false;
        }
        self.w.key_raw(member_key!("type"));
        self.w.str_lit("text");
        self.w.key_raw(member_key!("text"));
        self.w.string_begin();
        self.phase = Phase::Text;
        true
    }
    /// Append text.
    pub fn part(&mut self, text: &str) -> bool {
        let open = self.phase == Phase::Text;
        if open {
            self.w.string_part(text);
        }
        open
    }
    /// Append formatted text.
    pub fn part_fmt(&mut self, args: fmt::Arguments<'_>) -> bool {
        let open = self.phase == Phase::Text;
        if open {
            self.w.string_part_fmt(args);
        }
        open
    }
    /// Append a string argument verbatim (escapes kept as received, no buffer).
    pub fn part_str(&mut self, s: Str<'_>) -> bool {
        let open = self.phase == Phase::Text;
        if open {
            self.w.string_str(s);
        }
        open
    }
    fn end_message(&mut self) {
        if self.phase.streaming() {
            self.w.string_end_any();
            self.w.end_object();
            self.w.end_object();
            self.phase = Phase::Content;
        }
    }
    /// An image message (base64-encoded on the fly).
    pub fn image(&mut self, role: Role, mime: &str, bytes: &[u8]) -> bool {
        if !self.message(role) {
            return false;
        }
        self.w.key_raw(member_key!("type"));
        self.w.str_lit("image");
        self.w.key_raw(member_key!("mimeType"));
        self.w.str(mime);
        self.w.key_raw(member_key!("data"));
        self.w.base64(bytes);
        self.w.end_object();
        self.w.end_object();
        true
    }
    /// A message embedding a text resource.
    pub fn embedded_text(&mut self, role: Role, uri: &str, mime: Option<&str>, text: &str) -> bool {
        if !self.message(role) {
            return false;
        }
        self.w.key_raw(member_key!("type"));
        self.w.str_lit("resource");
        self.w.key_raw(member_key!("resource"));
        write_contents_head(&mut self.w, uri, mime);
        self.w.key_raw(member_key!("text"));
        self.w.str(text);
        self.w.end_object();
        self.w.end_object();
        self.w.end_object();
        true
    }
    pub(crate) fn written(&self) -> bool {
        self.phase != Phase::Idle
    }
    pub(crate) fn close(&mut self) {
        #[cfg(feature = "input")]
        if self.input.asking {
            self.w.end_object(); // inputRequests
            return;
        }
        self.settle();
        self.w.end_array();
        self.phase = Phase::Closed;
    }
}

/// What a completion request refers to.
#[derive(Clone, Copy, Debug)]
pub enum Reference<'a> {
    /// A prompt (index).
    Prompt(usize),
    /// A resource template (index) or resource URI.
    Resource(Str<'a>),
}

/// Most completion values one result holds (the spec's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// A `completion/complete` in progress.
pub struct Completion<'a> {
    pub(crate) w: JsonWriter<'a>,
    pub(crate) reference: Reference<'a>,
    pub(crate) argument: Str<'a>,
    pub(crate) value: Str<'a>,
    pub(crate) count: usize,
}

impl<'a> Completion<'a> {
    /// What is being completed.
    pub fn reference(&self) -> Reference<'a> {
        self.reference
    }
    /// The argument's name.
    pub fn argument(&self) -> Str<'a> {
        self.argument
    }
    /// What the user typed so far.
    pub fn value(&self) -> Str<'a> {
        self.value
    }
    /// Offer one value; returns false (and drops it) past [`MAX_COMPLETIONS`].
    pub fn offer(&mut self, value: &str) -> bool {
        if self.count >= MAX_COMPLETIONS {
            return false;
        }
        self.w.str(value);
        self.count += 1;
        true
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    extern crate std;
    use super::*;
    use crate::json::SliceSink;

    /// What a tool call writes for `f`, closed as the server closes it.
    fn call_output(modern: bool, f: impl FnOnce(&mut ToolCall<'_>)) -> std::string::String {
        let mut buf = [0u8; 512];
        let mut sink = SliceSink::new(&mut buf);
        let ex = Exchange {
            id: Id::from_raw(b"7"),
            modern,
            progress_token: None,
            log_level: None,
            #[cfg(feature = "input")]
            caps: crate::input::Capabilities::default(),
        };
        let mut call = ToolCall::new(JsonWriter::new(&mut sink), ex, 0, None);
        f(&mut call);
        call.close();
        call.w.end(b"}}\n");
        assert!(call.w.is_ok());
        std::string::String::from_utf8(sink.written().to_vec()).unwrap()
    }

    /// Contents entries of a read, the text entry's `}` going out with what follows.
    #[test]
    fn read_entries_end_with_what_follows() {
        let read = |f: &dyn Fn(&mut ResourceRead<'_>)| {
            let mut buf = [0u8; 512];
            let mut sink = SliceSink::new(&mut buf);
            let ex = Exchange {
                id: Id::from_raw(b"7"),
                modern: false,
                progress_token: None,
                log_level: None,
                #[cfg(feature = "input")]
                caps: crate::input::Capabilities::default(),
            };
            let mut r = ResourceRead::new(
                JsonWriter::new(&mut sink),
                ex,
                "u:x",
                Target::Resource(0),
                None,
            );
            f(&mut r);
            r.close();
            r.w.end(b"}}\n");
            assert!(r.w.is_ok());
            std::string::String::from_utf8(sink.written().to_vec()).unwrap()
        };
        const HEAD: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"contents":["#;
        assert_eq!(
            read(&|r| assert!(r.text(Some("t/p"), "a"))),
            std::format!(
                "{HEAD}{}]}}}}\n",
                r#"{"uri":"u:x","mimeType":"t/p","text":"a"}"#
            )
        );
        assert_eq!(
            read(&|r| assert!(r.text(None, "a") && r.blob(None, b"x") && r.text(None, "c"))),
            std::format!(
                "{HEAD}{}]}}}}\n",
                r#"{"uri":"u:x","text":"a"},{"uri":"u:x","blob":"eA=="},{"uri":"u:x","text":"c"}"#
            )
        );
        assert_eq!(
            read(&|r| assert!(r.text_begin(None) && r.part("p") && r.text(None, "q"))),
            std::format!(
                "{HEAD}{}]}}}}\n",
                r#"{"uri":"u:x","text":"p"},{"uri":"u:x","text":"q"}"#
            )
        );
        assert_eq!(read(&|_| {}), std::format!("{HEAD}]}}}}\n"));
    }

    /// What a test tool does with its call.
    type Handler = dyn Fn(&mut ToolCall<'_>);

    /// Text blocks, whose `}` goes out with what follows them, in every position.
    #[test]
    fn text_blocks_end_with_what_follows() {
        const HEAD: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"#;
        let cases: [(&Handler, &str); 6] = [
            (
                &|c| assert!(c.text("a")),
                r#""content":[{"type":"text","text":"a"}]"#,
            ),
            (
                &|c| assert!(c.text("a") && c.text("b\n")),
                r#""content":[{"type":"text","text":"a"},{"type":"text","text":"b\n"}]"#,
            ),
            (
                &|c| assert!(c.text("a") && c.image("image/png", b"x") && c.text("c")),
                r#""content":[{"type":"text","text":"a"},{"type":"image","mimeType":"image/png","data":"eA=="},{"type":"text","text":"c"}]"#,
            ),
            (
                &|c| {
                    assert!(c.text("a"));
                    assert!(c.structured(|w| {
                        w.begin_object();
                        w.key("v");
                        w.u64(1);
                        w.end_object();
                    }));
                    assert!(!c.text("late"));
                },
                r#""content":[{"type":"text","text":"a"}],"structuredContent":{"v":1}"#,
            ),
            (
                &|c| assert!(c.error("no")),
                r#""content":[{"type":"text","text":"no"}],"isError":true"#,
            ),
            (
                &|c| assert!(c.text_begin() && c.part("p") && c.text("q")),
                r#""content":[{"type":"text","text":"p"},{"type":"text","text":"q"}]"#,
            ),
        ];
        for (f, body) in cases {
            assert_eq!(call_output(false, f), std::format!("{HEAD}{body}}}}}\n"));
            assert_eq!(
                call_output(true, f),
                std::format!("{HEAD}\"resultType\":\"complete\",{body}}}}}\n")
            );
        }
    }
}
