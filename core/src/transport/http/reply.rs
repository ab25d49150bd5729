//! The response to one POST: its status line and framing are chosen from the first
//! line the server writes, so that any response streams through a fixed buffer.
//!
//! - Nothing written (a notification or a client's response): `202 Accepted`.
//! - One JSON-RPC response that fits the buffer: `application/json` with a
//!   `Content-Length`, and for 2026-07-28 the HTTP status of its error code
//!   ([`status_of`]).
//! - Notifications before the response (progress, log messages), or a listen stream:
//!   `text/event-stream`, one `event: message` per line, chunked.
//! - A response larger than the buffer: `200` `application/json`, chunked.

use super::Status;
use crate::wire::json::{self, Sink, SinkError};
use crate::wire::version::Era;

/// How far the reply has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Nothing decided: the first line is being collected in the buffer.
    Collecting,
    /// The first line is complete in the buffer and is the response.
    Held,
    /// Head sent: one JSON document, chunked.
    Json,
    /// Head sent: an SSE stream, chunked.
    Events,
}

/// A [`Sink`] that frames what the server writes as one HTTP response on `conn`.
pub struct Reply<'a> {
    conn: &'a mut dyn Sink,
    buf: &'a mut [u8],
    len: usize,
    mode: Mode,
    era: Era,
    keep_alive: bool,
    session_id: Option<&'a [u8]>,
    /// In [`Mode::Events`]: the next byte starts a line.
    line_start: bool,
    /// Lines after the response of a [`Mode::Json`] reply have nowhere to go.
    closed: bool,
    /// The connection refused a write: [`SinkError::Io`] (nothing more is written),
    /// or [`SinkError::Full`] (a fixed buffer: until [`Sink::rollback`]).
    failed: Option<SinkError>,
    /// The state at the last [`Sink::mark`], and whether bytes went to the connection
    /// since.
    marked: Marked,
}

/// What [`Reply`] restores on [`Sink::rollback`].
#[derive(Clone, Copy, Debug)]
struct Marked {
    len: usize,
    mode: Mode,
    line_start: bool,
    closed: bool,
    sent: bool,
}

/// The HTTP status of a 2026-07-28 JSON-RPC error response (200 for results).
pub fn status_of(code: Option<i64>) -> Status {
    use crate::wire::error::code;
    match code.and_then(|c| i32::try_from(c).ok()) {
        None => Status::Ok,
        Some(code::METHOD_NOT_FOUND) => Status::NotFound,
        Some(code::INTERNAL_ERROR) => Status::InternalError,
        Some(_) => Status::BadRequest,
    }
}

impl<'a> Reply<'a> {
    /// A reply on `conn` that collects its first line in `buf` (at least 64 bytes to
    /// be useful; a line longer than `buf` is streamed chunked). `era`: the era the
    /// request is served in (in 2026-07-28 its errors get their HTTP status).
    pub fn new(conn: &'a mut dyn Sink, buf: &'a mut [u8], era: Era, keep_alive: bool) -> Self {
        Reply {
            conn,
            buf,
            len: 0,
            mode: Mode::Collecting,
            era,
            keep_alive,
            session_id: None,
            line_start: true,
            closed: false,
            failed: None,
            marked: Marked {
                len: 0,
                mode: Mode::Collecting,
                line_start: true,
                closed: false,
                sent: false,
            },
        }
    }

    /// Send `Mcp-Session-Id: id` with the head.
    pub fn session_id(&mut self, id: &'a [u8]) {
        self.session_id = Some(id);
    }

    /// Send the head of an event stream now, before any line (a GET stream).
    pub fn open_stream(&mut self) {
        if self.mode == Mode::Collecting && self.len == 0 {
            self.head(Status::Ok, Body::Events);
            self.mode = Mode::Events;
        }
    }

    /// True once the response is an event stream (a listen stream stays open).
    pub fn is_stream(&self) -> bool {
        self.mode == Mode::Events
    }

    /// Finish the reply. `keep_open`: leave an event stream open (a listen stream;
    /// later lines go out with [`event`], the end with [`end_stream`]). Returns false
    /// when the connection failed.
    pub fn finish(mut self, keep_open: bool) -> bool {
        if keep_open {
            // An open stream is an event stream from its first line on.
            match self.mode {
                Mode::Collecting if self.len == 0 => self.open_stream(),
                Mode::Collecting => self.start_events(false),
                Mode::Held => self.start_events(true),
                Mode::Json | Mode::Events => {}
            }
        }
        match self.mode {
            Mode::Collecting if self.len == 0 => {
                self.head(Status::Accepted, Body::Empty);
            }
            Mode::Collecting | Mode::Held => {
                let line = self.buf.get(..self.len).unwrap_or_default();
                let status = if self.era.is_stateless() {
                    status_of(error_code(line))
                } else {
                    Status::Ok
                };
                self.head(status, Body::Json(self.len));
                self.send_buffered(false);
            }
            Mode::Json if self.closed => {} // ended with its line
            Mode::Json => {
                self.send_buffered(true);
                self.put(b"0\r\n\r\n");
            }
            Mode::Events => {
                self.send_buffered(true);
                if !keep_open {
                    self.put(b"0\r\n\r\n");
                }
            }
        }
        self.failed.is_none()
    }

    fn head(&mut self, status: Status, body: Body) {
        self.put(b"HTTP/1.1 ");
        self.put(status.line());
        self.put(b"\r\n");
        match body {
            Body::Empty => self.put(b"Content-Length: 0\r\n"),
            Body::Json(n) => {
                self.put(b"Content-Type: application/json\r\nContent-Length: ");
                let mut buf = [0u8; 20];
                self.put(digits(n, 10, &mut buf));
                self.put(b"\r\n");
            }
            Body::Chunked => {
                self.put(b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n")
            }
            Body::Events => self.put(
                b"Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n",
            ),
        }
        if let Some(id) = self.session_id {
            self.put(b"Mcp-Session-Id: ");
            self.put(id);
            self.put(b"\r\n");
        }
        if !self.keep_alive {
            self.put(b"Connection: close\r\n");
        }
        self.put(b"\r\n");
    }

    /// Write to the connection, remembering a failure.
    fn put(&mut self, bytes: &[u8]) {
        if self.failed.is_none() {
            self.marked.sent = true;
            self.failed = self.conn.write(bytes).err();
        }
    }

    /// Send the buffered bytes (as one chunk when `chunked`) and empty the buffer.
    fn send_buffered(&mut self, chunked: bool) {
        let bytes = self.buf.get(..self.len).unwrap_or_default();
        self.len = 0;
        if self.failed.is_some() || bytes.is_empty() {
            return;
        }
        self.marked.sent = true;
        let result = if chunked {
            chunk(self.conn, bytes)
        } else {
            self.conn.write(bytes)
        };
        self.failed = result.err();
    }

    /// Append to the buffer, sending chunks whenever it is full (streaming modes).
    fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && self.failed.is_none() {
            if self.len == self.buf.len() {
                self.send_buffered(true);
            }
            let room = self.buf.len() - self.len;
            if room == 0 {
                // A zero-length buffer: send directly.
                self.marked.sent = true;
                self.failed = chunk(self.conn, bytes).err();
                return;
            }
            let (now, rest) = bytes.split_at(room.min(bytes.len()));
            if let Some(dst) = self.buf.get_mut(self.len..self.len + now.len()) {
                dst.copy_from_slice(now);
            }
            self.len += now.len();
            bytes = rest;
        }
    }

    /// Whether the collected first line is a notification (the server writes
    /// notifications as `{"jsonrpc":"2.0","method":…` and responses with `"id"` first).
    fn holds_notification(&self) -> bool {
        self.buf
            .get(..self.len)
            .is_some_and(|b| b.starts_with(NOTIFICATION))
    }

    /// Whether the collected start of a first line longer than the buffer is a
    /// message that is not the response, and so opens an event stream: a
    /// notification, or a request to the client (the server numbers its own:
    /// `{"jsonrpc":"2.0","id":7,"method":…`).
    fn holds_message(&self) -> bool {
        let b = self.buf.get(..self.len).unwrap_or_default();
        let request = b.strip_prefix(REQUEST_ID).is_some_and(|rest| {
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            digits > 0 && rest.get(digits..).is_some_and(|r| r.starts_with(METHOD))
        });
        request || b.starts_with(NOTIFICATION)
    }

    /// Switch to an event stream: the head, then the collected text as the first
    /// event's data (`complete`: that line has ended).
    fn start_events(&mut self, complete: bool) {
        self.head(Status::Ok, Body::Events);
        self.mode = Mode::Events;
        if self.failed.is_none() {
            self.failed = chunk(self.conn, EVENT_PREFIX).err();
        }
        self.line_start = false;
        if complete {
            self.push(EVENT_END);
            self.send_buffered(true);
            self.line_start = true;
        }
    }

    /// Switch to a chunked JSON body for a response larger than the buffer.
    fn start_json(&mut self) {
        self.head(Status::Ok, Body::Chunked);
        self.mode = Mode::Json;
        self.send_buffered(true);
    }
}

const NOTIFICATION: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\"";
const REQUEST_ID: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";
const METHOD: &[u8] = b",\"method\"";
/// What starts one event of an event stream, before its JSON-RPC message.
pub const EVENT_PREFIX: &[u8] = b"event: message\r\ndata: ";
/// What ends one event, after its message.
pub const EVENT_END: &[u8] = b"\r\n\r\n";

/// The part of `bytes` up to a newline, the rest after it, and whether there was one.
fn split_line(bytes: &[u8]) -> (&[u8], &[u8], bool) {
    match bytes.iter().position(|&b| b == b'\n') {
        Some(i) => (
            bytes.get(..i).unwrap_or_default(),
            bytes.get(i + 1..).unwrap_or_default(),
            true,
        ),
        None => (bytes, &[], false),
    }
}

impl Sink for Reply<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let mut rest = bytes;
        while !rest.is_empty() && self.failed.is_none() {
            match self.mode {
                Mode::Collecting => {
                    let (part, tail, ends) = split_line(rest);
                    if self.len + part.len() > self.buf.len() {
                        // Longer than the buffer: stream it from here.
                        if self.holds_message() {
                            self.start_events(false);
                        } else {
                            self.start_json();
                        }
                        continue;
                    }
                    if let Some(dst) = self.buf.get_mut(self.len..self.len + part.len()) {
                        dst.copy_from_slice(part);
                    }
                    self.len += part.len();
                    rest = tail;
                    if ends {
                        if self.holds_notification() {
                            self.start_events(true);
                        } else {
                            self.mode = Mode::Held;
                        }
                    }
                }
                // A line after the response (a resource update): both go as events.
                Mode::Held => self.start_events(true),
                Mode::Json => {
                    if self.closed {
                        break; // after the response: nowhere to go on a JSON body
                    }
                    let (part, tail, ends) = split_line(rest);
                    self.push(part);
                    rest = tail;
                    self.closed = ends;
                    if ends {
                        // The response is whole: its last chunk and the body's end go
                        // now, while the server still watches for a full connection.
                        self.send_buffered(true);
                        self.put(b"0\r\n\r\n");
                    }
                }
                Mode::Events => {
                    let (part, tail, ends) = split_line(rest);
                    if self.line_start {
                        self.push(EVENT_PREFIX);
                        self.line_start = false;
                    }
                    self.push(part);
                    rest = tail;
                    if ends {
                        self.push(EVENT_END);
                        self.send_buffered(true);
                        self.line_start = true;
                    }
                }
            }
        }
        match self.failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Marks the connection too, so that a response that runs a fixed buffer full
    /// (`emcp::transport::asynch`'s transmit buffer) can be taken back.
    fn mark(&mut self) {
        self.marked = Marked {
            len: self.len,
            mode: self.mode,
            line_start: self.line_start,
            closed: self.closed,
            sent: false,
        };
        self.conn.mark();
    }

    /// Back to the last mark: at once when nothing was sent since (the text is still
    /// in the buffer), otherwise when the connection takes back what it was sent (and
    /// the buffer held nothing at the mark, so nothing of it was lost).
    fn rollback(&mut self) -> bool {
        let m = self.marked;
        if m.sent && (m.len != 0 || !self.conn.rollback()) {
            return false;
        }
        self.len = m.len;
        self.mode = m.mode;
        self.line_start = m.line_start;
        self.closed = m.closed;
        self.marked.sent = false;
        if self.failed == Some(SinkError::Full) {
            self.failed = None;
        }
        true
    }
}

/// How the body of a head is delimited.
enum Body {
    Empty,
    Json(usize),
    Chunked,
    Events,
}

/// Write `bytes` as one chunk of a chunked body.
fn chunk(conn: &mut dyn Sink, bytes: &[u8]) -> Result<(), SinkError> {
    if bytes.is_empty() {
        return Ok(());
    }
    let mut hex = [0u8; 20];
    conn.write(digits(bytes.len(), 16, &mut hex))?;
    conn.write(b"\r\n")?;
    conn.write(bytes)?;
    conn.write(b"\r\n")
}

/// Send `line` (one JSON-RPC message, without its newline) as one event of an open
/// event stream (a listen stream left open by [`Reply::finish`]).
///
/// # Errors
///
/// The connection's error.
pub fn event(conn: &mut dyn Sink, line: &[u8]) -> Result<(), SinkError> {
    chunk(conn, EVENT_PREFIX)?;
    chunk(conn, line)?;
    chunk(conn, EVENT_END)
}

/// End an open event stream.
///
/// # Errors
///
/// The connection's error.
pub fn end_stream(conn: &mut dyn Sink) -> Result<(), SinkError> {
    conn.write(b"0\r\n\r\n")
}

/// The line that starts a chunk of `len` bytes in a chunked body: `len` in lowercase
/// hex, then CRLF, in `buf`.
///
/// ```
/// let mut buf = [0u8; 20];
/// assert_eq!(emcp::transport::http::reply::chunk_head(26, &mut buf), b"1a\r\n");
/// ```
pub fn chunk_head(len: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut hex = [0u8; 20];
    let digits = digits(len, 16, &mut hex);
    let n = digits.len().min(18);
    for (d, s) in buf.iter_mut().zip(digits.iter().chain(b"\r\n")) {
        *d = *s;
    }
    buf.get(..n + 2).unwrap_or_default()
}

/// `n` in `base` (10 or 16, lowercase), in `buf`.
pub(super) fn digits(mut n: usize, base: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            *d = b"0123456789abcdef".get(n % base).copied().unwrap_or(b'0');
        }
        n /= base;
        if n == 0 || i == 0 {
            break;
        }
    }
    buf.get(i..).unwrap_or_default()
}

/// The `error.code` of a response line, if it is an error.
fn error_code(line: &[u8]) -> Option<i64> {
    json::parse(line).ok()?.get("error")?.get("code")?.as_i64()
}
