//! The writer's fast forms, for hosts (where cycles matter more than bytes of code):
//! a short string assembled with its quotes and comma and written at once, keys the
//! crate spells as literals written whole with their punctuation. Each has its plain
//! twin, of the same name, in [`super::plain`]; `writer/mod.rs` picks one set, and the
//! tests run both on the same calls (`tests.rs`, `forms_agree`). Compiled on every
//! target, so that those tests run on 32-bit ones too.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use super::super::find::special_flags;
use super::JsonWriter;

/// Longest string content [`put_joined`] assembles with its quotes (and comma) into
/// one sink write.
const JOIN_MAX: usize = 32;

/// The high bit of every byte of a word: where [`special_flags`] flags a byte.
pub(super) const SPECIAL_HIGHS: u64 = (u64::MAX / 0xFF) << 7;

/// [`copy_small`](super::copy_small) for `to` and `from` of the same length, at most 32 bytes, that also
/// returns the [`special_flags`] of every byte of `from` (of a word read anyway for the
/// copy; a byte read twice is flagged twice, which changes nothing): nonzero under
/// [`SPECIAL_HIGHS`] when `from` holds a byte to escape.
#[inline(always)]
pub(super) fn copy_flagged(to: &mut [u8], from: &[u8]) -> u64 {
    /// The first and last `K` bytes copied; `K` is 8 or 16. The flags of the words.
    #[inline(always)]
    fn two<const K: usize>(to: &mut [u8], from: &[u8]) -> u64 {
        let mut flags = 0;
        if let (Some(a), Some(b)) = (to.first_chunk_mut::<K>(), from.first_chunk::<K>()) {
            *a = *b;
            flags |= words_flags(b);
        }
        if let (Some(a), Some(b)) = (to.last_chunk_mut::<K>(), from.last_chunk::<K>()) {
            *a = *b;
            flags |= words_flags(b);
        }
        flags
    }
    let n = from.len();
    if to.len() != n {
        return 0;
    }
    match n {
        16.. => two::<16>(to, from),
        8.. => two::<8>(to, from),
        4.. => {
            let mut v = [b' '; 8];
            if let (Some(a), Some(b)) = (to.first_chunk_mut::<4>(), from.first_chunk::<4>()) {
                *a = *b;
                if let Some(x) = v.first_chunk_mut::<4>() {
                    *x = *b;
                }
            }
            if let (Some(a), Some(b)) = (to.last_chunk_mut::<4>(), from.last_chunk::<4>()) {
                *a = *b;
                if let Some(x) = v.last_chunk_mut::<4>() {
                    *x = *b;
                }
            }
            special_flags(u64::from_le_bytes(v))
        }
        // 0 to 3 bytes: the first, middle and last (blanks for none).
        _ => {
            let mut v = [b' '; 8];
            for (i, k) in [0, n / 2, n.wrapping_sub(1)].into_iter().enumerate() {
                if let (Some(a), Some(&b)) = (to.get_mut(k), from.get(k)) {
                    *a = b;
                    if let Some(x) = v.get_mut(i) {
                        *x = b;
                    }
                }
            }
            special_flags(u64::from_le_bytes(v))
        }
    }
}

/// [`copy_flagged`] for more than 16 bytes: 16 at a time, then the last 16 (again
/// in part): a copy and an escape search in one pass.
pub(super) fn copy_flagged_long(to: &mut [u8], from: &[u8]) -> u64 {
    let mut flags = 0;
    let (whole, _) = from.as_chunks::<16>();
    for (a, b) in to.as_chunks_mut::<16>().0.iter_mut().zip(whole) {
        *a = *b;
        flags |= words_flags(b);
    }
    if let (Some(a), Some(b)) = (to.last_chunk_mut::<16>(), from.last_chunk::<16>()) {
        *a = *b;
        flags |= words_flags(b);
    }
    flags
}

/// The [`special_flags`] of the 8-byte words of `b` (8 or 16 bytes).
#[inline(always)]
fn words_flags(b: &[u8]) -> u64 {
    let mut flags = 0;
    for w in b.as_chunks::<8>().0 {
        flags |= special_flags(u64::from_le_bytes(*w));
    }
    flags
}

/// A key the crate spells as a literal, for [`JsonWriter::key_raw`]: `,"key":` whole
/// (one write of static text).
#[cfg_attr(not(emcp_fast), allow(unused_macros))] // used where this form is chosen
macro_rules! member_key {
    ($key:literal) => {
        concat!(",\"", $key, "\":").as_bytes()
    };
}
#[cfg_attr(not(emcp_fast), allow(unused_imports))]
pub(crate) use member_key;

/// What [`member_key!`] gives.
pub(crate) type MemberKey = &'static [u8];

/// A whole string (see [`JsonWriter::put_string`]): in one write when [`put_joined`]
/// can, else piece by piece.
#[inline(always)]
pub(super) fn put_string(w: &mut JsonWriter<'_>, content: &[u8], key: bool, verbatim: bool) {
    if put_joined(w, content, key, verbatim) {
        return;
    }
    w.put_parts(content, key, verbatim);
}

/// An object key, escaped (see [`JsonWriter::key`]): the one-write path inline, so that
/// for a literal key its copy and escape search fold away at the call.
#[inline(always)]
pub(super) fn key(w: &mut JsonWriter<'_>, key: &[u8]) {
    if !put_joined(w, key, true, false) {
        w.put_string(key, true, false);
    }
}

/// A key as [`member_key!`] gives it: `,"key":` written as it is, the comma dropped when
/// none is due.
#[inline(always)]
pub(super) fn key_raw(w: &mut JsonWriter<'_>, key: MemberKey) {
    w.put_lead(key);
    w.comma = false;
}

/// The comma before a raw value, when one is due (no empty write when none is).
#[inline(always)]
pub(super) fn value_comma(w: &mut JsonWriter<'_>) {
    if w.comma {
        w.put(b",");
    }
}

/// [`put_string`] for content of at most [`JOIN_MAX`] bytes with
/// nothing to escape: `,"` (comma when due), `content` and `"` (`":` for a `key`)
/// assembled on the stack and written at once. False, having written nothing, for
/// any other content.
#[inline]
pub(super) fn put_joined(
    w: &mut JsonWriter<'_>,
    content: &[u8],
    key: bool,
    verbatim: bool,
) -> bool {
    let mut buf = [b' '; JOIN_MAX + 4];
    let [comma, quote, body @ ..] = &mut buf;
    *comma = b',';
    *quote = b'"';
    let n = content.len();
    let Some(to) = body.get_mut(..n).filter(|_| n <= JOIN_MAX) else {
        return false;
    };
    // The content is copied as at most two overlapping pieces and searched in the
    // words just read (bytes searched twice change nothing), without a loop.
    let flags = copy_flagged(to, content);
    if !verbatim && flags & SPECIAL_HIGHS != 0 {
        return false;
    }
    // Both bytes of a key's close; a value's ends before the colon.
    if let Some(end) = body.get_mut(n..).and_then(|s| s.first_chunk_mut::<2>()) {
        *end = *b"\":";
    }
    let start = usize::from(!w.comma);
    let end = 3 + n + usize::from(key);
    w.put(buf.get(start..end).unwrap_or_default());
    true
}
