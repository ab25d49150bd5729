//! Transports around the sans-IO [`crate::Server`]: [`serve`] for any byte stream
//! (UART, USB-CDC, pipes) and `http` (feature) for Streamable HTTP.

#[cfg(feature = "http")]
pub mod http;
pub mod serve;
