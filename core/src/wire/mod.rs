//! The wire: bytes in, lines out, JSON scanned and written, JSON-RPC envelopes, the
//! MCP protocol's names, `_meta` keys and revisions, MQTT's refusal reasons, and the
//! errors of every layer with the one place that maps them to JSON-RPC codes.
//!
//! Nothing here knows of devices, state or the server: every module above imports
//! from this layer, and this layer imports from none of them.

pub mod error;
pub mod framing;
pub mod hash;
pub mod json;
pub mod mcp;
pub mod mqtt;
pub mod rpc;
pub mod time;
pub mod version;
