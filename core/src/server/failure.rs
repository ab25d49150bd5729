use super::guard::Guard;
use super::result::write_versions;
use crate::wire::error::DispatchError;
use crate::wire::error::RpcError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Str;
use crate::wire::rpc;
use crate::wire::rpc::Id;

// What an error names of what it refuses (feature `error-data`): a method, a name, an
// offset, a limit. Its "off" form writes none of it and links none of its code.
#[cfg_attr(not(feature = "error-data"), path = "failure/naming_off.rs")]
mod naming;
pub(super) use naming::refuse_line;
pub(super) use naming::refuse_request;

/// Extra `data` of an error response.
#[derive(Clone, Copy, Debug)]
pub(super) enum ErrorData<'a> {
    None,
    /// -32022: the versions we speak and the one requested.
    Versions(Str<'a>),
    /// The text of the request at fault, under its name: `uri` (resource not found),
    /// `method` (method not found), `name` (unknown tool or prompt). A method or a
    /// name is written bounded: its first whole characters and escapes within
    /// [`MAX_ECHO`](crate::wire::error::MAX_ECHO) bytes (still valid JSON text, and
    /// UTF-8 as the line was).
    Text(Key, Str<'a>),
    /// -32021: the capability the request needs.
    #[cfg(feature = "input")]
    Capability(crate::device::input::Capability),
    /// -32021: the request needs the tasks extension (feature `tasks`).
    #[cfg(feature = "tasks")]
    TasksExtension,
}

/// The name of the one member of [`ErrorData::Text`] (a byte: the data stays as small
/// as the text it holds). Without feature `error-data` only `Uri` is ever written.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "error-data"), allow(dead_code))]
pub(super) enum Key {
    Uri,
    Method,
    Name,
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

/// Write one error response line whole, with `data` when given: taken back when it
/// did not fit.
pub(super) fn error_line(
    out: &mut dyn Sink,
    id: Option<Id<'_>>,
    error: RpcError,
    data: Option<&dyn Fn(&mut JsonWriter<'_>)>,
) -> bool {
    let mut g = Guard::new(out);
    rpc::write_error(g.sink(), id, error, data);
    if g.full {
        g.inner.rollback();
    }
    !g.full
}

/// Answer `id` with -32603 after its response was taken back for not fitting. False
/// when the error did not fit either (a full fixed buffer: try again once drained).
pub(super) fn too_large(out: &mut dyn Sink, id: Id<'_>) -> bool {
    let busy = DispatchError::Busy("Response too large for the output buffer");
    !out.rollback() || error_line(out, Some(id), busy.into(), None)
}

/// Write the error response of failure `f` to request `id`.
pub(super) fn write_failure(out: &mut dyn Sink, id: Id<'_>, f: Failure<'_>) {
    let data = |w: &mut JsonWriter<'_>| {
        w.begin_object();
        match f.data {
            ErrorData::Text(key, text) => {
                w.key_lit(key.name());
                w.str_raw(key.bound(text));
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
    let data: Option<&dyn Fn(&mut JsonWriter<'_>)> = match f.data {
        ErrorData::None => None,
        _ => Some(&data),
    };
    rpc::write_error(out, Some(id), f.error.into(), data);
}
