//! # emcp — an MCP server core for microcontrollers
//!
//! `emcp` turns a device into a [Model Context Protocol](https://modelcontextprotocol.io)
//! server: sensors become *resources*, actuators *tools*, canned instructions *prompts*.
//! It is `#![no_std]`, uses no heap, and never panics on any input.
//!
//! ## Layers (one module each, bottom up)
//! - [`framing`] — bytes in, complete lines out (CRLF tolerated, overlong lines reported).
//! - [`json`] — a zero-copy validating scanner and a streaming writer.
//! - [`rpc`] — the JSON-RPC 2.0 request view and response envelope.
//! - [`version`] — protocol revisions and their eras.
//! - [`registry`] — static descriptors of tools, resources, templates, prompts.
//! - [`schema`] — argument validation against a tool's input schema.
//! - [`template`] — URI-template matching (a hand-written level-1 grammar).
//! - [`device`] — the [`Device`] trait and the request contexts handlers write through.
//! - [`subscription`] — resource subscriptions and interrupt-safe change flags.
//! - [`policy`] — who may run which tool and how often (authorization, rate limits).
//! - [`server`] — era selection, capability gating, routing: [`Server::handle`].
//! - [`serve`] — [`serve::feed`] for any transport, and an `embedded-io` serve loop.
//! - `http` (feature) — Streamable HTTP: request heads, replies, sessions.
//! - `input` (feature) — asking the client for input; sealing `requestState`.
//! - [`error`] — the error enums and the one place that maps them to JSON-RPC codes.
//!
//! ## Protocol
//! 2026-07-28 (stateless: per-request `_meta`, `server/discover`, `resultType`,
//! `subscriptions/listen`) and the initialize-era revisions 2025-11-25, 2025-06-18,
//! 2025-03-26 and 2024-11-05, chosen per request (see [`server`]).
//!
//! ## Limits
//! Every capacity is a const generic or a documented constant: the line buffer `N` of
//! [`framing::Framer`] (examples use [`framing::DEFAULT_LINE_LEN`]), JSON nesting
//! [`json::MAX_DEPTH`], id length [`rpc::MAX_ID_LEN`], URI length
//! [`server::MAX_URI_LEN`], listen streams `L` and pending jobs `J` of [`Server`],
//! subscribable resources [`subscription::MAX_RESOURCES`], template variables
//! [`template::MAX_VARS`], completion values [`device::MAX_COMPLETIONS`], properties of
//! a compiled schema [`schema::MAX_PLAN_PROPERTIES`].
//!
//! ## Panic contract
//! No function of this crate panics, whatever bytes it is fed: the crate denies
//! `unwrap`, `expect`, `panic!` and slice indexing outside tests, and arithmetic on
//! input-derived sizes is checked or saturating. The JSON scanner is iterative, so
//! nesting costs no stack. A device handler that misuses a context (writes after
//! finishing, returns `Pending` after writing) gets a well-formed but possibly partial
//! result, never a panic.
//!
//! ## Non-features
//! Anything that needs dynamic allocation; JSON-RPC batches (answered with -32600);
//! JSON Schema beyond the subset in [`schema`].
//!
//! ## Features
//! - `http` — `emcp::http`: Streamable HTTP on one POST endpoint (`httparse`).
//! - `input` — `emcp::input`: input-required results and server-to-client requests
//!   (elicitation, sampling, roots) with an HMAC-sealed `requestState` (`hmac`, `sha2`).
//! - `defmt` — log through `defmt`.
//! - `legacy`, `stateless` (both default) — the protocol eras served: the initialize
//!   era and 2026-07-28. A one-era build answers every request in its era (without
//!   `stateless`, `_meta` claims are ignored and `server/discover` is -32601; without
//!   `legacy`, `initialize` is -32022 naming the versions spoken).
//!
//! MSRV: Rust 1.88.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

#[cfg(not(any(feature = "legacy", feature = "stateless")))]
compile_error!("emcp needs at least one protocol era: feature `legacy` or `stateless`");

pub mod device;
pub mod error;
pub mod framing;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "input")]
pub mod input;
pub mod json;
pub mod policy;
pub mod registry;
pub mod rpc;
pub mod schema;
pub mod serve;
pub mod server;
pub mod subscription;
pub mod template;
mod trace;
pub mod version;

pub use device::{Device, Step};
pub use server::{Config, Era, Server};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
