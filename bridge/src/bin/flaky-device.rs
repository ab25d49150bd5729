//! `flaky-device`: the simulated sensor board on stdin/stdout, misbehaving on request —
//! the device the bridge's tests reset.
//!
//! ```text
//! flaky-device [--exit-after N [--once FILE]] [--hang METHOD] [--strict] [--banner]
//! ```
//!
//! - `--exit-after N`: exit (status 3) on reading the N-th line, without answering it,
//!   like a board that resets mid-request. With `--once FILE` only while FILE does not
//!   exist (it is created then), so a restarted device behaves.
//! - `--hang METHOD`: never answer requests of this method.
//! - `--strict`: answer requests other than `initialize` and `ping` with an error
//!   until an `initialize` came (a device that insists on the handshake).
//! - `--banner`: print a line of boot noise (not JSON) first, as boards do.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use emcp::wire::json::{Sink, SinkError};
use emcp::Server;
use sensor_board::{Board, CONFIG};

struct Out(io::BufWriter<io::Stdout>);

impl Sink for Out {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.write_all(bytes).map_err(|_| SinkError::Io)
    }
}

#[derive(Default)]
struct Args {
    exit_after: Option<u64>,
    once: Option<PathBuf>,
    hang: Option<String>,
    strict: bool,
    banner: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args::default();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--exit-after" => {
                a.exit_after = Some(value()?.parse().map_err(|_| "--exit-after N")?);
            }
            "--once" => a.once = Some(PathBuf::from(value()?)),
            "--hang" => a.hang = Some(value()?),
            "--strict" => a.strict = true,
            "--banner" => a.banner = true,
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(a)
}

fn method(line: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    v.get("id")?;
    Some(v.get("method")?.as_str()?.to_owned())
}

fn main() -> ExitCode {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("flaky-device: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut exit_after = args.exit_after;
    if let Some(file) = &args.once {
        if file.exists() {
            exit_after = None;
        }
    }
    let Ok(mut server) = Server::<Board>::new(Board::new(), CONFIG) else {
        return ExitCode::FAILURE;
    };
    let mut out = Out(io::BufWriter::new(io::stdout()));
    if args.banner {
        let _ = out.0.write_all(b"flaky-device booting (not JSON)\n");
        let _ = out.0.flush();
    }
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        loop {
            let mut line = Vec::new();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let mut seen = 0u64;
    let mut initialized = false;
    loop {
        let line = if server.busy() {
            match rx.recv_timeout(Duration::from_millis(2)) {
                Ok(line) => Some(line),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(line) => Some(line),
                Err(_) => break,
            }
        };
        if let Some(line) = line {
            seen += 1;
            if exit_after == Some(seen) {
                if let Some(file) = &args.once {
                    let _ = std::fs::write(file, b"reset\n");
                }
                eprintln!("flaky-device: resetting on line {seen}");
                let _ = out.0.flush();
                std::process::exit(3);
            }
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            let m = method(line);
            if m.is_some() && m == args.hang {
                continue;
            }
            if m.as_deref() == Some("initialize") {
                initialized = true;
            }
            let refused = args.strict && !initialized && m.is_some_and(|m| m != "ping");
            if refused {
                let v: serde_json::Value = serde_json::from_slice(line).unwrap_or_default();
                let id = v.get("id").cloned().unwrap_or_default();
                let e = serde_json::json!({"jsonrpc":"2.0","id":id,"error":{"code":-32600,"message":"not initialized"}});
                let _ = writeln!(out.0, "{e}");
            } else {
                server.handle(line, &mut out);
            }
        }
        server.poll(&mut out);
        if out.0.flush().is_err() {
            break;
        }
    }
    while server.poll(&mut out) {}
    let _ = out.0.flush();
    ExitCode::SUCCESS
}
