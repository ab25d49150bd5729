//! Streaming JSON writer.
//!
//! [`JsonWriter`] writes compact JSON straight into a [`Sink`] as it is produced: no
//! document is built, nothing is buffered beyond a few stack bytes for one number or
//! 64 bytes of base64 text (a float that is not an integer takes about 650 bytes of
//! stack for its exact digits). Commas are placed automatically, strings are escaped as
//! they go (unescaped runs are written as one slice), integers are formatted by hand
//! and binary blobs can be base64-encoded on the fly in any number of pieces.
//!
//! # Errors
//!
//! Writer methods return nothing. The first error (from the sink, or nesting deeper
//! than [`WRITER_MAX_DEPTH`]) is *sticky*: every later call writes nothing, and
//! [`JsonWriter::finish`], [`JsonWriter::is_ok`] and [`JsonWriter::error`] report it.
//! Code that produces a response therefore writes it start to finish and checks once.
//!
//! # Panic contract
//!
//! No method panics, whatever the call sequence (unbalanced `end_*` calls included).

use core::fmt;

use super::scanner::Str;
use super::{find_special, SHORT_ESCAPES};

mod base64;
mod copy;
mod fast;
mod joined;
mod number;
mod plain;
mod sink;

// The forms the writer runs, chosen once: `fast` on hosts, `plain` on small targets
// (see core/build.rs). Both are compiled everywhere and tested against each other.
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

pub use copy::{copy_medium, copy_small};
pub(crate) use form::{member_key, MemberKey};
pub(crate) use joined::Joined;
pub(crate) use number::decimal;
pub use sink::{IoSink, Sink, SinkError, SliceSink};

/// Whether [`JsonWriter::str`] would escape anything in `s`.
pub(crate) fn needs_escape(s: &str) -> bool {
    find_special(s.as_bytes()).is_some()
}

/// Maximum nesting the writer tracks for automatic commas.
pub const WRITER_MAX_DEPTH: usize = 32;

/// Streaming JSON writer over a [`Sink`].
///
/// Commas are inserted automatically: in an object, [`key`](Self::key) writes the
/// comma (when not the first member) and `"key":`, and the value follows without a
/// comma; in an array every value after the first gets a comma. At the top level
/// (depth 0) no commas are written, so envelopes can be assembled with
/// [`raw`](Self::raw). The first error is sticky (see the [module docs](self)).
/// Nesting deeper than [`WRITER_MAX_DEPTH`] is a sticky [`SinkError::Full`], never a
/// panic. No whitespace is ever emitted, and the output never contains a raw newline
/// unless passed to [`raw`](Self::raw)/[`raw_value`](Self::raw_value).
///
/// The writer does not check that `end_*` calls match their `begin_*`: an extra
/// `end_*` at the top level writes its bracket and nothing else.
///
/// ```
/// use emcp::wire::json::{JsonWriter, SliceSink};
///
/// let mut buf = [0u8; 64];
/// let mut sink = SliceSink::new(&mut buf);
/// let mut w = JsonWriter::new(&mut sink);
/// w.begin_object();
/// w.key("id");
/// w.u64(7);
/// w.key("tags");
/// w.begin_array();
/// w.str("a\"b\n");
/// w.f64(21.5);
/// w.null();
/// w.end_array();
/// w.end_object();
/// assert_eq!(w.finish(), Ok(()));
/// assert_eq!(sink.written(), br#"{"id":7,"tags":["a\"b\n",21.5,null]}"#);
/// ```
pub struct JsonWriter<'s> {
    sink: &'s mut dyn Sink,
    error: Option<SinkError>,
    /// Open containers.
    depth: u8,
    /// The next value (or key) at the current level needs a leading comma.
    comma: bool,
    /// `comma` of each enclosing level, bit `d` for level `d`.
    outer: u32,
    /// base64 bytes waiting for a full 3-byte group, the latest in the low byte
    /// (bits above the group are ignored).
    carry: u32,
    /// How many (0..=2 between calls).
    carry_len: u8,
    /// The string opened by `string_begin` or `base64_begin` and not yet closed.
    open: OpenString,
}

/// Which kind of string value is open, for [`JsonWriter::string_end_any`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpenString {
    None,
    Text,
    Base64,
}

impl fmt::Debug for JsonWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonWriter")
            .field("error", &self.error)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `core::fmt` output escaped into the writer, for [`JsonWriter::string_fmt`].
struct Escaper<'w, 's> {
    w: &'w mut JsonWriter<'s>,
}

impl fmt::Write for Escaper<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.w.put_escaped(s.as_bytes());
        match self.w.error {
            None => Ok(()),
            Some(_) => Err(fmt::Error),
        }
    }
}

impl<'s> JsonWriter<'s> {
    /// A writer at the top level, writing into `sink`.
    #[inline(never)] // called from many places
    pub fn new(sink: &'s mut dyn Sink) -> Self {
        JsonWriter {
            sink,
            error: None,
            depth: 0,
            comma: false,
            outer: 0,
            carry: 0,
            carry_len: 0,
            open: OpenString::None,
        }
    }

    /// Whether no error has occurred so far.
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// The first error, if any.
    pub fn error(&self) -> Option<SinkError> {
        self.error
    }

    /// `Ok` if everything was written.
    ///
    /// # Errors
    ///
    /// The first error: from the sink, or [`SinkError::Full`] for nesting deeper than
    /// [`WRITER_MAX_DEPTH`]. Everything after it was dropped.
    #[must_use = "the writer's sticky error is only seen by checking it"]
    pub fn finish(&self) -> Result<(), SinkError> {
        match self.error {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    // ---- plumbing -------------------------------------------------------------

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.sink.write(bytes) {
                self.fail(e);
            }
        }
    }

    /// The sink refused a write: keep its error, and tell it ([`Sink::failed`]).
    #[cold]
    #[inline(never)]
    fn fail(&mut self, e: SinkError) {
        self.error = Some(e);
        self.sink.failed(e);
    }

    /// Write `with_comma` (whose first byte is `,`) or, when no comma is due, the rest.
    #[inline]
    fn put_lead(&mut self, with_comma: &[u8]) {
        let bytes = if self.comma {
            with_comma
        } else {
            with_comma.get(1..).unwrap_or_default()
        };
        self.put(bytes);
    }

    #[inline]
    fn after_value(&mut self) {
        self.comma = self.depth > 0;
    }

    /// `s` escaped: runs that need no escaping are written as they are.
    fn put_escaped(&mut self, s: &[u8]) {
        let mut rest = s;
        loop {
            let n = find_special(rest).unwrap_or(rest.len());
            let Some((run, tail)) = rest.split_at_checked(n) else {
                return;
            };
            if !run.is_empty() {
                self.put(run);
            }
            let Some((&b, tail)) = tail.split_first() else {
                return;
            };
            self.put_escape(b);
            rest = tail;
        }
    }

    /// A whole string: `,"` (comma when due), `content` (escaped unless `verbatim`),
    /// then `":` for a `key`, else `"`. On hosts a short string with nothing to escape
    /// (most keys and many values) goes to the sink as one write.
    fn put_string(&mut self, content: &[u8], key: bool, verbatim: bool) {
        form::put_string(self, content, key, verbatim);
    }

    /// [`put_string`](Self::put_string) one piece at a time (no copy).
    pub(super) fn put_parts(&mut self, content: &[u8], key: bool, verbatim: bool) {
        let close: &[u8] = if key { b"\":" } else { b"\"" };
        self.put_lead(b",\"");
        if verbatim {
            // Verbatim content has no escape position: it goes out as one run.
            self.put(content);
        } else {
            self.put_escaped(content);
        }
        self.put(close);
    }

    /// The escape for `b`: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`.
    fn put_escape(&mut self, b: u8) {
        let hex = |n: u8| HEX.get(usize::from(n & 0xF)).copied().unwrap_or(b'0');
        let mut escape = [b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b)];
        let mut len = escape.len();
        if let Some(&(_, letter)) = SHORT_ESCAPES.iter().find(|&&(raw, _)| raw == b) {
            if let Some(second) = escape.get_mut(1) {
                *second = letter;
            }
            len = 2;
        }
        self.put(escape.get(..len).unwrap_or_default());
    }

    /// Open a container whose opening text is `open`, written as it is: a comma, then
    /// a key and the bracket (`,"content":[`), or the brace and the object's first
    /// members up to the next value (`,{"type":"text","text":`). The comma is dropped
    /// when none is due.
    pub(crate) fn begin(&mut self, open: &[u8]) {
        self.open_with(open, true);
    }

    /// Open an object whose opening text, `{` included, is `open`, written as it is
    /// (an envelope's `,"result":{`: one write for both).
    pub(crate) fn begin_object_raw(&mut self, open: &[u8]) {
        self.open_with(open, false);
    }

    /// Open a container with `open`: after [`put_lead`](Self::put_lead) when `lead`,
    /// else as it is.
    fn open_with(&mut self, open: &[u8], lead: bool) {
        if usize::from(self.depth) >= WRITER_MAX_DEPTH {
            // As a full sink (the sink is told: a guard takes the line back).
            if self.error.is_none() {
                self.fail(SinkError::Full);
            }
            return;
        }
        if lead {
            self.put_lead(open);
        } else {
            self.put(open);
        }
        // The container is a value of the enclosing level: after it, a comma is due
        // there (unless that level is the top).
        let bit = 1u32 << self.depth;
        if self.depth > 0 {
            self.outer |= bit;
        } else {
            self.outer &= !bit;
        }
        self.depth += 1;
        self.comma = false;
    }

    /// Close a container with `close`, its bracket and anything after it as it is
    /// (`}}\n` ends a result object, the envelope and the line in one write).
    pub(crate) fn end(&mut self, close: &[u8]) {
        self.put(close);
        if self.depth > 0 {
            self.depth -= 1;
            self.comma = self.outer & (1u32 << self.depth) != 0;
        }
    }

    /// A member the crate spells whole as a literal, comma first (`,"isError":true`):
    /// written at once, the comma dropped when none is due.
    pub(crate) fn member_lit(&mut self, member: &'static [u8]) {
        self.put_lead(member);
        self.after_value();
    }

    /// A value `f` writes straight into the sink (another writer's work: a task's
    /// result inside `tasks/get`); a comma is due after it. Nothing is written once
    /// this writer has failed.
    #[cfg(feature = "tasks")]
    pub(crate) fn value_with(&mut self, f: impl FnOnce(&mut dyn Sink)) {
        if self.error.is_none() {
            f(&mut *self.sink);
        }
        self.after_value();
    }

    // ---- containers -------------------------------------------------------------

    /// `{`
    pub fn begin_object(&mut self) {
        self.begin(b",{");
    }

    /// `}`
    pub fn end_object(&mut self) {
        self.end(b"}");
    }

    /// `[`
    pub fn begin_array(&mut self) {
        self.begin(b",[");
    }

    /// `]`
    pub fn end_array(&mut self) {
        self.end(b"]");
    }

    /// An object key, escaped: `"key":` (preceded by a comma when not the first).
    /// On hosts the one-write path is inline: a key is mostly a literal, whose copy
    /// and escape search then fold away at the call.
    #[cfg_attr(emcp_fast, inline)]
    pub fn key(&mut self, key: &str) {
        form::key(self, key.as_bytes());
        self.comma = false;
    }

    /// An object key the crate spells as a literal, as [`member_key!`] gives it: on
    /// hosts `,"name":` whole, one write of static text (the comma dropped when none is
    /// due), nothing copied or searched; on small targets [`key_lit`](Self::key_lit).
    pub(crate) fn key_raw(&mut self, key: MemberKey) {
        form::key_raw(self, key);
    }

    /// An object key the crate spells as a literal (a protocol name), written as it is:
    /// such a key has nothing to escape, so it is not searched for escapes. Keys from a
    /// device or the client go through [`key`](Self::key).
    pub(crate) fn key_lit(&mut self, key: &'static str) {
        self.put_string(key.as_bytes(), true, true);
        self.comma = false;
    }

    // ---- strings ----------------------------------------------------------------

    /// A string value the crate spells as a literal, written as it is (see
    /// [`key_lit`](Self::key_lit)).
    pub(crate) fn str_lit(&mut self, s: &'static str) {
        self.str_as(s, true);
    }

    /// A string value, written as it is when `plain` (known to need no escaping, see
    /// [`needs_escape`]), else escaped.
    pub(crate) fn str_as(&mut self, s: &str, plain: bool) {
        self.put_string(s.as_bytes(), false, plain);
        self.after_value();
    }

    /// A string value, escaped.
    pub fn str(&mut self, s: &str) {
        self.str_as(s, false);
    }

    /// A string value copied from validated input without decoding (its raw escaped
    /// form is already valid JSON string content).
    ///
    /// ```
    /// use emcp::wire::json::{parse, JsonWriter, SliceSink};
    ///
    /// let v = parse(br#"{"name":"caf\u00e9"}"#).unwrap();
    /// let mut buf = [0u8; 32];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.str_raw(v.get("name").unwrap().as_str().unwrap());
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""caf\u00e9""#);
    /// ```
    pub fn str_raw(&mut self, s: Str<'_>) {
        self.put_string(s.raw(), false, true);
        self.after_value();
    }

    /// Open a string value written in parts ([`string_part`](Self::string_part),
    /// [`string_char`](Self::string_char)), closed by
    /// [`string_end`](Self::string_end).
    pub fn string_begin(&mut self) {
        self.put_lead(b",\"");
        self.open = OpenString::Text;
    }

    /// Part of an open string, escaped.
    pub fn string_part(&mut self, s: &str) {
        self.put_escaped(s.as_bytes());
    }

    /// Part of an open string, escaped: bytes the caller knows to be UTF-8 (e.g. cut
    /// from a `&str` at ASCII boundaries), written without checking them again.
    pub(crate) fn string_part_utf8(&mut self, s: &[u8]) {
        self.put_escaped(s);
    }

    /// One character of an open string, escaped.
    pub fn string_char(&mut self, c: char) {
        let mut utf8 = [0u8; 4];
        self.put_escaped(c.encode_utf8(&mut utf8).as_bytes());
    }

    /// Text produced by `core::fmt`, escaped, as part of an open string.
    pub fn string_part_fmt(&mut self, args: fmt::Arguments<'_>) {
        // An error is either the sticky sink error (already recorded) or a failing
        // `Display` impl, whose partial output stays.
        let _ = fmt::write(&mut Escaper { w: self }, args);
    }

    /// A validated string's content as part of an open string, copied verbatim
    /// (its escapes are kept as received; no buffer, no decoding).
    ///
    /// ```
    /// use emcp::wire::json::{parse, JsonWriter, SliceSink};
    ///
    /// let v = parse(br#""caf\u00e9""#).unwrap();
    /// let mut buf = [0u8; 32];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.string_begin();
    /// w.string_part("un ");
    /// w.string_str(v.as_str().unwrap());
    /// w.string_end();
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""un caf\u00e9""#);
    /// ```
    pub fn string_str(&mut self, s: Str<'_>) {
        self.put(s.raw());
    }

    /// Close a string opened with [`string_begin`](Self::string_begin).
    pub fn string_end(&mut self) {
        self.put(b"\"");
        self.open = OpenString::None;
        self.after_value();
    }

    /// Close whichever string is open: a text string as
    /// [`string_end`](Self::string_end), a base64 string as
    /// [`base64_end`](Self::base64_end) (flushing its padding). Does nothing when no
    /// string is open.
    pub fn string_end_any(&mut self) {
        match self.open {
            OpenString::Text => self.string_end(),
            OpenString::Base64 => self.base64_end(),
            OpenString::None => {}
        }
    }

    /// A string value produced by `core::fmt` (escaped as it is written). If a
    /// `Display` implementation fails, the string is closed with what it produced.
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 32];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.string_fmt(format_args!("{}\"C", 21));
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""21\"C""#);
    /// ```
    pub fn string_fmt(&mut self, args: fmt::Arguments<'_>) {
        self.string_begin();
        // A formatting error is either our sticky sink error (already recorded) or a
        // failing `Display` impl; in both cases the string is closed.
        let _ = fmt::write(&mut Escaper { w: self }, args);
        self.string_end();
    }

    // ---- raw output ---------------------------------------------------------------

    /// Pre-validated JSON text as a value (e.g. a static schema, a raw id span); it is
    /// written verbatim, with the comma logic of a value.
    pub fn raw_value(&mut self, json: &[u8]) {
        form::value_comma(self);
        self.put(json);
        self.after_value();
    }

    /// Raw bytes with no comma logic at all (envelope prefixes, the final newline).
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 64];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.raw(br#"{"jsonrpc":"2.0","id":"#);
    /// w.raw_value(b"\"a-1\"");
    /// w.raw(br#","result":"#);
    /// w.begin_object();
    /// w.end_object();
    /// w.raw(b"}\n");
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), b"{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"result\":{}}\n");
    /// ```
    pub fn raw(&mut self, bytes: &[u8]) {
        self.put(bytes);
    }

    /// Tell the sink which exchange the next lines belong to ([`Sink::route`]).
    #[cfg(feature = "routes")]
    pub fn route(&mut self, request: Option<&[u8]>) {
        self.sink.route(request);
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
pub(crate) mod tests;
