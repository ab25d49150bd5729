//! The plan's plain form, for small targets: nothing filed for a plain `enum` (a
//! smaller plan), its text looked through for each argument. Its twin in
//! [`super::fast`] gives the same answers (`tests.rs`, `enum_item_at_forms_agree`).
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::{plain_item_at, Span};
use crate::wire::json::Value;

/// Nothing: no `enum` string is filed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Items;

impl Items {
    /// None filed.
    pub(super) const NONE: Items = Items;

    /// File nothing.
    pub(super) const fn file(&mut self, _k: usize, _s: &[u8], _span: Span) {}
}

/// The length of the string of a plain `enum` that `text` starts with, quotes
/// included: looked for in the `enum`'s text, `list`.
#[inline(always)]
pub(super) fn enum_item_at<'a>(
    _items: &Items,
    _k: usize,
    _source: &'a [u8],
    list: impl FnOnce() -> Option<Value<'a>>,
    text: &[u8],
) -> Option<usize> {
    plain_item_at(list()?.raw(), text)
}
