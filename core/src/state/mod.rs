//! State kept across requests that no device handler owns: resource subscriptions and
//! interrupt-safe change flags ([`subscription`]), device-side policy such as rate
//! limits ([`policy`]), the sealing of `requestState` (`seal`, feature `input`), and
//! what a task is between requests (`task`, feature `tasks`).

pub mod policy;
#[cfg(feature = "input")]
pub mod seal;
pub mod subscription;
#[cfg(feature = "tasks")]
pub mod task;
