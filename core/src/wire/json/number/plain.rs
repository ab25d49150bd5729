//! The plain form of [`literal_len`](super::literal_len), for small targets: the
//! readers' own [`Parts::new`](super::Parts) (one copy in flash). Its twin is
//! `fast::literal_len`.
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::Parts;

/// Length of the JSON number literal at the start of `s`; `None` if `s` does not
/// start with one.
pub(crate) fn literal_len(s: &[u8]) -> Option<usize> {
    Some(Parts::new(s, false)?.end)
}
