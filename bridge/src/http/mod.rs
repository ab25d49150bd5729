//! The host side over Streamable HTTP: `emcp-bridge --http ADDR …` serves the device
//! at `http://ADDR/mcp`.
//!
//! The core's transport ([`emcp::transport::http`]) serves an in-process `Server`; here the
//! server is a device behind a link, so the bridge keeps the core's pieces that do
//! not need one — request heads and their limits ([`emcp::transport::http::head`]), statuses,
//! and the response framing that picks JSON or SSE from the first line
//! ([`emcp::transport::http::reply::Reply`]) — and puts the relay where the core calls the
//! server: a request body goes through the [`mux::Mux`] (a bridge id of its own) and
//! the [`crate::relay::Relay`] to the device, and the device's lines for it come back
//! into the `Reply`.
//!
//! Checks, in the core's order: 431/400/501/411/413 (head, length), 404 (path), 403
//! (`Host`/`Origin` not loopback), GET/DELETE of the initialize-era session, 415
//! (`Content-Type`), 406 (`Accept`), 404 (unknown `Mcp-Session-Id`), and for
//! 2026-07-28 requests -32020 when `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name`
//! contradict the body. Not offered: a bearer token (bind to loopback, or put a
//! proxy in front).
//!
//! **Sessions.** One initialize-era session at a time, as in the core: an
//! `initialize` starts it (its response carries `Mcp-Session-Id`), the bridge holds
//! the device's session for it (and replays it after a device reset), and a GET
//! with the session id opens its stream of server-initiated messages.

pub mod mux;

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use emcp::transport::http::head::{self, has_token, Head, Method};
use emcp::transport::http::reply::{self, Reply};
use emcp_host::Tcp;

use emcp::transport::http::{
    self as core_http, allowed_host, allowed_origin, is_initialize_era, Refusal, Sessions, Status,
};
use emcp::wire::error::RequestError;
use emcp::wire::json::Sink;
use emcp::wire::rpc;
use emcp::wire::version::Era;

use crate::link::Link;
use crate::message::{self, Kind, Message};
use crate::pump::{self, Event, Options};
use mux::{Delivery, HttpEvent, Mux};

/// Bytes a request head may take (431 beyond).
pub const MAX_HEAD: usize = 8 * 1024;

/// Largest request body (413 beyond).
pub const MAX_BODY: usize = 1 << 20;

/// Connections served at once; one more is answered 503.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a connection may sit without a complete request.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

const ENDPOINT: &str = "/mcp";

/// Serve the device behind `link` at `http://addr/mcp` until accepting fails.
/// `hosts`: names allowed in `Host` and `Origin` besides loopback (a bridge reached
/// over a network lists the names clients use for it).
///
/// # Errors
///
/// Binding failed.
pub fn serve(
    link: Box<dyn Link>,
    addr: &str,
    hosts: Vec<String>,
    options: Options,
) -> io::Result<()> {
    let listener = TcpListener::bind(addr)?;
    eprintln!(
        "emcp-bridge: {} served at http://{}{ENDPOINT}",
        link.describe(),
        listener.local_addr()?
    );
    let (tx, rx) = mpsc::channel::<Event<HttpEvent>>();
    let shared = Arc::new(Shared {
        tx: Mutex::new(tx.clone()),
        session: Mutex::new(Sessions::new(emcp_host::session_seed())),
        next_id: AtomicU64::new(0),
        open: AtomicUsize::new(0),
        hosts,
        line_max: options.relay.line_max,
    });
    thread::spawn(move || accept(&listener, &shared));
    pump::run_side(link, tx, &rx, &mut Mux::new(), options)
}

struct Shared {
    tx: Mutex<Sender<Event<HttpEvent>>>,
    /// The initialize-era session (one at a time, as in the core).
    session: Mutex<Sessions>,
    next_id: AtomicU64,
    open: AtomicUsize,
    hosts: Vec<String>,
    /// The device's line buffer ([`crate::relay::Config::line_max`]).
    line_max: usize,
}

impl Shared {
    fn send(&self, event: HttpEvent) {
        let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let _ = tx.send(Event::Side(event));
    }
}

fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        if shared.open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
            core_http::reject(&mut Tcp(&mut stream), Status::ServiceUnavailable);
            continue;
        }
        shared.open.fetch_add(1, Ordering::AcqRel);
        let shared = Arc::clone(shared);
        thread::spawn(move || {
            if let Err(e) = connection(stream, &shared) {
                if !matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe
                ) {
                    eprintln!("emcp-bridge: connection: {e}");
                }
            }
            shared.open.fetch_sub(1, Ordering::AcqRel);
        });
    }
}

/// What one request did to its connection.
enum Next {
    /// Serve the next request on it.
    KeepAlive,
    /// Close it.
    Close,
}

fn connection(mut stream: TcpStream, shared: &Shared) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    stream.set_read_timeout(Some(IDLE_TIMEOUT))?;
    let mut buf = vec![0u8; MAX_HEAD + MAX_BODY];
    let mut len = 0;
    loop {
        // Answer every complete request in the buffer.
        loop {
            let head = match head::parse(&buf[..len]) {
                Ok(Some(head)) => head,
                Ok(None) if len == buf.len() => {
                    core_http::reject(&mut Tcp(&mut stream), Status::HeadersTooLarge);
                    return Ok(());
                }
                Ok(None) => break,
                Err(status) => {
                    core_http::reject(&mut Tcp(&mut stream), status);
                    return Ok(());
                }
            };
            let body_len = match head.method {
                Method::Post if head.transfer_encoding => {
                    return reject(&mut stream, Status::NotImplemented)
                }
                Method::Post => match head.content_length {
                    None => return reject(&mut stream, Status::LengthRequired),
                    Some(n) if n > MAX_BODY => {
                        core_http::refuse(&mut Tcp(&mut stream), Refusal::TooLarge(MAX_BODY));
                        return Ok(());
                    }
                    Some(n) => n,
                },
                _ => head.content_length.unwrap_or(0).min(MAX_BODY),
            };
            let total = head.len + body_len;
            if total > len {
                break; // the body is still coming
            }
            let body = buf[head.len..total].to_vec();
            let next = request(&mut stream, shared, &head, &body)?;
            let keep_alive = head.keep_alive;
            buf.copy_within(total..len, 0);
            len -= total;
            if matches!(next, Next::Close) || !keep_alive {
                let _ = stream.shutdown(Shutdown::Write);
                return Ok(());
            }
        }
        let Some(n) = emcp_host::read_more(&mut stream, &mut buf[len..])? else {
            return Ok(());
        };
        len += n;
    }
}

fn reject(stream: &mut TcpStream, status: Status) -> io::Result<()> {
    core_http::reject(&mut Tcp(stream), status);
    Ok(())
}

/// A response without a body.
fn simple(
    stream: &mut TcpStream,
    status: Status,
    keep_alive: bool,
    extra: &str,
) -> io::Result<Next> {
    let connection = if keep_alive {
        ""
    } else {
        "Connection: close\r\n"
    };
    let status = String::from_utf8_lossy(status.line()).into_owned();
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: 0\r\n{extra}{connection}\r\n"
    )?;
    Ok(if keep_alive {
        Next::KeepAlive
    } else {
        Next::Close
    })
}

/// Refuse a request with a body saying why (the core's [`Refusal`]).
fn refused(stream: &mut TcpStream, why: Refusal<'_>, keep_alive: bool) -> io::Result<Next> {
    why.respond(&mut Tcp(stream), keep_alive);
    Ok(if keep_alive {
        Next::KeepAlive
    } else {
        Next::Close
    })
}

/// Answer one request.
fn request(
    stream: &mut TcpStream,
    shared: &Shared,
    head: &Head<'_>,
    body: &[u8],
) -> io::Result<Next> {
    let keep = head.keep_alive;
    let path = head.path.split('?').next().unwrap_or("");
    if path != ENDPOINT {
        return refused(stream, Refusal::Path(ENDPOINT), keep);
    }
    let hosts: Vec<&str> = shared.hosts.iter().map(String::as_str).collect();
    let hosts = &hosts[..];
    let foreign = match (head.host, head.origin) {
        (None, _) => Some(Refusal::NoHost),
        (Some(h), _) if !allowed_host(h, hosts) => Some(Refusal::Host(h)),
        (_, Some(o)) if !allowed_origin(o, hosts) => Some(Refusal::Origin(o)),
        _ => None,
    };
    if let Some(why) = foreign {
        return refused(stream, why, keep);
    }
    let current = shared
        .session
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .current()
        .map(<[u8]>::to_vec);
    let session_ok = head
        .session_id
        .is_none_or(|s| current.as_deref() == Some(s));
    match head.method {
        Method::Post => {}
        Method::Delete if head.session_id.is_some() && session_ok => {
            shared
                .session
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .end();
            return simple(stream, Status::Ok, keep, "");
        }
        Method::Get if head.session_id.is_some() && session_ok => {
            return session_stream(stream, shared);
        }
        Method::Delete | Method::Get if head.session_id.is_some() => {
            return refused(stream, Refusal::Session, keep);
        }
        _ => return refused(stream, Refusal::Status(Status::MethodNotAllowed), keep),
    }
    if !head
        .content_type
        .is_some_and(|t| has_token(t, b"application/json"))
    {
        return refused(stream, Refusal::Status(Status::UnsupportedMediaType), keep);
    }
    let acceptable = head.accept.is_none_or(|a| {
        [&b"application/json"[..], b"text/event-stream", b"*/*"]
            .iter()
            .any(|t| has_token(a, t))
    });
    if !acceptable {
        return refused(stream, Refusal::Status(Status::NotAcceptable), keep);
    }
    if !session_ok {
        return refused(stream, Refusal::Session, keep);
    }

    // The core's rules (`Message::from_host`): a request is what the core answers
    // with its id. A body longer than the device's line buffer is, to the device, a
    // line too long: answered here as the core would (an id-null answer from the
    // device would name no request).
    let msg = match body.len() > shared.line_max {
        true => Message::rejected(RequestError::TooLong),
        false => Message::from_host(body),
    };
    let meta_version = msg
        .meta("io.modelcontextprotocol/protocolVersion")
        .filter(|v| v.starts_with('"'));
    let legacy = head.session_id.is_some()
        || (meta_version.is_none() && head.protocol_version.is_none_or(is_initialize_era));
    let mut session = head
        .session_id
        .map(|s| String::from_utf8_lossy(s).into_owned());
    if legacy && msg.method() == "initialize" && msg.kind == Kind::Request {
        let id = shared
            .session
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .start();
        session = Some(String::from_utf8_lossy(&id).into_owned());
    }
    let mut scratch = vec![0u8; 64 * 1024];
    let mut conn = Tcp(stream);
    let era = if legacy { Era::Legacy } else { Era::Stateless };
    let mut reply = Reply::new(&mut conn, &mut scratch, era, keep);
    if let Some(id) = &session {
        reply.session_id(id.as_bytes());
    }
    if let (Kind::Other, Some(error)) = (&msg.kind, msg.rejected) {
        // What the core answers with id null (not JSON, a batch, an id it cannot
        // echo, a line too long): its own error line, written here as the core writes
        // it.
        match error {
            RequestError::TooLong => {
                let _ = reply.write(&message::too_long_line(shared.line_max));
                let _ = reply.write(b"\n");
            }
            _ => rpc::write_error(&mut reply, None, error.into(), None),
        }
        return finish(reply.finish(false), keep);
    }
    if msg.kind != Kind::Request {
        // A notification, or a client's answer to a device request: 202.
        shared.send(HttpEvent::Forward(msg.into_one_line()));
        return finish(reply.finish(false), keep);
    }
    if let (false, Some(_)) = (legacy, &meta_version) {
        if disagrees(head, body) {
            let id = msg.id.as_deref().unwrap_or("null");
            let line = message::error_line(id, -32020, "Header does not match the request body");
            let _ = reply.write(&line);
            let _ = reply.write(b"\n");
            return finish(reply.finish(false), keep);
        }
    }
    let listen = msg.method() == "subscriptions/listen";
    let n = shared.next_id.fetch_add(1, Ordering::AcqRel) + 1;
    let bridge = Mux::bridge_id(n);
    // The client's bytes with the bridge's id (and progress token): the device sees
    // what the client sent, malformed parts and all, and answers it as it would.
    let sent = mux::for_device(&msg, &bridge);
    if sent.line().len() > shared.line_max {
        // Within the limit as sent, over it with the bridge's id.
        let _ = reply.write(&message::too_long_line(shared.line_max));
        let _ = reply.write(b"\n");
        return finish(reply.finish(false), keep);
    }
    let (tx, rx) = mpsc::channel();
    shared.send(HttpEvent::Request {
        message: msg,
        sent,
        bridge: bridge.clone(),
        reply: tx,
    });
    // Lines for this request until its response; a listen stream stays open after
    // its first line until the client leaves.
    loop {
        match rx.recv() {
            Ok(Delivery::Line(line)) => {
                // Not the response, so the reply is an event stream from here on. Said
                // before the line is written: the `Reply` would take a request of the
                // device (`{"jsonrpc":"2.0","id":…,"method":"elicitation/create"…}`)
                // for the response and hold it until the next line — which comes only
                // after the client has answered it.
                reply.open_stream();
                let _ = reply.write(&line);
                let _ = reply.write(b"\n");
                if listen {
                    if !reply.finish(true) {
                        shared.send(HttpEvent::Closed(bridge));
                        return Ok(Next::Close);
                    }
                    return listen_stream(conn.0, shared, &bridge, &rx);
                }
            }
            Ok(Delivery::Last(line)) => {
                let _ = reply.write(&line);
                let _ = reply.write(b"\n");
                return finish(reply.finish(false), keep);
            }
            Err(_) => {
                // Dropped without a response (a cancelled request): end what was sent.
                reply.finish(false);
                return Ok(Next::Close);
            }
        }
    }
}

fn finish(ok: bool, keep: bool) -> io::Result<Next> {
    if ok && keep {
        Ok(Next::KeepAlive)
    } else {
        Ok(Next::Close)
    }
}

/// An open listen stream: its lines as events until its response or the client
/// leaves.
fn listen_stream(
    stream: &mut TcpStream,
    shared: &Shared,
    bridge: &str,
    rx: &mpsc::Receiver<Delivery>,
) -> io::Result<Next> {
    watch_close(stream, shared, Some(bridge.to_owned()))?;
    for delivery in rx {
        let (line, last) = match delivery {
            Delivery::Line(l) => (l, false),
            Delivery::Last(l) => (l, true),
        };
        let sent = reply::event(&mut Tcp(stream), &line).is_ok();
        if last {
            let _ = reply::end_stream(&mut Tcp(stream));
        }
        if !sent || last {
            break;
        }
    }
    Ok(Next::Close)
}

/// The initialize-era session's GET stream: server-initiated messages as events.
fn session_stream(stream: &mut TcpStream, shared: &Shared) -> io::Result<Next> {
    let mut scratch = [0u8; 256];
    let mut conn = Tcp(stream);
    Reply::new(&mut conn, &mut scratch, Era::Legacy, true).open_stream();
    let (tx, rx) = mpsc::channel();
    shared.send(HttpEvent::SessionStream(tx));
    watch_close(conn.0, shared, None)?;
    for delivery in rx {
        let (Delivery::Line(line) | Delivery::Last(line)) = delivery;
        if reply::event(&mut Tcp(conn.0), &line).is_err() {
            break;
        }
    }
    Ok(Next::Close)
}

/// When the client closes a stream's connection: tell the pump (a listen stream is
/// cancelled on the device), and shut the connection so the stream's writer ends.
fn watch_close(stream: &TcpStream, shared: &Shared, bridge: Option<String>) -> io::Result<()> {
    let mut reader = stream.try_clone()?;
    reader.set_read_timeout(None)?;
    let tx = shared.tx.lock().unwrap_or_else(|p| p.into_inner()).clone();
    thread::spawn(move || {
        let mut sink = [0u8; 256];
        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
        let _ = reader.shutdown(Shutdown::Both);
        if let Some(bridge) = bridge {
            let _ = tx.send(Event::Side(HttpEvent::Closed(bridge)));
        } else {
            // The session stream's sender is replaced by the next GET; a closed one
            // is dropped when a delivery to it fails.
        }
    });
    Ok(())
}

/// Whether a 2026-07-28 request's headers contradict its body: the core's check
/// ([`core_http::headers_disagree`]) on the body as the core's scanner reads it.
fn disagrees(head: &Head<'_>, body: &[u8]) -> bool {
    let Ok(msg) = emcp::wire::json::parse(body) else {
        return false;
    };
    let params = msg.get("params");
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(|v| v.as_str());
    match (version, msg.get("method").and_then(|m| m.as_str())) {
        (Some(version), Some(method)) => core_http::headers_disagree(head, version, method, params),
        _ => false,
    }
}
