//! Tasks (feature `tasks`): a tool call answered at once with a task the client polls,
//! while the device works on it.
//!
//! **Shape.** A task is a pending job ([`Step::Pending`]) kept in the task table
//! (`K` slots of [`Server<D, L, J, W, K>`](Server)) instead of the job table, and not
//! bound to the request that made it: it survives that request (and its HTTP
//! connection), and [`Server::poll`] continues it with [`Device::poll_tool`] until it
//! returns [`Step::Done`]. Its status moves `working → input_required ↔ working →
//! completed | failed | cancelled`; a terminal status is final.
//!
//! **No result in RAM.** Content the device writes while a task runs is discarded;
//! the server records only the terminal status. When the client fetches the result
//! (`tasks/get` of a completed task, 2026-07-28; `tasks/result`, 2025-11-25) the server
//! calls [`Device::task_result`], which writes it again from the job's state word and
//! the bytes kept with [`ToolCall::set_request_state`] — as a resource read streams its
//! contents. [`ToolCall::fail`] ends a task `failed` (a protocol-level error);
//! [`ToolCall::error`] a `completed` one whose result has `isError: true` (2026-07-28;
//! in 2025-11-25 that task is `failed`, as the revision says).
//!
//! **Input.** A task's round may [`ToolCall::ask`]: the task becomes `input_required`
//! and keeps only the hashes of the unanswered keys. `tasks/get` calls
//! [`Device::poll_tool`] again as a *replay* (same state, no responses, content
//! refused) to write the requests still unanswered; `tasks/update` runs a round with
//! the responses (only those to unanswered keys are seen), after which the rest stay
//! unanswered. A round that asks must ask the same given the same state. In 2025-11-25
//! (no `tasks/update`) the requests go to the client as server-to-client requests
//! tagged `_meta["io.modelcontextprotocol/related-task"]`, on the stream of the
//! `tasks/result` waiting for the task (the revision's design: a client seeing
//! `input_required` calls `tasks/result`), each once, written by a replay; each
//! response runs one round that sees it (an error response as no answer), and the
//! `tasks/result` is answered when the task ends.
//!
//! **Who gets a task.** 2026-07-28 (extension `io.modelcontextprotocol/tasks`): a
//! request whose `_meta` client capabilities declare the extension, calling a tool whose
//! [`TaskSupport`] is not `Forbidden`, gets a task when the device returns
//! [`Step::Pending`] from its first round (the server alone decides; a quick call is an
//! ordinary result, input rounds before it are ordinary input-required results); a
//! `Required` tool called without the extension is -32021. 2025-11-25: `params.task`
//! on a tool that allows tasks always makes one (-32601 for a `Forbidden` tool, or
//! without `params.task` for a `Required` one).
//!
//! **Ids, time, expiry.** Ids are 128-bit HMACs of a counter under the
//! [`StateKey`](crate::state::seal::StateKey) (no key: no tasks, a `Required` tool is
//! -32603). Times come from [`Device::now_ms`]; a task is forgotten
//! [`Config::task_ttl_ms`] after its creation (a 2025-11-25 `task.ttl` may ask for
//! less). A full table: an `Optional` tool runs as an ordinary call, otherwise -32603
//! `Task table full`; the tasks already there are unaffected.
//!
//! **RAM per task** (`K` slots): id 16 bytes, times 16, state word 4, TTL 4, tool
//! index, status and flags, the kept state ([`crate::state::seal::MAX_STATE`] = 64
//! bytes and its length), up to [`crate::device::input::MAX_ASKS`] 4-byte key
//! hashes (2025-11-25: and as many 4-byte ids of the requests sent for them), the
//! failure message (a `&'static str`) and, for a 2025-11-25 `tasks/result` waiting for
//! the end, the request id ([`crate::wire::rpc::MAX_ID_LEN`] = 64 bytes):
//! about 250 bytes on a 32-bit target, 288 on a 64-bit host.
//!
//! [`Step::Pending`]: crate::Step::Pending
//! [`Step::Done`]: crate::Step::Done
//! [`Device::poll_tool`]: crate::Device::poll_tool
//! [`Device::task_result`]: crate::Device::task_result
//! [`Device::now_ms`]: crate::Device::now_ms
//! [`ToolCall::set_request_state`]: crate::device::ToolCall::set_request_state
//! [`ToolCall::fail`]: crate::device::ToolCall::fail
//! [`ToolCall::error`]: crate::device::ToolCall::error
//! [`ToolCall::ask`]: crate::device::ToolCall::ask
//! [`TaskSupport`]: crate::model::registry::TaskSupport
//! [`Config::task_ttl_ms`]: crate::Config::task_ttl_ms

use super::failure::ErrorData;
use super::failure::Failure;
use super::Server;
use crate::device::input::Capabilities;
use crate::device::input::Sent;
use crate::device::input::TaskRound;
use crate::device::input::MAX_ASKS;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::Step;
use crate::device::ToolCall;
use crate::model::registry::TaskSupport;
use crate::state::seal::MAX_STATE;
use crate::state::task::TaskId;
use crate::state::task::TaskStatus;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;
use crate::wire::json::SinkError;
use crate::wire::json::Value;
use crate::wire::mcp::EXT_TASKS;
use crate::wire::rpc::Id;
use crate::wire::rpc::OwnedId;
use crate::wire::rpc::Request;
use crate::wire::version::Era;

mod methods;
// The tests speak both eras.
#[cfg(all(test, feature = "legacy", feature = "stateless"))]
mod tests;
mod write;

/// One task.
#[derive(Clone, Debug)]
pub(super) struct Task {
    pub(super) id: TaskId,
    pub(super) tool: usize,
    pub(super) status: TaskStatus,
    /// The era of the request that made it: 2026-07-28 (the extension) or 2025-11-25.
    pub(super) era: Era,
    pub(super) created_ms: u64,
    pub(super) updated_ms: u64,
    pub(super) ttl_ms: u32,
    /// The job's state word.
    pub(super) state: u32,
    /// The bytes the device keeps with the task ([`crate::device::ToolCall::set_request_state`]).
    pub(super) memo: heapless::Vec<u8, MAX_STATE>,
    /// `input_required`: hashes of the unanswered input request keys.
    pub(super) asks: heapless::Vec<u32, MAX_ASKS>,
    /// The input capabilities of the client that made it.
    pub(super) caps: Capabilities,
    /// `failed`: why.
    pub(super) failure: Option<&'static str>,
    /// 2025-11-25: `failed` because the result has `isError: true` (`tasks/result`
    /// gives that result).
    pub(super) tool_error: bool,
    /// 2025-11-25: a `tasks/result` request waiting for the task to end.
    pub(super) waiter: Option<OwnedId>,
    /// 2025-11-25 `input_required`: the server-to-client requests sent for unanswered
    /// keys, as (request id, key hash).
    pub(super) sent: heapless::Vec<(u32, u32), MAX_ASKS>,
}

/// The task table: `K` slots, nothing else (no length word: a server without task
/// slots is no larger for the feature).
pub(super) struct Table<const K: usize>([Option<Task>; K]);

impl<const K: usize> Table<K> {
    pub(super) fn new() -> Self {
        Table(core::array::from_fn(|_| None))
    }
    /// The task in slot `i`.
    pub(super) fn get(&self, i: usize) -> Option<&Task> {
        self.0.get(i).and_then(Option::as_ref)
    }
    pub(super) fn get_mut(&mut self, i: usize) -> Option<&mut Task> {
        self.0.get_mut(i).and_then(Option::as_mut)
    }
    /// The tasks, in slot order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Task> {
        self.0.iter().filter_map(Option::as_ref)
    }
    /// The slot of the first task that satisfies `f`.
    pub(super) fn position(&self, f: impl Fn(&Task) -> bool) -> Option<usize> {
        self.0.iter().position(|t| t.as_ref().is_some_and(&f))
    }
    pub(super) fn is_full(&self) -> bool {
        self.0.iter().all(Option::is_some)
    }
    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
    /// Put `task` into a free slot; false when there is none.
    pub(super) fn push(&mut self, task: Task) -> bool {
        match self.0.iter_mut().find(|t| t.is_none()) {
            Some(slot) => {
                *slot = Some(task);
                true
            }
            None => false,
        }
    }
    /// Empty slot `i`.
    pub(super) fn remove(&mut self, i: usize) {
        if let Some(slot) = self.0.get_mut(i) {
            *slot = None;
        }
    }
}

/// A sink that takes everything and keeps nothing: what a task writes while it runs.
pub(super) struct Discard;

impl Sink for Discard {
    fn write(&mut self, _bytes: &[u8]) -> Result<(), SinkError> {
        Ok(())
    }
    fn rollback(&mut self) -> bool {
        true
    }
}

/// The exchange of a task's round: no request of its own (id `0`, never sent), no
/// progress or log lines, the capabilities of the client that made it.
pub(super) fn task_exchange(caps: Capabilities, era: Era) -> Exchange<'static> {
    Exchange {
        id: Id::from_raw(b"0"),
        era,
        progress_token: None,
        log_level: None,
        caps,
        tasks: true,
    }
}

/// What one round of a task did.
pub(super) struct Round {
    pub(super) step: Step,
    pub(super) state: u32,
    pub(super) memo: Option<heapless::Vec<u8, MAX_STATE>>,
    pub(super) asked: heapless::Vec<u32, MAX_ASKS>,
    pub(super) failure: Option<&'static str>,
    pub(super) is_error: bool,
}

impl Round {
    /// The status after this round, given the requests still unanswered, and whether
    /// it is a tool error that fails the task (2025-11-25: `isError` → `failed`).
    pub(super) fn status(&self, unanswered: bool, era: Era) -> (TaskStatus, bool) {
        let tool_error = self.step == Step::Done && self.is_error && era == Era::Legacy;
        let status = if self.failure.is_some() || tool_error {
            TaskStatus::Failed
        } else if self.step == Step::Done {
            TaskStatus::Completed
        } else if unanswered || !self.asked.is_empty() {
            TaskStatus::InputRequired
        } else {
            TaskStatus::Working
        };
        (status, tool_error && self.failure.is_none())
    }
}

/// The round's outcome, the call done with.
pub(super) fn into_round(mut call: ToolCall<'_>, step: Step) -> Round {
    round_of(&mut call, step)
}

/// The round's outcome, read off the call.
pub(super) fn round_of(call: &mut ToolCall<'_>, step: Step) -> Round {
    let asked = call
        .input
        .task
        .as_mut()
        .map(|t| core::mem::take(&mut t.asked))
        .unwrap_or_default();
    let failure = call.input.failure.or(call
        .input
        .missing
        .map(|_| "Missing required client capability"));
    Round {
        step,
        state: call.state,
        memo: call.input.new_state.take(),
        asked,
        failure,
        is_error: call.is_error,
    }
}

/// Whether a tool call becomes a task: `task`, when it goes on (or at once, in
/// 2025-11-25's `legacy` form, whose first round writes into nothing: its answer is
/// the task).
#[derive(Clone, Copy)]
pub(super) struct Gate {
    pub(super) task: bool,
    pub(super) legacy: bool,
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// [`Server::task_gate`] for a tool call about to run.
    pub(super) fn gate<'a>(
        &mut self,
        index: usize,
        ex: &Exchange<'_>,
    ) -> Result<Gate, Failure<'a>> {
        let task = self.task_gate(index, ex)?;
        Ok(Gate {
            task,
            legacy: task && ex.era == Era::Legacy,
        })
    }

    /// A call that may become a task may always go on; a 2025-11-25 task's first
    /// round is a task's round.
    pub(super) fn begin_task(gate: Gate, call: &mut ToolCall<'_>) {
        if gate.task {
            call.can_defer = true;
            if gate.legacy {
                call.input.task = Some(TaskRound::default());
            }
        }
    }

    /// Whether the call, after its first round, is answered with a task.
    pub(super) fn becomes_task(gate: Gate, step: Step, call: &ToolCall<'_>) -> bool {
        gate.task && (gate.legacy || (step == Step::Pending && call.can_defer()))
    }

    /// Answer the request `r` with a new task for the call's first `round`.
    pub(super) fn defer_to_task(
        &mut self,
        r: &Request<'_>,
        index: usize,
        ex: &Exchange<'_>,
        round: Round,
        out: &mut dyn Sink,
    ) {
        let ttl = r
            .params
            .and_then(|p| p.get("task"))
            .and_then(|t| t.get("ttl"))
            .and_then(|t| t.as_u64())
            .map(|t| u32::try_from(t).unwrap_or(u32::MAX));
        self.create_task(r.id, index, ex, ttl, round, out);
    }

    /// The protocol-level failure a handler reported ([`ToolCall::fail`]) when it
    /// wrote nothing else.
    pub(super) fn call_failure(call: &ToolCall<'_>) -> Option<&'static str> {
        call.input.failure.filter(|_| !call.written())
    }
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Whether the request accepts a task: 2026-07-28, its `_meta` client
    /// capabilities declare the tasks extension; legacy era, `params.task` is an object.
    pub(super) fn accepts_tasks(
        &self,
        era: Era,
        meta_caps: Option<Value<'_>>,
        params: Option<Value<'_>>,
    ) -> bool {
        let object = |v: Option<Value<'_>>| v.is_some_and(|v| v.kind() == Kind::Object);
        if era.is_stateless() {
            object(
                meta_caps
                    .and_then(|c| c.get("extensions"))
                    .and_then(|e| e.get(EXT_TASKS)),
            )
        } else {
            object(params.and_then(|p| p.get("task")))
        }
    }

    /// Whether the server offers tasks (advertises them, answers `tasks/*`): tools,
    /// slots, and a key to derive ids from.
    pub(super) fn offers_tasks(&self) -> bool {
        K > 0 && self.has_tools() && self.input.state_key.is_some()
    }

    /// Before a tool runs: whether it becomes a task if it takes long, or the error
    /// that refuses it (2026-07-28: -32021 for a `Required` tool without the
    /// extension; 2025-11-25: -32601 for a task of a `Forbidden` tool or a `Required`
    /// one without `params.task`). `Ok(true)`: a task if it goes on.
    pub(super) fn task_gate<'a>(
        &mut self,
        index: usize,
        ex: &Exchange<'_>,
    ) -> Result<bool, Failure<'a>> {
        let support = self
            .device
            .tool(index)
            .map_or(TaskSupport::Forbidden, |t| t.task_support);
        let wanted = ex.tasks && K > 0;
        match (support, ex.era) {
            (TaskSupport::Forbidden, Era::Legacy) if ex.tasks => {
                return Err(DispatchError::MethodNotFound.into())
            }
            (TaskSupport::Forbidden, _) => return Ok(false),
            (TaskSupport::Required, Era::Stateless) if !wanted => {
                return Err(Failure {
                    error: DispatchError::MissingCapability,
                    data: ErrorData::TasksExtension,
                })
            }
            (TaskSupport::Required, Era::Legacy) if !wanted => {
                return Err(DispatchError::MethodNotFound.into())
            }
            _ => {}
        }
        if !wanted {
            return Ok(false);
        }
        let now = self.device.now_ms();
        self.expire_tasks(now);
        let room = !self.tasks.is_full() && self.input.state_key.is_some();
        match (room, support) {
            (true, _) => Ok(true),
            // An optional task in 2026-07-28 runs as an ordinary call.
            (false, TaskSupport::Optional) if ex.era.is_stateless() => Ok(false),
            (false, _) if self.input.state_key.is_none() => {
                Err(DispatchError::Internal("Tasks need a state key").into())
            }
            (false, _) => Err(DispatchError::Busy("Task table full").into()),
        }
    }

    /// Record a new task after its first round, and answer with `CreateTaskResult`.
    /// The caller checked there is room ([`Server::task_gate`]).
    // Not inlined into `call_tool`: the new task is on the stack only while it is made.
    #[inline(never)]
    pub(super) fn create_task(
        &mut self,
        id: Id<'_>,
        tool: usize,
        ex: &Exchange<'_>,
        ttl: Option<u32>,
        round: Round,
        out: &mut dyn Sink,
    ) {
        let Some(key) = self.input.state_key.as_ref() else {
            return;
        };
        // The counter of server-to-client requests serves: any value used once will do.
        let task_id = key.task_id(self.input.next_request);
        self.input.next_request = self.input.next_request.wrapping_add(1);
        let now = self.device.now_ms();
        let (status, tool_error) = round.status(false, ex.era);
        let task = Task {
            id: task_id,
            tool,
            status,
            era: ex.era,
            created_ms: now,
            updated_ms: now,
            ttl_ms: ttl.map_or(self.config.task_ttl_ms, |t| t.min(self.config.task_ttl_ms)),
            state: round.state,
            memo: round.memo.unwrap_or_default(),
            asks: round.asked,
            caps: ex.caps,
            failure: round.failure,
            tool_error,
            waiter: None,
            sent: heapless::Vec::new(),
        };
        // Recorded before the answer goes out: a `tasks/get` right after it finds it.
        // (Were the answer replaced by an error for not fitting, the client never
        // learns the id, and the task expires.)
        self.write_created(id, &task, out);
        let _ = self.tasks.push(task);
    }

    /// Forget the tasks that outlived their time to live (a task still running is
    /// cancelled on the device first).
    pub(super) fn expire_tasks(&mut self, now: u64) {
        for i in 0..K {
            let Some(t) = self.tasks.get(i) else { continue };
            if crate::state::task::expired(t.created_ms, t.ttl_ms, now) {
                if !t.status.is_terminal() {
                    self.device.cancel_tool(t.tool, t.state);
                }
                self.tasks.remove(i);
            }
        }
    }

    /// Whether the server has polling to do for its tasks: one is working, or a
    /// 2025-11-25 `tasks/result` waits for one that has ended or has requests to send.
    pub(super) fn tasks_busy(&self) -> bool {
        self.tasks.iter().any(|t| {
            t.status == TaskStatus::Working
                || (t.waiter.is_some() && (t.status.is_terminal() || has_unsent(t)))
        })
    }

    /// Whether a 2025-11-25 `tasks/result` with this id (JSON text) waits for its task.
    pub(super) fn task_waits(&self, request: &[u8]) -> bool {
        self.tasks
            .iter()
            .any(|t| t.waiter.as_deref() == Some(request))
    }

    /// The client is gone (end of input, link lost): cancel the tasks still running
    /// and forget every task — there is no one left to fetch them. `legacy_only`:
    /// only the tasks of the legacy-era session (a 2026-07-28 task belongs to no
    /// session).
    pub(super) fn drop_tasks(&mut self, legacy_only: bool) {
        for i in 0..K {
            let Some(t) = self.tasks.get(i) else { continue };
            if legacy_only && t.era.is_stateless() {
                continue;
            }
            if !t.status.is_terminal() {
                self.device.cancel_tool(t.tool, t.state);
            }
            self.tasks.remove(i);
        }
    }

    /// One round of every working task; the 2025-11-25 `tasks/result` requests
    /// waiting for a task are served into `out` (`only`: just the one with this id, as
    /// JSON text): answered when the task has ended, given the task's input requests
    /// not sent yet when it waits for input.
    pub(super) fn poll_tasks(&mut self, out: &mut dyn Sink, only: Option<&[u8]>) {
        if self.tasks.is_empty() {
            return;
        }
        self.run_tasks();
        for i in 0..K {
            let waits = self.tasks.get(i).and_then(|t| t.waiter.as_deref());
            if waits.is_some_and(|w| only.is_none_or(|o| o == w)) {
                self.send_requests(i, out);
                self.answer_waiter(i, out);
            }
        }
    }

    /// 2025-11-25: send the input requests of task `i` not sent yet, on the stream of
    /// the `tasks/result` waiting for it (as the revision has it: a client calls
    /// `tasks/result` on seeing `input_required`), each a request line tagged with the
    /// task. A replay of its round writes them.
    // Not inlined: each step's call and buffers take the stack only while it runs,
    // rather than adding to the frame of the poll that calls them all.
    #[inline(never)]
    fn send_requests(&mut self, i: usize, out: &mut dyn Sink) {
        let Some(t) = self.tasks.get(i).filter(|t| has_unsent(t)).cloned() else {
            return;
        };
        let Some(waiter) = t.waiter.as_deref() else {
            return;
        };
        out.route(Some(waiter));
        let ex = task_exchange(t.caps, Era::Legacy);
        let mut call = ToolCall::new(JsonWriter::new(out), ex, t.tool, None);
        call.state = t.state;
        call.input.state = Some(&t.memo[..]).filter(|m| !m.is_empty());
        call.input.next_id = self.input.next_request;
        call.input.task = Some(TaskRound {
            replay: true,
            pending: &t.asks,
            send: Some(Sent {
                task: crate::state::task::id_text(&t.id),
                requests: t.sent.clone(),
            }),
            ..TaskRound::default()
        });
        call.refuse_content();
        let _ = self.device.poll_tool(&mut call);
        self.input.next_request = call.input.next_id;
        let sent = call.input.task.take().and_then(|r| r.send);
        if let (Some(task), Some(sent)) = (self.tasks.get_mut(i), sent) {
            task.sent = sent.requests;
            // A key the replay did not ask again is asked no more (a round must ask
            // the same given the same state); with none left the task works on
            // rather than wait for nothing, and nothing is sent again and again.
            let sent = &task.sent;
            task.asks.retain(|k| sent.iter().any(|&(_, s)| s == *k));
            if task.asks.is_empty() {
                task.status = TaskStatus::Working;
            }
        }
    }

    /// 2025-11-25: a client's response to a task's request (`result`: `None` for an
    /// error response): one round of the task that sees it. Returns whether the
    /// request was a task's.
    pub(super) fn task_response(&mut self, id: u32, result: Option<Value<'_>>) -> bool {
        let found = (0..K).find_map(|i| {
            let t = self.tasks.get(i)?;
            let at = t.sent.iter().position(|&(r, _)| r == id)?;
            Some((i, at))
        });
        let Some((i, at)) = found else {
            return false;
        };
        let Some(t) = self.tasks.get_mut(i) else {
            return true;
        };
        let Some((_, hash)) = crate::state::subscription::swap_remove(&mut t.sent, at) else {
            return true;
        };
        if t.status != TaskStatus::InputRequired || !t.asks.contains(&hash) {
            return true;
        }
        let null = crate::wire::json::parse(b"null").ok();
        let Some(answer) = result.or(null) else {
            return true;
        };
        let now = self.device.now_ms();
        if let Some(round) = self.run_round(i, None, Some((hash, answer))) {
            self.apply_round(i, round, &[hash], now);
        }
        true
    }

    /// One round of every working task (their content goes nowhere). Also run when
    /// a client asks about a task, so that a transport that polls only the requests it
    /// holds open (async HTTP) still moves tasks on.
    pub(super) fn run_tasks(&mut self) {
        let now = self.device.now_ms();
        self.expire_tasks(now);
        for i in 0..K {
            if self
                .tasks
                .get(i)
                .is_some_and(|t| t.status == TaskStatus::Working)
            {
                if let Some(round) = self.run_round(i, None, None) {
                    self.apply_round(i, round, &[], now);
                }
            }
        }
    }

    /// Answer the 2025-11-25 `tasks/result` waiting for task `i`, if it ended.
    // Not inlined: each step's call and buffers take the stack only while it runs,
    // rather than adding to the frame of the poll that calls them all.
    #[inline(never)]
    fn answer_waiter(&mut self, i: usize, out: &mut dyn Sink) {
        let Some(t) = self.tasks.get_mut(i) else {
            return;
        };
        if !t.status.is_terminal() {
            return;
        }
        let Some(waiter) = t.waiter.take() else {
            return;
        };
        let id = Id::from_raw(&waiter);
        out.route(Some(&waiter));
        let mut g = super::guard::Guard::new(out);
        if let Err(f) = self.task_outcome(i, id, g.sink()) {
            super::failure::write_failure(g.sink(), id, f);
        }
        if g.full {
            super::failure::too_large(out, id);
        }
    }

    /// Run one round of task `i` (`inputs`: a `tasks/update`'s responses; `answer`:
    /// a 2025-11-25 response to the request for the key with that hash), its content
    /// discarded.
    pub(super) fn run_round(
        &mut self,
        i: usize,
        inputs: Option<Value<'_>>,
        answer: Option<(u32, Value<'_>)>,
    ) -> Option<Round> {
        let t = self.tasks.get(i)?;
        let memo = t.memo.clone();
        let asks = t.asks.clone();
        let ex = task_exchange(t.caps, t.era);
        let (tool, state) = (t.tool, t.state);
        let mut sink = Discard;
        let mut call = ToolCall::new(JsonWriter::new(&mut sink), ex, tool, None);
        call.state = state;
        call.input.state = Some(&memo[..]).filter(|m| !m.is_empty());
        call.input.inputs = inputs;
        call.input.task = Some(TaskRound {
            pending: &asks,
            answer,
            ..TaskRound::default()
        });
        let step = self.device.poll_tool(&mut call);
        Some(round_of(&mut call, step))
    }

    /// Record what a round of task `i` did; `answered`: the keys the round saw
    /// responses to.
    pub(super) fn apply_round(&mut self, i: usize, round: Round, answered: &[u32], now: u64) {
        let Some(t) = self.tasks.get_mut(i) else {
            return;
        };
        t.asks.retain(|k| !answered.contains(k));
        for k in round.asked.iter() {
            if !t.asks.contains(k) {
                let _ = t.asks.push(*k);
            }
        }
        let (status, tool_error) = round.status(!t.asks.is_empty(), t.era);
        t.tool_error = tool_error;
        if status.is_terminal() || status == TaskStatus::Working {
            t.asks.clear();
        }
        let asks = &t.asks;
        t.sent.retain(|(_, k)| asks.contains(k));
        if status != t.status {
            t.updated_ms = now;
        }
        t.status = status;
        t.state = round.state;
        t.failure = round.failure;
        if let Some(memo) = round.memo {
            t.memo = memo;
        }
    }
}

/// Whether a 2025-11-25 task waits for input it has not asked the client for yet.
fn has_unsent(t: &Task) -> bool {
    t.era == Era::Legacy
        && t.status == TaskStatus::InputRequired
        && t.asks.iter().any(|k| !t.sent.iter().any(|&(_, s)| s == *k))
}

/// A sink for one value inside another result: drops the envelope a tool call's
/// writer opens (`{"jsonrpc":"2.0","id":0,"result":`) and the `}\n` that closes it,
/// keeping the result object.
pub(super) struct Inline<'s> {
    inner: &'s mut dyn Sink,
    skip: usize,
    held: [u8; 2],
    n_held: usize,
}

impl<'s> Inline<'s> {
    /// The opening dropped: the envelope of a result for id `0`.
    const OPENING: &'static [u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":";

    pub(super) fn new(inner: &'s mut dyn Sink) -> Self {
        Inline {
            inner,
            skip: Self::OPENING.len(),
            held: [0; 2],
            n_held: 0,
        }
    }
}

impl Sink for Inline<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let n = self.skip.min(bytes.len());
        self.skip -= n;
        let rest = bytes.get(n..).unwrap_or(&[]);
        // Everything but the last two bytes seen so far goes out (slice patterns: no
        // length check left to panic in a firmware image).
        if let [out @ .., a, b] = rest {
            let held = self.held.get(..self.n_held).unwrap_or(&[]);
            self.inner.write(held)?;
            self.inner.write(out)?;
            self.held = [*a, *b];
            self.n_held = 2;
        } else if let [b] = rest {
            if self.n_held == 2 {
                self.inner.write(self.held.get(..1).unwrap_or(&[]))?;
                let last = self.held.get(1).copied().unwrap_or(0);
                self.held = [last, *b];
            } else {
                if let Some(h) = self.held.get_mut(self.n_held) {
                    *h = *b;
                }
                self.n_held += 1;
            }
        }
        Ok(())
    }

    fn failed(&mut self, error: SinkError) {
        self.inner.failed(error);
    }

    fn rollback(&mut self) -> bool {
        false
    }
}
