//! A task's rounds of its handler (feature `tasks`): what a round may see and ask.

use super::{input_request, request_head, Capabilities, Capability, MAX_ASKS, MAX_KEY};
use crate::wire::json::{JsonWriter, Sink, SinkError, Value};

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
#[derive(Clone, Debug, Default)]
pub(crate) struct Sent {
    pub task: [u8; crate::state::task::TASK_ID_LEN],
    pub requests: heapless::Vec<(u32, u32), MAX_ASKS>,
}

impl<'a> TaskRound<'a> {
    /// What [`super::Input::get`] answers for `key` in this round: `Some(None)` for
    /// a response the task may not see (a replay, a key not pending), `Some(value)`
    /// for the 2025-11-25 response this round runs for, `None` to read the
    /// responses as any round does.
    pub(super) fn response(&self, key: &str) -> Option<Option<Value<'a>>> {
        let hash = crate::state::task::key_hash(key.as_bytes());
        if self.replay || !self.pending.contains(&hash) {
            return Some(None);
        }
        let (answered, value) = self.answer?;
        Some(Some(value).filter(|v| answered == hash && !v.is_null()))
    }

    /// [`super::Input::ask`] in a task's round: a replay writes the request (or, in
    /// 2025-11-25, sends it once with the next id of `next_id`); any other round
    /// notes the key as asked.
    pub(super) fn ask(
        &mut self,
        w: &mut JsonWriter<'_>,
        caps: Capabilities,
        key: &str,
        c: Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
        next_id: &mut u32,
    ) -> bool {
        if !caps.has(c) || key.len() > MAX_KEY {
            return false;
        }
        let hash = crate::state::task::key_hash(key.as_bytes());
        if self.replay {
            match &mut self.send {
                _ if !self.pending.contains(&hash) => {}
                None => input_request(w, key, c, params),
                // 2025-11-25: each request once, until its response arrives.
                Some(sent) if sent.requests.iter().any(|&(_, h)| h == hash) => {}
                Some(sent) => {
                    let id = *next_id;
                    if sent.requests.push((id, hash)).is_ok() {
                        *next_id = id.wrapping_add(1);
                        task_request_line(w, id, c, params, &sent.task);
                    }
                }
            }
            return true;
        }
        // A key answered in this round (2025-11-25) and asked again is a new ask.
        let answered = self.answer.is_some_and(|(h, _)| h == hash);
        (self.pending.contains(&hash) && !answered)
            || self.asked.contains(&hash)
            || self.asked.push(hash).is_ok()
    }
}

/// A 2025-11-25 task's server-to-client request line, tagged as the task's
/// (`_meta["io.modelcontextprotocol/related-task"]` added to the params object).
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
struct RelatedTask<'s> {
    inner: &'s mut dyn Sink,
    /// The last byte written, not passed on yet.
    held: Option<u8>,
    /// The byte passed on before it (`{`: the object is empty so far).
    before: u8,
}

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
