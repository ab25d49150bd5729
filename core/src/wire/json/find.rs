//! The searches through string content, a word at a time ([`super::swar`]): where a
//! string ends or needs an escape, for the scanner and the writer alike, and the
//! framer's search for a newline.

use super::swar;

/// Index of the first byte of `s` that a JSON string cannot hold as it is: `"`, `\`
/// or a control character (below 0x20). The one word-at-a-time search of the crate:
/// the scanner finds string ends and escapes with it, the writer what to escape.
/// Out of line on small targets (one copy in flash), inline on hosts (speed),
/// where the bytes after the last whole word are searched as one last word overlapping
/// the one before (the writer searches every string to its end).
#[cfg_attr(not(emcp_fast), inline(never))]
#[cfg_attr(emcp_fast, inline)]
pub(super) fn find_special(s: &[u8]) -> Option<usize> {
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

/// [`special_flags_word`] of an 8-byte word, for the writer's fast form of short
/// strings (on 64-bit targets the same operations).
#[inline(always)]
pub(crate) fn special_flags(v: u64) -> u64 {
    use swar::wide;
    wide::ascii_only(
        wide::eq(v, b'"') | wide::eq(v, b'\\') | wide::below(v, 0x20),
        v,
    )
}

/// [`find_special`] that also stops at a byte above 0x7F: the scanner's search
/// through strings while the input's UTF-8 has not been checked (hosts only,
/// where it is inline). The bytes after the last whole word are searched as one last
/// word, as by [`find_special`] (the last string of a line ends there).
#[inline]
pub(super) fn find_special_or_high(s: &[u8]) -> Option<usize> {
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

/// The framer's search for the end of a line, in three forms (the framer picks one):
/// `plain`, a byte at a time (the least code), `word`, a machine word at a time (four
/// bytes per step on a 32-bit target), and `fast`, two 8-byte words per step. All give
/// the same index (tested in [`super::swar`] against each other and `position`).
pub(crate) mod newline {
    use super::swar;
    use super::swar::wide;

    /// Index of the first newline in `s`, a byte at a time.
    #[allow(dead_code)] // the reference of the tests; the framer takes `word` or `fast`
    #[inline(always)]
    pub(crate) fn plain(s: &[u8]) -> Option<usize> {
        s.iter().position(|&b| b == b'\n')
    }

    /// Index of the first newline in `s`, a machine word at a time, then a byte at a
    /// time for the bytes after the last whole word.
    #[cfg_attr(emcp_fast, allow(dead_code))]
    #[inline]
    pub(crate) fn word(s: &[u8]) -> Option<usize> {
        swar::find::<false>(
            s,
            |v| swar::ascii_only(swar::eq(v, b'\n'), v),
            |b| b == b'\n',
        )
    }

    /// Index of the first newline in `s`, two 8-byte words per step (the usual line
    /// is a few hundred bytes), then word by word.
    #[cfg_attr(not(emcp_fast), allow(dead_code))]
    #[inline]
    pub(crate) fn fast(s: &[u8]) -> Option<usize> {
        let newlines = |v: u64| wide::ascii_only(wide::eq(v, b'\n'), v);
        let mut rest = s;
        while let Some((pair, tail)) = rest.split_first_chunk::<16>() {
            let (Some(a), Some(b)) = (pair.first_chunk::<8>(), pair.last_chunk::<8>()) else {
                break;
            };
            let x = newlines(u64::from_le_bytes(*a)) & wide::HIGHS;
            let y = newlines(u64::from_le_bytes(*b)) & wide::HIGHS;
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
        wide::find::<false>(rest, newlines, |b| b == b'\n').map(|i| done + i)
    }
}
