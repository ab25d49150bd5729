//! `sensor-board`: the simulated sensor board as an MCP server on stdin/stdout, or
//! with `--http ADDR` over Streamable HTTP at `http://ADDR/mcp`.
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. On stdio it exits 0
//! at end of input.

use std::process::ExitCode;

use emcp::Server;
use sensor_board::{Board, CONFIG};

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
        let policy = emcp::transport::http::Policy::default();
        return emcp_host::run_http("sensor-board", &addr, server, policy);
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
