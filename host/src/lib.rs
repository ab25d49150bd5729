//! `emcp-host`: running an emcp [`Server`] on a host computer.
//!
//! [`serve_http`] serves MCP's Streamable HTTP on a `std` [`TcpListener`], one thread
//! per connection around the core's sans-IO transport ([`emcp::http`]), so several
//! clients — and open streams: `subscriptions/listen`, long-running tools, tools
//! waiting for the client's input, an initialize-era session's GET stream — are
//! served at once. The server sits behind a mutex; each request is answered while it
//! is held, and a poller thread continues pending jobs.
//!
//! Output of [`Server::poll`] is routed by [`Sink::route`] to the open stream of the
//! request it belongs to.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use emcp::device::Device;
use emcp::http::{self, reply, Policy, Served, Sessions, Status};
use emcp::json::{self, Sink, SinkError};
use emcp::Server;

/// Bytes a request head may take (431 beyond).
pub const MAX_HEAD: usize = 8 * 1024;

/// How often the poller thread continues pending jobs.
pub const POLL_INTERVAL: Duration = Duration::from_millis(5);

/// A [`Sink`] writing to a TCP stream.
struct Tcp<'a>(&'a mut TcpStream);

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

struct Shared<D: Device, const L: usize, const J: usize, const W: usize> {
    server: Server<D, L, J, W>,
    sessions: Sessions,
    streams: Vec<Open>,
}

impl<D: Device, const L: usize, const J: usize, const W: usize> Shared<D, L, J, W> {
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

/// Serve `server` over HTTP on `listener` until accepting fails. `seed` seeds session
/// ids (take it from the clock).
///
/// # Errors
///
/// The listener's error.
pub fn serve_http<D, const L: usize, const J: usize, const W: usize>(
    listener: TcpListener,
    server: Server<D, L, J, W>,
    policy: Policy,
    seed: u64,
) -> io::Result<()>
where
    D: Device + Send + 'static,
{
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
    for stream in listener.incoming() {
        let stream = stream?;
        let shared = Arc::clone(&shared);
        thread::spawn(move || {
            if let Err(e) = connection(stream, &shared, &policy) {
                if e.kind() != io::ErrorKind::ConnectionReset {
                    eprintln!("emcp-host: connection: {e}");
                }
            }
        });
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Serve one connection: requests one after another (keep-alive), until the peer
/// closes, asks to close, or the connection becomes an open stream.
fn connection<D: Device, const L: usize, const J: usize, const W: usize>(
    mut stream: TcpStream,
    shared: &Mutex<Shared<D, L, J, W>>,
    policy: &Policy,
) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
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
                // to end it.
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
        let n = stream.read(&mut buf[len..])?;
        if n == 0 {
            return Ok(());
        }
        len += n;
    }
}
