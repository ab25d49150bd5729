//! Validating, zero-copy JSON scanner.
//!
//! [`parse`] makes one pass over the input and checks all of it against RFC 8259:
//! structure, strings (every escape, surrogate pairs, no raw control characters,
//! well-formed UTF-8), numbers by the RFC grammar, literals, and the nesting depth.
//! Nesting is tracked with a fixed bit stack (one bit per level, object or array), so
//! the scan is iterative and uses the same few bytes of stack for any input.
//!
//! On success it returns a [`Value`]: a view of the value's bytes, nothing more. Every
//! accessor ([`Value::get`], [`Value::members`], [`Str::unescape_into`], ...) walks
//! those bytes again on demand, relying on the fact that they were validated. Nothing
//! is copied or allocated; decoding a string needs either a caller buffer
//! ([`Str::unescape_into`]) or none at all ([`Str::eq_str`], [`Str::pieces`]).
//!
//! # Panic contract
//!
//! No function here panics, on any input. A [`Value`] or [`Str`] is obtained from
//! [`parse`] (or by navigating from one), or from text a parse accepted before
//! ([`Value::trusted`]), so accessors never see unvalidated bytes; even so they are
//! written with checked access only, and would return `None` or stop early rather
//! than panic.

use core::fmt;

use super::{find_quote_or_backslash, find_special, find_special_or_high, SHORT_ESCAPES};

mod fast;
mod navigate;
mod plain;
mod string;
mod validate;

// The forms the scanner runs, chosen once: `fast` on hosts, `plain` on small targets
// (see core/build.rs). Both are compiled everywhere and tested against each other.
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

pub(crate) use form::same_bytes;
pub use navigate::{Items, Members};
use string::decode_escape;
pub use string::{Piece, Pieces, Str};
use validate::{is_ws, skip_ws};
pub(crate) use validate::{parse_picking, plain_names, Level, Picks, Stop};

/// Default maximum nesting depth (objects + arrays) the scanner accepts.
///
/// `{}` and `[]` have depth 1, `[[1]]` depth 2; scalars have depth 0.
pub const MAX_DEPTH: usize = 32;

/// Largest depth [`parse_with_depth`] can track (the size of its bit stack); larger
/// requests are clamped to this.
pub const DEPTH_LIMIT: usize = 128;

/// Why [`parse`] rejected its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ScanError {
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// The input is not JSON (RFC 8259), or is empty, or has trailing data.
    Syntax,
    /// Objects/arrays nest deeper than the allowed depth.
    TooDeep,
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScanError::InvalidUtf8 => "input is not valid UTF-8",
            ScanError::Syntax => "input is not a single JSON value",
            ScanError::TooDeep => "JSON nests too deeply",
        })
    }
}

impl core::error::Error for ScanError {}

/// The decoded string did not fit the buffer given to [`Str::unescape_into`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferTooSmall;

impl fmt::Display for BufferTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the decoded string does not fit the buffer")
    }
}

impl core::error::Error for BufferTooSmall {}

/// The type of a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// `{ ... }`
    Object,
    /// `[ ... ]`
    Array,
    /// `"..."`
    String,
    /// A number literal.
    Number,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
}

/// Validate `input` as exactly one JSON value, nesting at most [`MAX_DEPTH`] deep.
///
/// Accepts RFC 8259 JSON: strings with every escape including `\uXXXX` surrogate pairs
/// (a lone surrogate escape is an error), numbers by the RFC grammar, the literals
/// `true`/`false`/`null`, no raw control characters in strings, and optional
/// whitespace around the value. Iterative (an explicit bit stack), never recursive.
///
/// # Errors
///
/// [`ScanError::InvalidUtf8`] when the input is not valid UTF-8 (whatever else is
/// wrong with it), else [`ScanError::TooDeep`] or [`ScanError::Syntax`] for the first
/// problem found.
///
/// ```
/// use emcp::wire::json::{parse, Kind, ScanError};
///
/// let v = parse(br#" {"id": 7, "ok": true} "#).unwrap();
/// assert_eq!(v.kind(), Kind::Object);
/// assert_eq!(v.raw(), br#"{"id": 7, "ok": true}"#);
/// assert_eq!(v.get("id").and_then(|id| id.as_u64()), Some(7));
///
/// assert_eq!(parse(b"[1,]").unwrap_err(), ScanError::Syntax);
/// assert_eq!(parse(b"\"\xff\"").unwrap_err(), ScanError::InvalidUtf8);
/// ```
pub fn parse(input: &[u8]) -> Result<Value<'_>, ScanError> {
    parse_with_depth(input, MAX_DEPTH)
}

/// [`parse`] with a caller-chosen nesting limit, clamped to [`DEPTH_LIMIT`].
///
/// `max_depth = 0` accepts scalars only.
///
/// # Errors
///
/// As for [`parse`].
///
/// ```
/// use emcp::wire::json::{parse_with_depth, ScanError};
///
/// assert!(parse_with_depth(b"[[1]]", 2).is_ok());
/// assert_eq!(parse_with_depth(b"[[[1]]]", 2).unwrap_err(), ScanError::TooDeep);
/// ```
pub fn parse_with_depth(input: &[u8], max_depth: usize) -> Result<Value<'_>, ScanError> {
    parse_picking(input, max_depth, &mut Picks::none())
}

/// A validated JSON value: `raw` is exactly the value's bytes (no surrounding
/// whitespace).
///
/// Only [`parse`] (and navigation from a `Value`) constructs it, or
/// [`Value::trusted`] from text a parse accepted before, so every accessor may rely
/// on validity — and still never panics.
#[derive(Clone, Copy)]
pub struct Value<'a> {
    raw: &'a [u8],
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Value")
            .field(&core::str::from_utf8(self.raw).unwrap_or("<not UTF-8>"))
            .finish()
    }
}

impl<'a> Value<'a> {
    /// A value from JSON text that [`parse`] has already accepted, without checking it
    /// again: only the whitespace around it is trimmed. For text kept after its one
    /// parse (a device's static schema checked when the server was built, a copy of
    /// a line or of one of its values), so that reading it later costs a walk and
    /// not a second validation. Navigation never panics on any bytes, but its
    /// answers mean nothing for text that is not valid JSON: on untrusted input use
    /// [`parse`].
    ///
    /// ```
    /// use emcp::wire::json::{parse, Value};
    /// let line = br#"{"id":7,"params":{"uri":"led://state"}}"#;
    /// let kept = parse(line).unwrap().get("params").unwrap().raw().to_vec();
    /// assert_eq!(Value::trusted(&kept).get("uri").unwrap().raw(), br#""led://state""#);
    /// ```
    pub fn trusted(text: &'a [u8]) -> Value<'a> {
        let start = skip_ws(text, 0);
        let end = text.iter().rposition(|&b| !is_ws(b)).map_or(0, |e| e + 1);
        Value {
            raw: text.get(start..end).unwrap_or_default(),
        }
    }

    /// A value whose text is exactly `raw` (found by a walk over validated text, no
    /// whitespace around it): nothing is trimmed.
    pub(crate) fn exact(raw: &'a [u8]) -> Value<'a> {
        Value { raw }
    }

    /// The value's bytes exactly as they appear in the input (valid JSON text).
    ///
    /// ```
    /// let v = emcp::wire::json::parse(b"[1, \"a\"]").unwrap();
    /// assert_eq!(v.raw(), b"[1, \"a\"]");
    /// ```
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The type of the value, from its first byte.
    pub fn kind(&self) -> Kind {
        match self.raw.first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'-' | b'0'..=b'9') => Kind::Number,
            _ => Kind::Null,
        }
    }

    /// The string, still escaped, when the value is a string.
    ///
    /// ```
    /// let v = emcp::wire::json::parse(br#""a\nb""#).unwrap();
    /// let s = v.as_str().unwrap();
    /// assert_eq!(s.raw(), br"a\nb");
    /// assert!(s.eq_str("a\nb"));
    /// ```
    pub fn as_str(&self) -> Option<Str<'a>> {
        match self.raw {
            [b'"', inner @ .., b'"'] => Some(Str { raw: inner }),
            _ => None,
        }
    }

    /// `Some(true)` / `Some(false)` for the literals, `None` otherwise.
    pub fn as_bool(&self) -> Option<bool> {
        match self.raw {
            b"true" => Some(true),
            b"false" => Some(false),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.raw == b"null"
    }

    /// Integer literal (no fraction, no exponent) that fits an `i64`.
    ///
    /// ```
    /// use emcp::wire::json::parse;
    /// assert_eq!(parse(b"-9223372036854775808").unwrap().as_i64(), Some(i64::MIN));
    /// assert_eq!(parse(b"9223372036854775808").unwrap().as_i64(), None);
    /// assert_eq!(parse(b"1.0").unwrap().as_i64(), None);
    /// ```
    pub fn as_i64(&self) -> Option<i64> {
        super::number::to_i64(self.raw)
    }

    /// A number's value times `10^scale`, truncated toward zero, if that fits an `i64`:
    /// a fixed-point reading from the decimal digits, exact, no `f64` (`-12.56` at
    /// scale 1 is -125, `1e2` at scale 0 is 100). Scales above 1,000,000 give `None`.
    ///
    /// ```
    /// use emcp::wire::json::parse;
    /// assert_eq!(parse(b"-12.56").unwrap().as_i64_scaled(1), Some(-125));
    /// assert_eq!(parse(b"2.50e1").unwrap().as_i64_scaled(0), Some(25));
    /// assert_eq!(parse(b"1e19").unwrap().as_i64_scaled(0), None);
    /// assert_eq!(parse(b"\"5\"").unwrap().as_i64_scaled(0), None);
    /// ```
    pub fn as_i64_scaled(&self, scale: u32) -> Option<i64> {
        // Not a number: the literal reader says so.
        super::number::to_i64_scaled(self.raw, scale)
    }

    /// Integer literal (no fraction, no exponent) that fits a `u64` (`-0` is 0).
    ///
    /// ```
    /// use emcp::wire::json::parse;
    /// assert_eq!(parse(b"18446744073709551615").unwrap().as_u64(), Some(u64::MAX));
    /// assert_eq!(parse(b"-1").unwrap().as_u64(), None);
    /// ```
    pub fn as_u64(&self) -> Option<u64> {
        match super::number::to_integer(self.raw)? {
            (false, magnitude) => Some(magnitude),
            (true, 0) => Some(0),
            (true, _) => None,
        }
    }

    /// Any number as the nearest `f64` (ties to even; a magnitude beyond `f64::MAX`
    /// gives an infinity, one below the smallest subnormal a zero of the literal's
    /// sign). `None` when not a number.
    ///
    /// Exact — the same result as `core`'s `f64::from_str` — for every literal with
    /// at most 19 significant digits, which includes every `f64` printed in shortest
    /// form. Digits after the 19th only count as "a little more": the result is then
    /// at most one unit in the last place off, and only when the literal lies within a
    /// relative 10^-18 of a point halfway between two `f64`s. Integer arithmetic only,
    /// no `core` float parsing (its tables would take kilobytes of a Cortex-M's flash).
    ///
    /// ```
    /// use emcp::wire::json::parse;
    /// assert_eq!(parse(b"2.5e-1").unwrap().as_f64(), Some(0.25));
    /// assert_eq!(parse(b"1013.2").unwrap().as_f64(), Some(1013.2));
    /// assert_eq!(parse(b"-1e400").unwrap().as_f64(), Some(f64::NEG_INFINITY));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        if self.kind() != Kind::Number {
            return None;
        }
        super::number::to_f64(self.raw)
    }

    /// The exact order of two numbers by their decimal values (`1 == 1.0 == 1e0`,
    /// `-0 == 0`, and `100.00000000000000001 > 100` although both are the same
    /// `f64`); `None` unless both are numbers.
    pub(crate) fn cmp_number(&self, other: &Value<'_>) -> Option<core::cmp::Ordering> {
        // Not numbers: the literal reader says so.
        super::number::compare(self.raw, other.raw)
    }

    /// A number whose value is integral: `5`, `-3`, `5.0`, `1e3`, `2.50e1` (JSON
    /// Schema's "integer"), decided from the literal, not via `f64`.
    ///
    /// ```
    /// use emcp::wire::json::parse;
    /// assert!(parse(b"2.50e1").unwrap().is_integral());
    /// assert!(!parse(b"2.55e1").unwrap().is_integral());
    /// assert!(!parse(b"\"5\"").unwrap().is_integral());
    /// ```
    pub fn is_integral(&self) -> bool {
        super::number::is_integral(self.raw)
    }

    /// Object member by decoded key (escapes in the input key are decoded for the
    /// comparison). With duplicate keys the first wins. `None` if not an object or
    /// no such key.
    ///
    /// ```
    /// let v = emcp::wire::json::parse(br#"{"a":1,"\u0062":2,"a":3}"#).unwrap();
    /// assert_eq!(v.get("a").unwrap().raw(), b"1");
    /// assert_eq!(v.get("b").unwrap().raw(), b"2");
    /// assert!(v.get("c").is_none());
    /// ```
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        // Not an object: no members.
        let (_, value) = self.members().find(|(k, _)| k.eq_str(key))?;
        Some(value)
    }

    /// Several members in one pass: for each of `keys`, the first member of that
    /// decoded name goes into the same index of `found` (as [`Value::get`] would find
    /// it); slots of keys not present are left as they were. (The tests' way of
    /// checking what the scanner and the schema check file in one pass.)
    #[cfg(test)]
    pub(crate) fn get_each(&self, keys: &[&str], found: &mut [Option<Value<'a>>]) {
        self.members().file_into(keys, found);
    }

    /// Members of an object in order (empty iterator if not an object).
    ///
    /// ```
    /// let v = emcp::wire::json::parse(br#"{"x":1,"y":[2]}"#).unwrap();
    /// let mut m = v.members();
    /// let (k, x) = m.next().unwrap();
    /// assert!(k.eq_str("x") && x.raw() == b"1");
    /// assert_eq!(m.next().unwrap().1.raw(), b"[2]");
    /// assert!(m.next().is_none());
    /// ```
    #[inline(never)] // called from many places
    pub fn members(&self) -> Members<'a> {
        Members {
            rest: match self.raw {
                [b'{', rest @ ..] => rest,
                _ => &[],
            },
        }
    }

    /// Elements of an array in order (empty iterator if not an array).
    ///
    /// ```
    /// let v = emcp::wire::json::parse(b"[1, [2, 3], {}]").unwrap();
    /// let raws: Vec<&[u8]> = v.items().map(|i| i.raw()).collect();
    /// assert_eq!(raws, [&b"1"[..], b"[2, 3]", b"{}"]);
    /// ```
    #[inline(never)] // called from many places
    pub fn items(&self) -> Items<'a> {
        Items {
            rest: match self.raw {
                [b'[', rest @ ..] => rest,
                _ => &[],
            },
        }
    }
}

/// File the member `key`: `value` into the slot of `found` matching its index in
/// `keys`, unless an earlier member of the same name is there (the first wins).
#[cfg(any(feature = "schema-walk", feature = "input", test))]
pub(crate) fn pick<'a>(
    keys: &[&str],
    found: &mut [Option<Value<'a>>],
    key: Str<'_>,
    value: Value<'a>,
) {
    if let Some(slot) = key.position_in(keys).and_then(|i| found.get_mut(i)) {
        if slot.is_none() {
            *slot = Some(value);
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests;
