//! A server on standard input and output: newline-delimited JSON-RPC, the transport an
//! MCP host uses when it launches the server as a command.
//!
//! [`serve_stdio`] runs [`emcp::transport::serve::serve`] over [`Stdin`] and [`Stdout`]. On Unix
//! [`Stdin`] reads fd 0 on the serving thread into a 64 KiB buffer and, once that is
//! empty, asks `poll` (timeout 0) whether more bytes are waiting, so the loop keeps
//! tool jobs moving while none are; elsewhere a thread reads standard input and hands
//! chunks over a channel. [`Stdout`] is a plain 64 KiB buffer, flushed whenever no
//! input is waiting: answers to pipelined requests share one `write`, a lone request
//! is answered at once.

use std::io::{self, Write as _};

use emcp::device::Device;
use emcp::transport::serve::{serve, ServeError};
use emcp::wire::framing::{Framer, DEFAULT_LINE_LEN};
use emcp::Server;

/// Bytes [`Stdin`] reads and [`Stdout`] buffers at once.
const BUF_LEN: usize = 64 * 1024;

/// Serve `server` on stdin/stdout until end of input (then pending jobs run to
/// completion; calls still waiting for the client's input end with it).
///
/// A line may be [`DEFAULT_LINE_LEN`] (4096) bytes long; a longer one is answered
/// with a -32600 error and the next line is served. For longer lines, make the
/// same call this function makes with a larger [`Framer`] (on the heap: it holds the
/// whole line):
///
/// ```no_run
/// use emcp::transport::serve::{serve, ServeError};
/// use emcp::wire::framing::Framer;
/// use emcp::{Config, Device, Server};
///
/// struct Board;
/// impl Device for Board {}
///
/// fn main() -> std::io::Result<()> {
///     let mut server: Server<Board> =
///         Server::new(Board, Config::new("my-device", "0.1.0")).expect("a valid configuration");
///     // Lines of up to 64 KiB instead of 4096 bytes.
///     let mut framer: Box<Framer<{ 64 * 1024 }>> = Box::default();
///     let (mut input, mut output) = (emcp_host::Stdin::new(), emcp_host::Stdout::new());
///     match serve(&mut server, &mut *framer, &mut input, &mut output) {
///         Ok(()) => Ok(()),
///         Err(ServeError::Read(never)) => match never {},
///         Err(ServeError::Write(e)) => Err(e.unwrap_or_else(|| std::io::ErrorKind::WriteZero.into())),
///     }
/// }
/// ```
///
/// # Errors
///
/// Writing to stdout failed (e.g. the client went away).
pub fn serve_stdio<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>(
    server: &mut Server<D, L, J, W, K>,
) -> io::Result<()> {
    let mut framer: Box<Framer<DEFAULT_LINE_LEN>> = Box::default();
    let mut input = Stdin::new();
    let mut output = Stdout::new();
    match serve(server, &mut *framer, &mut input, &mut output) {
        Ok(()) => Ok(()),
        Err(ServeError::Read(never)) => match never {},
        Err(ServeError::Write(e)) => {
            Err(e.unwrap_or_else(|| io::Error::other("stdout refused bytes")))
        }
    }
}

/// Standard input, read in chunks of up to 64 KiB. End of input, and an error reading
/// it, is `Ok(0)`.
///
/// On Unix fd 0 is read directly (not through `std::io::stdin()`, whose buffer it
/// would not see) on the caller's thread: [`ReadReady::read_ready`] is true while
/// bytes are buffered, and otherwise asks `poll` with a zero timeout (true also at end
/// of input or on an error, which the next read reports); [`Read::read`] blocks in
/// `read(2)` only when the buffer is empty. Interrupted calls are retried, and a
/// non-blocking fd 0 is waited for with `poll`.
///
/// [`ReadReady::read_ready`]: embedded_io::ReadReady::read_ready
/// [`Read::read`]: embedded_io::Read::read
#[cfg(unix)]
pub struct Stdin {
    fd: libc::c_int,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    eof: bool,
}

#[cfg(unix)]
impl Stdin {
    /// Standard input.
    pub fn new() -> Self {
        Self::from_fd(0)
    }

    /// Read `fd` (which must stay open as long as this lives) instead.
    fn from_fd(fd: libc::c_int) -> Self {
        Self {
            fd,
            buf: vec![0u8; BUF_LEN].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
        }
    }

    /// Whether the fd has bytes, end of input or an error to report, waiting up to
    /// `timeout` ms (-1: until it has).
    fn poll(&self, timeout: libc::c_int) -> bool {
        let mut fd = libc::pollfd {
            fd: self.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        loop {
            // SAFETY: one valid `pollfd`, and its count.
            match unsafe { libc::poll(&mut fd, 1, timeout) } {
                0 => return false,
                1.. => return fd.revents != 0,
                _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                // poll itself failed: let the read find out.
                _ => return true,
            }
        }
    }

    /// Read into the empty buffer, blocking until bytes, end of input or an error
    /// come.
    fn fill(&mut self) {
        loop {
            // SAFETY: the buffer is valid for writes of its length.
            let n = unsafe { libc::read(self.fd, self.buf.as_mut_ptr().cast(), self.buf.len()) };
            if let Ok(n @ 1..) = usize::try_from(n) {
                (self.pos, self.len) = (0, n.min(self.buf.len()));
                return;
            }
            if n < 0 {
                match io::Error::last_os_error().kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => {
                        self.poll(-1);
                        continue;
                    }
                    _ => {}
                }
            }
            self.eof = true;
            return;
        }
    }
}

#[cfg(unix)]
impl embedded_io::Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        if self.pos == self.len {
            if self.eof || buf.is_empty() {
                return Ok(0);
            }
            self.fill();
        }
        let rest = self.buf.get(self.pos..self.len).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(unix)]
impl embedded_io::ReadReady for Stdin {
    fn read_ready(&mut self) -> Result<bool, Self::Error> {
        Ok(self.pos < self.len || self.eof || self.poll(0))
    }
}

/// Standard input read on a thread in chunks of up to 64 KiB (at most 16 waiting). An
/// empty chunk is end of input; an error reading it ends it too.
#[cfg(not(unix))]
pub struct Stdin {
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
    eof: bool,
}

#[cfg(not(unix))]
impl Stdin {
    /// Standard input (starts the reading thread).
    pub fn new() -> Self {
        use std::io::Read as _;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(16);
        std::thread::spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut buf = vec![0u8; BUF_LEN];
            loop {
                match stdin.read(&mut buf) {
                    Ok(n @ 1..) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    _ => break,
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
        use std::sync::mpsc::TryRecvError;
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

#[cfg(not(unix))]
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

#[cfg(not(unix))]
impl embedded_io::ReadReady for Stdin {
    fn read_ready(&mut self) -> Result<bool, Self::Error> {
        self.fill(false);
        Ok(self.pos < self.chunk.len() || self.eof)
    }
}

impl Default for Stdin {
    fn default() -> Self {
        Self::new()
    }
}

impl embedded_io::ErrorType for Stdin {
    type Error = std::convert::Infallible;
}

/// Buffered standard output (64 KiB), flushed by the serve loop when no input is
/// waiting; a write that fits is a copy into the buffer (inline up to 128 bytes, the
/// size of the JSON writer's pieces). On Unix it writes to a duplicate of fd 1,
/// without std's own line buffering: a flush is one `write` (through `io::Stdout`'s
/// `LineWriter` a flush that ends mid-line costs a second one for the tail). Dropping
/// it writes out what is left, ignoring errors.
pub struct Stdout {
    buf: Box<[u8]>,
    /// Bytes buffered (at the start of `buf`).
    len: usize,
    out: Box<dyn io::Write + Send>,
}

impl Stdout {
    /// Standard output, buffered.
    pub fn new() -> Self {
        #[cfg(unix)]
        if let Ok(fd) = std::os::fd::AsFd::as_fd(&io::stdout()).try_clone_to_owned() {
            return Self::to(Box::new(std::fs::File::from(fd)));
        }
        Self::to(Box::new(io::stdout()))
    }

    fn to(out: Box<dyn io::Write + Send>) -> Self {
        Self {
            buf: vec![0u8; BUF_LEN].into_boxed_slice(),
            len: 0,
            out,
        }
    }

    /// Write the buffer out. On an error, what was not written stays buffered.
    fn drain(&mut self) -> io::Result<()> {
        let mut done = 0;
        let result = loop {
            let Some(rest) = self.buf.get(done..self.len).filter(|r| !r.is_empty()) else {
                break Ok(());
            };
            match self.out.write(rest) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let done = done.min(self.len);
        self.buf.copy_within(done..self.len, 0);
        self.len -= done;
        result
    }

    /// A write of more than 128 bytes, or one that does not fit in the buffer.
    #[inline(never)]
    fn write_long(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let start = self.len;
        match self.buf.get_mut(start..start.wrapping_add(bytes.len())) {
            Some(to) => {
                self.len = start + bytes.len();
                to.copy_from_slice(bytes);
                Ok(bytes.len())
            }
            None => self.write_cold(bytes),
        }
    }

    /// A write that does not fit in what is left of the buffer: write the buffer out,
    /// then buffer the bytes, or write them directly when they would fill it.
    #[cold]
    #[inline(never)]
    fn write_cold(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.drain()?;
        match self.buf.get_mut(..bytes.len()) {
            Some(to) if bytes.len() < BUF_LEN => {
                to.copy_from_slice(bytes);
                self.len = bytes.len();
                Ok(bytes.len())
            }
            _ => self.out.write(bytes),
        }
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        let _ = self.drain();
    }
}

impl embedded_io::ErrorType for Stdout {
    type Error = io::Error;
}

impl embedded_io::Write for Stdout {
    /// Up to 128 bytes (JSON fragments, a base64 run of a streamed part) are copied
    /// inline, with no call ([`copy_medium`]); longer writes and a full buffer take the
    /// outlined path, so the short one saves no registers.
    ///
    /// [`copy_medium`]: emcp::wire::json::writer::copy_medium
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<usize, Self::Error> {
        let start = self.len;
        let n = bytes.len();
        if n <= 128 {
            if let Some(to) = self.buf.get_mut(start..start.wrapping_add(n)) {
                self.len = start + n;
                emcp::wire::json::writer::copy_medium(to, bytes);
                return Ok(n);
            }
        }
        self.write_long(bytes)
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.drain()?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_io::Write as _;
    use std::sync::{Arc, Mutex};

    /// Where a test [`Stdout`] writes: every `write` call's bytes, or an error.
    #[derive(Clone, Default)]
    struct Record {
        writes: Arc<Mutex<Vec<Vec<u8>>>>,
        fail: Arc<Mutex<bool>>,
    }

    impl io::Write for Record {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if *self.fail.lock().unwrap() {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.writes.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Record {
        fn all(&self) -> Vec<u8> {
            self.writes.lock().unwrap().concat()
        }
        fn calls(&self) -> usize {
            self.writes.lock().unwrap().len()
        }
    }

    #[test]
    fn stdout_keeps_every_byte_in_order_and_writes_once_per_flush() {
        let record = Record::default();
        let mut out = Stdout::to(Box::new(record.clone()));
        let mut want = Vec::new();
        // Every short length (the inline copies), then longer ones.
        for n in (0..=40).chain([100, 1000, 5000]) {
            let piece: Vec<u8> = (0..n).map(|i| (n * 7 + i) as u8).collect();
            assert_eq!(out.write(&piece).unwrap(), n);
            want.extend_from_slice(&piece);
        }
        assert_eq!(record.calls(), 0, "nothing written before the flush");
        out.flush().unwrap();
        assert_eq!(record.calls(), 1, "one write per flush");
        assert_eq!(record.all(), want);
        out.flush().unwrap();
        assert_eq!(record.calls(), 1, "nothing left to write");

        // Past the buffer: it is written out and the rest buffered; a piece as large
        // as the buffer goes out directly.
        let big: Vec<u8> = (0..BUF_LEN - 10).map(|i| (i % 251) as u8).collect();
        out.write_all(&big).unwrap();
        out.write_all(b"0123456789abcdef").unwrap();
        let huge = vec![b'h'; BUF_LEN];
        out.write_all(&huge).unwrap();
        out.write_all(b"tail").unwrap();
        drop(out);
        want.extend_from_slice(&big);
        want.extend_from_slice(b"0123456789abcdef");
        want.extend_from_slice(&huge);
        want.extend_from_slice(b"tail");
        assert_eq!(record.all(), want, "dropping writes out the rest");
    }

    #[test]
    fn stdout_reports_a_failed_write_and_keeps_the_bytes() {
        let record = Record::default();
        let mut out = Stdout::to(Box::new(record.clone()));
        out.write_all(b"kept").unwrap();
        *record.fail.lock().unwrap() = true;
        assert_eq!(out.flush().unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        *record.fail.lock().unwrap() = false;
        out.flush().unwrap();
        assert_eq!(record.all(), b"kept");
    }

    #[cfg(unix)]
    #[test]
    fn stdin_reads_a_pipe_and_reports_waiting_bytes_and_the_end() {
        use embedded_io::{Read as _, ReadReady as _};
        let mut fds = [0; 2];
        // SAFETY: an array of two fds.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let [r, w] = fds;
        let put = |bytes: &[u8]| {
            // SAFETY: the pipe's write end, and a valid buffer.
            let n = unsafe { libc::write(w, bytes.as_ptr().cast(), bytes.len()) };
            assert_eq!(n, bytes.len() as isize);
        };
        let mut input = Stdin::from_fd(r);
        assert!(!input.read_ready().unwrap(), "nothing waiting yet");
        put(b"hello\nworld\n");
        assert!(input.read_ready().unwrap());
        let mut buf = [0u8; 8];
        assert_eq!(input.read(&mut buf).unwrap(), 8);
        assert_eq!(&buf, b"hello\nwo");
        assert!(input.read_ready().unwrap(), "bytes still buffered");
        assert_eq!(input.read(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"rld\n");
        assert!(!input.read_ready().unwrap(), "all read");
        put(b"x");
        // SAFETY: closing the write end we opened.
        unsafe { libc::close(w) };
        assert!(input.read_ready().unwrap());
        assert_eq!(input.read(&mut buf).unwrap(), 1);
        assert!(input.read_ready().unwrap(), "end of input is ready");
        assert_eq!(input.read(&mut buf).unwrap(), 0);
        assert_eq!(input.read(&mut buf).unwrap(), 0);
        // SAFETY: closing the read end we opened (not used after).
        unsafe { libc::close(r) };
    }
}
