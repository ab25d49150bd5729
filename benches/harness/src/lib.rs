//! `emcp-harness`: an end-to-end stdio benchmark for MCP servers.
//!
//! The `stdio-harness` binary spawns any server command, does the handshake of one
//! protocol era, sends a realistic request mix (pipelined or one at a time), checks
//! every response against the sensor board specification (docs/board.md) and reports
//! the child's CPU time per message (net of process start), messages per second and
//! peak RSS. See README.md.

pub mod mix;
pub mod run;
