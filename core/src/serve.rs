//! The I/O edge: feeding bytes to a server, and a blocking `embedded-io` serve loop.
//!
//! [`feed`] is the sans-IO entry for any transport (a UART interrupt's ring buffer, a
//! C caller): bytes of any chunking in, every resulting line out. [`serve`] runs a whole
//! connection over an `embedded_io` reader and writer, running pending tool jobs while
//! no input is waiting and flushing the writer only when the reader has nothing more
//! (responses to pipelined requests share one flush; a lone request is answered at
//! once).

use embedded_io::{Read, ReadReady, Write};

use crate::device::Device;
use crate::framing::Framer;
use crate::json::{Sink, SinkError};
use crate::server::Server;

/// Bytes read from the transport per call in [`serve`] (a stack buffer).
pub const READ_CHUNK: usize = 256;

/// Feed received bytes: frame them and handle every complete line.
pub fn feed<D: Device, const N: usize, const L: usize, const J: usize>(
    server: &mut Server<D, L, J>,
    framer: &mut Framer<N>,
    mut bytes: &[u8],
    out: &mut dyn Sink,
) {
    while !bytes.is_empty() {
        let (used, frame) = framer.push(bytes);
        if let Some(frame) = frame {
            server.handle_frame(frame, out);
        }
        bytes = bytes.get(used..).unwrap_or(&[]);
    }
}

/// A [`Sink`] over an `embedded_io` writer that remembers the writer's first error.
pub struct WriteSink<'w, W: Write> {
    writer: &'w mut W,
    error: Option<W::Error>,
}

impl<'w, W: Write> WriteSink<'w, W> {
    /// Wrap a writer.
    pub fn new(writer: &'w mut W) -> Self {
        Self {
            writer,
            error: None,
        }
    }
    /// The first write error, if any (taken).
    pub fn take_error(&mut self) -> Option<W::Error> {
        self.error.take()
    }
    /// Flush the writer.
    pub fn flush(&mut self) -> Result<(), W::Error> {
        self.writer.flush()
    }
}

impl<W: Write> Sink for WriteSink<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        if self.error.is_some() {
            return Err(SinkError::Io);
        }
        self.writer.write_all(bytes).map_err(|e| {
            self.error = Some(e);
            SinkError::Io
        })
    }
}

/// Why [`serve`] stopped.
#[derive(Debug)]
pub enum ServeError<R, W> {
    /// Reading failed.
    Read(R),
    /// Writing failed.
    Write(W),
}

/// Serve one connection until the reader reports end of input (`Ok(0)`).
///
/// At end of input a final unterminated line is still handled and pending jobs run to
/// completion, so nothing accepted is lost.
pub fn serve<D, R, W, const N: usize, const L: usize, const J: usize>(
    server: &mut Server<D, L, J>,
    framer: &mut Framer<N>,
    reader: &mut R,
    writer: &mut W,
) -> Result<(), ServeError<R::Error, W::Error>>
where
    D: Device,
    R: Read + ReadReady,
    W: Write,
{
    let mut buf = [0u8; READ_CHUNK];
    let mut out = WriteSink::new(writer);
    loop {
        let mut ready = reader.read_ready().map_err(ServeError::Read)?;
        while server.busy() && !ready {
            server.poll(&mut out);
            check(&mut out)?;
            ready = reader.read_ready().map_err(ServeError::Read)?;
        }
        if !ready {
            out.flush().map_err(ServeError::Write)?;
        }
        let n = reader.read(&mut buf).map_err(ServeError::Read)?;
        if n == 0 {
            if let Some(frame) = framer.finish() {
                server.handle_frame(frame, &mut out);
            }
            while server.poll(&mut out) {
                check(&mut out)?;
            }
            check(&mut out)?;
            return out.flush().map_err(ServeError::Write);
        }
        feed(server, framer, buf.get(..n).unwrap_or(&[]), &mut out);
        server.poll(&mut out);
        check(&mut out)?;
    }
}

fn check<R, W: Write>(out: &mut WriteSink<'_, W>) -> Result<(), ServeError<R, W::Error>> {
    match out.take_error() {
        Some(e) => Err(ServeError::Write(e)),
        None => Ok(()),
    }
}
