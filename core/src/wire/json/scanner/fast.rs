//! The scanner's fast forms, for hosts (where cycles matter more than bytes of code):
//! a picking loop that matches member names in place, word-wide comparisons, and a
//! lookup that passes a known value by its length. Each has its plain twin, of the
//! same name and signature, in [`super::plain`]; `scanner/mod.rs` picks one set, and
//! the tests run both on the same inputs (`tests.rs`, `forms_agree`). Compiled on
//! every target, so that those tests run on 32-bit ones too.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use super::navigate::{skip_comma, skip_string, split_value};
use super::validate::{
    after_colon, key_end, literal_end, number_end, scan, skip_ws, string_end, string_scan, Picks,
    Stop, NOT_FILED, PICK_LEVELS,
};
use super::{ScanError, Str, Value};
use crate::wire::json::swar::wide;

/// The input's UTF-8 is checked while strings are scanned, at the first byte above
/// 0x7F (one pass), rather than over the whole input first.
pub(super) const FUSED_UTF8: bool = true;

impl Picks<'_, '_> {
    /// Whether nothing is to be filed (no name at the top level, so no level below
    /// it is opened either).
    fn files_nothing(&self) -> bool {
        self.levels.first().is_none_or(|l| l.keys.is_empty())
    }
}

/// Validate the value starting at `i` (whitespace already skipped), nesting at most
/// `max_depth` deep, filing the members `picks` names; returns the index just after it.
///
/// The objects picked from (the top level, then the first member named `open` at each
/// level, when it is an object: at most [`PICK_LEVELS`], all objects) are walked here,
/// member by member; every other value is validated by [`object_end`] (an object) or
/// [`plain_end`], neither of which does any pick bookkeeping.
///
/// Indices only ever advance past bytes that exist, so `i + 1` cannot overflow.
///
/// When the value is not JSON, `picks.stop` is where it stopped being JSON, as the
/// plain form's loop finds it: that loop runs again over the value to find it (a
/// rejected line is rare; the loops here keep no such position).
pub(super) fn value_end<'a>(
    input: &'a [u8],
    i: usize,
    max_depth: usize,
    picks: &mut Picks<'_, 'a>,
    utf8: &mut bool,
) -> Result<usize, ScanError> {
    let scanned = picking_end(input, i, max_depth, picks, utf8);
    if Stop::KEPT && scanned.is_err() {
        let mut none = Picks::none();
        let _ = scan::<true>(input, i, 0, max_depth, &mut none, &mut true);
        picks.stop = none.stop;
    }
    scanned
}

/// [`value_end`] without `picks.stop`.
#[inline(always)]
fn picking_end<'a>(
    input: &'a [u8],
    mut i: usize,
    max_depth: usize,
    picks: &mut Picks<'_, 'a>,
    utf8: &mut bool,
) -> Result<usize, ScanError> {
    // Without members to file, the loop without pick bookkeeping is the cheaper walk.
    if input.get(i) != Some(&b'{') || picks.files_nothing() {
        return plain_end(input, i, 0, max_depth, utf8);
    }
    if max_depth == 0 {
        return Err(ScanError::TooDeep);
    }
    // The depth of the object whose members are read (1: the top level).
    let mut depth: usize = 1;
    i = skip_ws(input, i + 1);
    // Whether `i` is at the `}` of an empty object just opened.
    let mut empty = input.get(i) == Some(&b'}');
    'member: loop {
        if !empty {
            // A member's key at `i`.
            if input.get(i) != Some(&b'"') {
                return Err(ScanError::Syntax);
            }
            let key_start = i + 1;
            let l = picks.levels.get_mut(depth - 1).ok_or(ScanError::Syntax)?;
            // A name the level files, spelled as it is, is matched in place and needs no
            // scan: names hold nothing a string must escape (see [`Level`]).
            let after = input.get(key_start..).unwrap_or_default();
            let named = l.keys.iter().position(|name| {
                let n = name.as_bytes();
                after.get(n.len()) == Some(&b'"')
                    && after.get(..n.len()).is_some_and(|k| same_bytes(k, n))
            });
            let (end, k) = match named {
                Some(k) => (
                    key_start + l.keys.get(k).map_or(0, |n| n.len()) + 1,
                    Some(k),
                ),
                None => {
                    let (end, plain) =
                        string_scan(input, key_start, utf8).ok_or(ScanError::Syntax)?;
                    // Every name was tried as it is: only an escaped key can still be one.
                    let k = match plain {
                        true => None,
                        false => Str {
                            raw: input.get(key_start..end - 1).unwrap_or_default(),
                        }
                        .position_in_known(l.keys, false),
                    };
                    (end, k)
                }
            };
            let slot = match k {
                Some(k) if matches!(l.found.get(k), Some(None)) => k,
                _ => NOT_FILED,
            };
            // Once one name has the prefix, the others need no look.
            if depth == PICK_LEVELS && !picks.prefixed && !picks.prefix.is_empty() {
                let key = input.get(key_start..end - 1).unwrap_or_default();
                picks.prefixed = key.starts_with(picks.prefix);
            }
            i = after_colon(input, end).ok_or(ScanError::Syntax)?;
            let l = picks.levels.get_mut(depth - 1).ok_or(ScanError::Syntax)?;
            if slot == l.open && slot != NOT_FILED && input.get(i) == Some(&b'{') {
                // The object of the member that opens the next level: filed when it
                // closes.
                if depth >= max_depth {
                    return Err(ScanError::TooDeep);
                }
                l.slot = slot;
                l.at = i;
                depth += 1;
                i = skip_ws(input, i + 1);
                empty = input.get(i) == Some(&b'}');
                continue 'member;
            }
            let start = i;
            i = match input.get(i) {
                Some(b'"') => string_end(input, i + 1, utf8).ok_or(ScanError::Syntax)?,
                // A non-negative integer (as ids are) needs no full number grammar.
                Some(&first @ b'0'..=b'9') => {
                    let mut j = i + 1;
                    while let Some(b'0'..=b'9') = input.get(j) {
                        j += 1;
                    }
                    match input.get(j) {
                        Some(b'.' | b'e' | b'E') => {
                            number_end(input, i).ok_or(ScanError::Syntax)?
                        }
                        // A leading zero.
                        _ if first == b'0' && j > i + 1 => return Err(ScanError::Syntax),
                        _ => j,
                    }
                }
                Some(b'-') => number_end(input, i).ok_or(ScanError::Syntax)?,
                // `{}` (as in `"capabilities":{}`): nothing more to check.
                Some(b'{') if input.get(i + 1) == Some(&b'}') && depth < max_depth => i + 2,
                // An object (tool arguments, say): its own short loop.
                Some(b'{') if depth < max_depth => {
                    let mut error = ScanError::Syntax;
                    object_end(input, i, depth, max_depth, utf8, &mut error).ok_or(error)?
                }
                _ => plain_end(input, i, depth, max_depth, utf8)?,
            };
            if let (Some(f), Some(raw)) = (l.found.get_mut(slot), input.get(start..i)) {
                *f = Some(Value { raw });
            }
            i = skip_ws(input, i);
            match input.get(i) {
                Some(b',') => {
                    i = skip_ws(input, i + 1);
                    continue 'member;
                }
                Some(b'}') => {}
                _ => return Err(ScanError::Syntax),
            }
        }
        // `i` is at the `}` of the object at `depth`: close objects until another
        // member is due.
        loop {
            i += 1;
            depth -= 1;
            // The member of the object at `depth` whose value just closed.
            let Some(l) = depth.checked_sub(1).and_then(|d| picks.levels.get_mut(d)) else {
                return Ok(i);
            };
            l.file(input, i);
            i = skip_ws(input, i);
            match input.get(i) {
                Some(b',') => {
                    i = skip_ws(input, i + 1);
                    empty = false;
                    continue 'member;
                }
                Some(b'}') => {}
                _ => return Err(ScanError::Syntax),
            }
        }
    }
}

/// The end of the object at `i` (its `{`), inside containers `depth` deep (the
/// caller has checked that the object itself is not too deep): its members are
/// walked by a short loop of their own, and a member's value that is a container is
/// validated by [`plain_end`] (then the loop goes on after it). `utf8`: as for
/// [`string_scan`]. `None` when the object is not valid: `error` then holds why
/// (it is left as it is for a syntax error of the object's own; an `Option` comes
/// back in registers, where a `Result` would go through memory).
#[inline(never)]
fn object_end(
    input: &[u8],
    i: usize,
    depth: usize,
    max_depth: usize,
    utf8: &mut bool,
    error: &mut ScanError,
) -> Option<usize> {
    let mut i = skip_ws(input, i + 1);
    if input.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        let (end, _) = key_end(input, i, utf8)?;
        i = after_colon(input, end)?;
        i = match input.get(i)? {
            b'"' => string_end(input, i + 1, utf8)?,
            b'-' | b'0'..=b'9' => number_end(input, i)?,
            b't' => literal_end(input, i, b"true")?,
            b'f' => literal_end(input, i, b"false")?,
            b'n' => literal_end(input, i, b"null")?,
            _ => match plain_end(input, i, depth + 1, max_depth, utf8) {
                Ok(end) => end,
                Err(e) => {
                    *error = e;
                    return None;
                }
            },
        };
        i = skip_ws(input, i);
        match input.get(i)? {
            b',' => i = skip_ws(input, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Validate the value starting at `i` (whitespace already skipped), inside containers
/// `base` deep, nesting at most `max_depth` deep in all; returns the index just after
/// it. No member is filed.
fn plain_end(
    input: &[u8],
    i: usize,
    base: usize,
    max_depth: usize,
    utf8: &mut bool,
) -> Result<usize, ScanError> {
    scan::<false>(input, i, base, max_depth, &mut Picks::none(), utf8)
}

/// Whether `a` and `b` are the same bytes: lengths first, then a word at a time,
/// inline (no `memcmp` call for the short member names of a message).
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    /// The first and the last `N` bytes of `s` (overlapping when shorter than
    /// `2 * N`).
    #[inline(always)]
    fn ends<const N: usize>(s: &[u8]) -> Option<([u8; N], [u8; N])> {
        Some((*s.first_chunk::<N>()?, *s.last_chunk::<N>()?))
    }
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        0..4 => a == b,
        4..8 => ends::<4>(a) == ends::<4>(b),
        8..=16 => ends::<8>(a) == ends::<8>(b),
        _ => a == b,
    }
}

/// Whether `a` and `b` are the same bytes and hold no backslash (validated string
/// content that equals a text without escapes): a word at a time in one pass, rather
/// than a comparison, then a search for a backslash.
#[inline]
pub(super) fn same_unescaped(a: &[u8], b: &[u8]) -> bool {
    /// The word of `s` at `i` (zero when out of range: never, by the callers' bounds).
    fn word(s: &[u8], i: usize) -> u64 {
        s.get(i..)
            .and_then(|s| s.first_chunk::<8>())
            .map_or(0, |w| u64::from_le_bytes(*w))
    }
    /// The four bytes of `s` at `i` (likewise).
    fn half(s: &[u8], i: usize) -> u64 {
        s.get(i..)
            .and_then(|s| s.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    }
    /// The backslashes of `x`, flagged in `wide::HIGHS` (`wide::eq` is exact once
    /// non-ASCII bytes are ignored, and any flag at all means a lowest, exact one).
    fn backslashes(x: u64) -> u64 {
        wide::ascii_only(wide::eq(x, b'\\'), x) & wide::HIGHS
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

/// Whether a walk over an object's members is at its end (`}` or nothing left), seen
/// inline before any call: compact text ends there.
#[inline(always)]
pub(super) fn members_end(rest: &[u8]) -> bool {
    matches!(rest, [b'}', ..] | [])
}

/// The index of a member's value in validated text, its key ending just before
/// `key_end`: the colon is not checked again (it is there).
#[inline(always)]
pub(super) fn value_after_key(s: &[u8], key_end: usize) -> Option<usize> {
    Some(skip_ws(s, skip_ws(s, key_end) + 1))
}

/// [`Value::get`] in `object`, one of whose member values, `known`, was found before
/// (a request's `params._meta`, filed while the line was validated): that value is
/// passed over by its length, not walked bracket by bracket. A value is `known` when
/// it starts where `known` starts (in the same text, the same value).
pub(super) fn get_past<'a>(
    object: &Value<'a>,
    key: &str,
    known: Option<Value<'a>>,
) -> Option<Value<'a>> {
    let Some(known) = known else {
        return object.get(key);
    };
    let mut rest = match object.raw {
        [b'{', rest @ ..] => rest,
        _ => return None,
    };
    loop {
        let i = skip_comma(rest, 0);
        if rest.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(rest, i + 1)?;
        let [name @ .., b'"'] = rest.get(i + 1..key_end)? else {
            return None;
        };
        let at = after_colon(rest, key_end)?;
        let (value, after) = match rest.get(at..) {
            Some(tail) if core::ptr::eq(tail.as_ptr(), known.raw.as_ptr()) => {
                (known, tail.get(known.raw.len()..)?)
            }
            _ => split_value(rest, at)?,
        };
        if (Str { raw: name }).eq_str(key) {
            return Some(value);
        }
        rest = after;
    }
}
