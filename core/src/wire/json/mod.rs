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
//! Nothing in this module panics, on any input or call sequence. [`parse`] is the only
//! way to obtain a [`Value`]; once it has returned `Ok`, every accessor relies on the
//! bytes being valid JSON, and is still written with checked access only (it would
//! return `None` or stop early, never panic). Writer errors, including nesting deeper
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

mod number;
pub mod scanner;
pub mod writer;

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

/// Index of the first byte of `s` that a JSON string cannot hold as it is: `"`, `\`
/// or a control character (below 0x20). The one word-at-a-time search of the crate:
/// the scanner finds string ends and escapes with it, the writer what to escape.
/// Out of line on 32-bit targets (one copy in flash), inline on 64-bit hosts (speed),
/// where the bytes after the last whole word are searched as one last word overlapping
/// the one before (the writer searches every string to its end).
#[cfg_attr(not(emcp_fast), inline(never))]
#[cfg_attr(emcp_fast, inline)]
fn find_special(s: &[u8]) -> Option<usize> {
    swar::find::<{ cfg!(emcp_fast) }>(s, special_flags_word, |b| {
        b < 0x20 || b == b'"' || b == b'\\'
    })
}

/// The word test of [`find_special`]: flags (sets the high bit of) each byte of `v`
/// that is `"`, `\` or a control character — exactly, when only whether any is flagged
/// counts (a borrow flags bytes above a flagged one only).
#[inline(always)]
fn special_flags_word(v: usize) -> usize {
    swar::ascii_only(
        swar::eq(v, b'"') | swar::eq(v, b'\\') | swar::below(v, 0x20),
        v,
    )
}

/// [`special_flags_word`] of a 64-bit word, for the writer's short strings on 64-bit
/// targets.
#[cfg(emcp_fast)]
#[inline(always)]
pub(crate) fn special_flags(v: u64) -> u64 {
    special_flags_word(v as usize) as u64
}

/// [`find_special`] that also stops at a byte above 0x7F: the scanner's search
/// through strings while the input's UTF-8 has not been checked (64-bit hosts only,
/// where it is inline). The bytes after the last whole word are searched as one last
/// word, as by [`find_special`] (the last string of a line ends there).
#[inline]
fn find_special_or_high(s: &[u8]) -> Option<usize> {
    swar::find::<true>(
        s,
        |v| swar::eq(v, b'"') | swar::eq(v, b'\\') | swar::below(v, 0x20) | v,
        |b| b < 0x20 || b == b'"' || b == b'\\' || b > 0x7F,
    )
}

/// Index of the first `"` or `\\` in `s`: where validated string content ends or has
/// an escape (it holds no raw control character). Inline, for navigation's hot loop.
#[inline]
pub(crate) fn find_quote_or_backslash(s: &[u8]) -> Option<usize> {
    swar::find::<false>(
        s,
        |v| swar::ascii_only(swar::eq(v, b'"') | swar::eq(v, b'\\'), v),
        |b| b == b'"' || b == b'\\',
    )
}

/// Index of the first newline in `s`, a word at a time: the framer's line search on
/// 64-bit hosts.
#[cfg(emcp_fast)]
#[inline]
pub(crate) fn find_newline(s: &[u8]) -> Option<usize> {
    let newlines = |v: usize| swar::ascii_only(swar::eq(v, b'\n'), v);
    // Two words per step (the usual line is a few hundred bytes), then word by word.
    let mut rest = s;
    while let Some((pair, tail)) = rest.split_first_chunk::<16>() {
        let (Some(a), Some(b)) = (pair.first_chunk::<8>(), pair.last_chunk::<8>()) else {
            break;
        };
        let x = newlines(usize::from_le_bytes(*a)) & swar::HIGHS;
        let y = newlines(usize::from_le_bytes(*b)) & swar::HIGHS;
        if x | y != 0 {
            let lane = if x != 0 {
                x.trailing_zeros() / 8
            } else {
                8 + y.trailing_zeros() / 8
            };
            return Some(s.len() - rest.len() + lane as usize);
        }
        rest = tail;
    }
    let done = s.len() - rest.len();
    swar::find::<false>(rest, newlines, |b| b == b'\n').map(|i| done + i)
}

/// Whether `a` and `b` are the same bytes and hold no backslash: validated string content
/// that equals a text without escapes. On 64-bit hosts, a word at a time in one pass
/// (rather than a comparison, then a search for a backslash).
#[cfg(emcp_fast)]
#[inline]
pub(crate) fn same_unescaped(a: &[u8], b: &[u8]) -> bool {
    /// The word of `s` at `i` (zero when out of range: never, by the callers' bounds).
    fn word(s: &[u8], i: usize) -> usize {
        s.get(i..)
            .and_then(|s| s.first_chunk::<8>())
            .map_or(0, |w| usize::from_le_bytes(*w))
    }
    /// The four bytes of `s` at `i` (likewise).
    fn half(s: &[u8], i: usize) -> usize {
        s.get(i..)
            .and_then(|s| s.first_chunk::<4>())
            .map_or(0, |w| u32::from_le_bytes(*w) as usize)
    }
    /// The backslashes of `x`, flagged in `swar::HIGHS` (`swar::eq` is exact once
    /// non-ASCII bytes are ignored, and any flag at all means a lowest, exact one).
    fn backslashes(x: usize) -> usize {
        swar::ascii_only(swar::eq(x, b'\\'), x) & swar::HIGHS
    }
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 4 {
        return a.iter().zip(b).all(|(&x, &y)| x == y && x != b'\\');
    }
    if n < 8 {
        // Two overlapping halves, the first four bytes and the last four, searched for
        // a backslash as one word.
        let (x, y) = (half(a, 0), half(a, n - 4));
        return x == half(b, 0) && y == half(b, n - 4) && backslashes(x | y << 32) == 0;
    }
    if n <= 16 {
        // Two overlapping words, no loop: the first eight bytes and the last eight.
        let (x, y) = (word(a, 0), word(a, n - 8));
        return x == word(b, 0) && y == word(b, n - 8) && backslashes(x) | backslashes(y) == 0;
    }
    let mut i = 0;
    loop {
        // The last word overlaps the one before it when `n` is no multiple of 8.
        let at = i.min(n - 8);
        let x = word(a, at);
        if x != word(b, at) || backslashes(x) != 0 {
            return false;
        }
        i += 8;
        if i >= n {
            return true;
        }
    }
}

/// Word-at-a-time byte search ("SWAR"): finds the first byte of interest in a slice
/// one machine word at a time, with a byte loop for the last partial word.
mod swar {
    /// The operations for one word type (`usize` in the library; tests also run them
    /// on `u32` and `u64`, so 32-bit targets are covered on any host).
    macro_rules! swar_ops {
        ($word:ty) => {
            const WORD: usize = core::mem::size_of::<$word>();
            const ONES: $word = <$word>::MAX / 0xFF;
            /// The high bit of every byte: where the flag functions flag.
            pub(super) const HIGHS: $word = ONES << 7;

            /// `b` in every byte.
            #[inline]
            fn splat(b: u8) -> $word {
                ONES.wrapping_mul(<$word>::from(b))
            }

            // The flag functions set the high bit of every byte of interest; a borrow
            // can also flag bytes *above* a flagged one, so only the lowest flag is
            // exact, which is all `find` uses. They are exact for ASCII bytes only:
            // combine them with `ascii_only` (ignore bytes >= 0x80) or `| v` (flag
            // those too).

            /// Flags ASCII bytes of `v` equal to `b`.
            #[inline]
            pub(super) fn eq(v: $word, b: u8) -> $word {
                (v ^ splat(b)).wrapping_sub(ONES)
            }

            /// Flags ASCII bytes of `v` below `n` (`n` <= 0x80).
            #[inline]
            pub(super) fn below(v: $word, n: u8) -> $word {
                v.wrapping_sub(splat(n))
            }

            /// Clears the flags of non-ASCII bytes of `v`.
            #[inline]
            pub(super) fn ascii_only(flags: $word, v: $word) -> $word {
                flags & !v
            }

            /// [`find`] both ways (the two must agree).
            #[cfg(test)]
            pub(super) fn find_both(
                s: &[u8],
                word: impl Fn($word) -> $word + Copy,
                byte: impl Fn(u8) -> bool + Copy,
            ) -> Option<usize> {
                let found = find::<false>(s, word, byte);
                assert_eq!(found, find::<true>(s, word, byte), "{s:?}");
                found
            }

            /// Index of the first byte of `s` matching `byte`, which `word` must flag
            /// the same way (words are read little-endian). With `LAST_WORD`, the bytes
            /// after the last whole word are searched as part of the last word of `s`
            /// (when `s` has one) rather than one at a time.
            #[inline]
            pub(super) fn find<const LAST_WORD: bool>(
                s: &[u8],
                word: impl Fn($word) -> $word,
                byte: impl Fn(u8) -> bool,
            ) -> Option<usize> {
                let mut rest = s;
                while let Some((chunk, tail)) = rest.split_first_chunk::<WORD>() {
                    let flags = word(<$word>::from_le_bytes(*chunk)) & HIGHS;
                    if flags != 0 {
                        let lane = (flags.trailing_zeros() / 8) as usize;
                        return Some(s.len() - rest.len() + lane);
                    }
                    rest = tail;
                }
                let done = s.len() - rest.len();
                if LAST_WORD {
                    if rest.is_empty() {
                        return None;
                    }
                    if let Some(last) = s.last_chunk::<WORD>() {
                        // The last word of `s`, overlapping bytes already searched: those
                        // hold nothing of interest, so they flag nothing and lend no
                        // borrow to the lanes above them; their lanes are shifted out.
                        let seen = WORD - rest.len();
                        let flags = (word(<$word>::from_le_bytes(*last)) & HIGHS) >> (8 * seen);
                        return match flags {
                            0 => None,
                            f => Some(done + (f.trailing_zeros() / 8) as usize),
                        };
                    }
                }
                let n = rest.iter().position(|&b| byte(b))?;
                Some(done + n)
            }
        };
    }

    swar_ops!(usize);

    #[cfg(test)]
    mod narrow {
        swar_ops!(u32);
    }

    #[cfg(test)]
    mod wide {
        swar_ops!(u64);
    }

    #[cfg(test)]
    #[allow(clippy::unwrap_used, clippy::indexing_slicing)]
    mod tests {
        extern crate std;

        use proptest::prelude::*;
        use std::vec::Vec;

        /// The word masks used by the scanner and the writer against their byte forms,
        /// for each word size.
        macro_rules! check_with {
            ($m:path, $s:expr) => {{
                use $m as w;
                let s: &[u8] = $s;

                let is_special = |b: u8| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b);
                let found = w::find_both(
                    s,
                    |v| w::eq(v, b'"') | w::eq(v, b'\\') | w::below(v, 0x20) | v,
                    is_special,
                );
                assert_eq!(found, s.iter().position(|&b| is_special(b)), "{s:?}");
                let found = w::find_both(s, |v| w::ascii_only(w::eq(v, b'\n'), v), |b| b == b'\n');
                assert_eq!(found, s.iter().position(|&b| b == b'\n'), "{s:?}");
                let is_qb = |b: u8| b == b'"' || b == b'\\';
                let found = w::find_both(
                    s,
                    |v| w::ascii_only(w::eq(v, b'"') | w::eq(v, b'\\'), v),
                    is_qb,
                );
                assert_eq!(found, s.iter().position(|&b| is_qb(b)), "{s:?}");
                let needs = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
                let found = w::find_both(
                    s,
                    |v| w::ascii_only(w::eq(v, b'"') | w::eq(v, b'\\') | w::below(v, 0x20), v),
                    needs,
                );
                assert_eq!(found, s.iter().position(|&b| needs(b)), "{s:?}");
            }};
        }

        fn check_all(s: &[u8]) {
            let stop = |b: u8| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b);
            assert_eq!(
                super::super::find_special_or_high(s),
                s.iter().position(|&b| stop(b))
            );
            #[cfg(emcp_fast)]
            assert_eq!(
                super::super::find_newline(s),
                s.iter().position(|&b| b == b'\n')
            );
            check_with!(super, s);
            check_with!(super::narrow, s);
            check_with!(super::wide, s);
        }

        #[test]
        fn every_length_and_position() {
            let specials = [
                0u8, 0x01, b'\n', 0x0b, 0x1f, b'"', b'\\', b'{', b'}', b'[', b']', 0x80, 0xc3, 0xff,
            ];
            for fill in [b'a', 0x20, 0x7f, 0xe9, b'!', b'#', b'^', b'|'] {
                for len in 0..=40 {
                    let base: Vec<u8> = std::vec![fill; len];
                    check_all(&base);
                    for at in 0..len {
                        for &sp in &specials {
                            let mut s = base.clone();
                            s[at] = sp;
                            check_all(&s);
                            // A second special after the first.
                            for later in at + 1..len {
                                let mut t = s.clone();
                                t[later] = 0;
                                check_all(&t);
                            }
                        }
                    }
                }
            }
        }

        proptest! {
            #[test]
            fn matches_bytewise(s in proptest::collection::vec(any::<u8>(), 0..80)) {
                check_all(&s);
            }

            #[test]
            fn matches_bytewise_near_specials(
                s in proptest::collection::vec(
                    proptest::sample::select(std::vec![
                        0u8, 1, 0x1f, 0x20, 0x21, b'"', b'#', b'[', b'\\', b']', b'{', b'|',
                        b'}', 0x7f, 0x80, 0xff, b'a',
                    ]),
                    0..40,
                )
            ) {
                check_all(&s);
            }
        }
    }
}

#[cfg(all(test, emcp_fast))]
#[allow(clippy::indexing_slicing)]
mod same_unescaped_tests {
    extern crate std;
    use std::vec::Vec;

    /// Against its definition: every length to 40, a backslash or a difference at
    /// every position.
    #[test]
    fn as_defined() {
        let check = |a: &[u8], b: &[u8]| {
            let want = a == b && !a.contains(&b'\\');
            assert_eq!(super::same_unescaped(a, b), want, "{a:?} {b:?}");
        };
        for len in 0..=40usize {
            let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            check(&base, &base);
            check(&base, &base[..len.saturating_sub(1)]);
            for at in 0..len {
                for b in [b'\\', b'A', 0x5D, 0xDC, 0x5B] {
                    let mut other = base.clone();
                    other[at] = b;
                    check(&other, &other);
                    check(&base, &other);
                    check(&other, &base);
                }
            }
        }
    }
}

pub use scanner::{
    parse, parse_with_depth, BufferTooSmall, Items, Kind, Members, Piece, Pieces, ScanError, Str,
    Value, DEPTH_LIMIT, MAX_DEPTH,
};
pub use writer::{IoSink, JsonWriter, Sink, SinkError, SliceSink, WRITER_MAX_DEPTH};
