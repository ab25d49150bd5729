use super::guard::Guard;
use super::params::{Params, P_NAME};
use super::result::write_versions;
use crate::wire::error::DispatchError;
use crate::wire::error::RequestError;
use crate::wire::error::RpcError;
use crate::wire::error::MAX_ECHO;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Str;
use crate::wire::rpc;
use crate::wire::rpc::Id;
use crate::wire::rpc::Request;

/// Extra `data` of an error response.
#[derive(Clone, Copy, Debug)]
pub(super) enum ErrorData<'a> {
    None,
    /// -32022: the versions we speak and the one requested.
    Versions(Str<'a>),
    /// The text of the request at fault, under its name: `uri` (resource not found),
    /// `method` (method not found), `name` (unknown tool or prompt). A method or a
    /// name is written bounded: its first whole characters and escapes within
    /// [`MAX_ECHO`] bytes (still valid JSON text, and UTF-8 as the line was).
    Text(Key, Str<'a>),
    /// A number under its name: `offset` (where a line stopped being JSON), `limit`
    /// (the line buffer a line overflowed).
    Number(Key, usize),
    /// -32021: the capability the request needs.
    #[cfg(feature = "input")]
    Capability(crate::device::input::Capability),
    /// -32021: the request needs the tasks extension (feature `tasks`).
    #[cfg(feature = "tasks")]
    TasksExtension,
}

/// The name of the one member of [`ErrorData::Text`] and [`ErrorData::Number`] (a
/// byte: the data stays as small as the text it holds).
#[derive(Clone, Copy, Debug)]
pub(super) enum Key {
    Uri,
    Method,
    Name,
    Offset,
    Limit,
}

impl Key {
    /// The member's name.
    fn name(self) -> &'static str {
        match self {
            Key::Uri => "uri",
            Key::Method => "method",
            Key::Name => "name",
            Key::Offset => "offset",
            Key::Limit => "limit",
        }
    }

    /// `text` as written under this key: a URI whole, a name bounded.
    fn bound(self, text: Str<'_>) -> Str<'_> {
        match self {
            Key::Uri => text,
            _ => text.bounded(MAX_ECHO),
        }
    }
}

#[derive(Clone, Copy)]
pub(super) struct Failure<'a> {
    pub(super) error: DispatchError,
    pub(super) data: ErrorData<'a>,
}

impl From<DispatchError> for Failure<'_> {
    fn from(error: DispatchError) -> Self {
        Failure {
            error,
            data: ErrorData::None,
        }
    }
}

pub(super) type Outcome<'a> = Result<(), Failure<'a>>;

/// Write one error response line whole: taken back when it did not fit.
pub(super) fn error_line(
    out: &mut dyn Sink,
    id: Option<Id<'_>>,
    error: RpcError,
    data: ErrorData<'_>,
) -> bool {
    let mut g = Guard::new(out);
    write_failure(g.sink(), id, error, data);
    if g.full {
        g.inner.rollback();
    }
    !g.full
}

/// Answer a line refused before it became a request (`error`, with its id when it
/// had one readable), saying what a reader needs: for a parse error the offset `at`
/// which the line stopped being JSON, for a line too long the limit `at` it
/// overflowed (none when 0). Out of line: one copy for every way a line is refused.
#[inline(never)]
pub(super) fn refuse_line(out: &mut dyn Sink, id: Option<Id<'_>>, error: RequestError, at: usize) {
    let data = match error {
        RequestError::Parse(_) => ErrorData::Number(Key::Offset, at),
        RequestError::TooLong if at > 0 => ErrorData::Number(Key::Limit, at),
        _ => ErrorData::None,
    };
    error_line(out, id, error.into(), data);
}

/// Answer request `r` with failure `f`; method not found names the method, an
/// unknown tool or prompt the name the request gave (its `params` members `p`). Out
/// of line: one copy for every way a request fails.
#[inline(never)]
pub(super) fn refuse_request<'a>(
    out: &mut dyn Sink,
    r: &Request<'a>,
    p: &Params<'a>,
    f: Failure<'a>,
) {
    let data = match f.error {
        DispatchError::MethodNotFound => ErrorData::Text(Key::Method, r.method),
        // (A completion's unknown `ref/prompt` brings its name.)
        DispatchError::UnknownTool | DispatchError::UnknownPrompt
            if matches!(f.data, ErrorData::None) =>
        {
            match p.0[P_NAME].and_then(|n| n.as_str()) {
                Some(name) => ErrorData::Text(Key::Name, name),
                None => f.data,
            }
        }
        _ => f.data,
    };
    write_failure(out, Some(r.id), f.error.into(), data);
}

/// Answer `id` with -32603 after its response was taken back for not fitting. False
/// when the error did not fit either (a full fixed buffer: try again once drained).
pub(super) fn too_large(out: &mut dyn Sink, id: Id<'_>) -> bool {
    let busy = DispatchError::Busy("Response too large for the output buffer");
    !out.rollback() || error_line(out, Some(id), busy.into(), ErrorData::None)
}

/// Write one error response line, with `data` when there is some.
pub(super) fn write_failure(
    out: &mut dyn Sink,
    id: Option<Id<'_>>,
    error: RpcError,
    data: ErrorData<'_>,
) {
    let write = |w: &mut JsonWriter<'_>| {
        w.begin_object();
        match data {
            ErrorData::Text(key, text) => {
                w.key_lit(key.name());
                w.str_raw(key.bound(text));
            }
            ErrorData::Number(key, n) => {
                w.key_lit(key.name());
                w.u64(n as u64);
            }
            ErrorData::Versions(requested) => {
                w.key_lit("supported");
                write_versions(w);
                w.key_lit("requested");
                w.str_raw(requested);
            }
            #[cfg(feature = "input")]
            ErrorData::Capability(c) => {
                w.key_lit("requiredCapabilities");
                w.begin_object();
                w.key_lit(c.name());
                w.raw_value(b"{}");
                w.end_object();
            }
            #[cfg(feature = "tasks")]
            ErrorData::TasksExtension => {
                w.key_lit("requiredCapabilities");
                w.begin_object();
                w.key_lit("extensions");
                w.begin_object();
                w.key_lit(crate::wire::mcp::EXT_TASKS);
                w.raw_value(b"{}");
                w.end_object();
                w.end_object();
            }
            ErrorData::None => {}
        }
        w.end_object();
    };
    let write: Option<&dyn Fn(&mut JsonWriter<'_>)> = match data {
        ErrorData::None => None,
        _ => Some(&write),
    };
    rpc::write_error(out, id, error, write);
}
