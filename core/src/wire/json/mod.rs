//! JSON for one request line: a validating zero-copy scanner and a streaming writer.
//!
//! # Reading: validate once, then navigate
//!
//! The [`scanner`] follows jsmn's model rather than building a document. [`parse`]
//! makes a single pass over the input and checks *all* of it (RFC 8259 structure,
//! string escapes and UTF-8, number grammar, nesting depth with a fixed bit stack — no
//! recursion). What it returns, a [`Value`], is only a view of the value's bytes.
//! Navigation ([`Value::get`], [`Value::members`], [`Value::items`]) and decoding
//! ([`Str::eq_str`], [`Str::unescape_into`], [`Str::pieces`]) walk those bytes again
//! on demand. Nothing is copied or allocated: keys are compared against their escaped
//! form without a buffer, and string text can be borrowed straight from the input
//! ([`Str::as_plain`]) or copied into caller storage.
//!
//! # Writing: stream as you go
//!
//! The [`writer`]'s [`JsonWriter`] writes compact JSON into any [`Sink`] (a caller
//! slice, a `heapless::Vec`, an `embedded_io::Write` through [`IoSink`]) while the
//! response is produced. It inserts commas itself, escapes strings in runs, formats
//! integers by hand and floats in shortest round-trip form, and base64-encodes blobs
//! on the fly from any number of pieces. The first error is sticky and checked once
//! at the end.
//!
//! # Panic contract
//!
//! Nothing in this module panics, on any input or call sequence. [`parse`] is the way
//! to obtain a [`Value`] ([`Value::trusted`] re-reads text it accepted before); once
//! it has returned `Ok`, every accessor relies on the bytes being valid JSON, and is
//! still written with checked access only (it would return `None` or stop early,
//! never panic). Writer errors, including nesting deeper
//! than [`WRITER_MAX_DEPTH`], are reported through [`JsonWriter::finish`].
//!
//! # Limits
//!
//! - Scanner nesting: [`MAX_DEPTH`] (32) by default, at most [`DEPTH_LIMIT`] (128)
//!   through [`parse_with_depth`].
//! - Writer nesting: [`WRITER_MAX_DEPTH`] (32).
//!
//! Non-features: no document tree; no distinct "incomplete input" error (a truncated
//! line is a [`ScanError::Syntax`]); duplicate keys are kept and [`Value::get`]
//! returns the first; numbers are read as `i64`, `u64` or `f64` only.
//!
//! # Cost
//!
//! Validation is `core`'s UTF-8 check of the whole input, then one structural pass in
//! which strings are scanned a machine word at a time. Navigation measures values with
//! the same structural scan (strings again a word at a time). Every [`Value::get`]
//! walks the object from its start and must skip each earlier member's value, so to
//! read several members of a large object, one pass over [`Value::members`] is cheaper
//! than many `get`s.
//!
//! # Example
//!
//! ```
//! use emcp::wire::json::{parse, JsonWriter, SliceSink};
//!
//! let line = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\u00e9"}}}"#;
//! let req = parse(line).unwrap();
//! assert!(req.get("method").unwrap().as_str().unwrap().eq_str("tools/call"));
//! let text = req.get("params").and_then(|p| p.get("arguments")).and_then(|a| a.get("text")).unwrap();
//! let mut scratch = [0u8; 16];
//! assert_eq!(text.as_str().unwrap().unescape_into(&mut scratch), Ok("hé"));
//!
//! let mut out = [0u8; 128];
//! let mut sink = SliceSink::new(&mut out);
//! let mut w = JsonWriter::new(&mut sink);
//! w.begin_object();
//! w.key("jsonrpc");
//! w.str("2.0");
//! w.key("id");
//! w.raw_value(req.get("id").unwrap().raw());
//! w.key("result");
//! w.begin_object();
//! w.key("text");
//! w.str_raw(text.as_str().unwrap());
//! w.end_object();
//! w.end_object();
//! assert_eq!(w.finish(), Ok(()));
//! assert_eq!(sink.written(), br#"{"jsonrpc":"2.0","id":3,"result":{"text":"h\u00e9"}}"#);
//! ```

pub(crate) mod find;
mod number;
pub mod scanner;
mod swar;
pub mod writer;

pub(crate) mod konst;
pub use konst::is_object;

pub(crate) use find::find_quote_or_backslash;
use find::{find_special, find_special_or_high};

/// The characters with a two-character escape, each with the letter after its
/// backslash (the writer never needs the one for `/`).
const SHORT_ESCAPES: [(u8, u8); 8] = [
    (b'"', b'"'),
    (b'\\', b'\\'),
    (b'/', b'/'),
    (0x08, b'b'),
    (0x0C, b'f'),
    (b'\n', b'n'),
    (b'\r', b'r'),
    (b'\t', b't'),
];

pub use scanner::{
    parse, parse_with_depth, BufferTooSmall, Items, Kind, Members, Piece, Pieces, ScanError, Str,
    Value, DEPTH_LIMIT, MAX_DEPTH,
};
pub use writer::{IoSink, JsonWriter, Sink, SinkError, SliceSink, WRITER_MAX_DEPTH};
