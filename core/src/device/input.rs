//! Input a handler asks the client for during a request — elicitation, sampling,
//! roots — and the `requestState` that carries a handler's progress between rounds.
//!
//! 2026-07-28 answers with an *input-required result* (`resultType:
//! "input_required"`, `inputRequests`, `requestState`) and the client retries the
//! request with `inputResponses`; the legacy era sends the same requests to the
//! client and waits for its responses. Handlers see both the same way
//! ([`crate::device::ToolCall::ask`], [`crate::device::ToolCall::input`]).
//!
//! The state a handler keeps between rounds is sealed by [`crate::state::seal`].

use crate::state::seal::MAX_STATE;
use crate::wire::json::{JsonWriter, Value};

// The rounds of a task's handler (feature `tasks`); without it an uninhabited
// `TaskRound`, so that `Input::task` is always `None` and its branches are removed.
#[cfg_attr(not(feature = "tasks"), path = "input/task_off.rs")]
mod task;
#[cfg(feature = "tasks")]
pub(crate) use task::Sent;
pub(crate) use task::TaskRound;

/// Most input requests one round of a handler may make.
pub const MAX_ASKS: usize = 4;

/// Longest input request key, in bytes.
pub const MAX_KEY: usize = 32;

/// Legacy era: bytes of a waiting tool call's arguments kept while it waits for
/// the client's responses (a longer argument object cannot wait: `ask` refuses).
pub const MAX_WAIT_ARGS: usize = 512;

/// Legacy era: bytes of the client's responses kept for a waiting tool call (a
/// response that does not fit is seen by the handler as `null`).
pub const MAX_WAIT_ANSWERS: usize = 1024;

/// A kind of input a handler can ask the client for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// `elicitation/create`: ask the user to fill in a form.
    Elicitation,
    /// `sampling/createMessage`: ask the client's model for a completion.
    Sampling,
    /// `roots/list`: ask for the client's roots.
    Roots,
}

impl Capability {
    /// The request method that asks for this input.
    pub fn method(self) -> &'static str {
        match self {
            Capability::Elicitation => "elicitation/create",
            Capability::Sampling => "sampling/createMessage",
            Capability::Roots => "roots/list",
        }
    }

    /// The client capability that must be declared for it.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Elicitation => "elicitation",
            Capability::Sampling => "sampling",
            Capability::Roots => "roots",
        }
    }

    fn bit(self) -> u8 {
        match self {
            Capability::Elicitation => 1,
            Capability::Sampling => 2,
            Capability::Roots => 4,
        }
    }
}

/// The input capabilities a client declared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities(u8);

impl Capabilities {
    /// Read a `ClientCapabilities` object (`None`: nothing declared). A capability is
    /// declared when its member is present and an object.
    pub fn from_value(caps: Option<Value<'_>>) -> Self {
        const ALL: [Capability; 3] = [
            Capability::Elicitation,
            Capability::Sampling,
            Capability::Roots,
        ];
        // One walk over the object (usually `{}`), the first member of each name.
        let mut found = [None; ALL.len()];
        if let Some(v) = caps {
            v.members()
                .file_into(&ALL.map(Capability::name), &mut found);
        }
        let mut bits = 0;
        for (c, v) in ALL.iter().zip(found) {
            if v.is_some_and(|v| v.kind() == crate::wire::json::Kind::Object) {
                bits |= c.bit();
            }
        }
        Capabilities(bits)
    }

    /// Whether `c` was declared.
    pub fn has(self, c: Capability) -> bool {
        self.0 & c.bit() != 0
    }
}

/// An input request sent to the client in the legacy era: its JSON-RPC id and
/// the key the handler gave it.
#[derive(Clone, Debug)]
pub(crate) struct Ask {
    pub id: u32,
    pub key: heapless::String<MAX_KEY>,
}

/// The input side of one round of a handler (a tool call or a prompt).
#[derive(Debug, Default)]
pub(crate) struct Input<'a> {
    /// The client's responses: 2026-07-28 `inputResponses`, or in the legacy era
    /// the responses collected while the call waited.
    pub inputs: Option<Value<'a>>,
    /// The handler state of the previous round (verified).
    pub state: Option<&'a [u8]>,
    /// The state to carry into the next round.
    pub new_state: Option<heapless::Vec<u8, MAX_STATE>>,
    /// 2026-07-28: inside the result's `inputRequests`.
    pub asking: bool,
    /// Legacy era: the requests sent to the client this round.
    pub asks: heapless::Vec<Ask, MAX_ASKS>,
    /// Legacy era: the id of the next server-to-client request.
    pub next_id: u32,
    /// Legacy era: the call may wait (a job slot is free, arguments fit).
    pub can_wait: bool,
    /// A capability the handler required and the client lacks (-32021).
    pub missing: Option<Capability>,
    /// The round belongs to a task (always `None` without `tasks`: the type is then
    /// uninhabited, see input/task_off.rs).
    pub task: Option<TaskRound<'a>>,
    /// The protocol-level failure the handler reported ([`crate::device::ToolCall::fail`]).
    #[cfg(feature = "tasks")]
    pub failure: Option<&'static str>,
}

impl<'a> Input<'a> {
    /// Whether the round opened a 2026-07-28 input-required result.
    pub(crate) fn asking(&self) -> bool {
        self.asking
    }

    /// The client's response for `key`, when it sent one (`null` counts as none).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        // A task sees responses to its unanswered requests only.
        if let Some(seen) = self.task.as_ref().and_then(|t| t.response(key)) {
            return seen;
        }
        self.inputs
            .and_then(|i| i.get(key))
            .filter(|v| !v.is_null())
    }

    /// Keep `state` for the next round; false when longer than [`MAX_STATE`].
    pub fn set_state(&mut self, state: &[u8]) -> bool {
        match heapless::Vec::from_slice(state) {
            Ok(v) => {
                self.new_state = Some(v);
                true
            }
            Err(_) => false,
        }
    }

    /// Note that the handler needs `c`; false (and -32021 unless the handler writes a
    /// result anyway) when the client did not declare it.
    pub fn require(&mut self, caps: Capabilities, c: Capability) -> bool {
        if caps.has(c) {
            return true;
        }
        self.missing = Some(c);
        false
    }

    /// Ask the client for input `key` of kind `c`, `params` writing the request's
    /// params object. `idle`: nothing of the result was written yet. 2026-07-28 opens
    /// (or continues) the input-required result; the legacy era sends a request
    /// line to the client now. False when the client lacks the capability, the key is
    /// too long or one too many, content was already written, or (legacy era)
    /// the call cannot wait.
    pub fn ask(
        &mut self,
        w: &mut JsonWriter<'_>,
        ex: &crate::device::Exchange<'_>,
        idle: bool,
        key: &str,
        c: Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
    ) -> bool {
        if let Some(t) = &mut self.task {
            return t.ask(w, ex.caps, key, c, params, &mut self.next_id);
        }
        if !ex.caps.has(c) || !(idle || self.asking || !self.asks.is_empty()) {
            return false;
        }
        if ex.era.is_stateless() {
            if key.len() > MAX_KEY {
                return false;
            }
            if !self.asking {
                crate::wire::rpc::begin_result(w, ex.id);
                w.member_lit(b",\"resultType\":\"input_required\"");
                w.key_lit("inputRequests");
                w.begin_object();
                self.asking = true;
            }
            input_request(w, key, c, params);
            return true;
        }
        let Ok(key) = heapless::String::try_from(key) else {
            return false;
        };
        let id = self.next_id;
        if !self.can_wait || self.asks.push(Ask { id, key }).is_err() {
            return false;
        }
        self.next_id = id.wrapping_add(1);
        request_head(w, id, c);
        params(w);
        w.raw(b"}\n");
        true
    }
}

/// The start of a legacy-era server-to-client request line, up to its params:
/// `{"jsonrpc":"2.0","id":ID,"method":METHOD,"params":`.
fn request_head(w: &mut JsonWriter<'_>, id: u32, c: Capability) {
    w.raw(crate::wire::rpc::ID);
    let mut digits = [0u8; 20];
    w.raw(crate::wire::json::writer::decimal(
        u64::from(id),
        &mut digits,
    ));
    w.raw(b",\"method\":");
    w.str_lit(c.method());
    w.raw(b",\"params\":");
}

/// One entry of an `inputRequests` object: `"key":{"method":…,"params":…}`, for a
/// 2026-07-28 input-required result and for a task's `inputRequests` alike.
fn input_request(
    w: &mut JsonWriter<'_>,
    key: &str,
    c: Capability,
    params: &dyn Fn(&mut JsonWriter<'_>),
) {
    w.key(key);
    w.begin_object();
    w.key_lit("method");
    w.str_lit(c.method());
    w.key_lit("params");
    params(w);
    w.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::json::parse;

    #[test]
    fn capabilities_are_declared_objects() {
        let v =
            parse(br#"{"sampling":{},"elicitation":true,"roots":{"listChanged":true}}"#).unwrap();
        let c = Capabilities::from_value(Some(v));
        assert!(c.has(Capability::Sampling));
        assert!(!c.has(Capability::Elicitation));
        assert!(c.has(Capability::Roots));
        assert_eq!(Capabilities::from_value(None), Capabilities::default());
    }
}
