//! The task objects on the wire: `CreateTaskResult`, the `Task` of both eras, and
//! the 2026-07-28 `DetailedTask` with its input requests, result or error.

use super::task_exchange;
use super::Inline;
use super::Task;
use crate::device::input::TaskRound;
use crate::device::Device;
use crate::device::ToolCall;
use crate::server::result::Ttl;
use crate::server::Server;
use crate::state::task::id_text;
use crate::state::task::TaskStatus;
use crate::wire::error::code;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::rpc;
use crate::wire::rpc::Id;
use crate::wire::time::iso8601;
use crate::wire::time::ISO8601_LEN;
use crate::wire::version::Era;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// A `Task`'s members into an open object, named as `era` names them: 2026-07-28
    /// (`ttlMs`, `pollIntervalMs`) or 2025-11-25 (`ttl`, `pollInterval`).
    pub(super) fn write_task_members(&self, w: &mut JsonWriter<'_>, t: &Task, era: Era) {
        let id = id_text(&t.id);
        w.key_lit("taskId");
        // Hex digits need no escaping.
        w.str_as(core::str::from_utf8(&id).unwrap_or(""), true);
        w.key_lit("status");
        w.str_lit(t.status.as_str());
        if let Some(why) = t.failure.filter(|_| t.status == TaskStatus::Failed) {
            w.key_lit("statusMessage");
            w.str(why);
        }
        let mut buf = [0u8; ISO8601_LEN];
        w.key_lit("createdAt");
        w.str_as(iso8601(t.created_ms, &mut buf), true);
        w.key_lit("lastUpdatedAt");
        w.str_as(iso8601(t.updated_ms, &mut buf), true);
        w.key_lit(match era {
            Era::Stateless => "ttlMs",
            Era::Legacy => "ttl",
        });
        w.u64(u64::from(t.ttl_ms));
        if !t.status.is_terminal() {
            w.key_lit(match era {
                Era::Stateless => "pollIntervalMs",
                Era::Legacy => "pollInterval",
            });
            w.u64(u64::from(self.config.task_poll_ms.max(1)));
        }
    }

    /// The answer to the `tools/call` that made task `t`: 2026-07-28 a flat
    /// `CreateTaskResult` (`resultType: "task"`), 2025-11-25 `{task: Task}`.
    pub(super) fn write_created(&self, id: Id<'_>, t: &Task, out: &mut dyn Sink) {
        let mut w = JsonWriter::new(out);
        rpc::begin_result(&mut w, id);
        if t.era.is_stateless() {
            w.member_lit(b",\"resultType\":\"task\"");
            self.write_task_members(&mut w, t, Era::Stateless);
        } else {
            w.key_lit("task");
            w.begin_object();
            self.write_task_members(&mut w, t, Era::Legacy);
            w.end_object();
        }
        self.end_result(&mut w, t.era, Ttl::None);
    }

    /// Task `i` as the 2026-07-28 `DetailedTask` members: the task, then by status
    /// `inputRequests` (a replay of its round), `result` (written by the device) or
    /// `error`.
    pub(super) fn write_detailed(&mut self, w: &mut JsonWriter<'_>, i: usize) {
        let Some(t) = self.tasks.get(i).cloned() else {
            return;
        };
        self.write_task_members(w, &t, Era::Stateless);
        match t.status {
            TaskStatus::InputRequired => {
                w.key_lit("inputRequests");
                w.value_with(|sink| self.replay(sink, &t));
            }
            TaskStatus::Completed => {
                w.key_lit("result");
                w.value_with(|sink| self.write_outcome(&mut Inline::new(sink), &t, None));
            }
            TaskStatus::Failed => {
                w.key_lit("error");
                w.begin_object();
                w.key_lit("code");
                w.i64(i64::from(code::INTERNAL_ERROR));
                w.key_lit("message");
                w.str(t.failure.unwrap_or("Task failed"));
                w.end_object();
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
    }

    /// The unanswered input requests of task `t` as one object: its round again,
    /// with no responses, content refused, asks written.
    fn replay(&mut self, sink: &mut dyn Sink, t: &Task) {
        let ex = task_exchange(t.caps, Era::Stateless);
        let mut call = ToolCall::new(JsonWriter::new(sink), ex, t.tool, None);
        call.w.begin_object();
        call.state = t.state;
        call.input.state = Some(&t.memo[..]).filter(|m| !m.is_empty());
        call.input.task = Some(TaskRound {
            replay: true,
            pending: &t.asks,
            ..TaskRound::default()
        });
        call.refuse_content();
        let _ = self.device.poll_tool(&mut call);
        call.w.end_object();
    }

    /// The result of completed task `t`, written by the device into `sink` as a whole
    /// response to `id` (`None`: id `0`, for [`Inline`]); 2025-11-25 adds
    /// `_meta["io.modelcontextprotocol/related-task"]`.
    pub(super) fn write_outcome(&mut self, sink: &mut dyn Sink, t: &Task, id: Option<Id<'_>>) {
        let mut ex = task_exchange(t.caps, Era::Legacy);
        if let Some(id) = id {
            ex.id = id;
        }
        let mut call = ToolCall::new(JsonWriter::new(sink), ex, t.tool, None);
        call.state = t.state;
        call.input.state = Some(&t.memo[..]).filter(|m| !m.is_empty());
        self.device.task_result(&mut call);
        call.close();
        if id.is_some() {
            let text = id_text(&t.id);
            call.w.key_lit("_meta");
            call.w.begin_object();
            call.w.key_lit(crate::wire::mcp::META_RELATED_TASK);
            call.w.begin_object();
            call.w.key_lit("taskId");
            call.w
                .str_as(core::str::from_utf8(&text).unwrap_or(""), true);
            call.w.end_object();
            call.w.end_object();
        }
        rpc::end_response(&mut call.w);
    }
}
