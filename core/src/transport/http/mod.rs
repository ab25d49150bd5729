//! Streamable HTTP (cargo feature `http`): one POST endpoint on any byte-stream
//! connection, still `no_std` and heap-free.
//!
//! Sans-IO like the rest of the crate: the caller reads bytes from a connection into
//! a buffer and calls [`serve`], which answers the first complete request in it
//! through a [`Sink`] writing to that connection and says how many bytes it used.
//! A request head is parsed by `httparse` ([`head`]); the response's status and
//! framing are chosen from what the server writes ([`reply`]).
//!
//! | request | answer |
//! |---|---|
//! | head over the buffer, > [`head::MAX_HEADERS`] lines | 431, close |
//! | no room for another connection (the caller's bound, via [`reject`]) | 503 with `Retry-After: 1`, close |
//! | malformed head, bad `Content-Length` | 400, close |
//! | `Transfer-Encoding` on a request | 501, close |
//! | POST without `Content-Length` | 411, close |
//! | body over [`Policy::max_body`] | 413, close |
//! | path other than [`Policy::endpoint`] | 404 |
//! | `Host` or `Origin` not loopback, in [`Policy::hosts`] nor [`Policy::own`] | 403 |
//! | [`Policy::bearer`] set, `Authorization: Bearer` missing or another token | 401 |
//! | GET with the current session / another session | 200 event stream, kept open / 404 |
//! | GET without a session, or a method other than POST/DELETE | 405 |
//! | DELETE of the current session / of another / without one | 200 / 404 / 405 |
//! | `Content-Type` not `application/json` | 415 |
//! | `Accept` without `application/json`, `text/event-stream` or `*/*` | 406 |
//! | `Mcp-Session-Id` not the current session | 404 |
//! | 2026-07-28: `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` missing or unlike the body | 400, -32020 |
//! | notification or client response | 202 |
//! | anything else | the server's answer: JSON, or SSE when notifications precede it |
//!
//! **Refusals say why.** Every status above from 400 on, except the -32020 one
//! (which has its JSON-RPC error), carries a one-line `text/plain` body naming the
//! reason ([`Refusal`]): `403 Forbidden: Host "evil.example" is not this device`,
//! `413 Payload Too Large: body over 2048 bytes`.
//!
//! **Era.** A request is served in the legacy era when it carries
//! `Mcp-Session-Id`, or when its body has no `_meta` protocol version and the
//! `MCP-Protocol-Version` header is absent or a dated version up to 2025-11-25;
//! otherwise as 2026-07-28, where the server's `_meta` checks apply (-32602, then
//! -32020 from the headers, then -32022).
//!
//! **Sessions (legacy era).** `initialize` starts a session: its response carries
//! `Mcp-Session-Id`. One session at a time: a new `initialize` replaces the old one.

pub mod head;
pub mod policy;
pub mod refusal;
pub mod reply;
mod session;

use crate::device::Device;
use crate::server::{Era, Server};
use crate::wire::json::{Sink, Str, Value};
use crate::wire::rpc::{self, Message};
use crate::wire::version::Version;
pub use policy::{allowed_host, allowed_origin, OwnHost, Policy};
pub use refusal::Refusal;
use reply::Reply;
pub use session::{Sessions, SESSION_ID_LEN};

/// The HTTP statuses this transport sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// 200.
    Ok,
    /// 202: a notification or a client's response was accepted.
    Accepted,
    /// 400.
    BadRequest,
    /// 401: [`Policy::bearer`] is set and the request lacks that token.
    Unauthorized,
    /// 403: `Host` or `Origin` not allowed (DNS-rebinding protection).
    Forbidden,
    /// 404: another path, an unknown session, or (2026-07-28) method not found.
    NotFound,
    /// 405.
    MethodNotAllowed,
    /// 406: the client accepts neither JSON nor SSE.
    NotAcceptable,
    /// 408: a request did not arrive in time (a stalled client; the caller's bound).
    RequestTimeout,
    /// 411: a POST without `Content-Length`.
    LengthRequired,
    /// 413: body over [`Policy::max_body`].
    PayloadTooLarge,
    /// 415: body not `application/json`.
    UnsupportedMediaType,
    /// 431: head over the buffer or [`head::MAX_HEADERS`].
    HeadersTooLarge,
    /// 500: -32603.
    InternalError,
    /// 501: a chunked request body.
    NotImplemented,
    /// 503: no room for another connection ([`reject`] adds `Retry-After: 1`).
    ServiceUnavailable,
}

impl Status {
    /// The numeric code.
    pub fn code(self) -> u16 {
        match self {
            Status::Ok => 200,
            Status::Accepted => 202,
            Status::BadRequest => 400,
            Status::Unauthorized => 401,
            Status::Forbidden => 403,
            Status::NotFound => 404,
            Status::MethodNotAllowed => 405,
            Status::NotAcceptable => 406,
            Status::RequestTimeout => 408,
            Status::LengthRequired => 411,
            Status::PayloadTooLarge => 413,
            Status::UnsupportedMediaType => 415,
            Status::HeadersTooLarge => 431,
            Status::InternalError => 500,
            Status::NotImplemented => 501,
            Status::ServiceUnavailable => 503,
        }
    }

    /// Code and reason phrase, as in a status line.
    pub fn line(self) -> &'static [u8] {
        match self {
            Status::Ok => b"200 OK",
            Status::Accepted => b"202 Accepted",
            Status::BadRequest => b"400 Bad Request",
            Status::Unauthorized => b"401 Unauthorized",
            Status::Forbidden => b"403 Forbidden",
            Status::NotFound => b"404 Not Found",
            Status::MethodNotAllowed => b"405 Method Not Allowed",
            Status::NotAcceptable => b"406 Not Acceptable",
            Status::RequestTimeout => b"408 Request Timeout",
            Status::LengthRequired => b"411 Length Required",
            Status::PayloadTooLarge => b"413 Payload Too Large",
            Status::UnsupportedMediaType => b"415 Unsupported Media Type",
            Status::HeadersTooLarge => b"431 Request Header Fields Too Large",
            Status::InternalError => b"500 Internal Server Error",
            Status::NotImplemented => b"501 Not Implemented",
            Status::ServiceUnavailable => b"503 Service Unavailable",
        }
    }
}

/// What [`serve`] did with the buffered input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served<'a> {
    /// No complete request yet: read more into the same buffer. When the buffer is
    /// already full, answer with [`reject`] (431) and close the connection.
    Incomplete,
    /// A request was answered; the first `consumed` bytes belonged to it.
    /// `keep_alive`: the connection may carry another request.
    Done {
        /// Bytes of the input used.
        consumed: usize,
        /// Keep the connection open.
        keep_alive: bool,
    },
    /// The response is an event stream that stays open: a `subscriptions/listen`
    /// stream, a request still served by a pending job, or (empty `request`) an
    /// legacy-era session's GET stream. Its further lines are the
    /// [`crate::Server::poll`] output routed ([`crate::wire::json::Sink::route`]) to
    /// `request` (`None` for the session's stream); send each with [`reply::event`],
    /// and after the final response of an `until_response` stream end it with
    /// [`reply::end_stream`]. The connection carries nothing else meanwhile.
    Stream {
        /// Bytes of the input used.
        consumed: usize,
        /// The request's id as JSON text (a listen stream's subscription id); empty
        /// for the session's GET stream.
        request: &'a [u8],
        /// The stream ends with the response to `request` (not a listen or GET stream).
        until_response: bool,
    },
}

/// Answer the first request in `input` (bytes read from one connection, starting at a
/// request boundary) on `conn`. `scratch` holds the first response line while the
/// status is chosen (≥ 256 bytes recommended; longer responses stream). `input`
/// should hold at least a head and [`Policy::max_body`].
pub fn serve<'a, D: Device, const L: usize, const J: usize, const W: usize, const K: usize>(
    server: &mut Server<D, L, J, W, K>,
    sessions: &mut Sessions,
    policy: &Policy,
    input: &'a [u8],
    scratch: &mut [u8],
    conn: &mut dyn Sink,
) -> Served<'a> {
    let close = |conn: &mut dyn Sink, why: Refusal<'_>| -> Served<'a> {
        why.respond(conn, false);
        Served::Done {
            consumed: input.len(),
            keep_alive: false,
        }
    };
    let head = match head::parse(input) {
        Ok(Some(head)) => head,
        Ok(None) => return Served::Incomplete,
        Err(status) => return close(conn, Refusal::Status(status)),
    };
    let keep_alive = head.keep_alive;
    let answer = |conn: &mut dyn Sink, why: Refusal<'_>, consumed: usize| -> Served<'a> {
        why.respond(conn, keep_alive);
        Served::Done {
            consumed,
            keep_alive,
        }
    };
    let path = head.path.split('?').next().unwrap_or("");
    let too_large = Refusal::TooLarge(policy.max_body);
    let body_len = match head.method {
        head::Method::Post => match head.content_length {
            _ if head.transfer_encoding => {
                return close(conn, Refusal::Status(Status::NotImplemented))
            }
            None => return close(conn, Refusal::Status(Status::LengthRequired)),
            Some(n) if n > policy.max_body => return close(conn, too_large),
            Some(n) => n,
        },
        _ => head.content_length.unwrap_or(0),
    };
    let Some(total) = head.len.checked_add(body_len) else {
        return close(conn, too_large);
    };
    let Some(body) = input.get(head.len..total) else {
        return Served::Incomplete;
    };
    if path != policy.endpoint {
        return answer(conn, Refusal::Path(policy.endpoint), total);
    }
    let foreign = match (head.host, head.origin) {
        (None, _) => Some(Refusal::NoHost),
        (Some(host), _) if !policy.allows_host(host) => Some(Refusal::Host(host)),
        (_, Some(origin)) if !policy.allows_origin(origin) => Some(Refusal::Origin(origin)),
        _ => None,
    };
    if let Some(why) = foreign {
        return answer(conn, why, total);
    }
    if let Some(token) = policy.bearer {
        let presented = head
            .authorization
            .and_then(|a| {
                a.get(..7)
                    .filter(|s| s.eq_ignore_ascii_case(b"bearer "))
                    .and(a.get(7..))
            })
            .map(head::trim);
        if !presented.is_some_and(|p| policy::same_secret(p, token.as_bytes())) {
            return answer(conn, Refusal::Status(Status::Unauthorized), total);
        }
    }
    let session_ok = head
        .session_id
        .is_none_or(|s| sessions.current() == Some(s));
    let unknown_session = Refusal::Session;
    match head.method {
        head::Method::Post => {}
        head::Method::Delete if head.session_id.is_some() && session_ok => {
            sessions.end();
            server.reset();
            simple(conn, Status::Ok, keep_alive);
            return Served::Done {
                consumed: total,
                keep_alive,
            };
        }
        head::Method::Delete if head.session_id.is_some() => {
            return answer(conn, unknown_session, total);
        }
        head::Method::Get if head.session_id.is_some() && session_ok => {
            // The session's stream of server-initiated messages (resource updates).
            let mut reply = Reply::new(conn, scratch, Era::Legacy, true);
            reply.open_stream();
            return Served::Stream {
                consumed: total,
                request: b"",
                until_response: false,
            };
        }
        head::Method::Get if head.session_id.is_some() => {
            return answer(conn, unknown_session, total);
        }
        _ => return answer(conn, Refusal::Status(Status::MethodNotAllowed), total),
    }
    if !head
        .content_type
        .is_some_and(|t| head::has_token(t, b"application/json"))
    {
        return answer(conn, Refusal::Status(Status::UnsupportedMediaType), total);
    }
    let acceptable = head.accept.is_none_or(|a| {
        [&b"application/json"[..], b"text/event-stream", b"*/*"]
            .iter()
            .any(|t| head::has_token(a, t))
    });
    if !acceptable {
        return answer(conn, Refusal::Status(Status::NotAcceptable), total);
    }
    if !session_ok {
        return answer(conn, unknown_session, total);
    }

    let message = rpc::parse(body).ok();
    let (method, params) = match message {
        Some(Message::Request(r)) => (Some(r.method), r.params),
        Some(Message::Notification(n)) => (Some(n.method), n.params),
        _ => (None, None),
    };
    let meta_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(|v| v.as_str());
    let legacy = head.session_id.is_some()
        || (meta_version.is_none() && head.protocol_version.is_none_or(is_initialize_era));
    let era = if legacy { Era::Legacy } else { Era::Stateless };

    let mut new_session = None;
    if legacy && method.is_some_and(|m| m.eq_str("initialize")) {
        new_session = Some(sessions.start());
    }
    let session: Option<&[u8]> = match &new_session {
        Some(id) => Some(&id[..]),
        None if legacy => head.session_id,
        None => None,
    };
    let mut reply = Reply::new(conn, scratch, era, keep_alive);
    if let Some(id) = session {
        reply.session_id(id);
    }
    let mismatch = match (message, meta_version) {
        (Some(Message::Request(r)), Some(version)) if !legacy => {
            headers_disagree(&head, version, r.method, r.params).then_some(r.id)
        }
        _ => None,
    };
    if let Some(id) = mismatch {
        rpc::write_error(
            &mut reply,
            Some(id),
            crate::wire::error::DispatchError::HeaderMismatch.into(),
            None,
        );
        reply.finish(false);
        return Served::Done {
            consumed: total,
            keep_alive,
        };
    }
    server.handle_in(body, Some(era), &mut reply);
    // The response stays an open event stream when it is not over: a listen stream
    // (acknowledged), or a request a pending job still serves (a long-running tool,
    // a tool waiting for the client's input) — its further lines come from
    // `Server::poll`, routed to this request's id.
    let stream = match message {
        Some(Message::Request(r)) if !legacy && r.method.eq_str("subscriptions/listen") => {
            reply.is_stream().then_some((r.id.raw(), false))
        }
        Some(Message::Request(r)) if server.is_pending(r.id.raw()) => Some((r.id.raw(), true)),
        _ => None,
    };
    reply.finish(stream.is_some());
    if let Some((request, until_response)) = stream {
        Served::Stream {
            consumed: total,
            request,
            until_response,
        }
    } else {
        Served::Done {
            consumed: total,
            keep_alive,
        }
    }
}

/// Whether a 2026-07-28 request's headers contradict its body: `MCP-Protocol-Version`
/// unlike the `_meta` version, `Mcp-Method` missing or unlike `method`, `Mcp-Name`
/// missing or unlike `params.name` (tools/call, prompts/get), `params.uri`
/// (resources/read) or `params.taskId` (tasks/get, tasks/update, tasks/cancel: checked
/// with or without the feature `tasks`, so that a bridge in front of a server with
/// tasks checks them too).
pub fn headers_disagree(
    head: &head::Head<'_>,
    version: Str<'_>,
    method: Str<'_>,
    params: Option<Value<'_>>,
) -> bool {
    let same = |header: Option<&[u8]>, value: Option<Str<'_>>| match (header, value) {
        (Some(h), Some(v)) => core::str::from_utf8(h).is_ok_and(|h| v.eq_str(h)),
        _ => false,
    };
    if head.protocol_version.is_some() && !same(head.protocol_version, Some(version)) {
        return true;
    }
    if !same(head.mcp_method, Some(method)) {
        return true;
    }
    let named = if method.eq_str("tools/call") || method.eq_str("prompts/get") {
        Some("name")
    } else if method.eq_str("resources/read") {
        Some("uri")
    } else if ["tasks/get", "tasks/update", "tasks/cancel"]
        .iter()
        .any(|m| method.eq_str(m))
    {
        Some("taskId")
    } else {
        None
    };
    named.is_some_and(|key| {
        let value = params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
        !same(head.mcp_name, value)
    })
}

/// An `MCP-Protocol-Version` header of the legacy era: a known revision before
/// 2026-07-28, or any dated version up to 2025-11-25.
///
/// ```
/// use emcp::transport::http::is_initialize_era;
/// assert!(is_initialize_era(b"2025-06-18"));
/// assert!(is_initialize_era(b"2025-01-01"));
/// assert!(!is_initialize_era(b"2026-07-28"));
/// ```
pub fn is_initialize_era(v: &[u8]) -> bool {
    if let Some(version) = Version::parse(v) {
        return !version.is_stateless();
    }
    let dated = v.len() == 10
        && v.iter().enumerate().all(|(i, &b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    dated && v <= b"2025-11-25".as_slice()
}

/// Refuse with `status` and its general reason, then close the connection (for
/// example 431 when a request does not fit the caller's buffer, or 503 when the
/// caller has no room for another connection: that answer carries `Retry-After: 1`).
/// [`refuse`] says more where the caller knows more.
pub fn reject(conn: &mut dyn Sink, status: Status) {
    refuse(conn, Refusal::Status(status));
}

/// Refuse a request and close the connection: `why`'s status, its headers and a
/// one-line `text/plain` body saying why (`503 Service Unavailable: all 4
/// connections busy, retry after 1 s`).
pub fn refuse(conn: &mut dyn Sink, why: Refusal<'_>) {
    why.respond(conn, false);
}

/// A response without a body (a DELETE that ended the session).
fn simple(conn: &mut dyn Sink, status: Status, keep_alive: bool) {
    let parts: [&[u8]; 4] = [
        b"HTTP/1.1 ",
        status.line(),
        b"\r\nContent-Length: 0\r\n",
        if keep_alive {
            b"\r\n"
        } else {
            b"Connection: close\r\n\r\n"
        },
    ];
    for part in parts {
        if conn.write(part).is_err() {
            return;
        }
    }
}
