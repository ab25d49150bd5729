//! MCP's names on the wire that more than one layer needs: the
//! `io.modelcontextprotocol/` `_meta` keys of 2026-07-28.

/// `_meta` key: the protocol version of a 2026-07-28 request.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client capabilities of a 2026-07-28 request.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the log level a 2026-07-28 request asks for.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key: the `serverInfo` a 2026-07-28 result carries.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key: the subscription a `subscriptions/listen` notification belongs to.
pub const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";
/// The prefix of every key in the 2026-07-28 `_meta` namespace: a request whose
/// `_meta` has a member so named claims that revision.
pub const META_PREFIX: &[u8] = b"io.modelcontextprotocol/";
/// The 2026-07-28 tasks extension: its name in `capabilities.extensions` and in a
/// request's `clientCapabilities.extensions`.
pub const EXT_TASKS: &str = "io.modelcontextprotocol/tasks";
/// `_meta` key: the task a 2025-11-25 `tasks/result` answer belongs to.
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
