//! `sensor-board`: the simulated sensor board as an MCP server on stdin/stdout.
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. Exits 0 at end of
//! input.

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
struct Stdout(io::BufWriter<io::Stdout>);

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

fn main() -> ExitCode {
    let mut server: Server<Board> = match Server::new(Board::new(), CONFIG) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sensor-board: invalid configuration: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    let mut framer: Box<Framer<DEFAULT_LINE_LEN>> = Box::default();
    let mut input = Stdin::spawn();
    let mut output = Stdout(io::BufWriter::with_capacity(64 * 1024, io::stdout()));
    eprintln!("sensor-board: serving MCP on stdin/stdout");
    match serve(&mut server, &mut *framer, &mut input, &mut output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sensor-board: {e:?}");
            ExitCode::FAILURE
        }
    }
}
