//! The cargo features a body may branch on, as constants (below every layer, as
//! [`crate::trace`] is).
//!
//! A feature gates an item — a module where it is declared, a function, a field, a
//! variant — and the request path calls through a capability's module, whose "off"
//! form is empty (see `server/input/off.rs`). Where a whole branch is only the
//! answer to "is this compiled in?" (an era, a capability advertised, a list kind
//! walked), an `if` on one of these reads straight and compiles both ways in every
//! build; the dead branch is removed. `scripts/check-cfg.py` keeps `#[cfg]` and
//! `cfg!` out of function bodies.

/// The initialize era (2024-11-05 to 2025-11-25) is served.
pub(crate) const LEGACY: bool = cfg!(feature = "legacy");
/// 2026-07-28 is served.
pub(crate) const STATELESS: bool = cfg!(feature = "stateless");
/// `resources/*` and the change notifications.
pub(crate) const RESOURCES: bool = cfg!(feature = "resources");
/// `prompts/*`.
pub(crate) const PROMPTS: bool = cfg!(feature = "prompts");
/// `completion/complete`.
pub(crate) const COMPLETIONS: bool = cfg!(feature = "completions");
/// `logging/setLevel` and log notifications.
pub(crate) const LOGGING: bool = cfg!(feature = "logging");
/// Lists in pages.
pub(crate) const PAGINATION: bool = cfg!(feature = "pagination");
/// Tools without a compiled plan have their schema walked.
pub(crate) const SCHEMA_WALK: bool = cfg!(feature = "schema-walk");
