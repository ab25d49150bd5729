//! The plain forms (see [`super`]).
#![cfg_attr(emcp_fast, allow(dead_code))]

#[cfg(feature = "stateless")]
use crate::server::config::Config;
use crate::server::method::Method;
use crate::wire::json::JsonWriter;

/// Whether `uri` and `cursor` are filed while a request is validated: no, looked up
/// in `params` when needed (fewer picks to set up, less code).
pub(in crate::server) const FILE_URI_CURSOR: bool = false;

/// Open the array of list result `list` (`"tools":[`…).
pub(in crate::server) fn open_list(w: &mut JsonWriter<'_>, list: Method) {
    w.key_lit(match list {
        Method::ToolsList => "tools",
        Method::ResourcesList => "resources",
        Method::TemplatesList => "resourceTemplates",
        _ => "prompts",
    });
    w.begin_array();
}

/// Whether changed resources need no walk: never decided up front here (the walk
/// finds the same, in less code).
#[inline(always)]
pub(in crate::server) fn nothing_to_notify(_changed: u32, _session: u32, _listens: bool) -> bool {
    false
}

/// Nothing is kept: `serverInfo` is written member by member into each result.
#[cfg(feature = "stateless")]
pub(in crate::server) type ServerInfo = ();

/// Nothing to keep (see [`ServerInfo`]).
#[cfg(feature = "stateless")]
#[inline(always)]
pub(in crate::server) fn written_info(_config: &Config, _plain: bool) -> ServerInfo {}

/// Nothing written: the caller writes the cache members and `_meta` itself.
#[cfg(feature = "stateless")]
#[inline(always)]
pub(in crate::server) fn end_with_info(
    _info: &ServerInfo,
    _w: &mut JsonWriter<'_>,
    _ttl_ms: Option<u32>,
) -> bool {
    false
}
