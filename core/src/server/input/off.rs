//! The input side of the server without the `input` feature: the hooks the request
//! path calls, each empty (an empty `Part`, no state buffer, no round to fill), so
//! that the path reads the same in every build and the compiler removes every one.

use super::failure::Outcome;
use super::named::Named;
use super::params::Params;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::PromptGet;
use crate::device::ToolCall;
use crate::wire::error::DispatchError;
use crate::wire::json::Sink;
use crate::wire::json::Value;
use crate::wire::rpc::Id;
use crate::wire::rpc::OwnedId;
use crate::wire::version::Era;

/// Nothing kept for the input side.
pub(super) struct Part<const W: usize> {
    pub(super) session_caps: crate::device::input::Capabilities,
}

impl<const W: usize> Part<W> {
    pub(super) fn new() -> Self {
        Self {
            session_caps: crate::device::input::Capabilities,
        }
    }

    #[inline(always)]
    pub(super) fn clear(&mut self) {}

    #[inline(always)]
    pub(super) fn waiting(&self, _id: &OwnedId) -> bool {
        false
    }

    #[inline(always)]
    pub(super) fn forget(&mut self, _id: &OwnedId) {}

    #[inline(always)]
    pub(super) fn caps(
        &self,
        _era: Era,
        _meta: Option<Value<'_>>,
    ) -> crate::device::input::Capabilities {
        crate::device::input::Capabilities
    }

    #[inline(always)]
    pub(super) fn initialized(&mut self, _params: Option<Value<'_>>) {}
}

/// Nothing a request brings for its handler.
pub(super) struct Opened;

/// No room for a `requestState`.
pub(super) const STATE_BUF: usize = 0;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    #[inline(always)]
    pub(super) fn open_input(
        &self,
        _p: &Params<'_>,
        _ex: Exchange<'_>,
        _kind: Named,
        _index: usize,
        _buf: &mut [u8; STATE_BUF],
    ) -> Result<Opened, DispatchError> {
        Ok(Opened)
    }

    #[inline(always)]
    pub(super) fn fill_tool_input(&self, _call: &mut ToolCall<'_>, _opened: Opened) {}

    #[inline(always)]
    pub(super) fn fill_prompt_input(_get: &mut PromptGet<'_>, _opened: Opened) {}

    #[inline(always)]
    pub(super) fn end_input<'a>(
        &mut self,
        _id: Id<'a>,
        _index: usize,
        _call: &mut ToolCall<'_>,
    ) -> Option<Outcome<'a>> {
        None
    }

    #[inline(always)]
    pub(super) fn seal_tool_state(&self, _call: &mut ToolCall<'_>) {}

    #[inline(always)]
    pub(super) fn seal_prompt_state(&self, _get: &mut PromptGet<'_>) {}

    #[inline(always)]
    pub(super) fn step_wait(&mut self, _i: usize, _out: &mut dyn Sink) -> Option<bool> {
        None
    }

    /// A client's response: nothing asked, nothing to file.
    #[inline(always)]
    pub(super) fn response(&mut self, _line: &[u8]) {}
}
