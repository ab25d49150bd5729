//! [`PromptGet`]: a `prompts/get` in progress, messages out.

use super::exchange::Phase;
use super::resource_read::write_contents_head;
use super::Exchange;
use crate::wire::json::writer::member_key;
use crate::wire::json::JsonWriter;
use crate::wire::json::Str;
use crate::wire::json::Value;
use core::fmt;

/// A `prompts/get` in progress. Content methods return whether the content was taken.
pub struct PromptGet<'a> {
    pub(crate) w: JsonWriter<'a>,
    pub(crate) ex: Exchange<'a>,
    pub(crate) prompt: usize,
    pub(crate) args: Option<Value<'a>>,
    phase: Phase,
    /// The input side of the round (empty without `input`).
    pub(crate) input: crate::device::input::Input<'a>,
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
            input: crate::device::input::Input::default(),
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
    /// The client's response to input request `key` ([`ToolCall::input`](super::ToolCall::input)).
    #[cfg(feature = "input")]
    pub fn input(&self, key: &str) -> Option<Value<'a>> {
        self.input.get(key)
    }
    /// The verified state of the previous round ([`ToolCall::request_state`](super::ToolCall::request_state)).
    #[cfg(feature = "input")]
    pub fn request_state(&self) -> Option<&'a [u8]> {
        self.input.state
    }
    /// Keep state for the next round ([`ToolCall::set_request_state`](super::ToolCall::set_request_state)).
    #[cfg(feature = "input")]
    pub fn set_request_state(&mut self, state: &[u8]) -> bool {
        self.input.set_state(state)
    }
    /// Ask the client for input ([`ToolCall::ask`](super::ToolCall::ask)); 2026-07-28 only: in the
    /// legacy era a prompt cannot wait, and this returns false.
    #[cfg(feature = "input")]
    pub fn ask(
        &mut self,
        key: &str,
        c: crate::device::input::Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
    ) -> bool {
        let idle = self.phase == Phase::Idle;
        let asked = self.ex.era.is_stateless()
            && self.input.ask(&mut self.w, &self.ex, idle, key, c, params);
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
            Phase::Content | Phase::Block => {}
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
        if self.input.asking() {
            self.w.end_object(); // inputRequests
            return;
        }
        self.settle();
        self.w.end_array();
        self.phase = Phase::Closed;
    }
}
