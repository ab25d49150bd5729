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
#[cfg(feature = "tasks")]
use crate::wire::json::{Sink, SinkError};

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
    /// Feature `tasks`: the round belongs to a task.
    #[cfg(feature = "tasks")]
    pub task: Option<TaskRound<'a>>,
}

/// A round of a task's handler (feature `tasks`): what it may see and ask.
///
/// A task's input requests are not kept as text: the task keeps the hashes of the
/// unanswered keys ([`crate::state::task::key_hash`]), and `tasks/get` calls the
/// handler again (a *replay*: same state, no responses) to write the requests still
/// unanswered. A round that asks must therefore ask the same given the same state,
/// as a 2026-07-28 input-required round must.
///
/// A 2025-11-25 task asks through server-to-client requests instead: a replay with
/// [`TaskRound::send`] writes each unanswered request not sent yet as a request line
/// tagged with the task (`_meta["io.modelcontextprotocol/related-task"]`), and each
/// response the client sends runs one round that sees it as [`TaskRound::answer`].
#[cfg(feature = "tasks")]
#[derive(Debug, Default)]
pub(crate) struct TaskRound<'a> {
    /// Write the unanswered requests (as `inputRequests` members, or with `send` as
    /// request lines), and nothing else.
    pub replay: bool,
    /// The unanswered requests before this round (the responses seen are for these).
    pub pending: &'a [u32],
    /// Requests made this round that were not pending already.
    pub asked: heapless::Vec<u32, MAX_ASKS>,
    /// 2025-11-25: the replay sends requests for the task with this id.
    pub send: Option<Sent>,
    /// 2025-11-25: the client's response to the request for the key with this hash
    /// (`null` for an error response).
    pub answer: Option<(u32, Value<'a>)>,
}

/// The server-to-client requests of a 2025-11-25 task: the task's id (hex) they are
/// tagged with, and each one sent and not yet answered as (request id, key hash).
#[cfg(feature = "tasks")]
#[derive(Clone, Debug, Default)]
pub(crate) struct Sent {
    pub task: [u8; crate::state::task::TASK_ID_LEN],
    pub requests: heapless::Vec<(u32, u32), MAX_ASKS>,
}

impl<'a> Input<'a> {
    /// The client's response for `key`, when it sent one (`null` counts as none).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        // A task sees responses to its unanswered requests only.
        #[cfg(feature = "tasks")]
        if let Some(t) = &self.task {
            let hash = crate::state::task::key_hash(key.as_bytes());
            if t.replay || !t.pending.contains(&hash) {
                return None;
            }
            if let Some((answered, value)) = t.answer {
                return Some(value).filter(|v| answered == hash && !v.is_null());
            }
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
        #[cfg(feature = "tasks")]
        if let Some(t) = &mut self.task {
            if !ex.caps.has(c) || key.len() > MAX_KEY {
                return false;
            }
            let hash = crate::state::task::key_hash(key.as_bytes());
            if t.replay {
                match &mut t.send {
                    _ if !t.pending.contains(&hash) => {}
                    None => input_request(w, key, c, params),
                    // 2025-11-25: each request once, until its response arrives.
                    Some(sent) if sent.requests.iter().any(|&(_, h)| h == hash) => {}
                    Some(sent) => {
                        let id = self.next_id;
                        if sent.requests.push((id, hash)).is_ok() {
                            self.next_id = id.wrapping_add(1);
                            task_request_line(w, id, c, params, &sent.task);
                        }
                    }
                }
                return true;
            }
            // A key answered in this round (2025-11-25) and asked again is a new ask.
            let answered = t.answer.is_some_and(|(h, _)| h == hash);
            return (t.pending.contains(&hash) && !answered)
                || t.asked.contains(&hash)
                || t.asked.push(hash).is_ok();
        }
        if !ex.caps.has(c) || !(idle || self.asking || !self.asks.is_empty()) {
            return false;
        }
        if ex.stateless {
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

/// A 2025-11-25 task's server-to-client request line, tagged as the task's
/// (`_meta["io.modelcontextprotocol/related-task"]` added to the params object).
#[cfg(feature = "tasks")]
fn task_request_line(
    w: &mut JsonWriter<'_>,
    id: u32,
    c: Capability,
    params: &dyn Fn(&mut JsonWriter<'_>),
    task: &[u8; crate::state::task::TASK_ID_LEN],
) {
    request_head(w, id, c);
    w.value_with(|sink| {
        let mut tagged = RelatedTask::new(sink);
        params(&mut JsonWriter::new(&mut tagged));
        tagged.close(task);
    });
    w.raw(b"}\n");
}

/// A sink around a request's params object that holds back its closing brace, so
/// that [`RelatedTask::close`] can add the task's `_meta` before it.
#[cfg(feature = "tasks")]
struct RelatedTask<'s> {
    inner: &'s mut dyn Sink,
    /// The last byte written, not passed on yet.
    held: Option<u8>,
    /// The byte passed on before it (`{`: the object is empty so far).
    before: u8,
}

#[cfg(feature = "tasks")]
impl<'s> RelatedTask<'s> {
    fn new(inner: &'s mut dyn Sink) -> Self {
        RelatedTask {
            inner,
            held: None,
            before: 0,
        }
    }

    /// End the params: `_meta` with the related task before the held `}` (anything
    /// else that was held goes out as it is).
    fn close(self, task: &[u8; crate::state::task::TASK_ID_LEN]) {
        let inner = self.inner;
        match self.held {
            Some(b'}') => {
                let lead: &[u8] = if self.before == b'{' { b"" } else { b"," };
                let _ = inner.write(lead);
                let _ = inner.write(b"\"_meta\":{\"");
                let _ = inner.write(crate::wire::mcp::META_RELATED_TASK.as_bytes());
                let _ = inner.write(b"\":{\"taskId\":\"");
                let _ = inner.write(task);
                let _ = inner.write(b"\"}}}");
            }
            Some(b) => {
                let _ = inner.write(&[b]);
            }
            None => {}
        }
    }
}

#[cfg(feature = "tasks")]
impl Sink for RelatedTask<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let [rest @ .., last] = bytes else {
            return Ok(());
        };
        if let Some(h) = self.held {
            self.inner.write(&[h])?;
            self.before = h;
        }
        self.inner.write(rest)?;
        if let [.., b] = rest {
            self.before = *b;
        }
        self.held = Some(*last);
        Ok(())
    }

    fn failed(&mut self, error: SinkError) {
        self.inner.failed(error);
    }
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
