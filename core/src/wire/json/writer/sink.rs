//! Where the writer's bytes go: the [`Sink`] trait and its implementations for a
//! caller's slice, a `heapless::Vec` and any `embedded_io::Write`.

use core::fmt;

/// Where output bytes go. Implemented by device transports (UART, socket, pipe).
pub trait Sink {
    /// Write all of `bytes` or fail.
    ///
    /// # Errors
    ///
    /// [`SinkError::Full`] when there is no room (ideally having written nothing of
    /// `bytes`), [`SinkError::Io`] when the transport failed.
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError>;

    /// Remember where the current line starts, so that a line that does not fit can be
    /// taken back whole with [`Sink::rollback`]. The default does nothing: a streaming
    /// sink (a UART, a socket) never runs full.
    fn mark(&mut self) {}

    /// Drop everything written since the last [`Sink::mark`]. Returns false when the
    /// sink cannot (the default).
    fn rollback(&mut self) -> bool {
        false
    }

    /// Whether [`Sink::rollback`] may take lines back. The server watches such a sink
    /// for running full, to take back a response that did not fit and answer with an
    /// error instead; a sink that never can (a stream) is written to directly, one
    /// indirection less per piece. The default is true (watched); [`IoSink`] says
    /// false.
    fn can_rollback(&self) -> bool {
        true
    }

    /// The lines that follow belong to the exchange of the client request whose id
    /// (JSON text) is `request` — for a `subscriptions/listen` stream, its subscription
    /// id — or, for `None`, to no request (an legacy-era session notification).
    /// A transport with one stream per request (HTTP) routes by it; a single byte
    /// stream ignores it (the default). Lines written while a request is handled
    /// belong to that request unless routed otherwise. The server calls it when built
    /// with the cargo feature `routes` (which `http` and `input` turn on).
    fn route(&mut self, _request: Option<&[u8]>) {}

    /// A [`JsonWriter`](super::JsonWriter) writing into this sink was refused by its [`Sink::write`] with
    /// `error` (the writer writes nothing after it). The default does nothing; a
    /// wrapper that watches its inner sink for an error learns of it here, and its
    /// `write` passes bytes on without looking at the answer.
    fn failed(&mut self, _error: SinkError) {}
}

/// Why a [`Sink`] refused bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SinkError {
    /// No room left (also: the writer's nesting capacity is exhausted).
    Full,
    /// The transport failed.
    Io,
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SinkError::Full => "output full",
            SinkError::Io => "output transport failed",
        })
    }
}

impl core::error::Error for SinkError {}

/// A fixed caller buffer. A write that does not fit fails with [`SinkError::Full`] and
/// writes nothing of that call.
///
/// ```
/// use emcp::wire::json::{Sink, SinkError, SliceSink};
///
/// let mut buf = [0u8; 4];
/// let mut sink = SliceSink::new(&mut buf);
/// assert_eq!(sink.write(b"abc"), Ok(()));
/// assert_eq!(sink.write(b"de"), Err(SinkError::Full));
/// assert_eq!(sink.written(), b"abc");
/// ```
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
    mark: usize,
}

impl<'b> SliceSink<'b> {
    /// An empty sink writing into `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink {
            buf,
            len: 0,
            mark: 0,
        }
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// Number of bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forget everything written; the whole buffer is available again.
    pub fn clear(&mut self) {
        self.len = 0;
        self.mark = 0;
    }

    /// Bytes still free.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.len)
    }

    /// Remove the first `n` written bytes (they were sent), moving the rest to the front.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.len);
        if let Some(live) = self.buf.get_mut(..self.len) {
            // One `memmove`, not a loop over bytes: a caller that drains a full
            // buffer in small takes moves the rest at every take. `n <= live.len()`
            // here, which the compiler sees: `copy_within`'s range checks, panic
            // paths otherwise, fold away.
            if n <= live.len() {
                live.copy_within(n.., 0);
            }
        }
        self.len -= n;
        self.mark = self.mark.saturating_sub(n);
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let end = self.len.checked_add(bytes.len()).ok_or(SinkError::Full)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(SinkError::Full)?;
        // A zip rather than `copy_from_slice`, whose length check is a panic path.
        for (d, &b) in dst.iter_mut().zip(bytes) {
            *d = b;
        }
        self.len = end;
        Ok(())
    }

    fn mark(&mut self) {
        self.mark = self.len;
    }

    fn rollback(&mut self) -> bool {
        self.len = self.mark.min(self.len);
        true
    }
}

/// Appends; [`SinkError::Full`] (and nothing appended) when the bytes do not fit.
impl<const N: usize> Sink for heapless::Vec<u8, N> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.extend_from_slice(bytes).map_err(|_| SinkError::Full)
    }
}

/// Appends; [`SinkError::Full`] (and nothing appended) when the bytes do not fit.
impl Sink for heapless::vec::VecView<u8> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.extend_from_slice(bytes).map_err(|_| SinkError::Full)
    }
}

/// Adapter: any [`embedded_io::Write`] is a [`Sink`]. Writes everything (like
/// `write_all`); a writer that accepts nothing becomes [`SinkError::Io`], and its first
/// error is kept for [`IoSink::take_error`]. Unlike `write_all` it cannot panic on a
/// misbehaving writer.
#[derive(Debug)]
pub struct IoSink<W: embedded_io::ErrorType> {
    writer: W,
    error: Option<Option<W::Error>>,
}

impl<W: embedded_io::Write> IoSink<W> {
    /// Wrap a writer.
    pub fn new(writer: W) -> Self {
        IoSink {
            writer,
            error: None,
        }
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut W {
        &mut self.writer
    }

    /// Whether a write failed; takes the failure: `Some(Some(e))` for the writer's
    /// error, `Some(None)` for a writer that accepted nothing.
    pub fn take_error(&mut self) -> Option<Option<W::Error>> {
        self.error.take()
    }
}

impl<W: embedded_io::Write> IoSink<W> {
    /// The rest of a write the writer did not take whole at once (`first`: its answer).
    #[cold]
    #[inline(never)]
    fn write_rest(
        &mut self,
        bytes: &[u8],
        mut first: Result<usize, W::Error>,
    ) -> Result<(), SinkError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            match first {
                Ok(0) => {
                    self.error = Some(None);
                    return Err(SinkError::Io);
                }
                Err(e) => {
                    self.error = Some(Some(e));
                    return Err(SinkError::Io);
                }
                Ok(n) => rest = rest.get(n..).unwrap_or_default(),
            }
            if !rest.is_empty() {
                first = self.writer.write(rest);
            }
        }
        Ok(())
    }
}

impl<W: embedded_io::Write> Sink for IoSink<W> {
    /// The common case, the writer taking all of `bytes` at once, on a short path.
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        if self.error.is_some() {
            return Err(SinkError::Io);
        }
        match self.writer.write(bytes) {
            Ok(n) if n == bytes.len() => Ok(()),
            first => self.write_rest(bytes, first),
        }
    }

    /// A stream: what is written is gone.
    fn can_rollback(&self) -> bool {
        false
    }
}
