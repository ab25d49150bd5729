//! `sensor-board`: the simulated sensor board as an MCP server on stdin/stdout, or
//! with `--http ADDR` over Streamable HTTP at `http://ADDR/mcp`.
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. On stdio it exits 0
//! at end of input.

use std::io::{self, Read as _, Write as _};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use emcp::framing::{Framer, DEFAULT_LINE_LEN};
use emcp::serve::serve;
use emcp::Server;
use sensor_board::{Board, CONFIG};

/// Standard input read on a thread, so the serve loop can ask whether bytes are
/// waiting (`ReadReady`) and keep pending tool jobs moving meanwhile.
struct Stdin {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Stdin {
    fn spawn() -> Self {
        let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(16);
        std::thread::spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Vec::new());
                        return;
                    }
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Self {
            rx,
            chunk: Vec::new(),
            pos: 0,
            eof: false,
        }
    }

    fn fill(&mut self, block: bool) {
        if self.pos < self.chunk.len() || self.eof {
            return;
        }
        let next = if block {
            self.rx.recv().ok()
        } else {
            match self.rx.try_recv() {
                Ok(c) => Some(c),
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => None,
            }
        };
        match next {
            Some(c) if !c.is_empty() => {
                self.chunk = c;
                self.pos = 0;
            }
            _ => self.eof = true,
        }
    }
}

impl embedded_io::ErrorType for Stdin {
    type Error = std::convert::Infallible;
}

impl embedded_io::Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        self.fill(true);
        let rest = &self.chunk[self.pos..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

impl embedded_io::ReadReady for Stdin {
    fn read_ready(&mut self) -> Result<bool, Self::Error> {
        self.fill(false);
        Ok(self.pos < self.chunk.len() || self.eof)
    }
}

/// Buffered standard output; flushed by the serve loop when no input is waiting.
struct Stdout(io::BufWriter<Box<dyn io::Write>>);

/// Standard output without std's own line buffering: on Unix a duplicate of fd 1, so a
/// flush of the 64 KiB buffer is one `write` (through `io::Stdout`'s `LineWriter` a
/// flush that ends mid-line costs a second `write` for the tail).
fn raw_stdout() -> Box<dyn io::Write> {
    #[cfg(unix)]
    if let Ok(fd) = std::os::fd::AsFd::as_fd(&io::stdout()).try_clone_to_owned() {
        return Box::new(std::fs::File::from(fd));
    }
    Box::new(io::stdout())
}

impl embedded_io::ErrorType for Stdout {
    type Error = io::Error;
}

impl embedded_io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.0.flush()
    }
}

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
    let mut framer: Box<Framer<DEFAULT_LINE_LEN>> = Box::default();
    let mut input = Stdin::spawn();
    let mut output = Stdout(io::BufWriter::with_capacity(64 * 1024, raw_stdout()));
    eprintln!("sensor-board: serving MCP on stdin/stdout");
    match serve(&mut server, &mut *framer, &mut input, &mut output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sensor-board: {e:?}");
            ExitCode::FAILURE
        }
    }
}
