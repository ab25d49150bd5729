//! The fast forms (see [`super`]): merged literals, and a text block's `}` written
//! with what follows it.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use crate::device::exchange::{Exchange, Phase};
use crate::model::schema::{Filed, PlanRef, Violation};
use crate::wire::json::{JsonWriter, Value};
use crate::wire::rpc;
use crate::wire::version::Era;

/// Whether a text block's `}` may be left pending ([`Phase::Block`]).
pub(in crate::device) const DEFERS_BLOCK_END: bool = true;

/// A result's opening and what follows its brace: legacy era, stateless era.
type Opening = (&'static [u8], &'static [u8]);

/// The result's opening with the `content` array and its first block, a text block,
/// up to its text.
const RESULT_TEXT_BLOCK: Opening = (
    b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":",
    b",\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":",
);

/// The result's opening with `contents` and its first entry up to the uri.
const RESULT_CONTENTS: Opening = (
    b",\"result\":{\"contents\":[{\"uri\":",
    b",\"result\":{\"resultType\":\"complete\",\"contents\":[{\"uri\":",
);

/// The end of a text block and the opening of the next one, up to its text.
const NEXT_TEXT_BLOCK: &[u8] = b"},{\"type\":\"text\",\"text\":";

/// Open the result envelope (and `resultType` for 2026-07-28, with the brace).
#[inline(always)]
pub(in crate::device) fn begin_result(ex: &Exchange<'_>, w: &mut JsonWriter<'_>) {
    if ex.era.is_stateless() {
        rpc::begin_message(
            w,
            rpc::ID,
            ex.id.raw(),
            b",\"result\":{\"resultType\":\"complete\"",
        );
        w.member_done();
        return;
    }
    rpc::begin_result(w, ex.id);
}

/// Open the result envelope and, in the same write, `levels - 1` containers more
/// with `open` (the text after the result's brace, `resultType` added for the
/// stateless era).
#[inline(always)]
fn begin_result_n(ex: &Exchange<'_>, w: &mut JsonWriter<'_>, open: Opening, levels: u8) {
    w.raw(rpc::ID);
    w.raw(ex.id.raw());
    let open = match ex.era {
        Era::Legacy => open.0,
        Era::Stateless => open.1,
    };
    w.begin_raw_n(open, levels);
}

/// A text block's head in one write where it can be: with the result's opening for
/// the first block, with the previous block's pending `}` after a text block. False,
/// having written nothing, otherwise (the caller opens the block itself).
#[inline(always)]
pub(in crate::device) fn text_head(
    ex: &Exchange<'_>,
    w: &mut JsonWriter<'_>,
    phase: &mut Phase,
) -> bool {
    match phase {
        Phase::Idle => begin_result_n(ex, w, RESULT_TEXT_BLOCK, 3),
        Phase::Block => w.reopen(NEXT_TEXT_BLOCK),
        _ => return false,
    }
    *phase = Phase::Content;
    true
}

/// The first `contents` entry's head with the result's opening, in one write. False,
/// having written nothing, after the first entry.
#[inline(always)]
pub(in crate::device) fn contents_head(
    ex: &Exchange<'_>,
    w: &mut JsonWriter<'_>,
    phase: &mut Phase,
) -> bool {
    if *phase != Phase::Idle {
        return false;
    }
    begin_result_n(ex, w, RESULT_CONTENTS, 3);
    *phase = Phase::Content;
    true
}

/// A text block's text was written: its `}` goes out with what follows.
#[inline(always)]
pub(in crate::device) fn text_block_done(_w: &mut JsonWriter<'_>, phase: &mut Phase) {
    *phase = Phase::Block;
}

/// When a text block's `}` is pending: write it with `close`, which also ends the
/// array and may hold a key (`key`). False, having written nothing, otherwise.
#[inline(always)]
pub(in crate::device) fn close_pending(
    w: &mut JsonWriter<'_>,
    phase: &Phase,
    close: &'static [u8],
    key: bool,
) -> bool {
    if *phase != Phase::Block {
        return false;
    }
    w.end_n(close, 2);
    if key {
        w.after_key();
    }
    true
}

/// The arguments filed by declared property while a compiled schema checked them, so
/// that [`filed_arg`] answers without a walk over the arguments object.
pub(in crate::device) type Filing<'a> = Option<Filed<'a, 'a>>;

/// Check `args` against a compiled schema, filing them by property.
#[inline(always)]
pub(in crate::device) fn check_plan<'a>(
    plan: PlanRef<'a>,
    args: Option<Value<'a>>,
    filed: &mut Filing<'a>,
) -> Result<(), Violation<'a, 'a>> {
    plan.validate_filing(args, filed)
}

/// A declared property's argument as filed (`Some(None)`: declared, not given), or
/// `None` when nothing was filed for `name` (the caller looks it up).
#[inline(always)]
pub(in crate::device) fn filed_arg<'a>(
    filed: &Filing<'a>,
    name: &str,
) -> Option<Option<Value<'a>>> {
    filed.as_ref().and_then(|f| f.get(name))
}
