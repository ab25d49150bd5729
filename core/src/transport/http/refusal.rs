//! Refusals: every error status the transport answers without a JSON-RPC body
//! carries a one-line `text/plain` body saying why, such as
//! `403 Forbidden: Host "evil.example" is not this device`.
//!
//! The text is written straight to the connection, twice through the same code:
//! once to count its bytes for `Content-Length`, once to send it. A value the
//! client sent (its `Host` or `Origin`) is shown bounded: at most [`SHOWN_MAX`]
//! bytes, and any byte that cannot be part of a host name, a port or a URL's
//! scheme (anything but ASCII letters, digits and `.-_:[]/%`) shown as `?`, so that
//! the body is one short line that can carry no control bytes, quotes or markup.

use super::reply::digits;
use super::Status;
use crate::wire::json::{Sink, SinkError};

/// Most bytes of a client's `Host` or `Origin` shown in a refusal (then `...`).
pub const SHOWN_MAX: usize = 64;

/// Why a request is refused: its status and what its body says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal<'a> {
    /// The status, with its general reason (`400 Bad Request: malformed request
    /// head`).
    Status(Status),
    /// 403: the request has no `Host`.
    NoHost,
    /// 403: the `Host` (this value) is not one of the device's names.
    Host(&'a [u8]),
    /// 403: the `Origin` (this value) is not one of the device's names.
    Origin(&'a [u8]),
    /// 404: the path is not the endpoint (this one).
    Path(&'a str),
    /// 404: the `Mcp-Session-Id` is not the current session.
    Session,
    /// 413: the body is over this many bytes.
    TooLarge(usize),
    /// 408: the request did not complete within this many milliseconds.
    Timeout(u32),
    /// 503: every one of this many connections is busy.
    Busy(usize),
}

impl Refusal<'_> {
    /// The status answered.
    pub fn status(&self) -> Status {
        match *self {
            Refusal::Status(status) => status,
            Refusal::NoHost | Refusal::Host(_) | Refusal::Origin(_) => Status::Forbidden,
            Refusal::Path(_) | Refusal::Session => Status::NotFound,
            Refusal::TooLarge(_) => Status::PayloadTooLarge,
            Refusal::Timeout(_) => Status::RequestTimeout,
            Refusal::Busy(_) => Status::ServiceUnavailable,
        }
    }

    /// Header lines the status calls for (`Retry-After`, `WWW-Authenticate`,
    /// `Allow`), each ending in CRLF.
    fn extra(&self) -> &'static [u8] {
        match self.status() {
            Status::ServiceUnavailable => b"Retry-After: 1\r\n",
            Status::Unauthorized => b"WWW-Authenticate: Bearer\r\n",
            Status::MethodNotAllowed => b"Allow: POST\r\n",
            _ => b"",
        }
    }

    /// The body: the status line's code and phrase, `: `, the reason, a newline.
    ///
    /// # Errors
    ///
    /// The sink's.
    pub fn write_text(&self, out: &mut dyn Sink) -> Result<(), SinkError> {
        let mut n = [0u8; 20];
        out.write(self.status().line())?;
        out.write(b": ")?;
        match *self {
            Refusal::Status(status) => out.write(reason(status))?,
            Refusal::NoHost => out.write(b"no Host header")?,
            Refusal::Host(value) => {
                out.write(b"Host \"")?;
                shown(value, out)?;
                out.write(b"\" is not this device")?;
            }
            Refusal::Origin(value) => {
                out.write(b"Origin \"")?;
                shown(value, out)?;
                out.write(b"\" is not this device")?;
            }
            Refusal::Path(endpoint) => {
                out.write(b"this device serves MCP at ")?;
                shown(endpoint.as_bytes(), out)?;
            }
            Refusal::Session => {
                out.write(b"no session with this Mcp-Session-Id (initialize again)")?
            }
            Refusal::TooLarge(max) => {
                out.write(b"body over ")?;
                out.write(digits(max, 10, &mut n))?;
                out.write(b" bytes")?;
            }
            Refusal::Timeout(ms) => {
                out.write(b"request not complete within ")?;
                if ms >= 1000 && ms % 1000 == 0 {
                    out.write(digits(ms as usize / 1000, 10, &mut n))?;
                    out.write(b" s")?;
                } else {
                    out.write(digits(ms as usize, 10, &mut n))?;
                    out.write(b" ms")?;
                }
            }
            Refusal::Busy(connections) => {
                out.write(b"all ")?;
                out.write(digits(connections, 10, &mut n))?;
                out.write(b" connections busy, retry after 1 s")?;
            }
        }
        out.write(b"\n")
    }

    /// The length of [`Refusal::write_text`]'s body in bytes.
    pub fn text_len(&self) -> usize {
        let mut count = Count(0);
        let _ = self.write_text(&mut count);
        count.0
    }

    /// Write the whole response: head (`text/plain`, its `Content-Length`, the
    /// status's extra headers, `Connection: close` unless `keep_alive`) and body.
    /// Stops at the sink's first error.
    pub fn respond(&self, conn: &mut dyn Sink, keep_alive: bool) {
        let mut n = [0u8; 20];
        let len = self.text_len();
        let parts: [&[u8]; 6] = [
            b"HTTP/1.1 ",
            self.status().line(),
            b"\r\nContent-Type: text/plain\r\nContent-Length: ",
            digits(len, 10, &mut n),
            b"\r\n",
            self.extra(),
        ];
        let end: &[u8] = if keep_alive {
            b"\r\n"
        } else {
            b"Connection: close\r\n\r\n"
        };
        for part in parts.into_iter().chain([end]) {
            if conn.write(part).is_err() {
                return;
            }
        }
        let _ = self.write_text(conn);
    }
}

/// The general reason for a status.
fn reason(status: Status) -> &'static [u8] {
    match status {
        Status::BadRequest => b"malformed request head",
        Status::Unauthorized => b"this device needs \"Authorization: Bearer <token>\"",
        Status::Forbidden => b"Host or Origin is not this device",
        Status::NotFound => b"no such path or session",
        Status::MethodNotAllowed => b"use POST (GET and DELETE need an Mcp-Session-Id)",
        Status::NotAcceptable => b"Accept must allow application/json or text/event-stream",
        Status::RequestTimeout => b"request not complete in time",
        Status::LengthRequired => b"POST without Content-Length",
        Status::PayloadTooLarge => b"body too large",
        Status::UnsupportedMediaType => b"Content-Type must be application/json",
        Status::HeadersTooLarge => b"request head too large",
        Status::NotImplemented => b"Transfer-Encoding on a request (send Content-Length)",
        Status::ServiceUnavailable => b"all connections busy, retry after 1 s",
        Status::InternalError => b"the answer does not fit the device's buffer",
        Status::Ok | Status::Accepted => b"not a refusal",
    }
}

/// Write a client's value bounded: [`SHOWN_MAX`] bytes at most (then `...`), bytes
/// outside `[A-Za-z0-9.-_:[]/%]` as `?`. One write of a stack copy.
fn shown(value: &[u8], out: &mut dyn Sink) -> Result<(), SinkError> {
    let mut buf = [0u8; SHOWN_MAX + 3];
    let mut len = 0;
    for (d, &b) in buf.iter_mut().zip(value.iter().take(SHOWN_MAX)) {
        let plain = b.is_ascii_alphanumeric() || b".-_:[]/%".contains(&b);
        *d = if plain { b } else { b'?' };
        len += 1;
    }
    if value.len() > SHOWN_MAX {
        for d in buf.iter_mut().skip(len) {
            *d = b'.';
        }
        len = buf.len();
    }
    out.write(buf.get(..len).unwrap_or_default())
}

/// A sink that only counts.
struct Count(usize);

impl Sink for Count {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0 += bytes.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::wire::json::SliceSink;
    use std::borrow::ToOwned;
    use std::string::String;

    fn respond(why: Refusal<'_>, keep_alive: bool) -> String {
        let mut buf = [0u8; 512];
        let mut out = SliceSink::new(&mut buf);
        why.respond(&mut out, keep_alive);
        String::from_utf8(out.written().to_vec()).unwrap()
    }

    /// The body, after checking that `Content-Length` is its length.
    fn body(response: &str) -> &str {
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(len, body.len(), "{response}");
        assert!(head.contains("\r\nContent-Type: text/plain\r\n"));
        body
    }

    #[test]
    fn each_refusal_says_why_in_one_line() {
        let cases: [(Refusal<'_>, &str); 10] = [
            (
                Refusal::Session,
                "404 Not Found: no session with this Mcp-Session-Id (initialize again)\n",
            ),
            (
                Refusal::Host(b"evil.example"),
                "403 Forbidden: Host \"evil.example\" is not this device\n",
            ),
            (
                Refusal::Origin(b"http://evil.example:8080"),
                "403 Forbidden: Origin \"http://evil.example:8080\" is not this device\n",
            ),
            (
                Refusal::Status(Status::Unauthorized),
                "401 Unauthorized: this device needs \"Authorization: Bearer <token>\"\n",
            ),
            (
                Refusal::TooLarge(2048),
                "413 Payload Too Large: body over 2048 bytes\n",
            ),
            (
                Refusal::Timeout(30_000),
                "408 Request Timeout: request not complete within 30 s\n",
            ),
            (
                Refusal::Timeout(1500),
                "408 Request Timeout: request not complete within 1500 ms\n",
            ),
            (
                Refusal::Busy(4),
                "503 Service Unavailable: all 4 connections busy, retry after 1 s\n",
            ),
            (
                Refusal::Path("/mcp"),
                "404 Not Found: this device serves MCP at /mcp\n",
            ),
            (Refusal::NoHost, "403 Forbidden: no Host header\n"),
        ];
        for (why, text) in cases {
            let r = respond(why, false);
            assert!(r.starts_with("HTTP/1.1 "), "{r}");
            assert!(r.contains("Connection: close\r\n"), "{r}");
            assert_eq!(body(&r), text);
            assert_eq!(why.text_len(), text.len());
        }
        let r = respond(Refusal::Busy(4), false);
        assert!(r.contains("\r\nRetry-After: 1\r\n"), "{r}");
        let r = respond(Refusal::Status(Status::Unauthorized), true);
        assert!(r.contains("\r\nWWW-Authenticate: Bearer\r\n"), "{r}");
        assert!(!r.contains("Connection: close"), "{r}");
    }

    #[test]
    fn every_error_status_has_a_reason() {
        use Status::*;
        for status in [
            BadRequest,
            Unauthorized,
            Forbidden,
            NotFound,
            MethodNotAllowed,
            NotAcceptable,
            RequestTimeout,
            LengthRequired,
            PayloadTooLarge,
            UnsupportedMediaType,
            HeadersTooLarge,
            InternalError,
            NotImplemented,
            ServiceUnavailable,
        ] {
            let r = respond(Refusal::Status(status), false);
            let text = body(&r);
            let line = core::str::from_utf8(status.line()).unwrap();
            assert!(text.starts_with(&std::format!("{line}: ")), "{text}");
            assert!(text.len() > line.len() + 10, "{text}");
            assert_eq!(text.matches('\n').count(), 1, "{text}");
            assert!(text.ends_with('\n'));
        }
    }

    #[test]
    fn a_client_value_is_shown_bounded_and_plain() {
        let text = body(&respond(
            Refusal::Host(b"<script>\"x\r\n\x00\xff.example:80"),
            false,
        ))
        .to_owned();
        assert_eq!(
            text,
            "403 Forbidden: Host \"?script??x????.example:80\" is not this device\n"
        );
        let long = [b'a'; 500];
        let text = body(&respond(Refusal::Host(&long), false)).to_owned();
        let shown = std::format!("{}...", "a".repeat(SHOWN_MAX));
        assert_eq!(
            text,
            std::format!("403 Forbidden: Host \"{shown}\" is not this device\n")
        );
        let text = body(&respond(Refusal::Host(b""), false)).to_owned();
        assert_eq!(text, "403 Forbidden: Host \"\" is not this device\n");
    }

    #[test]
    fn the_longest_refusal_fits_a_small_buffer() {
        // The async transport answers refusals from a 320-byte buffer.
        let long = [b'a'; 500];
        for why in [
            Refusal::Origin(&long),
            Refusal::Status(Status::HeadersTooLarge),
            Refusal::Busy(usize::MAX),
            Refusal::Timeout(u32::MAX),
            Refusal::TooLarge(usize::MAX),
        ] {
            let r = respond(why, false);
            assert!(r.len() <= 320, "{} {r}", r.len());
            body(&r);
        }
    }
}
