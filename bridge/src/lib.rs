//! `emcp-bridge`: connect a real MCP device — a serial port or a child process speaking
//! newline-delimited JSON-RPC — to MCP hosts over stdio or Streamable HTTP, and keep
//! the host's session alive through device resets.
//!
//! Layers, from the wire inwards:
//!
//! - [`link`] — the device side: a [`link::Link`] opens a byte stream to the device
//!   ([`link::exec`]: a child process, restarted when it exits; [`link::serial`]: a
//!   serial port, reopened when it comes back).
//! - [`pump`] — the I/O loop: host lines and device lines in, through the relay, out;
//!   reconnection and deadlines.
//! - [`relay`] — the pure state machine between host and device: the in-flight table,
//!   timeouts, resets, the handshake and subscription replay. No I/O, no clock.
//! - [`message`] — one JSON-RPC line looked at lightly (kind, raw id, method).
//! - [`http`] — the host side over Streamable HTTP: the core's request checks and
//!   response framing, each request relayed with a bridge id of its own.
//! - [`mqtt`] — devices behind an MQTT 5 broker (MCP over MQTT), as links: one device
//!   by server name, or the whole fleet as one MCP server (`emcp-bridge mqtt`).
//! - [`net`] — the other way round: a device serving Streamable HTTP on the host's
//!   stdio (`emcp-bridge http URL`), each request POSTed on a connection of its own,
//!   the initialize-era session replayed when the device forgot it.
//!
//! **Guarantees.** Every host request — a line the core answers with its id, however
//! malformed otherwise ([`message::Message::from_host`]) — gets exactly one response:
//! the device's, or the bridge's own JSON-RPC error ([`relay::Fault`]: -32000 device
//! reset or unavailable or too many requests in flight, -32001 timeout, -32600 id
//! already in flight). A line longer than the device's line buffer
//! ([`relay::Config::line_max`]) is answered as the core answers it, and not sent.
//! The device sees the bridge's ids only: each request goes to it with an id of the
//! bridge's own and its answer comes back with the host's id, byte for byte, so no
//! id a host picks can collide with the bridge's own requests (its replays) or with
//! another request ([`relay`]). Forwarded lines are the bytes received but for those
//! ids, never re-serialised. stdout carries only
//! protocol; diagnostics go to stderr. JSON is read with the core's iterative
//! scanner, nesting bounded: no input makes the bridge recurse.
//!
//! **Non-features.** JSON-RPC batches are forwarded but not tracked (their answers
//! pass through; a reset does not answer them). A request a device answers with
//! `id: null` although the core would have read its id (a device that is not emcp,
//! or one with a smaller line buffer than `line_max`) is answered twice: that `null`
//! error, and the bridge's timeout. Over HTTP, one initialize-era session at a time,
//! and no bearer token. `http URL`: plain `http://` only (no TLS, proxies or
//! redirects), one connection per request, no resuming of a broken event stream.

pub mod http;
pub mod link;
pub mod message;
pub mod mqtt;
pub mod net;
pub mod pump;
pub mod relay;
