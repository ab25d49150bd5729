use super::failure::too_large;
use super::failure::write_failure;
use super::failure::ErrorData;
use super::failure::Failure;
use super::guard::Guard;
use super::jobs::Job;
use super::params::Params;
use super::params::P_INPUTS;
use super::params::P_STATE;
use super::Server;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::ToolCall;
use crate::state::subscription;
use crate::wire::error::DispatchError;
use crate::wire::json;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Value;
use crate::wire::rpc::Id;
use crate::wire::rpc::OwnedId;

/// What a tool call waiting for the client's input keeps (legacy era).
#[cfg(feature = "input")]
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

#[cfg(feature = "input")]
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
#[cfg(feature = "input")]
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
        buf: &'a mut [u8; crate::state::seal::MAX_STATE + crate::state::seal::TAG_LEN],
    ) -> Result<(Option<Value<'a>>, Option<&'a [u8]>), DispatchError> {
        if !ex.stateless {
            return Ok((None, None));
        }
        let mut state = None;
        if let Some(sealed) = p.0[P_STATE] {
            let bad = DispatchError::InvalidParams("Invalid requestState");
            let text = sealed.as_str().ok_or(bad)?;
            let key = self.state_key.as_ref().ok_or(bad)?;
            state = Some(key.open(owner, text, buf).map_err(|_| bad)?);
        }
        Ok((p.0[P_INPUTS], state))
    }

    /// `requestState` of an input-required result: the handler's state sealed for
    /// `owner` (nothing without state or key).
    pub(super) fn write_state(&self, w: &mut JsonWriter<'_>, owner: &str, state: Option<&[u8]>) {
        let (Some(state), Some(key)) = (state, self.state_key.as_ref()) else {
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
        #[cfg(feature = "tasks")]
        if self.task_response(id, v.get("result")) {
            return;
        }
        let result = v.get("result").map(|r| r.raw());
        for wait in self.waits.iter_mut() {
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
        let Some(wait) = self.waits.get(w) else {
            return true;
        };
        out.route(Some(&job.id));
        let ex = Exchange {
            id: Id::from_raw(&job.id),
            stateless: false,
            progress_token: job.progress_token.as_deref(),
            log_level: job.log_level,
            caps: wait.caps,
            #[cfg(feature = "tasks")]
            tasks: false,
        };
        let mut g = Guard::new(out);
        let args = json::parse(&wait.args).ok();
        let mut call = ToolCall::new(JsonWriter::new(g.sink()), ex, job.tool, args);
        call.state = job.state;
        call.input.inputs = json::parse(&wait.answers).ok();
        call.input.state = Some(&wait.state[..]).filter(|s| !s.is_empty());
        call.input.next_id = self.next_request;
        call.input.can_wait = true; // its own job slot
                                    // A resumed call finishes or asks again; `Step::Pending` is taken as done.
        let _ = self.device.call_tool(&mut call);
        self.next_request = call.input.next_id;
        if !call.input.asks.is_empty() {
            // Asked again: the same wait, with the new requests, no responses yet and
            // the handler's new state.
            let asks = core::mem::take(&mut call.input.asks);
            let new_state = call.input.new_state.take().unwrap_or_default();
            let state = call.state;
            drop(call);
            if let Some(slot) = self.waits.get_mut(w) {
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
