//! # emcp — an MCP server core for microcontrollers
//!
//! `emcp` turns a device into a [Model Context Protocol](https://modelcontextprotocol.io)
//! server: sensors become *resources*, actuators *tools*, canned instructions *prompts*.
//! It is `#![no_std]`, allocates nothing, contains no `unsafe` code and never panics on
//! any input. It serves both protocol eras from one device: the legacy era (initialize
//! handshake: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25) and the stateless era
//! (2026-07-28), chosen per request.
//!
//! ```
//! use emcp::transport::serve::feed;
//! use emcp::wire::framing::Framer;
//! use emcp::{Config, Device, Server};
//!
//! struct Idle; // a device with no tools, resources or prompts
//! impl Device for Idle {}
//!
//! let mut server: Server<Idle> = Server::new(Idle, Config::new("demo", "0.1.0")).unwrap();
//! let mut framer: Framer<256> = Framer::new();
//! let mut out = heapless::Vec::<u8, 256>::new();
//! feed(&mut server, &mut framer, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n", &mut out);
//! assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
//! ```
//!
//! A device implements [`Device`]: it lists `static` descriptors by index and writes
//! results through the request contexts the server hands it. The server is sans-IO
//! ([`Server::handle`]: one line in, every resulting line out into a
//! [`Sink`](wire::json::Sink)); [`transport`] puts it on a byte stream or on HTTP.
//!
//! ## Layers
//!
//! Each layer imports only from the layers listed before it.
//!
//! - [`wire`] — the bytes: [`framing`](wire::framing) (bytes in, complete lines out;
//!   CRLF tolerated, overlong lines reported), [`json`](wire::json) (a zero-copy
//!   validating scanner and a streaming writer), [`rpc`](wire::rpc) (the JSON-RPC 2.0
//!   request view and response envelope), [`version`](wire::version) (protocol revisions
//!   and their eras), [`mcp`](wire::mcp) (method names, `_meta` keys),
//!   [`error`](wire::error) (the error enums and the one place that maps them to
//!   JSON-RPC codes).
//! - [`model`] — what a device offers: [`registry`](model::registry) (const-constructible
//!   descriptors of tools, resources, templates and prompts), [`schema`](model::schema)
//!   (argument validation against a tool's input schema, compiled at compile time by
//!   [`tool!`]), [`template`](model::template) (RFC 6570 level-1 URI templates).
//! - [`device`] — the [`Device`] trait, [`Step`], and one request context per kind of
//!   request (tool call, resource read, prompt, completion) that handlers write through.
//! - [`state`] — what the server remembers between requests:
//!   [`subscription`](state::subscription) (subscriptions, and
//!   [`ChangeFlags`](state::subscription::ChangeFlags) raised from interrupts),
//!   [`policy`](state::policy) (authorization verdicts, rate limits),
//!   `seal` (feature `input`: the key that seals `requestState` with HMAC-SHA-256),
//!   `task` (feature `tasks`: a task's status, id and the input it waits for).
//! - [`server`] — [`Server`] and [`Config`]: era selection, capability gating, routing,
//!   pending jobs, the output guard; [`Era`].
//! - [`transport`] — [`serve`](transport::serve) ([`feed`](transport::serve::feed) for
//!   any transport, and a blocking `embedded-io` serve loop), `http` (feature `http`:
//!   Streamable HTTP, sans-IO), `asynch` (feature `async`: both over
//!   `embedded-io-async`, for Embassy or any executor) and `mqtt` (feature `mqtt`:
//!   MCP over an MQTT 5 broker, async).
//!
//! ## Limits
//!
//! Every capacity is a const generic or a named constant, and nothing grows at run time:
//! the line buffer `N` of [`Framer`](wire::framing::Framer) (the examples use
//! [`DEFAULT_LINE_LEN`](wire::framing::DEFAULT_LINE_LEN)); JSON nesting
//! [`MAX_DEPTH`](wire::json::MAX_DEPTH); id and progress-token length
//! [`MAX_ID_LEN`](wire::rpc::MAX_ID_LEN); URI length
//! [`MAX_URI_LEN`](server::MAX_URI_LEN); listen streams `L`, pending jobs `J`,
//! input-wait slots `W` and task slots `K` of [`Server<D, L, J, W, K>`](Server);
//! subscribable resources
//! [`MAX_RESOURCES`](state::subscription::MAX_RESOURCES); template variables
//! [`MAX_VARS`](model::template::MAX_VARS); completion values
//! [`MAX_COMPLETIONS`](device::MAX_COMPLETIONS); properties of a compiled schema
//! [`MAX_PLAN_PROPERTIES`](model::schema::MAX_PLAN_PROPERTIES); items per list page
//! [`Config::page_size`]. A response of any size is streamed through the sink in
//! constant RAM. What comes back when a limit is reached is an ordinary JSON-RPC answer,
//! listed in the repository's `docs/protocol.md`.
//!
//! ## Panic contract
//!
//! No function of this crate panics, whatever bytes it is fed. The crate denies
//! `clippy::unwrap_used`, `expect_used`, `panic` and `indexing_slicing` outside tests, and
//! arithmetic on sizes derived from input is checked or saturating. The JSON scanner is
//! iterative, so nesting costs no stack, and the stack one message needs does not grow
//! with its size. A handler that misuses a context (writes after finishing, returns
//! [`Step::Pending`] after writing) gets a well-formed, possibly partial result, never a
//! panic. The proof on a target: the repository's Cortex-M firmware, built in release,
//! links no `core::panicking` symbol, and its size check fails when one appears.
//!
//! ## Non-features
//!
//! - Anything that needs dynamic allocation.
//! - JSON-RPC batches (answered with -32600).
//! - JSON Schema beyond the subset in [`model::schema`]: `type`, `required`, `enum`,
//!   numeric bounds, string lengths and `additionalProperties: false`, on top-level
//!   properties.
//! - A clock, threads or an async runtime of its own: time comes from the device
//!   ([`TokenBucket::take`](state::policy::TokenBucket::take)) or, for async serving,
//!   from a tick the caller passes, and long-running tools are polled
//!   ([`Server::poll`]).
//!
//! ## Cargo features
//!
//! - `legacy`, `stateless` (both default) — the protocol eras served; at least one. A
//!   one-era build answers every request in its era: without `stateless`, `_meta` claims
//!   are ignored and `server/discover` is -32601; without `legacy`, `initialize` is
//!   -32022 naming the versions spoken.
//! - `http` — `transport::http`: Streamable HTTP on one POST endpoint (`httparse`).
//! - `input` — input-required results and server-to-client requests (elicitation,
//!   sampling, roots), with an HMAC-SHA-256-sealed `requestState` (`hmac`, `sha2`).
//! - `tasks` — MCP tasks (implies `input`): a long tool call answered at once with a
//!   task the client polls, in both eras (the 2026-07-28 extension
//!   `io.modelcontextprotocol/tasks`, the 2025-11-25 experimental tasks), in the `K`
//!   slots of [`Server`]; results are written again by `Device::task_result` when
//!   fetched, never kept; ids are HMAC-derived from the `requestState` key; time is
//!   `Device::now_ms`.
//! - `async` — `transport::asynch`: an async serve loop over `embedded-io-async`, and
//!   (with `http`) one task per HTTP connection sharing one server through an
//!   `embassy-sync` mutex (`embedded-io-async`, `embassy-futures`, `embassy-sync`; no
//!   executor, timer or allocator).
//! - `mqtt` — `transport::mqtt`: the device as an MCP server on an MQTT 5 broker
//!   (EMQX's "MCP over MQTT": retained presence with the tools, per-client RPC
//!   topics, `S` client sessions each in its own era), over one `embedded-io-async`
//!   connection, reconnecting by calling again; its own bounded MQTT 5 codec, no
//!   further dependency (implies `async` and `routes`).
//! - `defmt` — logging through `defmt`; never on the protocol stream.
//! - `routes` — the server tells its sink which request each line of [`Server::poll`]
//!   belongs to ([`Sink::route`](wire::json::Sink::route)), for transports with one
//!   stream per request; `http` and `input` turn it on.
//!
//! ## Minimum supported Rust version
//!
//! Rust 1.88 (`rust-version` in the workspace `Cargo.toml`).
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

mod trace;

pub mod wire;

pub mod model;

pub mod state;

pub mod device;

pub mod server;

pub mod transport;

pub use device::{Device, Step};
pub use server::{Config, Era, Server};
