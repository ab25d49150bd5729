//! The two forms of a result's first bytes and of its text blocks, chosen once for
//! the crate (`cfg(emcp_fast)`, set by `core/build.rs`).
//!
//! - `plain` (microcontrollers): each piece written on its own — the envelope, then
//!   `resultType`, then the content array, then the block; a text block's `}` as
//!   soon as its text ends. The smallest code.
//! - `fast` (hosts): the result's opening, `resultType`, the content array and the
//!   first block's head in one sink write from one literal per era, and a text
//!   block's `}` kept pending ([`Phase::Block`]) to go out with whatever follows it.
//!   Fewer writes for more literals. A tool's arguments are filed by property while a
//!   compiled schema checks them, so that [`ToolCall::arg`](super::ToolCall::arg)
//!   answers without a walk.
//!
//! Both write the same bytes: the transcripts (`tests/transcripts`) are run against
//! the host build (fast), a host build with `EMCP_FORMS=plain`, the i686 build
//! (plain) and the Cortex-M firmware (plain), with the same expected lines.

// Both forms are compiled in every build (and tested against each other where a
// test can hold both); this is the one place that picks the form used.
mod fast;
mod plain;
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

pub(super) use form::{
    begin_result, check_plan, close_pending, contents_head, filed_arg, text_block_done, text_head,
    Filing, DEFERS_BLOCK_END,
};
