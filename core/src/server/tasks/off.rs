//! The server's tasks without the `tasks` feature: no table (a capacity-free empty
//! type), and the hooks the request path calls, each answering "no task", so that
//! the path reads the same in every build and the compiler removes every one.

use super::failure::Failure;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::Step;
use crate::device::ToolCall;
use crate::wire::json::Sink;
use crate::wire::json::SinkError;
use crate::wire::json::Value;
use crate::wire::rpc::Request;
use crate::wire::version::Era;

/// No task table.
pub(super) struct Table<const K: usize>;

impl<const K: usize> Table<K> {
    pub(super) fn new() -> Self {
        Table
    }
}

/// Never a task.
#[derive(Clone, Copy)]
pub(super) struct Gate {
    pub(super) task: bool,
    pub(super) legacy: bool,
}

/// No round to keep.
pub(super) struct Round;

#[inline(always)]
pub(super) fn into_round(_call: ToolCall<'_>, _step: Step) -> Round {
    Round
}

/// A sink that keeps nothing (never written to without tasks).
pub(super) struct Discard;

impl Sink for Discard {
    fn write(&mut self, _bytes: &[u8]) -> Result<(), SinkError> {
        Ok(())
    }
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    #[inline(always)]
    pub(super) fn gate<'a>(
        &mut self,
        _index: usize,
        _ex: &Exchange<'_>,
    ) -> Result<Gate, Failure<'a>> {
        Ok(Gate {
            task: false,
            legacy: false,
        })
    }

    #[inline(always)]
    pub(super) fn begin_task(_gate: Gate, _call: &mut ToolCall<'_>) {}

    #[inline(always)]
    pub(super) fn becomes_task(gate: Gate, _step: Step, _call: &ToolCall<'_>) -> bool {
        gate.task
    }

    #[inline(always)]
    pub(super) fn defer_to_task(
        &mut self,
        _r: &Request<'_>,
        _index: usize,
        _ex: &Exchange<'_>,
        _round: Round,
        _out: &mut dyn Sink,
    ) {
    }

    #[inline(always)]
    pub(super) fn call_failure(_call: &ToolCall<'_>) -> Option<&'static str> {
        None
    }

    #[inline(always)]
    pub(super) fn accepts_tasks(
        &self,
        _era: Era,
        _meta_caps: Option<Value<'_>>,
        _params: Option<Value<'_>>,
    ) {
    }

    #[inline(always)]
    pub(super) fn offers_tasks(&self) -> bool {
        false
    }

    #[inline(always)]
    pub(super) fn tasks_busy(&self) -> bool {
        false
    }

    #[inline(always)]
    pub(super) fn task_waits(&self, _request: &[u8]) -> bool {
        false
    }

    #[inline(always)]
    pub(super) fn drop_tasks(&mut self, _legacy_only: bool) {}

    #[inline(always)]
    pub(super) fn poll_tasks(&mut self, _out: &mut dyn Sink, _only: Option<&[u8]>) {}

    // Called by the input side only (feature `input`).
    #[cfg_attr(not(feature = "input"), allow(dead_code))]
    #[inline(always)]
    pub(super) fn task_response(&mut self, _id: u32, _result: Option<Value<'_>>) -> bool {
        false
    }
}
