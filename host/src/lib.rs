//! `emcp-host`: running an emcp [`Server`] on a host computer.
//!
//! [`serve_http`] serves MCP's Streamable HTTP on a `std` [`TcpListener`], one thread
//! per connection around the core's sans-IO transport ([`emcp::http`]), so several
//! clients (and open `subscriptions/listen` streams) are served at once. The server
//! sits behind a mutex; each request is answered whole while it is held.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;

use emcp::device::Device;
use emcp::http::{self, reply, Policy, Served, Sessions, Status};
use emcp::json::{self, Sink, SinkError};
use emcp::Server;

/// Bytes a request head may take (431 beyond).
pub const MAX_HEAD: usize = 8 * 1024;

/// A [`Sink`] collecting bytes in memory.
#[derive(Default)]
struct Collect(Vec<u8>);

impl Sink for Collect {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// A [`Sink`] writing to a TCP stream.
struct Tcp<'a>(&'a mut TcpStream);

impl Sink for Tcp<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.write_all(bytes).map_err(|_| SinkError::Io)
    }
}

/// An open stream: a listen stream's subscription id (JSON text), or empty for the
/// initialize-era session's GET stream; and its connection.
struct Listener {
    subscription: Vec<u8>,
    stream: TcpStream,
}

struct Shared<D: Device, const L: usize, const J: usize> {
    server: Server<D, L, J>,
    sessions: Sessions,
    listeners: Vec<Listener>,
}

impl<D: Device, const L: usize, const J: usize> Shared<D, L, J> {
    /// Send pending change notifications to the listen streams they are tagged for.
    fn route_changes(&mut self) {
        let mut out = Collect::default();
        self.server.poll(&mut out);
        for line in out.0.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            // Untagged: an initialize-era session notification, for the GET stream.
            let tag = subscription_of(line).unwrap_or_default();
            self.listeners.retain_mut(|l| {
                l.subscription != tag || reply::event(&mut Tcp(&mut l.stream), line).is_ok()
            });
        }
    }
}

/// The `params._meta["io.modelcontextprotocol/subscriptionId"]` of a notification.
fn subscription_of(line: &[u8]) -> Option<Vec<u8>> {
    let v = json::parse(line).ok()?;
    let id = v
        .get("params")?
        .get("_meta")?
        .get("io.modelcontextprotocol/subscriptionId")?;
    Some(id.raw().to_vec())
}

/// Serve `server` over HTTP on `listener` until accepting fails. `seed` seeds session
/// ids (take it from the clock).
///
/// # Errors
///
/// The listener's error.
pub fn serve_http<D, const L: usize, const J: usize>(
    listener: TcpListener,
    server: Server<D, L, J>,
    policy: Policy,
    seed: u64,
) -> io::Result<()>
where
    D: Device + Send + 'static,
{
    let shared = Arc::new(Mutex::new(Shared {
        server,
        sessions: Sessions::new(seed),
        listeners: Vec::new(),
    }));
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
/// closes, asks to close, or the connection becomes a listen stream.
fn connection<D: Device, const L: usize, const J: usize>(
    mut stream: TcpStream,
    shared: &Mutex<Shared<D, L, J>>,
    policy: &Policy,
) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut buf = vec![0u8; MAX_HEAD + policy.max_body];
    let mut len = 0;
    let mut scratch = vec![0u8; 4096];
    loop {
        while len > 0 {
            let mut out = Collect::default();
            let served = {
                let mut guard = lock(shared);
                let s = &mut *guard;
                let input = buf.get(..len).unwrap_or_default();
                let served = http::serve(
                    &mut s.server,
                    &mut s.sessions,
                    policy,
                    input,
                    &mut scratch,
                    &mut out,
                );
                match served {
                    Served::Incomplete => None,
                    Served::Done {
                        consumed,
                        keep_alive,
                    } => Some((consumed, keep_alive, None)),
                    Served::Stream {
                        consumed,
                        subscription,
                    } => Some((consumed, true, Some(subscription.to_vec()))),
                }
            };
            let Some((consumed, keep_alive, subscription)) = served else {
                if len == buf.len() {
                    http::reject(&mut Tcp(&mut stream), Status::HeadersTooLarge);
                    return Ok(());
                }
                break;
            };
            stream.write_all(&out.0)?;
            {
                let mut s = lock(shared);
                if let Some(subscription) = subscription.clone() {
                    s.listeners.push(Listener {
                        subscription,
                        stream: stream.try_clone()?,
                    });
                }
                s.route_changes();
            }
            if subscription.is_some() {
                // A listen stream: nothing else is read from it; wait for the close.
                let mut sink = [0u8; 256];
                while stream.read(&mut sink)? > 0 {}
                let mut s = lock(shared);
                s.listeners
                    .retain(|l| Some(&l.subscription) != subscription.as_ref());
                if let Some(id) = subscription.as_ref().filter(|id| !id.is_empty()) {
                    s.server.close_listen(id);
                }
                return Ok(());
            }
            buf.copy_within(consumed..len, 0);
            len -= consumed;
            if !keep_alive {
                return Ok(());
            }
        }
        let n = stream.read(buf.get_mut(len..).unwrap_or_default())?;
        if n == 0 {
            return Ok(());
        }
        len += n;
    }
}
