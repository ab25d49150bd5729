use super::forms::FILE_URI_CURSOR;
use crate::wire::error::DispatchError;
use crate::wire::json;
use crate::wire::json::Str;
use crate::wire::json::Value;
use crate::wire::mcp::META_CAPABILITIES;
use crate::wire::mcp::META_LOG_LEVEL;
use crate::wire::mcp::META_VERSION;

/// The members of `params` the server reads, found in one pass ([`Params`]). A small
/// target files the first five only, and looks `uri` and `cursor` up when it needs
/// them ([`uri_param`], [`cursor_param`]): fewer picks to set up, less flash.
pub(super) const PARAM_KEYS: &[&str] = match FILE_URI_CURSOR {
    true => &[
        "_meta",
        "name",
        "arguments",
        "inputResponses",
        "requestState",
        "uri",
        "cursor",
    ],
    false => &[
        "_meta",
        "name",
        "arguments",
        "inputResponses",
        "requestState",
    ],
};
const _: () = assert!(json::scanner::plain_names(PARAM_KEYS));
const _: () = assert!(json::scanner::plain_names(&META_KEYS));
/// Index of `_meta` in [`PARAM_KEYS`].
pub(super) const P_META: usize = 0;
/// Index of `name` in [`PARAM_KEYS`].
pub(super) const P_NAME: usize = 1;
/// Index of `arguments` in [`PARAM_KEYS`].
pub(super) const P_ARGUMENTS: usize = 2;
/// Index of `inputResponses` in [`PARAM_KEYS`].
#[cfg(feature = "input")]
pub(super) const P_INPUTS: usize = 3;
/// Index of `requestState` in [`PARAM_KEYS`].
#[cfg(feature = "input")]
pub(super) const P_STATE: usize = 4;
/// Index of `uri` in [`PARAM_KEYS`].
pub(super) const P_URI: usize = 5;
/// Index of `cursor` in [`PARAM_KEYS`].
pub(super) const P_CURSOR: usize = 6;

/// The members of `params._meta` the server reads: the progress token, then the
/// 2026-07-28 version, capabilities and log level.
pub(super) const META_KEYS: [&str; 4] = [
    "progressToken",
    META_VERSION,
    META_CAPABILITIES,
    META_LOG_LEVEL,
];

/// The members of a request's `params` named by [`PARAM_KEYS`] (first wins, as with
/// [`Value::get`]), filed while the request is validated.
#[derive(Clone, Copy, Default)]
pub(super) struct Params<'a>(pub(super) [Option<Value<'a>>; PARAM_KEYS.len()]);

/// The members of `params._meta` named by [`META_KEYS`].
pub(super) type Meta<'a> = [Option<Value<'a>>; 4];

/// Member `key` of an object when it is a string.
pub(super) fn str_member<'a>(object: Value<'a>, key: &str) -> Option<Str<'a>> {
    object.get(key).and_then(|v| v.as_str())
}

/// `params.uri` as a string: filed while the request was validated ([`PARAM_KEYS`]),
/// or looked up in `params` on a small target.
pub(super) fn uri_param<'a>(
    params: Option<Value<'a>>,
    p: &Params<'a>,
) -> Result<Str<'a>, DispatchError> {
    let uri = match FILE_URI_CURSOR {
        true => p.0.get(P_URI).copied().flatten(),
        false => params.and_then(|p| p.get("uri")),
    };
    uri.and_then(|v| v.as_str())
        .ok_or(DispatchError::MissingParam("uri"))
}

/// `params.cursor`: filed while the request was validated ([`PARAM_KEYS`]), or looked
/// up in `params` on a small target.
pub(super) fn cursor_param<'a>(params: Option<Value<'a>>, p: &Params<'a>) -> Option<Value<'a>> {
    match FILE_URI_CURSOR {
        true => p.0.get(P_CURSOR).copied().flatten(),
        false => params.and_then(|p| p.get("cursor")),
    }
}
