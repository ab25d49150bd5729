//! `emcp-host`: running an emcp [`Server`] on a host computer.
//!
//! [`serve_stdio`] serves it on stdin/stdout (the MCP stdio transport) until end of
//! input.
//!
//! [`serve_http`] serves MCP's Streamable HTTP on a `std` [`TcpListener`], one thread
//! per connection around the core's sans-IO transport ([`emcp::transport::http`]), so several
//! clients — and open streams: `subscriptions/listen`, long-running tools, tools
//! waiting for the client's input, an initialize-era session's GET stream — are
//! served at once. The server sits behind a mutex; each request is answered while it
//! is held, and a poller thread continues pending jobs.
//!
//! `run_mqtt` (feature `mqtt`) serves it as an MCP-over-MQTT device on a broker,
//! reconnecting whenever the link ends.
//!
//! Output of [`Server::poll`] is routed by [`Sink::route`] to the open stream of the
//! request it belongs to.
//!
//! **Connections are bounded** ([`MAX_CONNECTIONS`], or the bound given to
//! [`serve_http_bounded`]): every open connection counts, idle keep-alive ones and
//! open event streams included. A connection beyond the bound is answered `503
//! Service Unavailable` with `Retry-After: 1` and closed, without a thread of its own
//! (one refusing thread answers them in turn; when [`MAX_REFUSALS`] are already
//! waiting for it, a further one is closed at once). A slot frees when its connection
//! closes, and the next connection is served again.

#[cfg(feature = "mqtt")]
mod mqtt;
mod stdio;
#[cfg(feature = "mqtt")]
pub use mqtt::{run_mqtt, MQTT_BUF, MQTT_SESSIONS};
pub use stdio::{serve_stdio, Stdin, Stdout};

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use emcp::device::Device;
use emcp::transport::http::{self, reply, Policy, Served, Sessions, Status};
use emcp::wire::json::{self, Sink, SinkError};
use emcp::Server;

/// Bytes a request head may take (431 beyond).
pub const MAX_HEAD: usize = 8 * 1024;

/// How often the poller thread continues pending jobs.
pub const POLL_INTERVAL: Duration = Duration::from_millis(5);

/// Connections [`serve_http`] serves at once (each has a thread and a buffer of
/// [`MAX_HEAD`] + `Policy::max_body` bytes); one more is refused with 503. The
/// official conformance suite keeps up to about 7 open at once.
pub const MAX_CONNECTIONS: usize = 32;

/// Refused connections waiting for their 503 at once; beyond that a refused
/// connection is closed without an answer.
pub const MAX_REFUSALS: usize = 16;

/// How long a connection may sit without a complete request before it is closed:
/// idle keep-alive connections, and clients that send a request too slowly, give
/// their slot back. Open event streams are exempt.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Bounds of [`serve_http_bounded`].
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections at once (0 is taken as 1); one more is answered 503 with
    /// `Retry-After: 1` and closed. Default [`MAX_CONNECTIONS`].
    pub max_connections: usize,
    /// See [`IDLE_TIMEOUT`] (the default).
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: MAX_CONNECTIONS,
            idle_timeout: IDLE_TIMEOUT,
        }
    }
}

/// How long a refused connection is given to read its 503 before it is closed.
const REFUSAL_LINGER: Duration = Duration::from_millis(500);

/// A [`Sink`] writing to a TCP stream (every byte, or [`SinkError::Io`]).
pub struct Tcp<'a>(pub &'a mut TcpStream);

impl Sink for Tcp<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.write_all(bytes).map_err(|_| SinkError::Io)
    }
}

/// An open event stream: the request it serves (JSON text of its id; empty for the
/// session's GET stream), whether it ends with that request's response, and its
/// connection.
struct Open {
    request: Vec<u8>,
    until_response: bool,
    stream: TcpStream,
}

/// Sends each routed line to the open stream it belongs to.
struct Router<'a> {
    streams: &'a mut Vec<Open>,
    to: Vec<u8>,
    line: Vec<u8>,
}

impl Router<'_> {
    fn deliver(&mut self) {
        let line = std::mem::take(&mut self.line);
        let Some(i) = self.streams.iter().position(|s| s.request == self.to) else {
            return; // nobody listens (a closed stream): the line is dropped
        };
        let open = &mut self.streams[i];
        let sent = reply::event(&mut Tcp(&mut open.stream), &line).is_ok();
        let over = open.until_response && is_response_to(&line, &open.request);
        if over {
            let _ = reply::end_stream(&mut Tcp(&mut open.stream));
        }
        if !sent || over {
            let _ = open.stream.shutdown(Shutdown::Both);
            self.streams.remove(i);
        }
    }
}

impl Sink for Router<'_> {
    fn write(&mut self, mut bytes: &[u8]) -> Result<(), SinkError> {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&bytes[..end]);
            self.deliver();
            bytes = &bytes[end + 1..];
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn route(&mut self, request: Option<&[u8]>) {
        self.to = request.unwrap_or_default().to_vec();
    }
}

/// Whether `line` is the response (result or error) to the request with this id.
fn is_response_to(line: &[u8], id: &[u8]) -> bool {
    json::parse(line)
        .is_ok_and(|v| v.get("method").is_none() && v.get("id").is_some_and(|i| i.raw() == id))
}

struct Shared<D: Device, const L: usize, const J: usize, const W: usize, const K: usize> {
    server: Server<D, L, J, W, K>,
    sessions: Sessions,
    streams: Vec<Open>,
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Shared<D, L, J, W, K>
{
    /// Continue pending jobs and send change notifications, each line to its stream.
    fn poll(&mut self) {
        let mut router = Router {
            streams: &mut self.streams,
            to: Vec::new(),
            line: Vec::new(),
        };
        self.server.poll(&mut router);
    }
}

/// Read more of a request from a connection with a read timeout: `None` when the peer
/// closed it or sent nothing within the timeout (the connection is over either way).
///
/// # Errors
///
/// Any other read error.
pub fn read_more(stream: &mut TcpStream, buf: &mut [u8]) -> io::Result<Option<usize>> {
    match stream.read(buf) {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A seed for session ids ([`emcp::transport::http::Sessions::new`]): 8 bytes of the operating
/// system's random source, or the clock and the process id where it has none.
///
/// ```
/// let (a, b) = (emcp_host::session_seed(), emcp_host::session_seed());
/// assert_ne!(a, b);
/// ```
pub fn session_seed() -> u64 {
    use std::io::Read as _;
    let mut bytes = [0u8; 8];
    match std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)) {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            nanos ^ u64::from(std::process::id())
        }
    }
}

/// Serve `server` over HTTP on `listener` until accepting fails, at most
/// [`MAX_CONNECTIONS`] connections at once.
///
/// `seed` is where the `Mcp-Session-Id`s handed to initialize-era clients come from
/// ([`Sessions::new`]): the same seed gives the same ids. It must be random — pass
/// [`session_seed`] — as anyone who can guess a session's id can end it (DELETE) or
/// take its event stream (GET). A constant, a counter or the start time is not random.
///
/// ```no_run
/// # struct Board;
/// # impl emcp::Device for Board {}
/// # let server: emcp::Server<Board> = emcp::Server::new(Board, emcp::Config::new("my-device", "0.1.0")).unwrap();
/// let listener = std::net::TcpListener::bind("127.0.0.1:8000")?;
/// emcp_host::serve_http(listener, server, Default::default(), emcp_host::session_seed())?;
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// The listener's error.
pub fn serve_http<D, const L: usize, const J: usize, const W: usize, const K: usize>(
    listener: TcpListener,
    server: Server<D, L, J, W, K>,
    policy: Policy,
    seed: u64,
) -> io::Result<()>
where
    D: Device + Send + 'static,
{
    serve_http_bounded(listener, server, policy, seed, Limits::default())
}

/// What a server binary does with `--http ADDR`: bind `addr`, say on stderr where it
/// serves (`NAME: serving MCP at http://ADDR/mcp`), then [`serve_http`] with a fresh
/// [`session_seed`] until accepting fails. A failure is reported on stderr as
/// `NAME: ...` and gives a failing exit status.
pub fn run_http<D, const L: usize, const J: usize, const W: usize, const K: usize>(
    name: &str,
    addr: &str,
    server: Server<D, L, J, W, K>,
    policy: Policy,
) -> ExitCode
where
    D: Device + Send + 'static,
{
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{name}: bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("{name}: serving MCP at http://{addr}/mcp");
    match serve_http(listener, server, policy, session_seed()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// [`serve_http`] with other [`Limits`].
///
/// # Errors
///
/// The listener's error.
pub fn serve_http_bounded<D, const L: usize, const J: usize, const W: usize, const K: usize>(
    listener: TcpListener,
    server: Server<D, L, J, W, K>,
    policy: Policy,
    seed: u64,
    limits: Limits,
) -> io::Result<()>
where
    D: Device + Send + 'static,
{
    let max_connections = limits.max_connections.max(1);
    let idle_timeout = limits.idle_timeout;
    let shared = Arc::new(Mutex::new(Shared {
        server,
        sessions: Sessions::new(seed),
        streams: Vec::new(),
    }));
    let poller = Arc::clone(&shared);
    thread::spawn(move || loop {
        thread::sleep(POLL_INTERVAL);
        let mut s = lock(&poller);
        if s.server.busy() {
            s.poll();
        }
    });
    let (refuse, refused) = mpsc::sync_channel::<TcpStream>(MAX_REFUSALS);
    thread::spawn(move || refuser(&refused));
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let stream = stream?;
        // Only this loop adds to `open`: the bound cannot be overshot.
        if open.load(Ordering::Acquire) >= max_connections {
            refuse_later(&refuse, stream);
            continue;
        }
        open.fetch_add(1, Ordering::AcqRel);
        let slot = Slot(Arc::clone(&open));
        let shared = Arc::clone(&shared);
        let Ok(conn) = stream.try_clone() else {
            continue; // `slot` was not moved: dropped here, the count goes back
        };
        let spawned = thread::Builder::new().spawn(move || {
            let _slot = slot;
            if let Err(e) = connection(stream, &shared, &policy, idle_timeout) {
                if e.kind() != io::ErrorKind::ConnectionReset {
                    eprintln!("emcp-host: connection: {e}");
                }
            }
        });
        if spawned.is_err() {
            // No thread for it (its slot went back with the closure): refuse it too.
            refuse_later(&refuse, conn);
        }
    }
    Ok(())
}

/// One counted connection; the count goes down when its thread ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Hand a connection over for a 503, or close it at once when too many wait already.
fn refuse_later(refuse: &SyncSender<TcpStream>, stream: TcpStream) {
    if let Err(mpsc::TrySendError::Full(s) | mpsc::TrySendError::Disconnected(s)) =
        refuse.try_send(stream)
    {
        let _ = s.shutdown(Shutdown::Both);
    }
}

/// Answer each refused connection 503 and close it, after letting the client read
/// the answer: the request it may still be sending is read and dropped (closing with
/// unread input would reset the connection and could lose the 503).
fn refuser(refused: &Receiver<TcpStream>) {
    for mut stream in refused {
        let _ = stream.set_write_timeout(Some(REFUSAL_LINGER));
        http::reject(&mut Tcp(&mut stream), Status::ServiceUnavailable);
        let _ = stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + REFUSAL_LINGER;
        let mut sink = [0u8; 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
                break;
            }
            if !matches!(stream.read(&mut sink), Ok(n) if n > 0) {
                break;
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Serve one connection: requests one after another (keep-alive), until the peer
/// closes, asks to close, or the connection becomes an open stream.
fn connection<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>(
    mut stream: TcpStream,
    shared: &Mutex<Shared<D, L, J, W, K>>,
    policy: &Policy,
    idle_timeout: Duration,
) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    // A zero duration is refused by `set_read_timeout`: take it as the smallest.
    stream.set_read_timeout(Some(idle_timeout.max(Duration::from_millis(1))))?;
    let mut buf = vec![0u8; MAX_HEAD + policy.max_body];
    let mut len = 0;
    let mut scratch = vec![0u8; 4096];
    loop {
        while len > 0 {
            // Answer, register an open stream and send what the request set off, all
            // under the lock: nothing routed to this stream can come before its head.
            let (consumed, keep_alive, open) = {
                let mut guard = lock(shared);
                let s = &mut *guard;
                let mut conn = Tcp(&mut stream);
                let served = http::serve(
                    &mut s.server,
                    &mut s.sessions,
                    policy,
                    &buf[..len],
                    &mut scratch,
                    &mut conn,
                );
                let step = match served {
                    Served::Incomplete => None,
                    Served::Done {
                        consumed,
                        keep_alive,
                    } => Some((consumed, keep_alive, None)),
                    Served::Stream {
                        consumed,
                        request,
                        until_response,
                    } => Some((consumed, true, Some((request.to_vec(), until_response)))),
                };
                let Some((consumed, keep_alive, open)) = step else {
                    drop(guard);
                    if len == buf.len() {
                        http::reject(&mut Tcp(&mut stream), Status::HeadersTooLarge);
                        return Ok(());
                    }
                    break;
                };
                if let Some((request, until_response)) = &open {
                    s.streams.push(Open {
                        request: request.clone(),
                        until_response: *until_response,
                        stream: stream.try_clone()?,
                    });
                }
                s.poll();
                (consumed, keep_alive, open)
            };
            if let Some((request, until_response)) = open {
                // The connection now only carries the stream: wait for either side
                // to end it (no idle timeout for a stream).
                stream.set_read_timeout(None)?;
                let mut sink = [0u8; 256];
                while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
                let mut s = lock(shared);
                let mine = |o: &Open| o.request == request && o.until_response == until_response;
                let was_open = s.streams.iter().any(mine);
                s.streams.retain(|o| !mine(o));
                if was_open && !until_response && !request.is_empty() {
                    s.server.close_listen(&request);
                }
                return Ok(());
            }
            buf.copy_within(consumed..len, 0);
            len -= consumed;
            if !keep_alive {
                return Ok(());
            }
        }
        // Closed, or idle for too long (a request sent too slowly): give the slot back.
        let Some(n) = read_more(&mut stream, &mut buf[len..])? else {
            return Ok(());
        };
        len += n;
    }
}

/// The README's Rust examples, compiled and run as doctests here (the one that serves
/// stdio needs this crate, the others only `emcp`).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
