use super::failure::Outcome;
use super::input;
use super::jobs::Job;
use super::named::Named;
use super::params::Params;
use super::result::Ttl;
use super::tasks;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::Step;
use crate::device::ToolCall;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;
use crate::wire::rpc;
use crate::wire::rpc::Id;
use crate::wire::rpc::Request;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    // With `input` (kilobyte waits, sealed state) not inlined into `dispatch`: its
    // call and buffers take the stack only while it runs, not on top of every other
    // method's. Without, inlining is smaller and the frames small anyway.
    #[cfg_attr(feature = "input", inline(never))]
    pub(super) fn call_tool<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let (index, args) = self.find(p, Named::Tool)?;
        if args.is_some_and(|a| a.kind() != Kind::Object) {
            return Err(DispatchError::InvalidParams("arguments must be an object").into());
        }
        // The schema, for the walker, when the tool has no compiled plan (a plan carries
        // its own). Read before the call is set up: the smaller code on small targets.
        let plan = self.device.tool_plan(index);
        let schema = match plan {
            Some(_) => "",
            None => {
                self.device
                    .tool(index)
                    .ok_or(DispatchError::Internal("Invalid tool schema"))?
                    .input_schema
            }
        };
        // The 2026-07-28 input the request brings (feature `input`).
        let mut state_buf = [0u8; input::STATE_BUF];
        let opened = self.open_input(p, ex, Named::Tool, index, &mut state_buf)?;
        // Whether the call becomes a task if it goes on (feature `tasks`); a
        // 2025-11-25 task's first round writes into nothing (its answer is the task).
        let gate = self.gate(index, &ex)?;
        let mut discard = tasks::Discard;
        let sink: &mut dyn Sink = if gate.legacy { &mut discard } else { &mut *out };
        let mut call = ToolCall::new(JsonWriter::new(sink), ex, index, args);
        // The schema was checked when the server was built (descriptors are static):
        // not parsed again, and not walked at all when compiled into a plan.
        // Without `schema-walk` a tool without a plan was refused then, too.
        let checked = match plan {
            Some(plan) => call.check_plan(plan),
            None => crate::model::schema::walk(schema, args),
        };
        if let Err(violation) = checked {
            if gate.legacy {
                return Err(DispatchError::InvalidParams(
                    "Arguments do not match the input schema",
                )
                .into());
            }
            // A tool execution error, not a protocol error (SEP-1303).
            call.violation(&violation);
            self.finish_call(&mut call);
            return Ok(());
        }
        match self.device.authorize(index, args) {
            crate::state::policy::Verdict::Allow => {}
            _ if gate.legacy => {
                return Err(DispatchError::Internal("Call refused by the device").into());
            }
            verdict => {
                call.refusal(verdict);
                self.finish_call(&mut call);
                return Ok(());
            }
        }
        call.can_defer = !self.jobs.is_full();
        self.fill_tool_input(&mut call, opened);
        Self::begin_task(gate, &mut call);
        let step = self.device.call_tool(&mut call);
        if Self::becomes_task(gate, step, &call) {
            // The round is all that is kept of the call (its borrow of `out` ends).
            let round = tasks::into_round(call, step);
            self.defer_to_task(&r, index, &ex, round, out);
            return Ok(());
        }
        if let Some(why) = Self::call_failure(&call) {
            return Err(DispatchError::Internal(why).into());
        }
        if let Some(outcome) = self.end_input(r.id, index, &mut call) {
            return outcome;
        }
        if step == Step::Pending && call.can_defer() {
            let job = Job {
                id: rpc::own(r.id),
                // `own` copies a token whole too: `request` bounds it like an id.
                progress_token: ex.progress_token.map(|t| rpc::own(Id::from_raw(t))),
                tool: index,
                era: ex.era,
                log_level: ex.log_level,
                state: call.state,
                owes: false,
            };
            // Cannot fail: can_defer checked for room.
            let _ = self.jobs.push(job);
            return Ok(());
        }
        self.finish_call(&mut call);
        Ok(())
    }

    pub(super) fn finish_call(&self, call: &mut ToolCall<'_>) {
        call.close();
        self.seal_tool_state(call);
        self.end_result(&mut call.w, call.ex.era, Ttl::None);
    }
}
