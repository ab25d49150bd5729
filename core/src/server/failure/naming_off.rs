//! Errors without what they refuse (feature `error-data` off): every error carries its
//! code and message, and only the data it had before (a resource's `uri`, the versions
//! spoken, a capability required). The hooks the request path calls write nothing more
//! and are inlined away: the image is that of a build that never named anything.

use super::super::params::Params;
use super::error_line;
use super::write_failure;
use super::ErrorData;
use super::Failure;
use super::Key;
use crate::wire::error::RequestError;
use crate::wire::json::Sink;
use crate::wire::json::Str;
use crate::wire::rpc::Id;
use crate::wire::rpc::Request;

impl<'a> ErrorData<'a> {
    /// None: nothing is named.
    #[inline(always)]
    pub(in crate::server) fn naming(_key: Key, _text: Str<'a>) -> Self {
        ErrorData::None
    }
}

impl Key {
    /// The member's name: `uri`, the only one written.
    pub(super) fn name(self) -> &'static str {
        "uri"
    }

    /// `text` as written: a URI, whole.
    pub(super) fn bound(self, text: Str<'_>) -> Str<'_> {
        text
    }
}

/// Answer a line refused before it became a request: its error alone.
#[inline(always)]
pub(in crate::server) fn refuse_line(
    out: &mut dyn Sink,
    id: Option<Id<'_>>,
    error: RequestError,
    _at: usize,
) {
    error_line(out, id, error.into(), None);
}

/// Answer request `r` with failure `f`, its data as the request path made it.
#[inline(always)]
pub(in crate::server) fn refuse_request<'a>(
    out: &mut dyn Sink,
    r: &Request<'a>,
    _p: &Params<'a>,
    f: Failure<'a>,
) {
    write_failure(out, r.id, f);
}
