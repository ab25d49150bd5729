//! Transports around the sans-IO [`crate::Server`]: [`serve`] for any byte stream
//! (UART, USB-CDC, pipes), `http` (feature) for Streamable HTTP, `asynch`
//! (feature `async`) for both over `embedded-io-async`, and `mqtt` (feature) for MCP
//! over an MQTT 5 broker, async too.

#[cfg(feature = "async")]
pub mod asynch;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "mqtt")]
pub mod mqtt;
pub mod serve;
