//! The plan's fast form, for hosts: the strings of every plain `enum` filed when the
//! plan is compiled ([`Items`]), so that an argument is matched against them by their
//! spans, not by a walk over the `enum` text. Its twin in [`super::plain`] files
//! nothing and walks the text; both give the same answers (`tests.rs`,
//! `enum_item_at_forms_agree`). Compiled on every target.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use super::{byte, plain_item_at, skip_ws, string_end, Span, MAX_PLAN_PROPERTIES};
use crate::wire::json::scanner::same_bytes;
use crate::wire::json::Value;

/// Strings of plain `enum`s a plan files, over all its properties (a property whose
/// strings do not fit has its `enum` text looked through).
const MAX_PLAN_ITEMS: usize = 24;

/// The strings of a plan's plain `enum`s, quotes included, `count` of them, and where
/// each property's are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Items {
    spans: [Span; MAX_PLAN_ITEMS],
    count: u8,
    pub(super) ranges: [ItemRange; MAX_PLAN_PROPERTIES],
}

/// A property's strings in [`Items`]: where they start and how many there are
/// (`u8::MAX`: they did not fit, the `enum` text is looked through).
pub(super) type ItemRange = (u8, u8);

/// The [`ItemRange`] of a property without a plain `enum`.
pub(super) const NO_RANGE: ItemRange = (0, u8::MAX);

impl Items {
    /// None filed.
    pub(super) const NONE: Items = Items {
        spans: [Span::NONE; MAX_PLAN_ITEMS],
        count: 0,
        ranges: [NO_RANGE; MAX_PLAN_PROPERTIES],
    };

    /// File the strings of property `k`'s plain `enum` at `span` of `s` (an array of
    /// strings without escapes, as `plain_strings` found it): where they start here
    /// and how many there are, or [`NO_RANGE`] when they do not fit.
    pub(super) const fn file(&mut self, k: usize, s: &[u8], span: Span) {
        let range = self.file_strings(s, span);
        if let Some((_, [slot, ..])) = self.ranges.split_at_mut_checked(k) {
            *slot = range;
        }
    }

    /// File the strings of the array at `span`: their range.
    const fn file_strings(&mut self, s: &[u8], span: Span) -> ItemRange {
        let first = self.count;
        let mut i = skip_ws(s, span.start as usize + 1);
        while let Some((after, _)) = string_end(s, i) {
            let Some((_, [slot, ..])) = self.spans.split_at_mut_checked(self.count as usize) else {
                self.count = first;
                return NO_RANGE;
            };
            *slot = Span::new(i, after);
            self.count += 1;
            i = skip_ws(s, after);
            if byte(s, i) == b',' {
                i = skip_ws(s, i + 1);
            }
        }
        (first, self.count - first)
    }
}

/// The length of the string of property `k`'s plain `enum` that `text` starts with,
/// quotes included: by its strings filed in `items` (spans of `source`), or when they
/// did not fit by the `enum`'s text, `list`.
#[inline(always)]
pub(super) fn enum_item_at<'a>(
    items: &Items,
    k: usize,
    source: &'a [u8],
    list: impl FnOnce() -> Option<Value<'a>>,
    text: &[u8],
) -> Option<usize> {
    let (first, count) = items.ranges.get(k).copied().unwrap_or(NO_RANGE);
    let (first, count) = (usize::from(first), usize::from(count));
    let Some(filed) = items.spans.get(first..first + count) else {
        return plain_item_at(list()?.raw(), text);
    };
    filed.iter().find_map(|&span| {
        let (start, end) = span.range();
        let item = source.get(start..end)?;
        let head = text.get(..item.len())?;
        same_bytes(head, item).then_some(item.len())
    })
}
