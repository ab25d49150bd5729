use super::failure::Outcome;
#[cfg(feature = "input")]
use super::failure::{ErrorData, Failure};
#[cfg(feature = "input")]
use super::input::Waiting;
use super::jobs::Job;
use super::named::Named;
use super::params::Params;
use super::result::Ttl;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::Step;
use crate::device::ToolCall;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;
#[cfg(any(feature = "schema-walk", feature = "input"))]
use crate::wire::json::Value;
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
        // The schema, for the walker (a plan, when there is one, carries its own).
        #[cfg(feature = "schema-walk")]
        let tool = self
            .device
            .tool(index)
            .ok_or(DispatchError::Internal("Invalid tool schema"))?;
        #[cfg(feature = "input")]
        let mut state_buf = [0u8; crate::state::seal::MAX_STATE + crate::state::seal::TAG_LEN];
        #[cfg(feature = "input")]
        let owner = self.device.tool_name(index).unwrap_or("");
        #[cfg(feature = "input")]
        let input = self.stateless_input(p, ex, owner, &mut state_buf)?;
        // Feature `tasks`: whether the call becomes a task if it goes on; a 2025-11-25
        // task's first round writes into nothing (its answer is the task).
        #[cfg(feature = "tasks")]
        let task = self.task_gate(index, &ex)?;
        #[cfg(feature = "tasks")]
        let legacy_task = task && !ex.stateless;
        #[cfg(feature = "tasks")]
        let mut discard = super::tasks::Discard;
        #[cfg(feature = "tasks")]
        let sink: &mut dyn Sink = if legacy_task { &mut discard } else { &mut *out };
        #[cfg(not(feature = "tasks"))]
        let sink = out;
        let mut call = ToolCall::new(JsonWriter::new(sink), ex, index, args);
        // The schema was checked when the server was built (descriptors are static):
        // not parsed again, and not walked at all when compiled into a plan.
        // Without `schema-walk` a tool without a plan was refused then, too.
        let checked = match self.device.tool_plan(index) {
            Some(plan) => call.check_plan(plan),
            #[cfg(feature = "schema-walk")]
            None => {
                crate::model::schema::validate(Value::trusted(tool.input_schema.as_bytes()), args)
            }
            #[cfg(not(feature = "schema-walk"))]
            None => Err(crate::model::schema::Violation::UNCOMPILED),
        };
        if let Err(violation) = checked {
            #[cfg(feature = "tasks")]
            if legacy_task {
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
            verdict => {
                #[cfg(feature = "tasks")]
                if legacy_task {
                    return Err(DispatchError::Internal("Call refused by the device").into());
                }
                call.refusal(verdict);
                self.finish_call(&mut call);
                return Ok(());
            }
        }
        call.can_defer = !self.jobs.is_full();
        #[cfg(feature = "input")]
        {
            (call.input.inputs, call.input.state) = input;
            call.input.next_id = self.next_request;
            call.input.can_wait = call.can_defer
                && !self.waits.is_full()
                && args.is_none_or(|a| a.raw().len() <= crate::device::input::MAX_WAIT_ARGS);
        }
        #[cfg(feature = "tasks")]
        if task {
            call.can_defer = true;
            if legacy_task {
                call.input.task = Some(crate::device::input::TaskRound::default());
            }
        }
        let step = self.device.call_tool(&mut call);
        #[cfg(feature = "tasks")]
        if task && (legacy_task || (step == Step::Pending && call.can_defer())) {
            let round = super::tasks::round_of(&mut call, step);
            drop(call);
            let ttl = r
                .params
                .and_then(|p| p.get("task"))
                .and_then(|t| t.get("ttl"))
                .and_then(|t| t.as_u64())
                .map(|t| u32::try_from(t).unwrap_or(u32::MAX));
            self.create_task(r.id, index, &ex, ttl, round, out);
            return Ok(());
        }
        #[cfg(feature = "tasks")]
        if let Some(why) = call.failure.filter(|_| !call.written()) {
            return Err(DispatchError::Internal(why).into());
        }
        #[cfg(feature = "input")]
        {
            self.next_request = call.input.next_id;
            if let Some(c) = call.input.missing.filter(|_| !call.written()) {
                return Err(Failure {
                    error: DispatchError::MissingCapability,
                    data: ErrorData::Capability(c),
                });
            }
            if !call.input.asks.is_empty() {
                // Legacy era: wait for the client's responses.
                self.start_wait(r.id, index, args, &mut call);
                return Ok(());
            }
        }
        if step == Step::Pending && call.can_defer() {
            let job = Job {
                id: rpc::own(r.id),
                // `own` copies a token whole too: `request` bounds it like an id.
                progress_token: ex.progress_token.map(|t| rpc::own(Id::from_raw(t))),
                tool: index,
                stateless: ex.stateless,
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

    /// Keep a call that asked the client for input (legacy era) as a job and a wait.
    /// Not inlined: a `Waiting` is over a kilobyte, on the stack only while it is made.
    #[cfg(feature = "input")]
    #[inline(never)]
    fn start_wait(
        &mut self,
        id: Id<'_>,
        index: usize,
        args: Option<Value<'_>>,
        call: &mut ToolCall<'_>,
    ) {
        let ex = call.ex;
        let wait = Waiting {
            id: rpc::own(id),
            args: args
                .and_then(|a| heapless::Vec::from_slice(a.raw()).ok())
                .unwrap_or_default(),
            asks: core::mem::take(&mut call.input.asks),
            answers: heapless::Vec::from_slice(b"{}").unwrap_or_default(),
            state: call.input.new_state.take().unwrap_or_default(),
            caps: ex.caps,
        };
        let job = Job {
            id: rpc::own(id),
            progress_token: ex.progress_token.map(|t| rpc::own(Id::from_raw(t))),
            tool: index,
            stateless: false,
            log_level: ex.log_level,
            state: call.state,
            owes: false,
        };
        // Cannot fail: can_wait checked for room in both tables.
        let _ = self.jobs.push(job);
        let _ = self.waits.push(wait);
    }

    pub(super) fn finish_call(&self, call: &mut ToolCall<'_>) {
        call.close();
        #[cfg(feature = "input")]
        if call.input.asking {
            let owner = self.device.tool(call.tool).map_or("", |t| t.name);
            self.write_state(&mut call.w, owner, call.input.new_state.as_deref());
        }
        self.end_result(&mut call.w, call.ex.stateless, Ttl::None);
    }
}
