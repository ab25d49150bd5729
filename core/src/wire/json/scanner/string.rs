//! Strings: a validated string's content ([`Str`]), compared, measured and decoded
//! without a buffer or into the caller's.

use core::fmt;

use super::form::{self, same_bytes};
use super::validate::hex4;
use super::{find_quote_or_backslash, find_special, BufferTooSmall, SHORT_ESCAPES};

// ---------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------

/// Bytes of a decoded name spelled with escapes that [`Str::same_name`] compares (on
/// the stack).
pub(crate) const NAME_BUF: usize = 64;

/// A validated JSON string's content between the quotes, still escaped.
#[derive(Clone, Copy)]
pub struct Str<'a> {
    pub(super) raw: &'a [u8],
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Str")
            .field(&core::str::from_utf8(self.raw).unwrap_or("<not UTF-8>"))
            .finish()
    }
}

/// One piece of a decoded string, from [`Str::pieces`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A run of text that had no escapes, borrowed from the input.
    Text(&'a str),
    /// The character one escape stands for.
    Char(char),
}

/// Like [`Piece`], before the UTF-8 view of a run is taken.
enum RawPiece<'a> {
    Bytes(&'a [u8]),
    Char(char),
}

/// Take the next piece off validated string content (where the only special bytes
/// are backslashes).
#[inline]
fn next_raw_piece<'a>(rest: &mut &'a [u8]) -> Option<RawPiece<'a>> {
    let s: &'a [u8] = rest;
    let (&first, after) = s.split_first()?;
    if first == b'\\' {
        let (c, after) = decode_escape(after)?;
        *rest = after;
        Some(RawPiece::Char(c))
    } else {
        let n = find_special(s).unwrap_or(s.len());
        let (run, after) = s.split_at_checked(n)?;
        *rest = after;
        Some(RawPiece::Bytes(run))
    }
}

/// Decode the escape whose backslash was just consumed; returns the character and the
/// bytes after the escape. `None` for a malformed escape: an unknown letter, bad hex
/// digits, a lone surrogate (validation rejects the string; navigation, which only
/// sees validated strings, never meets one).
pub(super) fn decode_escape(s: &[u8]) -> Option<(char, &[u8])> {
    let (&kind, rest) = s.split_first()?;
    if kind != b'u' {
        let &(raw, _) = SHORT_ESCAPES.iter().find(|&&(_, letter)| letter == kind)?;
        return Some((char::from(raw), rest));
    }
    let unit = hex4(rest)?;
    let mut rest = rest.get(4..)?;
    let code = if matches!(unit, 0xD800..=0xDBFF) {
        // A high surrogate: a low one must follow.
        let [b'\\', b'u', after @ ..] = rest else {
            return None;
        };
        let low = hex4(after).filter(|low| matches!(low, 0xDC00..=0xDFFF))?;
        rest = after.get(4..)?;
        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
    } else {
        // A lone low surrogate is not a `char`.
        unit
    };
    Some((char::from_u32(code)?, rest))
}

#[cfg(not(feature = "schema-walk"))]
impl Str<'static> {
    /// The empty string.
    pub(crate) const EMPTY: Self = Str { raw: &[] };
}

impl<'a> Str<'a> {
    /// The escaped bytes between the quotes (valid UTF-8, valid escapes). Safe to copy
    /// verbatim between quotes into JSON output.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The longest start of the string whose escaped text is at most `max` bytes and
    /// ends after a whole character: never inside a UTF-8 sequence or an escape (a
    /// surrogate pair's two escapes are one), so still valid string content. (Feature
    /// `error-data`: the names an error echoes.)
    #[cfg(feature = "error-data")]
    pub(crate) fn bounded(&self, max: usize) -> Str<'a> {
        let raw = self.raw;
        let mut len = 0;
        while let Some(&b) = raw.get(len) {
            let step = match b {
                // An escape; `\uD8xx`..`\uDBxx` (a `D` then `8` or above: a low
                // surrogate never starts an escape of valid text) with its pair.
                b'\\' => match raw.get(len + 1..len + 4) {
                    Some(&[b'u', b'd' | b'D', d]) if d >= b'8' => 12,
                    Some([b'u', ..]) => 6,
                    _ => 2,
                },
                // A UTF-8 sequence, by its first byte.
                _ => 1 + usize::from(b >= 0xC0) + usize::from(b >= 0xE0) + usize::from(b >= 0xF0),
            };
            if len + step > max {
                break;
            }
            len += step;
        }
        Str {
            raw: raw.get(..len).unwrap_or_default(),
        }
    }

    /// Whether `self` and `other` are the same text once decoded (member names: `"a"`
    /// and `"\u0061"` are one name). `other`, when spelled with an escape, is
    /// decoded on the stack: one whose decoded text is longer than [`NAME_BUF`] bytes is
    /// another name. ([`Value::member_named`](super::Value::member_named) passes an object's member names as
    /// `other`: a schema's property names, the arguments before the one looked for —
    /// the argument itself is never cut short.)
    pub(crate) fn same_name(&self, other: Str<'_>) -> bool {
        if !other.has_escapes() {
            return self.eq_bytes(other.raw);
        }
        let mut buf = [0u8; NAME_BUF];
        other
            .unescape_into(&mut buf)
            .is_ok_and(|o| self.eq_bytes(o.as_bytes()))
    }

    /// Whether the content contains any escape.
    pub fn has_escapes(&self) -> bool {
        // Validated content has no raw quote or control character: the first special
        // byte, if any, is a backslash.
        find_special(self.raw).is_some()
    }

    /// `Some` when there are no escapes (zero-copy view of the input).
    ///
    /// ```
    /// let v = emcp::wire::json::parse(br#"["plain", "esc\"aped"]"#).unwrap();
    /// let mut it = v.items();
    /// assert_eq!(it.next().unwrap().as_str().unwrap().as_plain(), Some("plain"));
    /// assert_eq!(it.next().unwrap().as_str().unwrap().as_plain(), None);
    /// ```
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.has_escapes() {
            return None;
        }
        core::str::from_utf8(self.raw).ok()
    }

    /// Whether the decoded content equals `s` (no buffer needed).
    ///
    /// ```
    /// let v = emcp::wire::json::parse(br#""tools\/list""#).unwrap();
    /// assert!(v.as_str().unwrap().eq_str("tools/list"));
    /// ```
    pub fn eq_str(&self, s: &str) -> bool {
        self.eq_bytes(s.as_bytes())
    }

    /// The index of the first of `names` the decoded content equals. Content without
    /// escapes (nearly all) is compared by its bytes, length first.
    pub(crate) fn position_in(&self, names: &[&str]) -> Option<usize> {
        self.position_in_known(names, find_quote_or_backslash(self.raw).is_none())
    }

    /// [`Str::position_in`] when the caller knows whether the content has no escape
    /// (`plain`). Always inline on hosts: the picking loop matches every member
    /// name of the levels it picks from with it.
    #[cfg_attr(emcp_fast, inline(always))]
    pub(crate) fn position_in_known(&self, names: &[&str], plain: bool) -> Option<usize> {
        names.iter().position(|name| {
            if plain {
                same_bytes(self.raw, name.as_bytes())
            } else {
                self.eq_str(name)
            }
        })
    }

    /// [`Str::eq_str`] against bytes (e.g. the content of another string without
    /// escapes, which needs no UTF-8 check to be compared).
    pub(crate) fn eq_bytes(&self, s: &[u8]) -> bool {
        // An escape is longer than the character it stands for, so content no longer
        // than `s` matches only when it has the same bytes and no escape (a `\`,
        // looked for a word at a time once the bytes are equal).
        if self.raw.len() <= s.len() {
            return form::same_unescaped(self.raw, s);
        }
        self.eq_decoded(s)
    }

    /// [`Str::eq_bytes`] for content longer than `s`: decoded as it is compared. Out of
    /// line on hosts, so that the common case above saves no registers for it.
    #[cfg_attr(emcp_fast, inline(never))]
    fn eq_decoded(&self, s: &[u8]) -> bool {
        let mut want = s;
        let mut rest = self.raw;
        while let Some(piece) = next_raw_piece(&mut rest) {
            let mut utf8 = [0u8; 4];
            let bytes: &[u8] = match piece {
                RawPiece::Bytes(b) => b,
                RawPiece::Char(c) => c.encode_utf8(&mut utf8).as_bytes(),
            };
            match want.strip_prefix(bytes) {
                Some(tail) => want = tail,
                None => return false,
            }
        }
        want.is_empty()
    }

    /// Decode into `buf`, returning the decoded text.
    ///
    /// # Errors
    ///
    /// [`BufferTooSmall`] if the decoded text does not fit ([`Str::decoded_len`] tells
    /// the size needed); `buf` may then hold part of it.
    ///
    /// ```
    /// use emcp::wire::json::{parse, BufferTooSmall};
    ///
    /// let v = parse(br#""\u00e9t\u00e9 \ud83d\ude00""#).unwrap();
    /// let s = v.as_str().unwrap();
    /// let mut buf = [0u8; 16];
    /// assert_eq!(s.unescape_into(&mut buf), Ok("été 😀"));
    /// assert_eq!(s.unescape_into(&mut [0u8; 4]), Err(BufferTooSmall));
    /// ```
    pub fn unescape_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b str, BufferTooSmall> {
        let mut len = 0;
        let mut rest = self.raw;
        while let Some(piece) = next_raw_piece(&mut rest) {
            let mut utf8 = [0u8; 4];
            let bytes: &[u8] = match piece {
                RawPiece::Bytes(b) => b,
                RawPiece::Char(c) => c.encode_utf8(&mut utf8).as_bytes(),
            };
            let end = len + bytes.len();
            // A zip rather than `copy_from_slice`, whose length check is a panic path.
            let dst = buf.get_mut(len..end).ok_or(BufferTooSmall)?;
            for (d, &b) in dst.iter_mut().zip(bytes) {
                *d = b;
            }
            len = end;
        }
        let buf: &'b [u8] = buf;
        core::str::from_utf8(buf.get(..len).unwrap_or_default()).map_err(|_| BufferTooSmall)
    }

    /// Length in bytes after decoding.
    pub fn decoded_len(&self) -> usize {
        let mut len = 0;
        let mut rest = self.raw;
        while let Some(piece) = next_raw_piece(&mut rest) {
            len += match piece {
                RawPiece::Bytes(b) => b.len(),
                RawPiece::Char(c) => c.len_utf8(),
            };
        }
        len
    }

    /// Number of Unicode scalar values after decoding (JSON Schema
    /// `minLength`/`maxLength`).
    ///
    /// ```
    /// let v = emcp::wire::json::parse(br#""h\u00e9\ud83d\ude00!""#).unwrap();
    /// assert_eq!(v.as_str().unwrap().char_count(), 4);
    /// ```
    pub fn char_count(&self) -> usize {
        let mut count = 0;
        let mut rest = self.raw;
        while let Some(piece) = next_raw_piece(&mut rest) {
            count += match piece {
                RawPiece::Bytes(b) => b.iter().filter(|&&b| b & 0xC0 != 0x80).count(),
                RawPiece::Char(_) => 1,
            };
        }
        count
    }

    /// Decoded content as a sequence of pieces, without a buffer: runs of unescaped
    /// text as `&'a str`, each escape as one `char`.
    ///
    /// ```
    /// use emcp::wire::json::{parse, Piece};
    ///
    /// let v = parse(br#""ab\ncd""#).unwrap();
    /// let pieces: Vec<Piece> = v.as_str().unwrap().pieces().collect();
    /// assert_eq!(pieces, [Piece::Text("ab"), Piece::Char('\n'), Piece::Text("cd")]);
    /// ```
    pub fn pieces(&self) -> Pieces<'a> {
        Pieces { rest: self.raw }
    }
}

/// Iterator over the decoded pieces of a string, from [`Str::pieces`].
#[derive(Clone, Debug)]
pub struct Pieces<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        match next_raw_piece(&mut self.rest)? {
            RawPiece::Bytes(b) => match core::str::from_utf8(b) {
                Ok(text) => Some(Piece::Text(text)),
                Err(_) => {
                    self.rest = &[];
                    None
                }
            },
            RawPiece::Char(c) => Some(Piece::Char(c)),
        }
    }
}

impl core::iter::FusedIterator for Pieces<'_> {}
