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

/// A tool call that outlives its request.
#[derive(Clone, Debug)]
pub(super) struct Job {
    pub(super) id: OwnedId,
    pub(super) progress_token: Option<OwnedId>,
    pub(super) tool: usize,
    pub(super) stateless: bool,
    pub(super) log_level: Option<LogLevel>,
    pub(super) state: u32,
    /// The job finished, but neither its response nor the -32603 error in its place
    /// fitted the output buffer: the error is owed at the next poll.
    pub(super) owes: bool,
}

impl<D: Device, const L: usize, const J: usize, const W: usize> Server<D, L, J, W> {
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
        let mut i = 0;
        while let Some(job) = self.jobs.get(i) {
            #[cfg(feature = "input")]
            if let Some(w) = self.waits.iter().position(|w| w.id == job.id) {
                let ready = self.waits.get(w).is_some_and(|w| w.asks.is_empty());
                if ready {
                    let job = job.clone();
                    if self.resume(job, w, out) {
                        let _ = subscription::swap_remove(&mut self.waits, w);
                        let _ = subscription::swap_remove(&mut self.jobs, i);
                        continue;
                    }
                }
                i += 1;
                continue;
            }
            #[cfg(feature = "routes")]
            out.route(Some(&job.id));
            let ex = Exchange {
                id: Id::from_raw(&job.id),
                stateless: job.stateless,
                progress_token: job.progress_token.as_deref(),
                log_level: job.log_level,
                #[cfg(feature = "input")]
                caps: crate::device::input::Capabilities::default(),
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
                } else {
                    // Neither fitted: owe the error, answer it once there is room.
                    if let Some(job) = self.jobs.get_mut(i) {
                        job.owes = true;
                    }
                    i += 1;
                }
            } else {
                if full {
                    // A progress notification did not fit: drop it, keep the job.
                    out.rollback();
                }
                if let Some(job) = self.jobs.get_mut(i) {
                    job.state = state;
                }
                i += 1;
            }
        }
        self.busy()
    }
}
