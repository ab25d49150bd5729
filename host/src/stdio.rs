//! A server on standard input and output: newline-delimited JSON-RPC, the transport an
//! MCP host uses when it launches the server as a command.
//!
//! [`serve_stdio`] runs [`emcp::serve::serve`] over [`Stdin`] (read on a thread, so
//! the loop can ask whether bytes are waiting and keep tool jobs moving meanwhile) and
//! [`Stdout`] (64 KiB buffer, flushed whenever no input is waiting: answers to
//! pipelined requests share one `write`, a lone request is answered at once).

use std::io::{self, Read as _, Write as _};
use std::sync::mpsc::{self, Receiver, TryRecvError};

use emcp::device::Device;
use emcp::framing::{Framer, DEFAULT_LINE_LEN};
use emcp::serve::{serve, ServeError};
use emcp::Server;

/// Serve `server` on stdin/stdout until end of input (then pending jobs run to
/// completion; calls still waiting for the client's input end with it).
///
/// # Errors
///
/// Writing to stdout failed (e.g. the client went away).
pub fn serve_stdio<D: Device, const L: usize, const J: usize, const W: usize>(
    server: &mut Server<D, L, J, W>,
) -> io::Result<()> {
    let mut framer: Box<Framer<DEFAULT_LINE_LEN>> = Box::default();
    let mut input = Stdin::spawn();
    let mut output = Stdout::new();
    match serve(server, &mut *framer, &mut input, &mut output) {
        Ok(()) => Ok(()),
        Err(ServeError::Read(never)) => match never {},
        Err(ServeError::Write(e)) => {
            Err(e.unwrap_or_else(|| io::Error::other("stdout refused bytes")))
        }
    }
}

/// Standard input read on a thread in chunks of up to 64 KiB (at most 16 waiting). An
/// empty chunk is end of input.
pub struct Stdin {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Stdin {
    /// Start the reading thread.
    pub fn spawn() -> Self {
        let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(16);
        std::thread::spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n @ 1..) = stdin.read(&mut buf) {
                if tx.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
            let _ = tx.send(Vec::new());
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
            Some(c) if !c.is_empty() => (self.chunk, self.pos) = (c, 0),
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
        let rest = self.chunk.get(self.pos..).unwrap_or_default();
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

/// Buffered standard output (64 KiB), flushed by the serve loop when no input is
/// waiting. On Unix it writes to a duplicate of fd 1, without std's own line
/// buffering: a flush is one `write` (through `io::Stdout`'s `LineWriter` a flush that
/// ends mid-line costs a second one for the tail).
pub struct Stdout(io::BufWriter<Box<dyn io::Write + Send>>);

impl Stdout {
    /// Standard output, buffered.
    pub fn new() -> Self {
        #[cfg(unix)]
        if let Ok(fd) = std::os::fd::AsFd::as_fd(&io::stdout()).try_clone_to_owned() {
            return Self(io::BufWriter::with_capacity(
                64 * 1024,
                Box::new(std::fs::File::from(fd)),
            ));
        }
        Self(io::BufWriter::with_capacity(
            64 * 1024,
            Box::new(io::stdout()),
        ))
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Self::new()
    }
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
