use super::failure::too_large;
use super::guard::Guard;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::LogLevel;
use crate::device::Step;
use crate::device::ToolCall;
use crate::state::subscription;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::rpc::Id;
use crate::wire::rpc::OwnedId;
use crate::wire::version::Era;

/// A tool call that outlives its request.
#[derive(Clone, Debug)]
pub(super) struct Job {
    pub(super) id: OwnedId,
    pub(super) progress_token: Option<OwnedId>,
    pub(super) tool: usize,
    pub(super) era: Era,
    pub(super) log_level: Option<LogLevel>,
    pub(super) state: u32,
    /// The job finished, but neither its response nor the -32603 error in its place
    /// fitted the output buffer: the error is owed at the next poll.
    pub(super) owes: bool,
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Continue pending jobs one step each and send change notifications. Returns true
    /// while jobs can make progress (call again soon): [`Server::busy`]. A call waiting
    /// for the client's input does not count until the input has arrived.
    pub fn poll(&mut self, out: &mut dyn Sink) -> bool {
        self.poll_jobs(out);
        self.flush_changes(out);
        self.busy()
    }

    /// [`Server::poll`] without the change notifications: continue pending jobs one
    /// step each (for a transport that answers each request on its own stream).
    /// Returns true while jobs remain.
    pub fn poll_jobs(&mut self, out: &mut dyn Sink) -> bool {
        self.poll_tasks(out, None);
        let mut i = 0;
        while i < self.jobs.len() {
            if !self.step_job(i, out) {
                i += 1;
            }
        }
        self.busy()
    }

    /// Continue only the job serving the request with this id (JSON text) one step:
    /// its progress, log lines and final answer go to `out`, nothing else does. For a
    /// transport where each request's connection drives its own job (async HTTP).
    /// Returns whether the request is still pending ([`Server::is_pending`]).
    pub fn poll_job(&mut self, request: &[u8], out: &mut dyn Sink) -> bool {
        // A 2025-11-25 `tasks/result` waiting for its task (feature `tasks`).
        if self.task_waits(request) {
            self.poll_tasks(out, Some(request));
        }
        if let Some(i) = self.jobs.iter().position(|j| j.id.as_slice() == request) {
            self.step_job(i, out);
        }
        self.is_pending(request)
    }

    /// Cancel the job serving the request with this id (JSON text), as a client's
    /// `notifications/cancelled` does: the device's `cancel_tool` is called and
    /// nothing more is sent for it. For a transport whose stream for that request was
    /// lost. Returns whether there was such a job.
    pub fn cancel(&mut self, request: &[u8]) -> bool {
        let found = self.jobs.iter().position(|j| j.id.as_slice() == request);
        let Some(job) = found.and_then(|i| subscription::swap_remove(&mut self.jobs, i)) else {
            return false;
        };
        self.input.forget(&job.id);
        self.device.cancel_tool(job.tool, job.state);
        true
    }

    /// One step of job `i`. True when the job ended: it left the table, and the job
    /// after it (if any) is now at `i`.
    // With `input` not inlined: each step's call and buffers take the stack only
    // while it runs, rather than adding to the frame of the poll that calls them all.
    #[cfg_attr(feature = "input", inline(never))]
    fn step_job(&mut self, i: usize, out: &mut dyn Sink) -> bool {
        // A call waiting for the client's input (feature `input`).
        if let Some(ended) = self.step_wait(i, out) {
            return ended;
        }
        let Some(job) = self.jobs.get(i) else {
            return false;
        };
        super::route(out, &job.id);
        let ex = Exchange {
            id: Id::from_raw(&job.id),
            era: job.era,
            progress_token: job.progress_token.as_deref(),
            log_level: job.log_level,
            caps: Default::default(),
            tasks: Default::default(),
        };
        let mut g = Guard::new(out);
        let mut call = ToolCall::new(JsonWriter::new(g.sink()), ex, job.tool, None);
        call.state = job.state;
        // A job that owes its answer is over: only the -32603 error is left to send.
        let owes = job.owes;
        let done = owes || self.device.poll_tool(&mut call) == Step::Done || call.written();
        let state = call.state;
        if done && !owes {
            self.finish_call(&mut call);
        }
        let full = g.full || owes;
        if done {
            if !full || too_large(out, Id::from_raw(&job.id)) {
                let _ = subscription::swap_remove(&mut self.jobs, i);
                return true;
            }
            // Neither fitted: owe the error, answer it once there is room.
            if let Some(job) = self.jobs.get_mut(i) {
                job.owes = true;
            }
        } else {
            if full {
                // A progress notification did not fit: drop it, keep the job.
                out.rollback();
            }
            if let Some(job) = self.jobs.get_mut(i) {
                job.state = state;
            }
        }
        false
    }
}
