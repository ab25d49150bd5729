//! One HTTP/1.1 exchange with the device over a `std` [`TcpStream`]: the request
//! written whole, the response head parsed by `httparse`, the body read as it comes
//! (`Content-Length`, chunked, or to the end of the connection), never more than the
//! caller asks for.
//!
//! Not a general client: `http://` only (the devices serve plain HTTP on a LAN), one
//! request per connection (`Connection: close`), no redirects, no proxies. Written
//! over `TcpStream` rather than taken from a client crate because the bridge needs two
//! things those hide: a handle on the socket that another thread can shut down (a
//! request the host cancels, a listen stream it closes, a timeout), and a read
//! deadline that moves while a response streams (a progress notification restarts a
//! request's clock).

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Bytes a response head may take; a longer one fails the exchange.
pub const MAX_HEAD: usize = 16 * 1024;

/// Headers a response head may have.
const MAX_HEADERS: usize = 64;

/// Longest chunk-size line of a chunked body.
const MAX_CHUNK_LINE: usize = 1024;

/// How long connecting may take when the request's own deadline is further away.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the device serves MCP: `http://HOST[:PORT]/PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// Host name or address, as written (an IPv6 address without its brackets).
    pub host: String,
    /// Port (80 when not written).
    pub port: u16,
    /// Path and query (`/mcp`; `/` when not written).
    pub path: String,
    /// The `Host` header: host, and port when written.
    pub authority: String,
}

impl Url {
    /// Read an `http://` URL.
    ///
    /// ```
    /// use emcp_bridge::net::client::Url;
    /// let u = Url::parse("http://192.168.1.50/mcp").unwrap();
    /// assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("192.168.1.50", 80, "/mcp"));
    /// let u = Url::parse("http://[::1]:8080/mcp?x=1").unwrap();
    /// assert_eq!((u.host.as_str(), u.port, u.authority.as_str()), ("::1", 8080, "[::1]:8080"));
    /// assert!(Url::parse("https://valve.local/mcp").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// Why the text is not such a URL.
    pub fn parse(text: &str) -> Result<Url, String> {
        let Some(rest) = text.strip_prefix("http://") else {
            return Err(match text.starts_with("https://") {
                true => format!("{text}: https is not supported (the device's plain http:// URL, on a trusted network)"),
                false => format!("{text}: not an http:// URL"),
            });
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], &rest[i..]),
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_owned()
        };
        if authority.contains('@') {
            return Err(format!(
                "{text}: user information in the URL is not supported"
            ));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| format!("{text}: unclosed [ in the host"))?;
            (host, after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let port = match port {
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| format!("{text}: bad port {p:?}"))?,
            None => 80,
        };
        if host.is_empty()
            || host
                .bytes()
                .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(format!("{text}: no host"));
        }
        if path
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(format!("{text}: spaces or control characters in the path"));
        }
        Ok(Url {
            host: host.to_owned(),
            port,
            path,
            authority: authority.to_owned(),
        })
    }
}

/// Why [`send`] failed.
#[derive(Debug)]
pub enum SendError {
    /// No connection: the name did not resolve, nothing listens, the network is
    /// unreachable, or connecting took until the deadline.
    Connect(io::Error),
    /// The connection opened, then writing the request or reading the response head
    /// failed (the device closed it, reset it, or the deadline passed).
    Exchange(io::Error),
}

impl SendError {
    /// The I/O error.
    pub fn io(&self) -> &io::Error {
        match self {
            SendError::Connect(e) | SendError::Exchange(e) => e,
        }
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Connect(e) => write!(f, "connecting: {e}"),
            SendError::Exchange(e) => e.fmt(f),
        }
    }
}

/// Shuts an exchange's connection from another thread: its reads end at once.
#[derive(Debug)]
pub struct Abort(TcpStream);

impl Abort {
    /// Shut the connection both ways.
    pub fn abort(&self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }
}

/// The response to one request: status, headers, and the body as a reader.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The reason phrase.
    pub reason: String,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl Response {
    /// A header's value (the first of that name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the body is an event stream.
    pub fn is_event_stream(&self) -> bool {
        self.header("content-type").is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/event-stream"))
        })
    }
}

/// Send `method path` with `headers` and `body` to `url`; returns once the response
/// head arrived. `deadline`: the exchange fails with [`io::ErrorKind::TimedOut`] when
/// it passes (connecting, waiting for the head, and later reading the body: see
/// [`Body::set_deadline`]). `abort` receives a handle on the connection as soon as it
/// is open.
///
/// # Errors
///
/// Resolving or connecting ([`SendError::Connect`]); writing, or a response head
/// that does not come, is not HTTP/1.x or is over [`MAX_HEAD`]
/// ([`SendError::Exchange`]).
pub fn send(
    url: &Url,
    method: &str,
    headers: &[(&str, String)],
    body: &[u8],
    deadline: Option<Instant>,
    abort: impl FnOnce(Abort),
) -> Result<Response, SendError> {
    let stream = connect(url, deadline).map_err(SendError::Connect)?;
    let _ = stream.set_nodelay(true);
    abort(Abort(stream.try_clone().map_err(SendError::Connect)?));
    exchange(stream, url, method, headers, body, deadline).map_err(SendError::Exchange)
}

fn exchange(
    stream: TcpStream,
    url: &Url,
    method: &str,
    headers: &[(&str, String)],
    body: &[u8],
    deadline: Option<Instant>,
) -> io::Result<Response> {
    let mut head = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nUser-Agent: emcp-bridge/{}\r\n",
        url.path,
        url.authority,
        env!("CARGO_PKG_VERSION")
    );
    for (name, value) in headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    if method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut wire = Wire {
        stream,
        buf: vec![0; 64 * 1024],
        start: 0,
        end: 0,
        deadline,
    };
    wire.set_write_timeout()?;
    let mut message = head.into_bytes();
    message.extend_from_slice(body);
    wire.stream.write_all(&message)?;
    wire.stream.flush()?;
    read_head(wire)
}

/// One of the host name's addresses that accepts a connection before the deadline.
fn connect(url: &Url, deadline: Option<Instant>) -> io::Result<TcpStream> {
    let addrs: Vec<SocketAddr> = (url.host.as_str(), url.port).to_socket_addrs()?.collect();
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the host name has no address");
    for addr in addrs {
        let wait = match deadline {
            Some(d) => d
                .saturating_duration_since(Instant::now())
                .min(CONNECT_TIMEOUT),
            None => CONNECT_TIMEOUT,
        };
        if wait.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "timed out"));
        }
        match TcpStream::connect_timeout(&addr, wait) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The connection and its unread bytes.
struct Wire {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    deadline: Option<Instant>,
}

impl Wire {
    fn remaining(&self) -> io::Result<Option<Duration>> {
        match self.deadline {
            None => Ok(None),
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    Err(io::Error::new(io::ErrorKind::TimedOut, "timed out"))
                } else {
                    Ok(Some(left))
                }
            }
        }
    }

    fn set_write_timeout(&self) -> io::Result<()> {
        self.stream.set_write_timeout(self.remaining()?)
    }

    /// Read more into the buffer (moving unread bytes to its front); `Ok(0)` at the
    /// end of the connection, `Err` when the buffer is full.
    fn fill(&mut self) -> io::Result<usize> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "buffer full"));
        }
        loop {
            self.stream.set_read_timeout(self.remaining()?)?;
            match self.stream.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock) => {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, "timed out"));
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn unread(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// A line ending in CRLF (or LF) of at most `max` bytes, without its line end.
    fn line(&mut self, max: usize) -> io::Result<Vec<u8>> {
        loop {
            if let Some(i) = self.unread().iter().position(|&b| b == b'\n') {
                let mut line = self.unread()[..i].to_vec();
                self.start += i + 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(line);
            }
            if self.unread().len() > max {
                return Err(invalid("a chunk-size line too long"));
            }
            if self.fill()? == 0 {
                return Err(dropped());
            }
        }
    }

    /// Up to `out.len()` bytes; 0 at the end of the connection.
    fn read_some(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.unread().is_empty() && self.fill()? == 0 {
            return Ok(0);
        }
        let n = self.unread().len().min(out.len());
        out[..n].copy_from_slice(&self.unread()[..n]);
        self.start += n;
        Ok(n)
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// The connection ended in the middle of a response.
pub fn dropped() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the connection closed in the middle of the response",
    )
}

fn read_head(mut wire: Wire) -> io::Result<Response> {
    loop {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Response::new(&mut headers);
        let unread = &wire.buf[wire.start..wire.end];
        match parsed.parse(unread) {
            Ok(httparse::Status::Complete(len)) => {
                let status = parsed.code.unwrap_or(0);
                let reason = parsed.reason.unwrap_or("").to_owned();
                let headers: Vec<(String, String)> = parsed
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_ascii_lowercase(),
                            String::from_utf8_lossy(h.value).trim().to_owned(),
                        )
                    })
                    .collect();
                wire.start += len;
                if (100..200).contains(&status) {
                    continue; // 100 Continue and the like: the real head follows
                }
                let get = |name: &str| {
                    headers
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, v)| v.to_ascii_lowercase())
                };
                let framing = if get("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
                    Framing::Chunked(0)
                } else if let Some(n) = get("content-length") {
                    let n = n
                        .trim()
                        .parse::<u64>()
                        .map_err(|_| invalid("a bad Content-Length"))?;
                    Framing::Length(n)
                } else if status == 204 || status == 304 {
                    Framing::Length(0)
                } else {
                    Framing::Close
                };
                return Ok(Response {
                    status,
                    reason,
                    headers,
                    body: Body { wire, framing },
                });
            }
            Ok(httparse::Status::Partial) => {
                if wire.end - wire.start >= MAX_HEAD {
                    return Err(invalid("a response head over 16 KiB"));
                }
                if wire.fill()? == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the connection closed before a response",
                    ));
                }
            }
            Err(e) => return Err(invalid(&format!("not an HTTP response ({e})"))),
        }
    }
}

#[derive(Debug)]
enum Framing {
    /// This many bytes left.
    Length(u64),
    /// Bytes left of the current chunk (0: a chunk-size line next).
    Chunked(u64),
    /// To the end of the connection.
    Close,
    /// Read whole.
    Done,
}

/// A response body as it arrives.
pub struct Body {
    wire: Wire,
    framing: Framing,
}

impl Body {
    /// Reads fail with [`io::ErrorKind::TimedOut`] once `deadline` passes (`None`:
    /// never).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.wire.deadline = deadline;
    }

    /// The whole body, at most `max` bytes: `Err` (`InvalidData`) beyond.
    ///
    /// # Errors
    ///
    /// Reading failed, or the body is longer than `max`.
    pub fn read_max(&mut self, max: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = self.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            if out.len() + n > max {
                return Err(invalid("a response body over the bridge's limit"));
            }
            out.extend_from_slice(&buf[..n]);
        }
    }
}

impl Read for Body {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.framing {
                Framing::Done => return Ok(0),
                Framing::Close => return self.wire.read_some(out),
                Framing::Length(0) => {
                    self.framing = Framing::Done;
                }
                Framing::Length(left) => {
                    let want = out.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    let n = self.wire.read_some(&mut out[..want])?;
                    if n == 0 {
                        return Err(dropped());
                    }
                    self.framing = Framing::Length(left - n as u64);
                    return Ok(n);
                }
                Framing::Chunked(0) => {
                    let line = self.wire.line(MAX_CHUNK_LINE)?;
                    let line = if line.is_empty() {
                        // The CRLF after the previous chunk's data.
                        self.wire.line(MAX_CHUNK_LINE)?
                    } else {
                        line
                    };
                    let size = std::str::from_utf8(&line)
                        .ok()
                        .and_then(|l| l.split(';').next())
                        .and_then(|s| u64::from_str_radix(s.trim(), 16).ok())
                        .ok_or_else(|| invalid("a bad chunk size"))?;
                    if size == 0 {
                        // Trailers, up to the empty line.
                        while !self.wire.line(MAX_HEAD)?.is_empty() {}
                        self.framing = Framing::Done;
                    } else {
                        self.framing = Framing::Chunked(size);
                    }
                }
                Framing::Chunked(left) => {
                    let want = out.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    let n = self.wire.read_some(&mut out[..want])?;
                    if n == 0 {
                        return Err(dropped());
                    }
                    self.framing = Framing::Chunked(left - n as u64);
                    return Ok(n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::thread;

    /// A one-shot server answering with `response` bytes, written in small pieces.
    fn serve(response: &'static [u8]) -> Url {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            for piece in response.chunks(7) {
                if s.write_all(piece).is_err() {
                    return;
                }
                s.flush().unwrap();
            }
        });
        Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap()
    }

    fn body_of(response: &'static [u8]) -> (u16, io::Result<Vec<u8>>) {
        let url = serve(response);
        let mut r = send(&url, "POST", &[], b"{}", None, |_| {}).unwrap();
        (r.status, r.body.read_max(1 << 20))
    }

    #[test]
    fn bodies_by_length_chunks_and_close() {
        let (status, body) = body_of(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA");
        assert_eq!((status, body.unwrap()), (200, b"hello".to_vec()));
        let (_, body) = body_of(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: 1\r\n\r\n",
        );
        assert_eq!(body.unwrap(), b"abcde");
        let (_, body) = body_of(b"HTTP/1.0 404 Not Found\r\n\r\nno such session");
        assert_eq!(body.unwrap(), b"no such session");
        let (_, body) = body_of(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
        );
        assert_eq!(body.unwrap(), b"");
    }

    #[test]
    fn short_bodies_and_oversize_are_errors() {
        let (_, body) = body_of(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort");
        assert_eq!(body.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        let (_, body) = body_of(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab");
        assert_eq!(body.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        let url = serve(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789");
        let mut r = send(&url, "POST", &[], b"{}", None, |_| {}).unwrap();
        assert_eq!(
            r.body.read_max(4).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }

    #[test]
    fn a_silent_device_times_out_and_an_abort_ends_a_read() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
        thread::spawn(move || {
            let held: Vec<_> = listener.incoming().take(2).collect();
            thread::sleep(Duration::from_secs(5));
            drop(held);
        });
        let deadline = Some(Instant::now() + Duration::from_millis(100));
        let e = send(&url, "POST", &[], b"{}", deadline, |_| {})
            .err()
            .unwrap();
        assert!(matches!(&e, SendError::Exchange(e) if e.kind() == io::ErrorKind::TimedOut));
        let (tx, rx) = std::sync::mpsc::channel();
        let reader =
            thread::spawn(move || send(&url, "POST", &[], b"{}", None, |a| tx.send(a).unwrap()));
        let abort = rx.recv().unwrap();
        abort.abort();
        assert!(reader.join().unwrap().is_err());
    }

    #[test]
    fn connect_refused_is_an_error() {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let url = Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
        let e = send(&url, "POST", &[], b"{}", None, |_| {}).err().unwrap();
        assert!(
            matches!(&e, SendError::Connect(e) if e.kind() == io::ErrorKind::ConnectionRefused)
        );
    }
}
