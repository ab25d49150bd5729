//! The request head: method, path and the headers MCP cares about, parsed by
//! `httparse` from the connection's buffer without copying.

use super::Status;

/// Most header lines a request may carry (more → 431).
pub const MAX_HEADERS: usize = 32;

/// The HTTP method of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `POST`: a JSON-RPC message in the body.
    Post,
    /// `GET`: the legacy era's server-to-client stream (not offered: 405).
    Get,
    /// `DELETE`: end an legacy-era session.
    Delete,
    /// Anything else (405).
    Other,
}

/// A parsed request head. Header values are the raw bytes of the first occurrence,
/// with surrounding whitespace trimmed.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    /// The method.
    pub method: Method,
    /// The request target as sent (`/mcp`, `/mcp?x=1`).
    pub path: &'a str,
    /// `Host`.
    pub host: Option<&'a [u8]>,
    /// `Origin`.
    pub origin: Option<&'a [u8]>,
    /// `Content-Type`.
    pub content_type: Option<&'a [u8]>,
    /// `Accept`.
    pub accept: Option<&'a [u8]>,
    /// `Content-Length`, when present and a valid decimal number.
    pub content_length: Option<usize>,
    /// A `Transfer-Encoding` header was present (request bodies must have a length).
    pub transfer_encoding: bool,
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a [u8]>,
    /// `Mcp-Method`.
    pub mcp_method: Option<&'a [u8]>,
    /// `Mcp-Name`.
    pub mcp_name: Option<&'a [u8]>,
    /// `Mcp-Session-Id`.
    pub session_id: Option<&'a [u8]>,
    /// `Authorization`.
    pub authorization: Option<&'a [u8]>,
    /// False when the client asked to close (`Connection: close`, or HTTP/1.0
    /// without `Connection: keep-alive`).
    pub keep_alive: bool,
    /// Length of the head in bytes, up to and including the blank line.
    pub len: usize,
}

/// Parse a request head from the start of `buf`.
///
/// `Ok(None)`: the head is not complete yet (read more, unless `buf` is already full,
/// which the caller answers with 431). `Err(status)`: answer with that status and
/// close the connection.
///
/// ```
/// use emcp::transport::http::head::{parse, Method};
/// let req = b"POST /mcp HTTP/1.1\r\nHost: localhost:80\r\nContent-Length: 2\r\n\r\n{}";
/// let head = parse(req).unwrap().unwrap();
/// assert_eq!(head.method, Method::Post);
/// assert_eq!(head.content_length, Some(2));
/// assert_eq!(&req[head.len..], b"{}");
/// assert!(parse(b"POST /mcp HTTP/1.1\r\nHost: x").unwrap().is_none());
/// ```
pub fn parse(buf: &[u8]) -> Result<Option<Head<'_>>, Status> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let len = match req.parse(buf) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(Status::HeadersTooLarge),
        Err(_) => return Err(Status::BadRequest),
    };
    let method = match req.method {
        Some("POST") => Method::Post,
        Some("GET") => Method::Get,
        Some("DELETE") => Method::Delete,
        _ => Method::Other,
    };
    let mut head = Head {
        method,
        path: req.path.unwrap_or(""),
        host: None,
        origin: None,
        content_type: None,
        accept: None,
        content_length: None,
        transfer_encoding: false,
        protocol_version: None,
        mcp_method: None,
        mcp_name: None,
        session_id: None,
        authorization: None,
        keep_alive: req.version == Some(1),
        len,
    };
    for h in req.headers.iter() {
        let value = trim(h.value);
        let slot = match key(h.name) {
            Key::Host => &mut head.host,
            Key::Origin => &mut head.origin,
            Key::ContentType => &mut head.content_type,
            Key::Accept => &mut head.accept,
            Key::ProtocolVersion => &mut head.protocol_version,
            Key::McpMethod => &mut head.mcp_method,
            Key::McpName => &mut head.mcp_name,
            Key::SessionId => &mut head.session_id,
            Key::Authorization => &mut head.authorization,
            Key::ContentLength => {
                let n = parse_decimal(value).ok_or(Status::BadRequest)?;
                if head.content_length.is_some_and(|m| m != n) {
                    return Err(Status::BadRequest);
                }
                head.content_length = Some(n);
                continue;
            }
            Key::TransferEncoding => {
                head.transfer_encoding = true;
                continue;
            }
            Key::Connection => {
                if has_token(value, b"close") {
                    head.keep_alive = false;
                } else if has_token(value, b"keep-alive") {
                    head.keep_alive = true;
                }
                continue;
            }
            Key::Other => continue,
        };
        if slot.is_none() {
            *slot = Some(value);
        }
    }
    Ok(Some(head))
}

/// The headers [`parse`] keeps.
#[derive(Clone, Copy)]
enum Key {
    Host,
    Origin,
    ContentType,
    Accept,
    ContentLength,
    TransferEncoding,
    Connection,
    ProtocolVersion,
    McpMethod,
    McpName,
    SessionId,
    Authorization,
    Other,
}

/// Which kept header `name` is (names compare without regard to case).
fn key(name: &str) -> Key {
    const KEYS: [(&str, Key); 12] = [
        ("host", Key::Host),
        ("origin", Key::Origin),
        ("content-type", Key::ContentType),
        ("accept", Key::Accept),
        ("content-length", Key::ContentLength),
        ("transfer-encoding", Key::TransferEncoding),
        ("connection", Key::Connection),
        ("mcp-protocol-version", Key::ProtocolVersion),
        ("mcp-method", Key::McpMethod),
        ("mcp-name", Key::McpName),
        ("mcp-session-id", Key::SessionId),
        ("authorization", Key::Authorization),
    ];
    KEYS.iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n))
        .map_or(Key::Other, |&(_, k)| k)
}

/// Strip optional whitespace around a header value.
pub(crate) fn trim(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// A decimal number of at most 9 digits (bodies are far smaller).
fn parse_decimal(v: &[u8]) -> Option<usize> {
    if v.is_empty() || v.len() > 9 {
        return None;
    }
    v.iter().try_fold(0usize, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + usize::from(b - b'0'))
    })
}

/// Whether a comma-separated header value contains `token` (case-insensitive).
pub fn has_token(value: &[u8], token: &[u8]) -> bool {
    value.split(|&b| b == b',').any(|t| {
        let t = trim(t);
        let t = t.split(|&b| b == b';').next().map_or(t, trim);
        t.eq_ignore_ascii_case(token)
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn headers_case_insensitive_first_wins_and_trimmed() {
        let req = b"POST /mcp HTTP/1.1\r\nhOsT: a\r\nMCP-NAME:  x \r\nmcp-name: y\r\nConnection: close\r\nContent-Length: 10\r\n\r\n";
        let h = parse(req).unwrap().unwrap();
        assert_eq!(h.host, Some(&b"a"[..]));
        assert_eq!(h.mcp_name, Some(&b"x"[..]));
        assert!(!h.keep_alive);
        assert_eq!(h.content_length, Some(10));
        assert_eq!(h.len, req.len());
    }

    #[test]
    fn bad_heads() {
        assert_eq!(
            parse(b"POST /mcp HTTP/1.1\r\nContent-Length: x\r\n\r\n").unwrap_err(),
            Status::BadRequest
        );
        assert_eq!(
            parse(b"POST /mcp HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
                .unwrap_err(),
            Status::BadRequest
        );
        assert_eq!(
            parse(b"\x01\x02 / HTTP/1.1\r\n\r\n").unwrap_err(),
            Status::BadRequest
        );
        let mut many = std::vec::Vec::new();
        many.extend_from_slice(b"POST / HTTP/1.1\r\n");
        for _ in 0..MAX_HEADERS + 1 {
            many.extend_from_slice(b"X: y\r\n");
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(parse(&many).unwrap_err(), Status::HeadersTooLarge);
        let h = parse(b"GET /mcp HTTP/1.0\r\n\r\n").unwrap().unwrap();
        assert_eq!(h.method, Method::Get);
        assert!(!h.keep_alive);
    }

    #[test]
    fn tokens() {
        assert!(has_token(
            b"application/json, text/event-stream",
            b"text/event-stream"
        ));
        assert!(has_token(
            b"application/json; charset=utf-8",
            b"application/json"
        ));
        assert!(!has_token(b"application/jsonx", b"application/json"));
    }
}
