use super::guard::Guard;
use super::result::write_versions;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Str;
use crate::wire::rpc;
use crate::wire::rpc::Id;

/// Extra `data` of an error response.
#[derive(Clone, Copy, Debug)]
pub(super) enum ErrorData<'a> {
    None,
    /// -32022: the versions we speak and the one requested.
    Versions(Str<'a>),
    /// Resource not found: the URI.
    Uri(Str<'a>),
    /// -32021: the capability the request needs.
    #[cfg(feature = "input")]
    Capability(crate::device::input::Capability),
    /// -32021: the request needs the tasks extension (feature `tasks`).
    #[cfg(feature = "tasks")]
    TasksExtension,
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
    error: crate::wire::error::RpcError,
) -> bool {
    let mut g = Guard::new(out);
    rpc::write_error(g.sink(), id, error, None);
    if g.full {
        g.inner.rollback();
    }
    !g.full
}

/// Answer `id` with -32603 after its response was taken back for not fitting. False
/// when the error did not fit either (a full fixed buffer: try again once drained).
pub(super) fn too_large(out: &mut dyn Sink, id: Id<'_>) -> bool {
    let busy = DispatchError::Busy("Response too large for the output buffer");
    !out.rollback() || error_line(out, Some(id), busy.into())
}

pub(super) fn write_failure(out: &mut dyn Sink, id: Id<'_>, f: Failure<'_>) {
    let data = |w: &mut JsonWriter<'_>| {
        w.begin_object();
        match f.data {
            ErrorData::Uri(uri) => {
                w.key_lit("uri");
                w.str_raw(uri);
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
