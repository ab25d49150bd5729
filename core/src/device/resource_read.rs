//! [`ResourceRead`]: a `resources/read` in progress, contents out.

use super::exchange::Phase;
use super::forms;
use super::Exchange;
use crate::wire::json::writer::member_key;
use crate::wire::json::writer::MemberKey;
use crate::wire::json::JsonWriter;
use core::fmt;

pub(super) fn write_contents_head(w: &mut JsonWriter<'_>, uri: &str, mime: Option<&str>) {
    w.begin(b",{\"uri\":");
    write_contents_rest(w, uri, mime);
}

/// A contents object's members after the `uri` key: its value, then `mimeType`.
pub(super) fn write_contents_rest(w: &mut JsonWriter<'_>, uri: &str, mime: Option<&str>) {
    w.str(uri);
    crate::model::registry::opt_member(w, member_key!("mimeType"), mime);
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
        crate::model::template::var(template, self.uri, name)
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
            Phase::Block if forms::DEFERS_BLOCK_END => self.w.end_object(),
            Phase::Closed | Phase::Block => return false,
        }
        self.phase = Phase::Content;
        true
    }

    /// Start a `contents` entry: its head, then the key of its body (`text` or `blob`).
    /// The fast forms open the first entry with `contents`, in one write.
    fn open(&mut self, mime: Option<&str>, body: MemberKey) -> bool {
        if forms::contents_head(&self.ex, &mut self.w, &mut self.phase) {
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
        forms::text_block_done(&mut self.w, &mut self.phase);
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
        if forms::close_pending(&mut self.w, &self.phase, b"}]", false) {
            self.phase = Phase::Closed;
            return;
        }
        self.settle();
        self.w.end_array();
        self.phase = Phase::Closed;
    }
}
