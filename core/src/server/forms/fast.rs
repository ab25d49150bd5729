//! The fast forms (see [`super`]).
#![cfg_attr(not(emcp_fast), allow(dead_code))]

#[cfg(feature = "stateless")]
use crate::server::config::Config;
use crate::server::method::Method;
use crate::wire::json::JsonWriter;

/// Whether `uri` and `cursor` are filed while a request is validated: yes, in the
/// same walk as the other members of `params`.
pub(in crate::server) const FILE_URI_CURSOR: bool = true;

/// Open the array of list result `list`: its key and bracket in one write.
#[inline(always)]
pub(in crate::server) fn open_list(w: &mut JsonWriter<'_>, list: Method) {
    w.begin(match list {
        Method::ToolsList => b",\"tools\":[",
        Method::ResourcesList => b",\"resources\":[",
        Method::TemplatesList => b",\"resourceTemplates\":[",
        _ => b",\"prompts\":[",
    });
}

/// Whether changed resources need no walk: nobody is subscribed to any of them (the
/// common case).
#[inline(always)]
pub(in crate::server) fn nothing_to_notify(changed: u32, session: u32, listens: bool) -> bool {
    changed & session == 0 && !listens
}

/// Longest `serverInfo` object (`{"name":…,"version":…}`) a server keeps written for
/// its stateless results: the C ABI's server storage must still hold the server.
#[cfg(feature = "stateless")]
pub(in crate::server) const SERVER_INFO_LEN: usize = 96;

/// The `serverInfo` object every stateless result carries in its `_meta`, written
/// once; empty when it does not fit [`SERVER_INFO_LEN`] (then written member by
/// member, as the plain form does).
#[cfg(feature = "stateless")]
pub(in crate::server) type ServerInfo = heapless::Vec<u8, SERVER_INFO_LEN>;

/// A stateless result's `_meta` member, opened, with the `serverInfo` key (after a
/// member's comma).
#[cfg(feature = "stateless")]
const META_SERVER_INFO_KEY: &[u8] = b",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";

/// `cacheScope` then [`META_SERVER_INFO_KEY`], as one literal.
#[cfg(feature = "stateless")]
const CACHE_SCOPE_META_KEY: &[u8] =
    b",\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";

/// `serverInfo` written once for `config` (`plain`: its strings need no escaping).
#[cfg(feature = "stateless")]
#[inline(always)]
pub(in crate::server) fn written_info(config: &Config, plain: bool) -> ServerInfo {
    let mut info = heapless::Vec::new();
    let mut w = JsonWriter::new(&mut info);
    config.write_info(&mut w, plain);
    if w.is_ok() {
        info
    } else {
        heapless::Vec::new()
    }
}

/// End a stateless result with its cache members (`ttl_ms`: a list's or a read's)
/// and the `_meta` holding the kept `serverInfo`, then the envelope and the line.
/// False, having written nothing, when no `serverInfo` is kept.
#[cfg(feature = "stateless")]
#[inline(always)]
pub(in crate::server) fn end_with_info(
    info: &ServerInfo,
    w: &mut JsonWriter<'_>,
    ttl_ms: Option<u32>,
) -> bool {
    if info.is_empty() {
        return false;
    }
    // The cache members, if any, written with the `_meta` key after them (a member is
    // then due).
    match ttl_ms {
        Some(ms) => {
            w.key_raw(crate::wire::json::writer::member_key!("ttlMs"));
            w.u64(u64::from(ms));
            w.raw(CACHE_SCOPE_META_KEY);
        }
        None => w.raw_lead(META_SERVER_INFO_KEY),
    }
    w.raw(info);
    // `_meta`, the result, the envelope, the line.
    w.end(b"}}}\n");
    true
}
