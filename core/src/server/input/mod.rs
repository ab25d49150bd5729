//! The input side of the server (feature `input`; input/off.rs without it): the
//! legacy era's waiting calls and server-to-client requests, the sealed
//! `requestState` of 2026-07-28, and the hooks the request path calls.

use super::failure::too_large;
use super::failure::write_failure;
use super::failure::ErrorData;
use super::failure::Failure;
use super::failure::Outcome;
use super::guard::Guard;
use super::jobs::Job;
use super::named::Named;
use super::params::Params;
use super::params::P_INPUTS;
use super::params::P_STATE;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::PromptGet;
use crate::device::ToolCall;
use crate::state::subscription;
use crate::wire::error::DispatchError;
use crate::wire::json;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Value;
use crate::wire::rpc::Id;
use crate::wire::rpc::OwnedId;
use crate::wire::version::Era;

/// What the server keeps for the input side.
pub(super) struct Part<const W: usize> {
    /// Input capabilities the client declared in `initialize`.
    pub(super) session_caps: crate::device::input::Capabilities,
    /// The key that seals `requestState` (none: input-required results carry none).
    pub(super) state_key: Option<crate::state::seal::StateKey>,
    /// Id of the next server-to-client request (legacy era).
    pub(super) next_request: u32,
    /// Tool calls waiting for the client's responses (legacy era).
    pub(super) waits: heapless::Vec<Waiting, W>,
}

impl<const W: usize> Part<W> {
    pub(super) fn new() -> Self {
        Self {
            session_caps: crate::device::input::Capabilities::default(),
            state_key: None,
            next_request: 1,
            waits: heapless::Vec::new(),
        }
    }

    /// The session ended: no call waits any more.
    pub(super) fn clear(&mut self) {
        self.waits.clear();
    }

    /// Whether the job with this id waits for the client's input.
    pub(super) fn waiting(&self, id: &OwnedId) -> bool {
        self.waits.iter().any(|w| w.id == *id && !w.asks.is_empty())
    }

    /// The job with this id is gone: its wait with it.
    pub(super) fn forget(&mut self, id: &OwnedId) {
        self.waits.retain(|w| w.id != *id);
    }

    /// The capabilities a request was sent with: its own `_meta` ones (2026-07-28)
    /// or those of `initialize`.
    pub(super) fn caps(
        &self,
        era: Era,
        meta: Option<Value<'_>>,
    ) -> crate::device::input::Capabilities {
        if era.is_stateless() {
            crate::device::input::Capabilities::from_value(meta)
        } else {
            self.session_caps
        }
    }

    /// `initialize`'s client capabilities (its `params.capabilities`).
    pub(super) fn initialized(&mut self, params: Option<Value<'_>>) {
        self.session_caps = crate::device::input::Capabilities::from_value(
            params.and_then(|p| p.get("capabilities")),
        );
    }
}

/// What a 2026-07-28 request brings for its handler: `inputResponses` and the opened
/// `requestState`.
pub(super) type Opened<'a> = (Option<Value<'a>>, Option<&'a [u8]>);

/// Room for an opened `requestState`.
pub(super) const STATE_BUF: usize = crate::state::seal::MAX_STATE + crate::state::seal::TAG_LEN;

/// What a tool call waiting for the client's input keeps (legacy era).
#[derive(Clone, Debug)]
pub(super) struct Waiting {
    /// The request the call answers (its job's id).
    pub(super) id: OwnedId,
    /// The call's arguments (JSON text; empty when it had none).
    pub(super) args: heapless::Vec<u8, { crate::device::input::MAX_WAIT_ARGS }>,
    /// Requests still unanswered.
    pub(super) asks: heapless::Vec<crate::device::input::Ask, { crate::device::input::MAX_ASKS }>,
    /// The responses so far, as the JSON object text the handler will see.
    pub(super) answers: heapless::Vec<u8, { crate::device::input::MAX_WAIT_ANSWERS }>,
    /// The handler's state for its next round.
    pub(super) state: heapless::Vec<u8, { crate::state::seal::MAX_STATE }>,
    pub(super) caps: crate::device::input::Capabilities,
}

impl Waiting {
    /// Record the client's response (`result`, or `null` for an error or one that
    /// does not fit) to request `id`; returns whether it was one of ours.
    pub(super) fn answer(&mut self, id: u32, result: Option<&[u8]>) -> bool {
        let Some(i) = self.asks.iter().position(|a| a.id == id) else {
            return false;
        };
        let Some(ask) = subscription::swap_remove(&mut self.asks, i) else {
            return false;
        };
        let mark = self.answers.len();
        let _ = self.answers.pop(); // the closing brace
        let ok = (mark <= 2 || self.answers.push(b',').is_ok())
            && self.answers.push(b'"').is_ok()
            && self.answers.extend_from_slice(ask.key.as_bytes()).is_ok()
            && self.answers.extend_from_slice(b"\":").is_ok();
        let value_at = self.answers.len();
        let fitted = ok
            && self
                .answers
                .extend_from_slice(result.unwrap_or(b"null"))
                .is_ok()
            && self.answers.push(b'}').is_ok();
        if !fitted {
            // Too large: the handler sees null for this key (or, without room even
            // for that, no answer at all).
            self.answers
                .truncate(if ok { value_at } else { mark.saturating_sub(1) });
            let _ = self
                .answers
                .extend_from_slice(if ok { b"null}" } else { b"}" });
        }
        true
    }
}

/// Input-required results and server-to-client requests (see [`crate::device::input`]).
impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// The input side of a 2026-07-28 tools/call or prompts/get: `inputResponses`, and
    /// `requestState` opened with the server's key for `owner` (-32602 when it does
    /// not verify). Nothing for the legacy era. The caller puts them into the two
    /// fields of its [`Input`](crate::device::input::Input) (cheaper than copying a whole one).
    pub(super) fn stateless_input<'a>(
        &self,
        p: &Params<'a>,
        ex: Exchange<'_>,
        owner: &str,
        buf: &'a mut [u8; STATE_BUF],
    ) -> Result<Opened<'a>, DispatchError> {
        if ex.era == Era::Legacy {
            return Ok((None, None));
        }
        let mut state = None;
        if let Some(sealed) = p.0[P_STATE] {
            let bad = DispatchError::InvalidParams("Invalid requestState");
            let text = sealed.as_str().ok_or(bad)?;
            let key = self.input.state_key.as_ref().ok_or(bad)?;
            state = Some(key.open(owner, text, buf).map_err(|_| bad)?);
        }
        Ok((p.0[P_INPUTS], state))
    }

    /// The 2026-07-28 input of a `tools/call` or `prompts/get` of the tool or prompt
    /// `index` ([`Self::stateless_input`], sealed for its name).
    pub(super) fn open_input<'a>(
        &self,
        p: &Params<'a>,
        ex: Exchange<'_>,
        kind: Named,
        index: usize,
        buf: &'a mut [u8; STATE_BUF],
    ) -> Result<Opened<'a>, DispatchError> {
        let owner = match kind {
            Named::Tool => self.device.tool_name(index).unwrap_or(""),
            Named::Prompt => self.device.prompt(index).map_or("", |p| p.name),
        };
        self.stateless_input(p, ex, owner, buf)
    }

    /// Give a tool call its input: what the request brought, the next request id,
    /// and whether it may wait for the client (legacy era: a job and a wait slot
    /// free, arguments that fit).
    pub(super) fn fill_tool_input<'a>(&self, call: &mut ToolCall<'a>, opened: Opened<'a>) {
        (call.input.inputs, call.input.state) = opened;
        call.input.next_id = self.input.next_request;
        call.input.can_wait = call.can_defer
            && !self.input.waits.is_full()
            && call
                .args
                .is_none_or(|a| a.raw().len() <= crate::device::input::MAX_WAIT_ARGS);
    }

    /// Give a prompt its input.
    pub(super) fn fill_prompt_input<'a>(get: &mut PromptGet<'a>, opened: Opened<'a>) {
        (get.input.inputs, get.input.state) = opened;
    }

    /// After a tool's round: -32021 for a capability it required and the client
    /// lacks, or (legacy era) the call kept waiting for the requests it sent. `None`:
    /// the call goes on as any other.
    pub(super) fn end_input<'a>(
        &mut self,
        id: Id<'a>,
        index: usize,
        call: &mut ToolCall<'_>,
    ) -> Option<Outcome<'a>> {
        self.input.next_request = call.input.next_id;
        if let Some(c) = call.input.missing.filter(|_| !call.written()) {
            return Some(Err(Failure {
                error: DispatchError::MissingCapability,
                data: ErrorData::Capability(c),
            }));
        }
        if !call.input.asks.is_empty() {
            // Legacy era: wait for the client's responses.
            self.start_wait(id, index, call);
            return Some(Ok(()));
        }
        None
    }

    /// Keep a call that asked the client for input (legacy era) as a job and a wait.
    /// Not inlined: a `Waiting` is over a kilobyte, on the stack only while it is made.
    #[inline(never)]
    fn start_wait(&mut self, id: Id<'_>, index: usize, call: &mut ToolCall<'_>) {
        let ex = call.ex;
        let wait = Waiting {
            id: crate::wire::rpc::own(id),
            args: call
                .args
                .and_then(|a| heapless::Vec::from_slice(a.raw()).ok())
                .unwrap_or_default(),
            asks: core::mem::take(&mut call.input.asks),
            answers: heapless::Vec::from_slice(b"{}").unwrap_or_default(),
            state: call.input.new_state.take().unwrap_or_default(),
            caps: ex.caps,
        };
        let job = Job {
            id: crate::wire::rpc::own(id),
            progress_token: ex
                .progress_token
                .map(|t| crate::wire::rpc::own(Id::from_raw(t))),
            tool: index,
            era: Era::Legacy,
            log_level: ex.log_level,
            state: call.state,
            owes: false,
        };
        // Cannot fail: can_wait checked for room in both tables.
        let _ = self.jobs.push(job);
        let _ = self.input.waits.push(wait);
    }

    /// The sealed `requestState` of a tool's input-required result.
    pub(super) fn seal_tool_state(&self, call: &mut ToolCall<'_>) {
        if call.input.asking {
            let owner = self.device.tool(call.tool).map_or("", |t| t.name);
            self.write_state(&mut call.w, owner, call.input.new_state.as_deref());
        }
    }

    /// The sealed `requestState` of a prompt's input-required result.
    pub(super) fn seal_prompt_state(&self, get: &mut PromptGet<'_>) {
        if get.input.asking {
            let owner = self.device.prompt(get.prompt).map_or("", |p| p.name);
            self.write_state(&mut get.w, owner, get.input.new_state.as_deref());
        }
    }

    /// One step of job `i` when it is a call waiting for input (legacy era): resumed
    /// once its responses are in. `None`: the job does not wait; otherwise whether
    /// it ended (it left the table).
    pub(super) fn step_wait(&mut self, i: usize, out: &mut dyn Sink) -> Option<bool> {
        let job = self.jobs.get(i)?;
        let w = self.input.waits.iter().position(|w| w.id == job.id)?;
        let ready = self.input.waits.get(w).is_some_and(|w| w.asks.is_empty());
        if ready {
            let job = job.clone();
            if self.resume(job, w, out) {
                let _ = subscription::swap_remove(&mut self.input.waits, w);
                let _ = subscription::swap_remove(&mut self.jobs, i);
                return Some(true);
            }
        }
        Some(false)
    }

    /// `requestState` of an input-required result: the handler's state sealed for
    /// `owner` (nothing without state or key).
    pub(super) fn write_state(&self, w: &mut JsonWriter<'_>, owner: &str, state: Option<&[u8]>) {
        let (Some(state), Some(key)) = (state, self.input.state_key.as_ref()) else {
            return;
        };
        let mut buf = [0u8; crate::state::seal::MAX_SEALED];
        if let Some(sealed) = key.seal(owner, state, &mut buf) {
            w.key_lit("requestState");
            w.str(sealed);
        }
    }

    /// A client's response: file it with the call that asked (unknown ids are ignored).
    pub(super) fn response(&mut self, line: &[u8]) {
        let Ok(v) = json::parse(line) else { return };
        let Some(id) = v
            .get("id")
            .and_then(|i| i.as_u64())
            .and_then(|n| u32::try_from(n).ok())
        else {
            return;
        };
        if self.task_response(id, v.get("result")) {
            return;
        }
        let result = v.get("result").map(|r| r.raw());
        for wait in self.input.waits.iter_mut() {
            if wait.answer(id, result) {
                return;
            }
        }
    }

    /// Call a waiting tool again with the responses it asked for. Returns true when
    /// the call is over (its result written); false when it asked again.
    // Not inlined: each step's call and buffers take the stack only while it runs,
    // rather than adding to the frame of the poll that calls them all.
    #[inline(never)]
    pub(super) fn resume(&mut self, job: Job, w: usize, out: &mut dyn Sink) -> bool {
        // Read in place (a `Waiting` is over a kilobyte: no copy of it on the stack);
        // the call borrows its buffers until it is over.
        let Some(wait) = self.input.waits.get(w) else {
            return true;
        };
        out.route(Some(&job.id));
        let ex = Exchange {
            id: Id::from_raw(&job.id),
            era: Era::Legacy,
            progress_token: job.progress_token.as_deref(),
            log_level: job.log_level,
            caps: wait.caps,
            tasks: Default::default(),
        };
        let mut g = Guard::new(out);
        let args = json::parse(&wait.args).ok();
        let mut call = ToolCall::new(JsonWriter::new(g.sink()), ex, job.tool, args);
        call.state = job.state;
        call.input.inputs = json::parse(&wait.answers).ok();
        call.input.state = Some(&wait.state[..]).filter(|s| !s.is_empty());
        call.input.next_id = self.input.next_request;
        call.input.can_wait = true; // its own job slot
                                    // A resumed call finishes or asks again; `Step::Pending` is taken as done.
        let _ = self.device.call_tool(&mut call);
        self.input.next_request = call.input.next_id;
        if !call.input.asks.is_empty() {
            // Asked again: the same wait, with the new requests, no responses yet and
            // the handler's new state.
            let asks = core::mem::take(&mut call.input.asks);
            let new_state = call.input.new_state.take().unwrap_or_default();
            let state = call.state;
            drop(call);
            if let Some(slot) = self.input.waits.get_mut(w) {
                slot.asks = asks;
                slot.answers.clear();
                let _ = slot.answers.extend_from_slice(b"{}");
                slot.state = new_state;
            }
            if let Some(j) = self.jobs.iter_mut().find(|j| j.id == job.id) {
                j.state = state;
            }
            return false;
        }
        if let Some(c) = call.input.missing.filter(|_| !call.written()) {
            let failure = Failure {
                error: DispatchError::MissingCapability,
                data: ErrorData::Capability(c),
            };
            drop(call);
            write_failure(g.sink(), ex.id, failure);
        } else {
            self.finish_call(&mut call);
        }
        if g.full {
            too_large(out, ex.id);
        }
        true
    }
}
