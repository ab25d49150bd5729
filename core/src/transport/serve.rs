//! The I/O edge: feeding bytes to a server, and a blocking `embedded-io` serve loop.
//!
//! [`feed`] is the sans-IO entry for any transport (a UART interrupt's ring buffer, a
//! C caller): bytes of any chunking in, every resulting line out. [`serve`] runs a whole
//! connection over an `embedded_io` reader and writer, running pending tool jobs while
//! no input is waiting and flushing the writer only when the reader has nothing more
//! (responses to pipelined requests share one flush; a lone request is answered at
//! once) or a job step wrote something (its progress goes out while it runs).

use embedded_io::{Read, ReadReady, Write};

use crate::device::Device;
use crate::server::Server;
use crate::wire::framing::Frames;
use crate::wire::json::{IoSink, Sink, SinkError};

/// Bytes read from the transport per call in [`serve`] (a stack buffer): 256 in the
/// plain forms (a microcontroller's stack), 4 KiB in the fast forms (a host's), where
/// most lines then arrive whole and are handled in place rather than copied into the
/// framer.
pub const READ_CHUNK: usize = if cfg!(emcp_fast) { 4096 } else { 256 };

/// Feed received bytes: frame them and handle every complete line.
pub fn feed<
    D: Device,
    F: Frames + ?Sized,
    const L: usize,
    const J: usize,
    const W: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, W, K>,
    framer: &mut F,
    mut bytes: &[u8],
    out: &mut dyn Sink,
) {
    let limit = framer.limit();
    while !bytes.is_empty() {
        let (used, frame) = framer.push(bytes);
        if let Some(frame) = frame {
            server.handle_frame_limit(frame, limit, out);
        }
        bytes = bytes.get(used..).unwrap_or(&[]);
    }
}

/// Why [`serve`] stopped.
#[derive(Debug)]
pub enum ServeError<R, W> {
    /// Reading failed.
    Read(R),
    /// Writing failed (`None`: the writer accepted nothing).
    Write(Option<W>),
}

/// What stopped; the reader's or writer's own error is the
/// [`source`](core::error::Error::source).
impl<R, W> core::fmt::Display for ServeError<R, W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ServeError::Read(_) => "reading the input failed",
            ServeError::Write(Some(_)) => "writing the output failed",
            ServeError::Write(None) => "the output accepted no byte",
        })
    }
}

impl<R, W> core::error::Error for ServeError<R, W>
where
    R: core::error::Error + 'static,
    W: core::error::Error + 'static,
{
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            ServeError::Read(e) => Some(e),
            ServeError::Write(Some(e)) => Some(e),
            ServeError::Write(None) => None,
        }
    }
}

/// Serve one connection until the reader reports end of input (`Ok(0)`).
///
/// Pending jobs run while no input waits. The writer is flushed when the reader has
/// nothing more (pipelined requests' responses share one flush), before jobs run on,
/// and after each job step that wrote (a slow job's progress goes out as it happens).
/// At end of input a final unterminated line is still handled and pending jobs run to
/// completion, so nothing accepted is lost; tasks (feature `tasks`) are cancelled
/// then, as no one is left to fetch them.
pub fn serve<D, F, R, W, const L: usize, const J: usize, const WAIT: usize, const K: usize>(
    server: &mut Server<D, L, J, WAIT, K>,
    framer: &mut F,
    reader: &mut R,
    writer: &mut W,
) -> Result<(), ServeError<R::Error, W::Error>>
where
    D: Device,
    F: Frames + ?Sized,
    R: Read + ReadReady,
    W: Write,
{
    let mut buf = [0u8; READ_CHUNK];
    let mut out = IoSink::new(writer);
    loop {
        let mut ready = reader.read_ready().map_err(ServeError::Read)?;
        if !ready {
            // The answers so far go out before jobs run on: a job (or a task) that
            // runs long must not hold back the answers to other requests.
            flush(&mut out)?;
        }
        while server.busy() && !ready {
            step(server, &mut out)?;
            ready = reader.read_ready().map_err(ServeError::Read)?;
        }
        let n = reader.read(&mut buf).map_err(ServeError::Read)?;
        if n == 0 {
            if let Some(frame) = framer.finish() {
                server.handle_frame(frame, &mut out);
            }
            // No one is left to fetch a task: the drain below waits for jobs only.
            server.end_tasks();
            check(&mut out)?;
            while step(server, &mut out)? {}
            return flush(&mut out);
        }
        feed(server, framer, buf.get(..n).unwrap_or(&[]), &mut out);
        server.poll(&mut out);
        check(&mut out)?;
    }
}

/// One [`Server::poll`] while no input waits; returns [`Server::busy`]. What the jobs
/// wrote (progress, log messages, results) is flushed at once, so a long job's progress
/// reaches the client while the job runs, not with its result.
fn step<D, R, W, const L: usize, const J: usize, const WAIT: usize, const K: usize>(
    server: &mut Server<D, L, J, WAIT, K>,
    out: &mut IoSink<&mut W>,
) -> Result<bool, ServeError<R, W::Error>>
where
    D: Device,
    W: Write,
{
    let mut noted = Noted {
        sink: out,
        wrote: false,
    };
    let busy = server.poll(&mut noted);
    let wrote = noted.wrote;
    check(out)?;
    if wrote {
        flush(out)?;
    }
    Ok(busy)
}

/// A sink that notes whether anything was written through it.
struct Noted<'s> {
    sink: &'s mut dyn Sink,
    wrote: bool,
}

impl Sink for Noted<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.wrote = true;
        self.sink.write(bytes)
    }
    fn mark(&mut self) {
        self.sink.mark();
    }
    fn rollback(&mut self) -> bool {
        self.sink.rollback()
    }
    fn can_rollback(&self) -> bool {
        self.sink.can_rollback()
    }
    fn route(&mut self, request: Option<&[u8]>) {
        self.sink.route(request);
    }
    fn failed(&mut self, error: SinkError) {
        self.sink.failed(error);
    }
}

fn check<R, W: Write>(out: &mut IoSink<&mut W>) -> Result<(), ServeError<R, W::Error>> {
    match out.take_error() {
        Some(e) => Err(ServeError::Write(e)),
        None => Ok(()),
    }
}

fn flush<R, W: Write>(out: &mut IoSink<&mut W>) -> Result<(), ServeError<R, W::Error>> {
    out.writer().flush().map_err(|e| ServeError::Write(Some(e)))
}
