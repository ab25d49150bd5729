//! # emcp — an MCP server core for microcontrollers
//!
//! `emcp` turns a device into a [Model Context Protocol](https://modelcontextprotocol.io)
//! server: sensors become *resources*, actuators *tools*, canned instructions *prompts*.
//! It is `#![no_std]`, allocates nothing, contains no `unsafe` code and never panics on
//! any input. It serves both protocol eras from one device: the legacy era (initialize
//! handshake: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25) and the stateless era
//! (2026-07-28), chosen per request.
//!
//! A device lists `static` descriptors by index and writes results through the request
//! contexts the server hands it; what it needs is at the crate root:
//!
//! ```
//! use emcp::{Config, Device, ReadError, Resource, ResourceRead, Server, Step, Target};
//! use emcp::{Tool, ToolAnnotations, ToolCall};
//!
//! // `emcp::tool!` is `Tool::new` with the input schema compiled at compile time.
//! static TOOLS: [Tool<'static>; 1] = [emcp::tool!(
//!     "read_sensor",
//!     r#"{"type":"object","properties":{"sensor":{"type":"string","enum":["temperature"]}}}"#,
//! )
//! .annotations(ToolAnnotations::new().read_only(true))];
//! static RESOURCES: [Resource<'static>; 1] = [Resource::new("sensor://temperature", "temperature")];
//!
//! struct Board;
//!
//! impl Device for Board {
//!     fn tool(&self, i: usize) -> Option<Tool<'static>> {
//!         TOOLS.get(i).copied()
//!     }
//!     fn resource(&self, i: usize) -> Option<Resource<'static>> {
//!         RESOURCES.get(i).copied()
//!     }
//!     fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
//!         call.text("temperature: 21.5 C"); // arguments were checked against the schema
//!         Step::Done
//!     }
//!     fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
//!         match read.target() {
//!             Target::Resource(0) => {
//!                 let _written = read.text(Some("application/json"), "{\"celsius\":21.5}");
//!                 Ok(())
//!             }
//!             _ => Err(ReadError::NotFound),
//!         }
//!     }
//! }
//!
//! let mut server: Server<Board> = Server::new(Board, Config::new("demo", "0.1.0")).unwrap();
//! // Sans-IO: one line in, every resulting line out into any `Sink`.
//! let mut out = heapless::Vec::<u8, 256>::new();
//! server.handle(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &mut out);
//! assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
//!
//! // On a byte stream of any chunking, a framer collects the lines.
//! let mut framer: emcp::Framer<256> = emcp::Framer::new();
//! out.clear();
//! for chunk in [&b"{\"jsonrpc\":\"2.0\",\"id\":7,"[..], b"\"method\":\"ping\"}\r\n"] {
//!     emcp::feed(&mut server, &mut framer, chunk, &mut out);
//! }
//! assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
//! ```
//!
//! The server is sans-IO ([`Server::handle`]: one line in, every resulting line out
//! into a [`Sink`](wire::json::Sink)); [`feed`] and the blocking `embedded-io` loop
//! [`serve`] put it on a byte stream, [`transport`] on HTTP, an async stream or MQTT.
//! [`Server::new`] checks the device's descriptors and names the one at fault
//! ([`ConfigError`]).
//!
//! ## Layers
//!
//! Each layer imports only from the layers listed before it (the order
//! `scripts/check-layers.py` enforces; `scripts/check-features.py` keeps this list in
//! that order).
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
//! - [`state`] — what the server remembers between requests:
//!   [`subscription`](state::subscription) (subscriptions, and
//!   [`ChangeFlags`](state::subscription::ChangeFlags) raised from interrupts),
//!   [`policy`](state::policy) (authorization verdicts, rate limits),
//!   `seal` (feature `input`: the key that seals `requestState` with HMAC-SHA-256),
//!   `task` (feature `tasks`: a task's status, id and the input it waits for).
//! - [`device`] — the [`Device`] trait, [`Step`], and one request context per kind of
//!   request (tool call, resource read, prompt, completion) that handlers write through.
//! - [`server`] — [`Server`] and [`Config`]: era selection, capability gating, routing,
//!   pending jobs, the output guard; [`Era`].
//! - [`transport`] — [`serve`](transport::serve) ([`feed`] for
//!   any transport, and a blocking `embedded-io` serve loop), `http` (feature `http`:
//!   Streamable HTTP, sans-IO), `asynch` (feature `async`: both over
//!   `embedded-io-async`, for Embassy or any executor) and `mqtt` (feature `mqtt`:
//!   MCP over an MQTT 5 broker, async).
//!
//! ## Limits
//!
//! Every capacity is a const generic or a named constant, and nothing grows at run time:
//! the line buffer `N` of [`Framer`] (the examples use
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
//! Every feature of the crate; the repository's `docs/features.md` adds what each one
//! costs in flash and which combinations CI builds and tests.
//!
//! | feature | default | what it adds | needs |
//! |---|---|---|---|
//! | `legacy` | yes | the initialize era (2024-11-05 to 2025-11-25); without it `initialize` is -32022 naming the versions spoken | at least one era |
//! | `stateless` | yes | the 2026-07-28 era (`_meta` per request, `server/discover`, `subscriptions/listen`); without it `_meta` claims are ignored and `server/discover` is -32601 | at least one era |
//! | `resources` | yes | `resources/list`, `read`, `templates/list`, `subscribe`, `unsubscribe` and the change notifications | |
//! | `prompts` | yes | `prompts/list`, `prompts/get` | |
//! | `completions` | yes | `completion/complete` | |
//! | `logging` | yes | `logging/setLevel`, the `_meta` log level, `notifications/message` from `ToolCall::log` | |
//! | `pagination` | yes | `*/list` in pages of [`Config::page_size`] with `nextCursor`; without it one page, and any cursor is -32602 | |
//! | `schema-walk` | yes | a tool without a compiled plan has its arguments checked by walking its schema's text; without it [`Server::new`] refuses such a tool ([`ConfigError::NoPlan`]) | |
//! | `error-data` | yes | an error names what it refuses in its `data`: the method of -32601, the tool or prompt of -32602 (bounded by [`wire::error::MAX_ECHO`]), the byte where a line stopped being JSON (-32700), the line buffer a line overflowed; without it those errors carry code and message alone | |
//! | `routes` | | the server tells its sink which request each line of [`Server::poll`] belongs to ([`Sink::route`](wire::json::Sink::route)), for transports with one stream per request | |
//! | `http` | | `transport::http`: Streamable HTTP on one POST endpoint, sans-IO | `routes`; `httparse` |
//! | `async` | | `transport::asynch`: an async serve loop over `embedded-io-async` and, with `http`, one task per HTTP connection sharing one server; no executor, timer or allocator | `embedded-io-async`, `embassy-futures`, `embassy-sync` |
//! | `mqtt` | | `transport::mqtt`: the device as an MCP server on an MQTT 5 broker (EMQX's "MCP over MQTT"), its own bounded codec | `async`, `routes` |
//! | `input` | | input-required results and server-to-client requests (elicitation, sampling, roots), with an HMAC-SHA-256-sealed `requestState` | `routes`; `hmac`, `sha2` |
//! | `tasks` | | MCP tasks in both eras, in the `K` slots of [`Server`]: a long tool call answered at once with a task the client polls; results written again by `Device::task_result`, never kept; HMAC-derived ids; time from `Device::now_ms` | `input` |
//! | `defmt` | | `defmt::Format` for the public types, and the core's own log lines through `defmt` (never on the protocol stream) | `defmt` |
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

mod features;

pub mod wire;

pub mod model;

pub mod state;

pub mod device;

pub mod server;

pub mod transport;

// What a device author needs for a first device, at the root (the quick start above).
pub use device::{Device, PromptGet, ReadError, ResourceRead, Step, Target, ToolCall};
pub use model::registry::{
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations,
};
pub use server::{Config, Era, Server};
pub use transport::serve::{feed, serve};
pub use wire::error::ConfigError;
pub use wire::framing::Framer;
