//! The plain forms (see [`super`]): each piece written on its own.
#![cfg_attr(emcp_fast, allow(dead_code))]

use crate::device::exchange::{Exchange, Phase};
use crate::model::schema::{PlanRef, Violation};
use crate::wire::json::{JsonWriter, Value};
use crate::wire::rpc;

/// Whether a text block's `}` is ever left pending ([`Phase::Block`]): never here.
pub(in crate::device) const DEFERS_BLOCK_END: bool = false;

/// Open the result envelope (and `resultType` for 2026-07-28).
pub(in crate::device) fn begin_result(ex: &Exchange<'_>, w: &mut JsonWriter<'_>) {
    rpc::begin_result(w, ex.id);
    if ex.era.is_stateless() {
        w.member_lit(b",\"resultType\":\"complete\"");
    }
}

/// Nothing written: the caller opens the content array and the text block itself.
#[inline(always)]
pub(in crate::device) fn text_head(
    _ex: &Exchange<'_>,
    _w: &mut JsonWriter<'_>,
    _phase: &mut Phase,
) -> bool {
    false
}

/// Nothing written: the caller opens the `contents` array and its entry itself.
#[inline(always)]
pub(in crate::device) fn contents_head(
    _ex: &Exchange<'_>,
    _w: &mut JsonWriter<'_>,
    _phase: &mut Phase,
) -> bool {
    false
}

/// A text block's text was written: close the block now.
#[inline(always)]
pub(in crate::device) fn text_block_done(w: &mut JsonWriter<'_>, _phase: &mut Phase) {
    w.end_object();
}

/// No block's `}` is ever pending: nothing written.
#[inline(always)]
pub(in crate::device) fn close_pending(
    _w: &mut JsonWriter<'_>,
    _phase: &Phase,
    _close: &'static [u8],
    _key: bool,
) -> bool {
    false
}

/// Nothing is filed: [`check_plan`] only checks, and an argument is looked up in the
/// arguments object when asked for (the walk is smaller code than the table).
pub(in crate::device) type Filing<'a> = ();

/// Check `args` against a compiled schema.
#[inline(always)]
pub(in crate::device) fn check_plan<'a>(
    plan: PlanRef<'a>,
    args: Option<Value<'a>>,
    _filed: &mut Filing<'a>,
) -> Result<(), Violation<'a, 'a>> {
    plan.validate(args)
}

/// Nothing filed: the caller looks the argument up.
#[inline(always)]
pub(in crate::device) fn filed_arg<'a>(
    _filed: &Filing<'a>,
    _name: &str,
) -> Option<Option<Value<'a>>> {
    None
}
