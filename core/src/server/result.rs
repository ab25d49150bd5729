use super::Server;
use crate::device::Device;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::mcp::META_SERVER_INFO;
use crate::wire::rpc;
use crate::wire::rpc::Id;
use crate::wire::version::Era;
use crate::wire::version::STATELESS;

/// The `cacheScope` member of a 2026-07-28 list or read result, comma first.
pub(super) const CACHE_SCOPE: &[u8] = b",\"cacheScope\":\"public\"";

/// The cache members a 2026-07-28 result carries: none (a tool call, a prompt), a
/// list's [`Config::list_ttl_ms`] or a read's [`Config::read_ttl_ms`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ttl {
    List,
    Read,
    None,
}

/// The stateless versions served, as a JSON array.
pub(super) fn write_versions(w: &mut JsonWriter<'_>) {
    w.begin_array();
    for v in STATELESS {
        w.str_lit(v.as_str());
    }
    w.end_array();
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    pub(super) fn empty_result(&self, id: Id<'_>, out: &mut dyn Sink) {
        let mut w = JsonWriter::new(out);
        rpc::begin_result(&mut w, id);
        rpc::end_response(&mut w);
    }

    /// Close a result: cache fields and `serverInfo` for 2026-07-28, then the envelope.
    pub(super) fn end_result(&self, w: &mut JsonWriter<'_>, era: Era, ttl: Ttl) {
        if era.is_stateless() {
            if super::forms::end_with_info(&self.server_info, w, self.ttl_ms(ttl)) {
                return;
            }
            self.write_ttl(w, ttl);
            w.key_lit("_meta");
            w.begin_object();
            w.key_lit(META_SERVER_INFO);
            self.config.write_info(w, self.info_plain);
            w.end_object();
        }
        rpc::end_response(w);
    }

    /// The `ttlMs` of a result.
    pub(super) fn ttl_ms(&self, ttl: Ttl) -> Option<u32> {
        match ttl {
            Ttl::List => Some(self.config.list_ttl_ms),
            Ttl::Read => Some(self.config.read_ttl_ms),
            Ttl::None => None,
        }
    }

    /// A 2026-07-28 result's cache members, for a list or a read.
    pub(super) fn write_ttl(&self, w: &mut JsonWriter<'_>, ttl: Ttl) {
        let Some(ms) = self.ttl_ms(ttl) else { return };
        w.key_raw(crate::wire::json::writer::member_key!("ttlMs"));
        w.u64(u64::from(ms));
        w.member_lit(CACHE_SCOPE);
    }

    /// The server's capabilities: for `server/discover` in the stateless era (where
    /// tasks are the extension `io.modelcontextprotocol/tasks`), for `initialize` in
    /// the legacy era.
    pub(super) fn write_capabilities(&self, w: &mut JsonWriter<'_>, era: Era) {
        w.begin_object();
        if self.has_tools() {
            w.key_lit("tools");
            w.raw_value(b"{}");
        }
        if self.has_resources() {
            w.key_lit("resources");
            w.raw_value(b"{\"subscribe\":true}");
        }
        if self.has_prompts() {
            w.key_lit("prompts");
            w.raw_value(b"{}");
        }
        if self.has_completions() {
            w.key_lit("completions");
            w.raw_value(b"{}");
        }
        if self.has_logging() {
            w.key_lit("logging");
            w.raw_value(b"{}");
        }
        if self.offers_tasks() {
            if era.is_stateless() {
                w.key_lit("extensions");
                w.begin_object();
                w.key_lit(crate::wire::mcp::EXT_TASKS);
                w.raw_value(b"{}");
                w.end_object();
            } else {
                w.key_lit("tasks");
                w.raw_value(b"{\"list\":{},\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}");
            }
        }
        w.end_object();
    }
}
