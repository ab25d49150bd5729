//! `conformance-server`: the fixtures the official MCP conformance suite calls
//! (`conformance-device`), served over Streamable HTTP by emcp (`--listen
//! 127.0.0.1:PORT` → `http://…/mcp`), or with `--stdio` as newline-delimited JSON-RPC
//! on stdin/stdout (as a device behind `emcp-bridge --http ADDR exec --
//! conformance-server --stdio`).
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. On stdio it exits 0
//! at end of input.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use conformance_device::{Conformance, Fixtures, CONFIG};
use emcp::state::seal::StateKey;
use emcp::transport::http::Policy;
use emcp::Server;

/// 32 bytes from the operating system's random source (the clock if it has none).
fn random_key() -> [u8; 32] {
    use std::io::Read as _;
    let mut key = [0u8; 32];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut key));
    if read.is_err() {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        key[..16].copy_from_slice(&t.to_le_bytes());
    }
    key
}

/// Serve on stdin/stdout until end of input.
fn serve_stdio(mut server: Conformance) -> ExitCode {
    eprintln!("conformance-server: serving MCP on stdin/stdout");
    match emcp_host::serve_stdio(&mut server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    const USAGE: &str = "usage: conformance-server [--listen ADDR | --stdio]";
    let mut args = std::env::args().skip(1);
    let mut listen = None;
    let mut stdio = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--listen" => match args.next() {
                Some(v) => listen = Some(v),
                None => {
                    eprintln!("conformance-server: --listen needs ADDR");
                    return ExitCode::FAILURE;
                }
            },
            "--stdio" => stdio = true,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    if stdio && listen.is_some() {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    }
    let mut server: Conformance = match Server::new(Fixtures, CONFIG) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("conformance-server: invalid fixtures: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    server.set_state_key(StateKey::new(random_key()));
    if stdio {
        serve_stdio(server)
    } else {
        let addr = listen.as_deref().unwrap_or("127.0.0.1:3000");
        emcp_host::run_http("conformance-server", addr, server, Policy::default())
    }
}
