//! Validation: the one pass of [`parse`](super::parse) over a line, which checks all of
//! it and files the members [`Picks`] names on the way.

use super::form::{self, FUSED_UTF8};
use super::{
    decode_escape, find_special, find_special_or_high, ScanError, Str, Value, DEPTH_LIMIT,
};

/// Members to file while a message is validated ([`parse_picking`]), up to
/// [`PICK_LEVELS`] objects deep: at the top level the members named by level 0's
/// `keys`; inside the first member filed as level 0's `open` (when it is an object)
/// the members named by level 1's `keys`; inside the first of level 1's `open` those
/// of level 2. First occurrence wins, keys are compared decoded, as with
/// [`Value::get`]. The last level opens none below it: it is built with
/// [`Level::last`] (on hosts the picking loop has no level to file a deeper
/// object's members into, and would refuse the line).
pub(crate) struct Picks<'p, 'a> {
    /// The levels, outermost first.
    pub levels: [Level<'p, 'a>; PICK_LEVELS],
    /// Set when a member name at the last level starts with this prefix.
    pub prefix: &'p [u8],
    /// Whether one did.
    pub prefixed: bool,
    /// Set when the input is rejected: the offset of the byte where it stopped being
    /// JSON ([`parse_by`]).
    pub stop: Stop,
}

/// Where a rejected input stopped being JSON, kept by the picking loop for a parse
/// error's `data.offset` (feature `error-data`). Without the feature it is empty and
/// its stores are no code: the scanning loops are those of a build that never had it.
#[cfg(feature = "error-data")]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stop(usize);

/// Where a rejected input stopped being JSON: not kept (feature `error-data` off).
#[cfg(not(feature = "error-data"))]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stop;

#[cfg(feature = "error-data")]
impl Stop {
    /// Whether the offset is kept.
    pub(crate) const KEPT: bool = true;
    /// None kept yet.
    pub(crate) const NONE: Stop = Stop(0);

    /// Keep `at`.
    #[inline(always)]
    pub(crate) fn set(&mut self, at: usize) {
        self.0 = at;
    }

    /// The offset kept.
    pub(crate) fn get(self) -> usize {
        self.0
    }
}

#[cfg(not(feature = "error-data"))]
impl Stop {
    /// Whether the offset is kept.
    pub(crate) const KEPT: bool = false;
    /// None kept.
    pub(crate) const NONE: Stop = Stop;

    /// Nothing: the offset is not kept.
    #[inline(always)]
    pub(crate) fn set(&mut self, _at: usize) {}

    /// 0: the offset is not kept.
    pub(crate) fn get(self) -> usize {
        0
    }
}

/// One level of [`Picks`].
///
/// Its `keys` must be [`plain_names`]: on hosts a key spelled exactly as one of
/// them is matched in place, before (instead of) being scanned as a string.
pub(crate) struct Level<'p, 'a> {
    pub(super) keys: &'p [&'p str],
    pub(super) found: &'p mut [Option<Value<'a>>],
    pub(super) open: usize,
    /// While scanning: the slot of the member being read ([`NOT_FILED`]: none) and
    /// where its value starts.
    pub(super) slot: usize,
    pub(super) at: usize,
}

/// Whether no name in `names` holds a `"`, a `\\` or a control character: JSON text
/// that spells one of them between quotes is a string with no escape, holding that
/// name. Checked at compile time for the names of every [`Level`] (`const` asserts).
pub(crate) const fn plain_names(names: &[&str]) -> bool {
    let mut rest = names;
    while let [name, tail @ ..] = rest {
        let mut bytes = name.as_bytes();
        while let [b, more @ ..] = bytes {
            if matches!(*b, b'"' | b'\\' | 0..0x20) {
                return false;
            }
            bytes = more;
        }
        rest = tail;
    }
    true
}

/// [`Level::slot`] of a member not filed.
pub(super) const NOT_FILED: usize = usize::MAX;

impl<'p, 'a> Level<'p, 'a> {
    /// File the members named `keys` into `found` (as long); the object of `keys[open]`
    /// holds the next level's members.
    pub(crate) fn new(
        keys: &'p [&'p str],
        found: &'p mut [Option<Value<'a>>],
        open: usize,
    ) -> Self {
        Level {
            keys,
            found,
            open,
            slot: NOT_FILED,
            at: 0,
        }
    }

    /// File the members named `keys` into `found`; no level below this one.
    pub(crate) fn last(keys: &'p [&'p str], found: &'p mut [Option<Value<'a>>]) -> Self {
        Self::new(keys, found, NOT_FILED)
    }

    /// File nothing.
    pub(crate) fn none() -> Self {
        Self::last(&[], &mut [])
    }

    /// The member being read ends at `end`: file its value when it is one of `keys`.
    #[inline(always)]
    pub(super) fn file(&mut self, input: &'a [u8], end: usize) {
        let slot = core::mem::replace(&mut self.slot, NOT_FILED);
        if let (Some(f), Some(raw)) = (self.found.get_mut(slot), input.get(self.at..end)) {
            *f = Some(Value { raw });
        }
    }
}

/// How many object levels [`Picks`] reaches into.
pub(crate) const PICK_LEVELS: usize = 3;

impl Picks<'_, '_> {
    /// Nothing to file.
    pub(crate) fn none() -> Self {
        Picks {
            levels: [Level::none(), Level::none(), Level::none()],
            prefix: &[],
            prefixed: false,
            stop: Stop::NONE,
        }
    }
}

/// [`parse_with_depth`](super::parse_with_depth) that also files the members `picks` names during the
/// validation pass: no second walk over those objects.
pub(crate) fn parse_picking<'a>(
    input: &'a [u8],
    max_depth: usize,
    picks: &mut Picks<'_, 'a>,
) -> Result<Value<'a>, ScanError> {
    parse_by(input, max_depth, picks, form::value_end)
}

/// The signature of the two forms of the picking loop (`fast::value_end`,
/// `plain::value_end`).
pub(super) type ValueEnd<'a, 'p> =
    fn(&'a [u8], usize, usize, &mut Picks<'p, 'a>, &mut bool) -> Result<usize, ScanError>;

/// [`parse_picking`] through the picking loop `value_end` (either form: the tests
/// run both).
#[inline(always)]
pub(super) fn parse_by<'a, 'p>(
    input: &'a [u8],
    max_depth: usize,
    picks: &mut Picks<'p, 'a>,
    value_end: ValueEnd<'a, 'p>,
) -> Result<Value<'a>, ScanError> {
    // With `FUSED_UTF8`, one pass: the only bytes above 0x7F valid JSON can hold are
    // in strings, whose scan stops at the first such byte and checks the whole
    // input's UTF-8 then (once). A line that is rejected is checked too: input that is
    // not UTF-8 is reported as such whatever else is wrong with it. Without it
    // (smaller), the input is checked first, with `core`'s validator either way.
    if !FUSED_UTF8 {
        if let Err(at) = utf8_check(input) {
            picks.stop.set(at);
            return Err(ScanError::InvalidUtf8);
        }
    }
    // Whether the whole input is known to be UTF-8.
    let mut utf8 = !FUSED_UTF8;
    let start = skip_ws(input, 0);
    let max_depth = max_depth.min(DEPTH_LIMIT);
    let scanned = value_end(input, start, max_depth, picks, &mut utf8);
    // Where the line stopped being JSON: after the value (trailing data), or where
    // the picking loop stopped (it left that in `picks`), or where UTF-8 stopped.
    let error = match scanned {
        Ok(end) => {
            let trailing = skip_ws(input, end);
            if trailing == input.len() {
                return input
                    .get(start..end)
                    .map(|raw| Value { raw })
                    .ok_or(ScanError::Syntax);
            }
            picks.stop.set(trailing);
            ScanError::Syntax
        }
        Err(e) => e,
    };
    // (Without `FUSED_UTF8` the input was checked first.)
    if FUSED_UTF8 && !utf8 {
        if let Err(at) = utf8_check(input) {
            picks.stop.set(at);
            return Err(ScanError::InvalidUtf8);
        }
    }
    Err(error)
}

/// The length of `input`'s valid UTF-8 start when it is not all valid UTF-8 (where it
/// stopped being JSON).
fn utf8_check(input: &[u8]) -> Result<(), usize> {
    core::str::from_utf8(input)
        .map(|_| ())
        .map_err(|e| e.valid_up_to())
}

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

#[inline]
pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// Index of the first non-whitespace byte at or after `i` (compact JSON has none: one
/// comparison, inline).
#[inline]
pub(super) fn skip_ws(input: &[u8], i: usize) -> usize {
    match input.get(i) {
        // Every token starts above the space: one comparison for compact JSON.
        Some(&b) if b > b' ' => i,
        Some(&b) if is_ws(b) => skip_ws_run(input, i + 1),
        _ => i,
    }
}

/// [`skip_ws`] past the first whitespace byte. Out of line: the compact-JSON path
/// stays short.
#[inline(never)]
fn skip_ws_run(input: &[u8], mut i: usize) -> usize {
    while let Some(&b) = input.get(i) {
        if !is_ws(b) {
            break;
        }
        i += 1;
    }
    i
}

/// One bit per open container: set for an object, clear for an array.
struct BitStack([u32; DEPTH_LIMIT / 32]);

impl BitStack {
    #[inline]
    fn set(&mut self, level: usize, object: bool) {
        if let Some(word) = self.0.get_mut(level / 32) {
            let mask = 1u32 << (level % 32);
            if object {
                *word |= mask;
            } else {
                *word &= !mask;
            }
        }
    }

    #[inline]
    fn get(&self, level: usize) -> bool {
        match self.0.get(level / 32) {
            Some(word) => word & (1u32 << (level % 32)) != 0,
            None => false,
        }
    }
}

/// Validate the value starting at `i` (whitespace already skipped), inside containers
/// `base` deep, nesting at most `max_depth` deep in all; returns the index just after
/// it. With `PICK` (`base` 0), files the members `picks` names on the way and keeps in
/// `picks.stop` where the input stopped being JSON when it fails (the start of the
/// token at fault — a string, a number, a literal — or the byte where another was
/// due); without it, `picks` is not looked at and the loop has no pick bookkeeping at
/// all.
///
/// Indices only ever advance past bytes that exist, so `i + 1` cannot overflow.
pub(super) fn scan<'a, const PICK: bool>(
    input: &'a [u8],
    mut i: usize,
    base: usize,
    max_depth: usize,
    picks: &mut Picks<'_, 'a>,
    utf8: &mut bool,
) -> Result<usize, ScanError> {
    let mut depth = base;
    let mut stack = BitStack([0; DEPTH_LIMIT / 32]);
    let mut in_object = false;
    // Objects up to this depth are picked from (the top level, then the first member
    // opened at each level).
    let mut live: usize = 1;

    'value: loop {
        // A value starts at `i` (whitespace already skipped), after its key in an
        // object.
        if PICK {
            picks.stop.set(i);
        }
        if in_object {
            let key_start = i + 1;
            let (end, plain) = key_end(input, i, utf8).ok_or(ScanError::Syntax)?;
            i = after_colon(input, end).ok_or(ScanError::Syntax)?;
            if PICK {
                picks.stop.set(i);
            }
            if let (true, true, Some(l)) = (PICK, depth <= live, picks.levels.get_mut(depth - 1)) {
                // The key's content, only looked at here (most members are not).
                let key = Str {
                    raw: input.get(key_start..end - 1).unwrap_or_default(),
                };
                // Once one name has the prefix, the others need no look.
                if depth == PICK_LEVELS && !picks.prefixed && !picks.prefix.is_empty() {
                    picks.prefixed = key.raw.starts_with(picks.prefix);
                }
                l.slot = match key.position_in_known(l.keys, plain) {
                    Some(k) if matches!(l.found.get(k), Some(None)) => k,
                    _ => NOT_FILED,
                };
                l.at = i;
            }
        }
        let Some(&b) = input.get(i) else {
            return Err(ScanError::Syntax);
        };
        match b {
            b'"' => i = string_end(input, i + 1, utf8).ok_or(ScanError::Syntax)?,
            b'-' | b'0'..=b'9' => i = number_end(input, i).ok_or(ScanError::Syntax)?,
            b'{' | b'[' => {
                if depth >= max_depth {
                    return Err(ScanError::TooDeep);
                }
                in_object = b == b'{';
                // The object of the member that opens the next level.
                if PICK && in_object && depth == live {
                    if let Some(l) = picks.levels.get(depth - 1) {
                        if l.slot == l.open && l.slot != NOT_FILED {
                            live = depth + 1;
                        }
                    }
                }
                stack.set(depth, in_object);
                depth += 1;
                i = skip_ws(input, i + 1);
                // An empty container is closed by the loop below, at its bracket (which
                // must be the right one).
                if !matches!(input.get(i), Some(b'}' | b']')) {
                    continue 'value;
                }
            }
            b't' | b'f' | b'n' => {
                let word: &[u8] = match b {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                i = literal_end(input, i, word).ok_or(ScanError::Syntax)?;
            }
            _ => return Err(ScanError::Syntax),
        }

        // A value ended at `i` (or an empty container is at its closing bracket):
        // close containers until another value is due.
        loop {
            if depth == base {
                return Ok(i);
            }
            // The member of the object at `depth` whose value just ended.
            if let (true, Some(l)) = (PICK, picks.levels.get_mut(depth - 1)) {
                l.file(input, i);
            }
            i = skip_ws(input, i);
            if PICK {
                picks.stop.set(i);
            }
            match input.get(i) {
                Some(b',') => {
                    i = skip_ws(input, i + 1);
                    continue 'value;
                }
                Some(b'}') if in_object => {}
                Some(b']') if !in_object => {}
                _ => return Err(ScanError::Syntax),
            }
            i += 1;
            depth -= 1;
            if PICK {
                live = live.min(depth.max(1));
            }
            in_object = depth > base && stack.get(depth - 1);
        }
    }
}

/// The key (a string) at `i`; returns the index just after its closing quote, and
/// whether the key has no escape. `utf8`: as for [`string_scan`].
#[cfg_attr(emcp_fast, inline(always))]
pub(super) fn key_end(input: &[u8], i: usize, utf8: &mut bool) -> Option<(usize, bool)> {
    if input.get(i) != Some(&b'"') {
        return None;
    }
    string_scan(input, i + 1, utf8)
}

/// The `:` after a key at `i`, whitespace around it allowed; returns the index of the
/// member's value.
pub(super) fn after_colon(input: &[u8], i: usize) -> Option<usize> {
    let colon = skip_ws(input, i);
    if input.get(colon) != Some(&b':') {
        return None;
    }
    Some(skip_ws(input, colon + 1))
}

/// String content starting at `i` (just after the opening quote); returns the index
/// just after the closing quote, `None` if the string is malformed. `utf8`: as for
/// [`string_scan`].
#[cfg_attr(emcp_fast, inline(always))]
pub(super) fn string_end(input: &[u8], i: usize, utf8: &mut bool) -> Option<usize> {
    string_scan(input, i, utf8).map(|(end, _)| end)
}

/// [`string_end`], and whether the string has no escape. `utf8` tells whether the
/// whole input is known to be UTF-8; at the first byte above 0x7F while it is not,
/// the input is checked (`None` when it is not UTF-8), so that non-ASCII bytes then
/// need no look. Always inline on hosts (out of line, its two callers in
/// the picking loop (`fast::value_end`) pay a call per string).
#[cfg_attr(emcp_fast, inline(always))]
#[cfg_attr(not(emcp_fast), inline)]
pub(super) fn string_scan(input: &[u8], mut i: usize, utf8: &mut bool) -> Option<(usize, bool)> {
    let mut plain = true;
    loop {
        let rest = input.get(i..)?;
        i += match FUSED_UTF8 && !*utf8 {
            true => find_special_or_high(rest)?,
            false => find_special(rest)?,
        };
        match input.get(i) {
            Some(b'"') => return Some((i + 1, plain)),
            // An escape: the index after it.
            Some(b'\\') => {
                plain = false;
                i = input.len() - decode_escape(input.get(i + 1..)?)?.1.len();
            }
            // The first non-ASCII byte: the search goes on from it once the input is
            // known to be UTF-8.
            Some(0x80..) if FUSED_UTF8 && !*utf8 => {
                *utf8 = core::str::from_utf8(input).is_ok();
                if !*utf8 {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

/// Number starting at `i`; returns the index after it.
pub(super) fn number_end(input: &[u8], i: usize) -> Option<usize> {
    Some(i + super::super::number::literal_len(input.get(i..)?)?)
}

/// The literal `word` at `i`; returns the index after it.
#[inline]
pub(super) fn literal_end(input: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    match input.get(i..) {
        Some(rest) if rest.starts_with(word) => Some(i + word.len()),
        _ => None,
    }
}

/// The UTF-16 code unit spelled by the first four bytes of `s` (hex digits).
pub(super) fn hex4(s: &[u8]) -> Option<u32> {
    let mut unit = 0;
    for &b in s.get(..4)? {
        unit = unit << 4 | char::from(b).to_digit(16)?;
    }
    Some(unit)
}
