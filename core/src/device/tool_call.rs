//! [`ToolCall`]: a `tools/call` in progress, arguments in, content out.

use super::exchange::Phase;
use super::exchange::TEXT_BLOCK;
use super::forms;
use super::resource_read::write_contents_head;
use super::Exchange;
use super::LogLevel;
use crate::model::registry::Resource;
use crate::wire::json::writer::member_key;
use crate::wire::json::JsonWriter;
use crate::wire::json::Value;
use core::fmt;

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
    /// What the code forms filed of the arguments while a compiled schema checked
    /// them ([`ToolCall::arg`] looks there first).
    filed: forms::Filing<'a>,
    pub(crate) can_defer: bool,
    pub(crate) state: u32,
    pub(crate) is_error: bool,
    pub(super) phase: Phase,
    /// The input side of the round (empty without `input`).
    pub(crate) input: crate::device::input::Input<'a>,
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
            filed: Default::default(),
            can_defer: false,
            state: 0,
            is_error: false,
            phase: Phase::Idle,
            input: crate::device::input::Input::default(),
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
        if let Some(value) = forms::filed_arg(&self.filed, name) {
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
    /// True when returning [`Step::Pending`](super::Step::Pending) is allowed (a job slot is free and nothing
    /// was written yet).
    pub fn can_defer(&self) -> bool {
        self.can_defer && self.phase == Phase::Idle
    }
    /// Forbid [`Step::Pending`](super::Step::Pending) for this call (e.g. the device could not continue it).
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
    /// Out of line in the plain forms (smaller there).
    #[cfg_attr(not(emcp_fast), inline(never))]
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
            Phase::Block if forms::DEFERS_BLOCK_END => {
                self.w.end_object();
                self.phase = Phase::Content;
                true
            }
            Phase::Text | Phase::Data => {
                self.end_stream();
                true
            }
            Phase::Closed | Phase::Block => false,
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

    /// A text block up to its text (`{"type":"text","text":`). The fast forms write
    /// it with the result's opening for the first block, or with the previous text
    /// block's `}`.
    fn text_head(&mut self) -> bool {
        if forms::text_head(&self.ex, &mut self.w, &mut self.phase) {
            return true;
        }
        if !self.block() {
            return false;
        }
        self.w.begin(TEXT_BLOCK);
        true
    }

    /// A text content block.
    pub fn text(&mut self, text: &str) -> bool {
        if !self.text_head() {
            return false;
        }
        self.w.str(text);
        forms::text_block_done(&mut self.w, &mut self.phase);
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
        crate::model::registry::opt_member(&mut self.w, member_key!("title"), resource.title);
        crate::model::registry::opt_member(
            &mut self.w,
            member_key!("description"),
            resource.description,
        );
        crate::model::registry::opt_member(
            &mut self.w,
            member_key!("mimeType"),
            resource.mime_type,
        );
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
        if !forms::close_pending(&mut self.w, &self.phase, b"}],\"structuredContent\":", true) {
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
    /// from `inputResponses`; legacy era: the response to the request sent).
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
    /// Keep `state` (at most [`crate::state::seal::MAX_STATE`] bytes) for the next round,
    /// when this round asks for input. Returns false when too long.
    #[cfg(feature = "input")]
    pub fn set_request_state(&mut self, state: &[u8]) -> bool {
        self.input.set_state(state)
    }
    /// Whether the client declared capability `c`.
    #[cfg(feature = "input")]
    pub fn client_has(&self, c: crate::device::input::Capability) -> bool {
        self.ex.caps.has(c)
    }
    /// This tool needs capability `c`: false when the client did not declare it, and
    /// the request is then answered with -32021 (unless content was written).
    #[cfg(feature = "input")]
    pub fn require(&mut self, c: crate::device::input::Capability) -> bool {
        self.input.require(self.ex.caps, c)
    }
    /// Ask the client for input `key` (`c`: which kind; `params` writes the request's
    /// params object). 2026-07-28: the result becomes an input-required result listing
    /// every request of this round, and the client calls again with the responses;
    /// Legacy era: the request goes to the client now and the tool is called again
    /// when every response has arrived. Either way the next round sees the responses
    /// through [`ToolCall::input`]. Only before any content. Returns false when the
    /// client lacks `c`, or the request cannot be made (see [`crate::device::input`]).
    #[cfg(feature = "input")]
    pub fn ask(
        &mut self,
        key: &str,
        c: crate::device::input::Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
    ) -> bool {
        let idle = self.phase == Phase::Idle;
        let asked = self.input.ask(&mut self.w, &self.ex, idle, key, c, params);
        if asked {
            self.phase = Phase::Closed;
        }
        asked
    }
    /// The call failed at the protocol level, not as a tool error (feature `tasks`):
    /// a task ends `failed` with `error: {code: -32603, message}`; an ordinary call
    /// returning [`Step::Done`](super::Step::Done) from [`Device::call_tool`](super::Device::call_tool)
    /// before writing anything is answered with that JSON-RPC error. For a tool error
    /// the model should see, use [`ToolCall::error`].
    #[cfg(feature = "tasks")]
    pub fn fail(&mut self, message: &'static str) {
        self.input.failure = Some(message);
    }
    /// Whether this round belongs to a task (feature `tasks`): polled by the server,
    /// its content discarded until [`Device::task_result`](super::Device::task_result)
    /// writes the result the client fetches.
    #[cfg(feature = "tasks")]
    pub fn is_task(&self) -> bool {
        self.input.task.is_some()
    }
    /// Refuse every content block from now on (a task's replay writes only its
    /// input requests).
    #[cfg(feature = "tasks")]
    pub(crate) fn refuse_content(&mut self) {
        self.phase = Phase::Closed;
    }
    /// Whether any content was written already.
    pub fn written(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// Check the arguments against the tool's compiled schema (filing them, in the
    /// fast forms, for [`ToolCall::arg`]).
    pub(crate) fn check_plan(
        &mut self,
        plan: crate::model::schema::PlanRef<'a>,
    ) -> Result<(), crate::model::schema::Violation<'a, 'a>> {
        forms::check_plan(plan, self.args, &mut self.filed)
    }

    /// The device refused the call ([`Device::authorize`]): a text block saying why,
    /// `isError`.
    pub(crate) fn refusal(&mut self, verdict: crate::state::policy::Verdict) {
        let ms = match verdict {
            crate::state::policy::Verdict::RetryAfter(ms) => ms,
            crate::state::policy::Verdict::Deny(reason) => {
                self.error(reason);
                return;
            }
            crate::state::policy::Verdict::Allow => return,
        };
        self.is_error = true;
        if self.text_head() {
            let mut buf = [0u8; 20];
            self.w.string_begin();
            self.w.string_part("Rate limit exceeded: retry in ");
            // Digits need no escaping.
            self.w
                .raw(crate::wire::json::writer::decimal(u64::from(ms), &mut buf));
            self.w.string_part(" ms");
            self.w.string_end();
            self.w.end_object();
        }
    }

    /// An argument violated the input schema: a text block naming it, `isError`.
    pub(crate) fn violation(&mut self, v: &crate::model::schema::Violation<'_, '_>) {
        if self.text_head() {
            v.write_message(&mut self.w);
            self.w.end_object();
        }
        self.is_error = true;
    }

    /// Close the result (the server adds the trailer and ends the line).
    pub(crate) fn close(&mut self) {
        if self.input.asking() {
            self.w.end_object(); // inputRequests
            return;
        }
        // `block` opens the result or ends a stream; only a closed `content` refuses.
        if !forms::close_pending(&mut self.w, &self.phase, b"}]", false) && self.block() {
            self.w.end_array();
        }
        self.phase = Phase::Closed;
        if self.is_error {
            self.w.member_lit(b",\"isError\":true");
        }
    }
}
