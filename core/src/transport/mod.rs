//! Transports around the sans-IO [`crate::Server`]: [`serve`] for any byte stream
//! (UART, USB-CDC, pipes), `http` (feature) for Streamable HTTP, and `asynch`
//! (feature `async`) for both over `embedded-io-async`.

#[cfg(feature = "async")]
pub mod asynch;
#[cfg(feature = "http")]
pub mod http;
pub mod serve;
