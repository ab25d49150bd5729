//! The `tasks/*` methods of both eras.
//!
//! | method | 2026-07-28 (extension) | 2025-11-25 |
//! |---|---|---|
//! | `tasks/get` | `DetailedTask`, `resultType: "complete"` | `Task` |
//! | `tasks/update` | ack; runs a round with the responses | -32601 |
//! | `tasks/cancel` | ack, also for a terminal task | `Task` (cancelled); -32602 when terminal |
//! | `tasks/result` | -32601 | the result, or the JSON-RPC error; waits for the end |
//! | `tasks/list` | -32601 | `{tasks, nextCursor?}` |
//!
//! 2026-07-28 without the extension in the request's `_meta`: -32021. Unknown or
//! expired `taskId`: -32602.

use crate::device::Device;
use crate::device::Exchange;
use crate::server::failure::ErrorData;
use crate::server::failure::Failure;
use crate::server::failure::Outcome;
use crate::server::list::page;
use crate::server::result::Ttl;
use crate::server::Server;
use crate::state::task::key_hash;
use crate::state::task::parse_id;
use crate::state::task::TaskStatus;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;
use crate::wire::rpc;
use crate::wire::rpc::Request;
use crate::wire::version::Era;

/// The task methods, by wire name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskMethod {
    Get,
    Update,
    Cancel,
    Result,
    List,
}

impl TaskMethod {
    const ALL: [(TaskMethod, &'static str); 5] = [
        (TaskMethod::Get, "tasks/get"),
        (TaskMethod::Update, "tasks/update"),
        (TaskMethod::Cancel, "tasks/cancel"),
        (TaskMethod::Result, "tasks/result"),
        (TaskMethod::List, "tasks/list"),
    ];
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Serve a request whose method the server's own table does not know: a task
    /// method, or -32601.
    // With `input` (kilobyte waits, sealed state) not inlined into `dispatch`: its
    // call and buffers take the stack only while it runs, not on top of every other
    // method's. Without, inlining is smaller and the frames small anyway.
    #[cfg_attr(feature = "input", inline(never))]
    pub(in crate::server) fn task_request<'a>(
        &mut self,
        r: Request<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        use TaskMethod as M;
        let method = TaskMethod::ALL
            .iter()
            .find(|(_, name)| r.method.eq_str(name))
            .map(|(m, _)| *m)
            .filter(|_| self.offers_tasks())
            .ok_or(DispatchError::MethodNotFound)?;
        match (method, ex.era) {
            (M::Result | M::List, Era::Stateless) | (M::Update, Era::Legacy) => {
                return Err(DispatchError::MethodNotFound.into())
            }
            (_, Era::Stateless) if !ex.tasks => {
                return Err(Failure {
                    error: DispatchError::MissingCapability,
                    data: ErrorData::TasksExtension,
                })
            }
            _ => {}
        }
        self.run_tasks();
        let now = self.device.now_ms();
        if method == M::List {
            return self.list_tasks(r, out);
        }
        let id = r
            .params
            .and_then(|p| p.get("taskId"))
            .and_then(|v| v.as_str())
            .ok_or(DispatchError::MissingParam("taskId"))?;
        let unknown = DispatchError::InvalidParams("Unknown taskId");
        let i = parse_id(id)
            .and_then(|id| self.tasks.position(|t| t.id == id))
            .ok_or(unknown)?;
        match method {
            M::Get => {
                let mut w = JsonWriter::new(out);
                ex.begin_result(&mut w);
                if ex.era.is_stateless() {
                    self.write_detailed(&mut w, i);
                } else if let Some(t) = self.tasks.get(i) {
                    self.write_task_members(&mut w, t, Era::Legacy);
                }
                self.end_result(&mut w, ex.era, Ttl::None);
            }
            M::Update => {
                let responses = r
                    .params
                    .and_then(|p| p.get("inputResponses"))
                    .filter(|v| v.kind() == Kind::Object)
                    .ok_or(DispatchError::InvalidParams(
                        "inputResponses must be an object",
                    ))?;
                self.update_task(i, responses, now);
                self.ack(ex, out);
            }
            M::Cancel => {
                let terminal = self.tasks.get(i).is_some_and(|t| t.status.is_terminal());
                if terminal && ex.era == Era::Legacy {
                    return Err(DispatchError::InvalidParams("Task already ended").into());
                }
                if let Some(t) = self.tasks.get_mut(i).filter(|t| !t.status.is_terminal()) {
                    t.status = TaskStatus::Cancelled;
                    t.updated_ms = now;
                    t.asks.clear();
                    let (tool, state) = (t.tool, t.state);
                    self.device.cancel_tool(tool, state);
                }
                if ex.era.is_stateless() {
                    self.ack(ex, out);
                } else {
                    let mut w = JsonWriter::new(out);
                    ex.begin_result(&mut w);
                    if let Some(t) = self.tasks.get(i) {
                        self.write_task_members(&mut w, t, Era::Legacy);
                    }
                    self.end_result(&mut w, Era::Legacy, Ttl::None);
                }
            }
            M::Result => {
                let Some(t) = self.tasks.get(i) else {
                    return Err(unknown.into());
                };
                if !t.status.is_terminal() {
                    // Answered when the task ends ([`Server::poll`]).
                    let waiter = rpc::own(r.id);
                    if let Some(t) = self.tasks.get_mut(i) {
                        t.waiter = Some(waiter);
                    }
                    return Ok(());
                }
                return self.task_outcome(i, r.id, out);
            }
            M::List => {}
        }
        Ok(())
    }

    /// `{resultType: "complete"}` and the 2026-07-28 trailer.
    fn ack(&self, ex: Exchange<'_>, out: &mut dyn Sink) {
        let mut w = JsonWriter::new(out);
        ex.begin_result(&mut w);
        self.end_result(&mut w, Era::Stateless, Ttl::None);
    }

    /// The 2025-11-25 answer for ended task `i`: its result, or the JSON-RPC error
    /// that failed it (a cancelled task: -32603 `Task cancelled`).
    pub(super) fn task_outcome<'a>(
        &mut self,
        i: usize,
        id: rpc::Id<'_>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let Some(t) = self.tasks.get(i).cloned() else {
            return Ok(());
        };
        match t.status {
            TaskStatus::Cancelled => Err(DispatchError::Internal("Task cancelled").into()),
            TaskStatus::Failed if !t.tool_error => {
                Err(DispatchError::Internal(t.failure.unwrap_or("Task failed")).into())
            }
            _ => {
                self.write_outcome(out, &t, Some(id));
                Ok(())
            }
        }
    }

    /// A `tasks/update` for task `i`: when it waits for input, one round with the
    /// responses to its unanswered requests (others are ignored).
    fn update_task(&mut self, i: usize, responses: crate::wire::json::Value<'_>, now: u64) {
        let Some(t) = self.tasks.get(i) else { return };
        if t.status != TaskStatus::InputRequired {
            return;
        }
        let mut answered: heapless::Vec<u32, { crate::device::input::MAX_ASKS }> =
            heapless::Vec::new();
        for (key, value) in responses.members() {
            let hash = key_hash(key.raw());
            if t.asks.contains(&hash) && !value.is_null() && !answered.contains(&hash) {
                let _ = answered.push(hash);
            }
        }
        if answered.is_empty() {
            return;
        }
        if let Some(round) = self.run_round(i, Some(responses), None) {
            self.apply_round(i, round, &answered, now);
        }
    }

    /// 2025-11-25 `tasks/list`: the tasks, a page at a time.
    fn list_tasks<'a>(&self, r: Request<'a>, out: &mut dyn Sink) -> Outcome<'a> {
        let cursor = r.params.and_then(|p| p.get("cursor"));
        let count = self.tasks.iter().count();
        let (start, end) = page(cursor, count, self.config.page_size)?;
        let mut w = JsonWriter::new(out);
        rpc::begin_result(&mut w, r.id);
        w.key_lit("tasks");
        w.begin_array();
        for t in self.tasks.iter().skip(start).take(end - start) {
            w.begin_object();
            self.write_task_members(&mut w, t, Era::Legacy);
            w.end_object();
        }
        w.end_array();
        if end < count {
            w.key_lit("nextCursor");
            w.u64_str(end as u64);
        }
        self.end_result(&mut w, Era::Legacy, Ttl::None);
        Ok(())
    }
}
