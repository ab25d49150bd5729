//! `sensor-board`: the simulated sensor board as an MCP server on stdin/stdout, or
//! with `--http ADDR` over Streamable HTTP at `http://ADDR/mcp`.
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. On stdio it exits 0
//! at end of input.

use std::process::ExitCode;

use emcp::Server;
use sensor_board::{Board, CONFIG};

/// Serve over HTTP on `addr` until the listener fails.
fn serve_http(server: Server<Board>, addr: &str) -> ExitCode {
    let listener = match std::net::TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sensor-board: bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("sensor-board: serving MCP at http://{addr}/mcp");
    let seed = emcp_host::session_seed();
    match emcp_host::serve_http(listener, server, emcp::http::Policy::default(), seed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sensor-board: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.as_slice() {
        [] => None,
        [flag, addr] if flag == "--http" => Some(addr.clone()),
        _ => {
            eprintln!("usage: sensor-board [--http ADDR]");
            return ExitCode::FAILURE;
        }
    };
    let mut server: Server<Board> = match Server::new(Board::new(), CONFIG) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sensor-board: invalid configuration: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(addr) = http {
        return serve_http(server, &addr);
    }
    eprintln!("sensor-board: serving MCP on stdin/stdout");
    match emcp_host::serve_stdio(&mut server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sensor-board: stdout: {e}");
            ExitCode::FAILURE
        }
    }
}
