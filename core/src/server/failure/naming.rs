//! Errors that name what they refuse (feature `error-data`): -32601 its `method`,
//! -32602 the tool's or prompt's `name`, -32700 the `offset` where the line stopped
//! being JSON, a line too long the `limit` it overflowed. The choice is made here, out
//! of line, once for every way a line or a request is refused: the call sites stay
//! small.

use super::super::params::{Params, P_NAME};
use super::error_line;
use super::write_failure;
use super::ErrorData;
use super::Failure;
use super::Key;
use crate::wire::error::DispatchError;
use crate::wire::error::RequestError;
use crate::wire::error::MAX_ECHO;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Str;
use crate::wire::rpc::Id;
use crate::wire::rpc::Request;

impl<'a> ErrorData<'a> {
    /// `text` under `key`.
    #[inline(always)]
    pub(in crate::server) fn naming(key: Key, text: Str<'a>) -> Self {
        ErrorData::Text(key, text)
    }
}

impl Key {
    /// The member's name.
    pub(super) fn name(self) -> &'static str {
        match self {
            Key::Uri => "uri",
            Key::Method => "method",
            Key::Name => "name",
        }
    }

    /// `text` as written under this key: a URI whole, a name bounded to its first
    /// whole characters and escapes within [`MAX_ECHO`] bytes.
    pub(super) fn bound(self, text: Str<'_>) -> Str<'_> {
        match self {
            Key::Uri => text,
            _ => text.bounded(MAX_ECHO),
        }
    }
}

/// Answer a line refused before it became a request (`error`, with its id when it
/// had one readable), saying what a reader needs: for a parse error the offset `at`
/// which the line stopped being JSON, for a line too long the limit `at` it
/// overflowed (none when 0). Out of line: one copy for every way a line is refused.
#[inline(never)]
pub(in crate::server) fn refuse_line(
    out: &mut dyn Sink,
    id: Option<Id<'_>>,
    error: RequestError,
    at: usize,
) {
    // The member `data` names `at` by, if any.
    let key = match error {
        RequestError::Parse(_) => Some("offset"),
        RequestError::TooLong if at > 0 => Some("limit"),
        _ => None,
    };
    let Some(key) = key else {
        error_line(out, id, error.into(), None);
        return;
    };
    let data = |w: &mut JsonWriter<'_>| {
        w.begin_object();
        w.key_lit(key);
        w.u64(at as u64);
        w.end_object();
    };
    error_line(out, id, error.into(), Some(&data));
}

/// Answer request `r` with failure `f`; method not found names the method, an
/// unknown tool or prompt the name the request gave (its `params` members `p`). Out
/// of line: one copy for every way a request fails.
#[inline(never)]
pub(in crate::server) fn refuse_request<'a>(
    out: &mut dyn Sink,
    r: &Request<'a>,
    p: &Params<'a>,
    f: Failure<'a>,
) {
    let data = match f.error {
        DispatchError::MethodNotFound => ErrorData::naming(Key::Method, r.method),
        // (A completion's unknown `ref/prompt` brings its name.)
        DispatchError::UnknownTool | DispatchError::UnknownPrompt
            if matches!(f.data, ErrorData::None) =>
        {
            match p.0[P_NAME].and_then(|n| n.as_str()) {
                Some(name) => ErrorData::naming(Key::Name, name),
                None => f.data,
            }
        }
        _ => f.data,
    };
    write_failure(out, r.id, Failure { data, ..f });
}
