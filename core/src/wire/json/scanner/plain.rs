//! The scanner's plain forms, for small targets (whose flash is scarcer than their
//! cycles): the least code, one copy of each loop. Each is the twin of the fast form
//! of the same name in [`super::fast`] and gives the same results (`tests.rs`,
//! `forms_agree`).
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::validate::{after_colon, scan, Picks};
use super::{find_quote_or_backslash, ScanError, Value};

/// The whole input's UTF-8 is checked first, by `core`'s validator (no second check
/// inside the string scan).
pub(super) const FUSED_UTF8: bool = false;

/// Validate the value at `i` (whitespace already skipped), nesting at most
/// `max_depth` deep, filing the members `picks` names; returns the index just after
/// it. One loop for every value (one copy in flash), which files as it goes.
pub(super) fn value_end<'a>(
    input: &'a [u8],
    i: usize,
    max_depth: usize,
    picks: &mut Picks<'_, 'a>,
    utf8: &mut bool,
) -> Result<usize, ScanError> {
    scan::<true>(input, i, 0, max_depth, picks, utf8)
}

/// Whether `a` and `b` are the same bytes.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a == b
}

/// Whether `a` and `b` are the same bytes and hold no backslash.
#[inline(always)]
pub(super) fn same_unescaped(a: &[u8], b: &[u8]) -> bool {
    a == b && find_quote_or_backslash(a).is_none()
}

/// Whether a walk over an object's members is at its end: left to the member parser
/// (no test of its own).
#[inline(always)]
pub(super) fn members_end(_rest: &[u8]) -> bool {
    false
}

/// The index of a member's value in validated text, its key ending just before
/// `key_end`: the parser's own colon step (one copy in flash).
#[inline(always)]
pub(super) fn value_after_key(s: &[u8], key_end: usize) -> Option<usize> {
    after_colon(s, key_end)
}

/// [`Value::get`] in `object` (`known`, a value found before, is walked over like any
/// other).
#[inline(always)]
pub(super) fn get_past<'a>(
    object: &Value<'a>,
    key: &str,
    _known: Option<Value<'a>>,
) -> Option<Value<'a>> {
    object.get(key)
}
