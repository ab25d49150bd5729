//! State kept across requests that no device handler owns: resource subscriptions and
//! interrupt-safe change flags ([`subscription`]), device-side policy such as rate
//! limits ([`policy`]), and the sealing of `requestState` (`seal`, feature `input`).

pub mod policy;
#[cfg(feature = "input")]
pub mod seal;
pub mod subscription;
