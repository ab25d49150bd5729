//! [`serve_http_connection`]: one Streamable HTTP connection over `embedded-io-async`,
//! around the sans-IO [`crate::transport::http::serve`].

use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::RawMutex;
use embedded_io_async::{Read, Write};

use super::{flush, send, Shared, Tick};
use crate::device::Device;
use crate::server::Server;
use crate::transport::http::{
    self, reply, Policy, Refusal, Served, Sessions, Status, SESSION_ID_LEN,
};
use crate::transport::serve::ServeError;
use crate::wire::json::{Sink, SinkError, SliceSink};
use crate::wire::rpc::OwnedId;

/// What the connections of one HTTP endpoint share: the server and its legacy-era
/// session. Put it in a [`Shared`].
pub struct HttpState<
    D: Device,
    const L: usize = 4,
    const J: usize = 2,
    const W: usize = 0,
    const K: usize = 0,
> {
    /// The server.
    pub server: Server<D, L, J, W, K>,
    /// The legacy-era session (at most one).
    pub sessions: Sessions,
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    HttpState<D, L, J, W, K>
{
    /// The state of an endpoint serving `server`; `seed` makes session ids
    /// unpredictable ([`Sessions::new`]: take it from a hardware RNG).
    pub fn new(server: Server<D, L, J, W, K>, seed: u64) -> Self {
        HttpState {
            server,
            sessions: Sessions::new(seed),
        }
    }
}

/// Bounds of one connection, in ticks of the caller's [`Tick`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Ticks a connection may wait for its next request before it is closed, and
    /// ticks a request may take to arrive once its first bytes have (then it is
    /// answered `408 Request Timeout` and closed). Default 0: no limit. Open event
    /// streams are exempt. The wait for a next request is one [`Tick::ticks`] (a
    /// timer-backed `Tick` sleeps through it); a request in progress is timed tick by
    /// tick. With a limit, the socket's `read` must be cancel-safe (embassy-net's
    /// `TcpSocket` is): the limit cancels it.
    pub idle_ticks: u32,
    /// Milliseconds per tick, for the 408's body to say the limit in time
    /// (`request not complete within 30 s`). Default 0: unknown (`in time`).
    pub tick_ms: u32,
}

impl Limits {
    /// No idle limit.
    pub const fn new() -> Self {
        Limits {
            idle_ticks: 0,
            tick_ms: 0,
        }
    }

    /// Close a connection after `ticks` ticks without a complete request.
    pub const fn idle_ticks(mut self, ticks: u32) -> Self {
        self.idle_ticks = ticks;
        self
    }

    /// A tick lasts `ms` milliseconds (only what a 408 says depends on it).
    pub const fn tick_ms(mut self, ms: u32) -> Self {
        self.tick_ms = ms;
        self
    }

    /// Why a request that took too long is refused.
    fn timeout(&self) -> Refusal<'static> {
        match self.idle_ticks.checked_mul(self.tick_ms) {
            Some(0) => Refusal::Status(Status::RequestTimeout),
            Some(ms) => Refusal::Timeout(ms),
            None => Refusal::Timeout(u32::MAX),
        }
    }
}

/// Longest response head the transport writes (status line, framing headers,
/// `Mcp-Session-Id`, `Connection`), with room to spare.
const HEAD_ROOM: usize = 256;

/// Most of `tx_buf` that holds a response's first line while its status is chosen.
const SCRATCH_MAX: usize = 256;

/// Smallest `tx_buf` for [`serve_http_connection`]: a head and a short response (a
/// smaller one gets every request answered `500` and the connection closed). Size it
/// for the device's largest response (its `tools/list`, its largest resource): a
/// response must fit `tx_buf` less up to 256 bytes kept for choosing its status, and
/// a larger one is answered with -32603 for its id.
pub const MIN_TX_BUF: usize = 768;

/// What one locked step decided.
enum Step {
    Incomplete,
    Done {
        consumed: usize,
        keep_alive: bool,
    },
    Stream {
        consumed: usize,
        request: OwnedId,
        until_response: bool,
        session: Option<[u8; SESSION_ID_LEN]>,
    },
}

/// Serve one HTTP connection: requests one after another (keep-alive) until the peer
/// closes, asks to close, or stalls past [`Limits::idle_ticks`].
///
/// `rx_buf` holds one request (head and body: [`Policy::max_body`] plus a head; a
/// head that does not fit is answered 431), `tx_buf` one response (at least
/// [`MIN_TX_BUF`]; see there). The server in `shared` is taken only for the
/// synchronous step of answering a request or polling ([`Shared`]), never across an
/// `.await`. A request that opens an event stream — a tool call that became a
/// pending job, a `subscriptions/listen` stream, a legacy-era session's GET — holds
/// the connection: at each `tick` its share of the server's work is done (its own job
/// continued, or the change notifications pending for it sent) until the job's
/// answer ends the stream (then the connection serves the next request) or the peer
/// closes it (a job is then cancelled, a listen stream closed).
///
/// ```
/// use embassy_futures::{block_on, yield_now};
/// use embassy_sync::blocking_mutex::raw::NoopRawMutex;
/// use emcp::transport::asynch::{serve_http_connection, HttpState, Limits, Shared};
/// use emcp::transport::http::Policy;
/// use emcp::{Config, Device, Server};
///
/// struct Idle;
/// impl Device for Idle {}
///
/// /// A connection that received `input` and keeps what is sent on it.
/// struct Socket<'a> {
///     input: &'a [u8],
///     sent: heapless::Vec<u8, 512>,
/// }
/// impl embedded_io_async::ErrorType for Socket<'_> {
///     type Error = core::convert::Infallible;
/// }
/// impl embedded_io_async::Read for Socket<'_> {
///     async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
///         let n = buf.len().min(self.input.len());
///         buf[..n].copy_from_slice(&self.input[..n]);
///         self.input = &self.input[n..];
///         Ok(n) // 0 at the end: the client closed
///     }
/// }
/// impl embedded_io_async::Write for Socket<'_> {
///     async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
///         let n = buf.len().min(self.sent.capacity() - self.sent.len());
///         self.sent.extend_from_slice(&buf[..n]).unwrap();
///         Ok(n)
///     }
///     async fn flush(&mut self) -> Result<(), Self::Error> {
///         Ok(())
///     }
/// }
///
/// let server = Server::new(Idle, Config::new("demo", "0.1.0")).unwrap();
/// let shared: Shared<NoopRawMutex, HttpState<Idle>> = Shared::new(HttpState::new(server, 7));
/// let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
/// let request = format!(
///     "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
///      Content-Length: {}\r\n\r\n{body}",
///     body.len()
/// );
/// let mut socket = Socket { input: request.as_bytes(), sent: heapless::Vec::new() };
/// let (mut rx_buf, mut tx_buf) = ([0u8; 1024], [0u8; 1024]);
/// let mut tick = yield_now; // on Embassy: || Timer::after_millis(10)
/// let policy = Policy::default();
/// block_on(serve_http_connection(
///     &shared, &mut socket, &mut rx_buf, &mut tx_buf, &policy, &Limits::new(), &mut tick,
/// ))
/// .unwrap();
/// let sent = core::str::from_utf8(&socket.sent).unwrap();
/// assert!(sent.starts_with("HTTP/1.1 200 OK\r\n"));
/// assert!(sent.ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
/// ```
///
/// When this returns, close the socket (embassy-net: `socket.close()`, then flush
/// or `abort()`), and accept the next connection.
///
/// # Errors
///
/// The socket's read or write error.
pub async fn serve_http_connection<
    M,
    D,
    S,
    T,
    const L: usize,
    const J: usize,
    const W: usize,
    const K: usize,
>(
    shared: &Shared<M, HttpState<D, L, J, W, K>>,
    socket: &mut S,
    rx_buf: &mut [u8],
    tx_buf: &mut [u8],
    policy: &Policy,
    limits: &Limits,
    tick: &mut T,
) -> Result<(), ServeError<S::Error, S::Error>>
where
    M: RawMutex,
    D: Device,
    S: Read + Write,
    T: Tick,
{
    if tx_buf.len() < MIN_TX_BUF {
        // Too small for a head and a short answer: say so rather than cut answers.
        return refuse_and_close(socket, Refusal::Status(Status::InternalError)).await;
    }
    let scratch_len = (tx_buf.len().saturating_sub(HEAD_ROOM) / 2).min(SCRATCH_MAX);
    let Some((out_buf, scratch)) = tx_buf.split_at_mut_checked(tx_buf.len() - scratch_len) else {
        return Ok(());
    };
    let mut len = 0;
    let mut idle: u32 = 0;
    loop {
        while len > 0 {
            let input = rx_buf.get(..len).unwrap_or_default();
            let locked = shared.with(|st| {
                let mut conn = Watched {
                    sink: SliceSink::new(out_buf),
                    failed: false,
                };
                let served = http::serve(
                    &mut st.server,
                    &mut st.sessions,
                    policy,
                    input,
                    scratch,
                    &mut conn,
                );
                let step = match served {
                    Served::Incomplete => Step::Incomplete,
                    Served::Done {
                        consumed,
                        keep_alive,
                    } => Step::Done {
                        consumed,
                        keep_alive,
                    },
                    Served::Stream {
                        consumed,
                        request,
                        until_response,
                    } => match OwnedId::from_slice(request) {
                        Ok(request) => Step::Stream {
                            consumed,
                            request,
                            until_response,
                            session: st.sessions.current().and_then(|c| c.try_into().ok()),
                        },
                        // Ids are bounded by the parser: this does not happen.
                        Err(_) => Step::Done {
                            consumed,
                            keep_alive: false,
                        },
                    },
                };
                if conn.failed {
                    // A part of the answer did not fit and could not be taken back
                    // (written after the server's handling): never send it cut.
                    if let Step::Stream {
                        request,
                        until_response,
                        ..
                    } = &step
                    {
                        if *until_response {
                            st.server.cancel(request);
                        } else if !request.is_empty() {
                            st.server.close_listen(request);
                        }
                    }
                    return None;
                }
                Some((step, conn.sink.len()))
            });
            let (step, n) = match locked {
                Some(Some(done)) => done,
                Some(None) => {
                    return refuse_and_close(socket, Refusal::Status(Status::InternalError)).await
                }
                None => {
                    return refuse_and_close(socket, Refusal::Status(Status::ServiceUnavailable))
                        .await
                }
            };
            let sent = send(socket, out_buf.get(..n).unwrap_or_default()).await;
            if let (
                Err(_),
                Step::Stream {
                    request,
                    until_response,
                    ..
                },
            ) = (&sent, &step)
            {
                // Nobody will read the stream: its job or listen stream ends here.
                close(shared, request, *until_response);
            }
            sent?;
            if !matches!(step, Step::Incomplete) {
                idle = 0; // a stalled client is one that never completes a request
            }
            let consumed = match step {
                Step::Incomplete if len == rx_buf.len() => {
                    return refuse_and_close(socket, Refusal::Status(Status::HeadersTooLarge))
                        .await;
                }
                Step::Incomplete => break,
                Step::Done {
                    keep_alive: false, ..
                } => return flush(socket).await,
                Step::Done { consumed, .. } => consumed,
                Step::Stream {
                    consumed,
                    request,
                    until_response,
                    session,
                } => {
                    shift(rx_buf, &mut len, consumed);
                    let mut open = Open {
                        request: &request,
                        until_response,
                        session,
                        rx_buf: &mut *rx_buf,
                        len: &mut len,
                        out_buf: &mut *out_buf,
                    };
                    if !open.serve(shared, socket, tick).await? {
                        return Ok(());
                    }
                    0
                }
            };
            shift(rx_buf, &mut len, consumed);
        }
        flush(socket).await?;
        // Wait for (more of) a request.
        let Some(room) = rx_buf.get_mut(len..).filter(|r| !r.is_empty()) else {
            return refuse_and_close(socket, Refusal::Status(Status::HeadersTooLarge)).await;
        };
        let n = if limits.idle_ticks == 0 {
            socket.read(room).await.map_err(ServeError::Read)?
        } else if len == 0 {
            // Nothing of a next request yet: one wait for the whole limit, so that an
            // idle keep-alive connection does not wake at every tick.
            match select(socket.read(&mut *room), tick.ticks(limits.idle_ticks)).await {
                Either::First(r) => {
                    idle = 0; // the request's own time starts with its first bytes
                    r.map_err(ServeError::Read)?
                }
                Either::Second(()) => return Ok(()),
            }
        } else {
            loop {
                match select(socket.read(&mut *room), tick.tick()).await {
                    Either::First(r) => break r.map_err(ServeError::Read)?,
                    Either::Second(()) => {
                        idle = idle.saturating_add(1);
                        if idle >= limits.idle_ticks {
                            if len > 0 {
                                return refuse_and_close(socket, limits.timeout()).await;
                            }
                            return Ok(());
                        }
                    }
                }
            }
        };
        if n == 0 {
            return Ok(()); // the peer closed (a partial request is dropped)
        }
        len += n;
    }
}

/// The connection's transmit buffer, noting a write that did not fit and was not
/// taken back.
struct Watched<'a> {
    sink: SliceSink<'a>,
    failed: bool,
}

impl Sink for Watched<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let written = self.sink.write(bytes);
        self.failed |= written.is_err();
        written
    }
    fn mark(&mut self) {
        self.sink.mark();
    }
    fn rollback(&mut self) -> bool {
        self.failed = false;
        self.sink.rollback()
    }
}

/// Refuse and close: write the refusal, flush, return.
async fn refuse_and_close<S: Write, R>(
    socket: &mut S,
    why: Refusal<'_>,
) -> Result<(), ServeError<R, S::Error>> {
    // The longest refusal (an `Origin` shown at its bound) takes under 300 bytes
    // (`http::refusal`'s tests).
    let mut buf = [0u8; 320];
    let mut conn = SliceSink::new(&mut buf);
    http::refuse(&mut conn, why);
    send(socket, conn.written()).await?;
    flush(socket).await
}

/// Drop the first `consumed` bytes of `buf[..len]` (a loop rather than
/// `copy_within`, whose range checks are panic paths).
fn shift(buf: &mut [u8], len: &mut usize, consumed: usize) {
    let consumed = consumed.min(*len);
    if let Some(live) = buf.get_mut(..*len) {
        let mut i = 0;
        while let Some(&b) = live.get(i + consumed) {
            if let Some(d) = live.get_mut(i) {
                *d = b;
            }
            i += 1;
        }
    }
    *len -= consumed;
}

/// An open event stream on the connection.
struct Open<'a> {
    /// The request it serves (JSON text of its id; a listen stream's subscription id;
    /// empty for the session's GET stream).
    request: &'a [u8],
    /// It ends with the response to `request` (a pending job's stream).
    until_response: bool,
    /// The legacy-era session current when the stream opened (a GET stream ends with
    /// it).
    session: Option<[u8; SESSION_ID_LEN]>,
    rx_buf: &'a mut [u8],
    len: &'a mut usize,
    out_buf: &'a mut [u8],
}

impl Open<'_> {
    /// Serve the stream until it ends (true: the connection may carry the next
    /// request) or the peer closes it (false). When the peer closed or the socket
    /// failed, the stream's job is cancelled or its listen stream closed.
    async fn serve<M, D, S, T, const L: usize, const J: usize, const W: usize, const K: usize>(
        &mut self,
        shared: &Shared<M, HttpState<D, L, J, W, K>>,
        socket: &mut S,
        tick: &mut T,
    ) -> Result<bool, ServeError<S::Error, S::Error>>
    where
        M: RawMutex,
        D: Device,
        S: Read + Write,
        T: Tick,
    {
        let served = self.run(shared, socket, tick).await;
        if !matches!(served, Ok(true)) {
            close(shared, self.request, self.until_response);
        }
        served
    }

    async fn run<M, D, S, T, const L: usize, const J: usize, const W: usize, const K: usize>(
        &mut self,
        shared: &Shared<M, HttpState<D, L, J, W, K>>,
        socket: &mut S,
        tick: &mut T,
    ) -> Result<bool, ServeError<S::Error, S::Error>>
    where
        M: RawMutex,
        D: Device,
        S: Read + Write,
        T: Tick,
    {
        flush(socket).await?;
        loop {
            let polled = shared.with(|st| {
                let mut sink = SliceSink::new(self.out_buf);
                let over = if self.until_response {
                    !st.server.poll_job(self.request, &mut sink)
                } else if self.request.is_empty() {
                    // The session's GET stream: over when its session ended (DELETE,
                    // or a new `initialize` replaced it).
                    let session = self.session.as_ref().map(|s| &s[..]);
                    let live = session.is_some() && st.sessions.current() == session;
                    if live {
                        st.server.poll_changes(None, &mut sink);
                    }
                    !live
                } else {
                    // A listen stream: over when the client cancelled it or the
                    // server was reset.
                    let live = st.server.is_listening(self.request);
                    if live {
                        st.server.poll_changes(Some(self.request), &mut sink);
                    }
                    !live
                };
                (sink.len(), over)
            });
            let Some((n, over)) = polled else {
                return Ok(false);
            };
            let lines = self.out_buf.get(..n).unwrap_or_default();
            for line in lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                event(socket, line).await?;
            }
            if over {
                send(socket, b"0\r\n\r\n").await?;
                flush(socket).await?;
                return Ok(true);
            }
            if n > 0 {
                flush(socket).await?;
            }
            // Wait for the next tick, watching for the peer closing. Bytes that come
            // meanwhile are kept as the next request on a job's stream (it ends), and
            // dropped on a listen or GET stream (read after what is kept, not kept).
            let keep = self.until_response;
            let Some(room) = self.rx_buf.get_mut(*self.len..).filter(|r| !r.is_empty()) else {
                tick.tick().await;
                continue;
            };
            match select(socket.read(room), tick.tick()).await {
                Either::First(Ok(0) | Err(_)) => return Ok(false),
                Either::First(Ok(n)) if keep => *self.len += n,
                Either::First(Ok(_)) | Either::Second(()) => {}
            }
        }
    }
}

/// A stream nobody reads any more: cancel its job (`until_response`) or close its
/// listen stream (a GET stream has nothing to close).
fn close<M: RawMutex, D: Device, const L: usize, const J: usize, const W: usize, const K: usize>(
    shared: &Shared<M, HttpState<D, L, J, W, K>>,
    request: &[u8],
    until_response: bool,
) {
    shared.with(|st| {
        if until_response {
            st.server.cancel(request);
        } else if !request.is_empty() {
            st.server.close_listen(request);
        }
    });
}

/// Send `line` as one event of an open event stream: the bytes of
/// [`reply::event`], written piece by piece.
async fn event<S: Write, R>(socket: &mut S, line: &[u8]) -> Result<(), ServeError<R, S::Error>> {
    for piece in [reply::EVENT_PREFIX, line, reply::EVENT_END] {
        let mut head = [0u8; 20];
        send(socket, reply::chunk_head(piece.len(), &mut head)).await?;
        send(socket, piece).await?;
        send(socket, b"\r\n").await?;
    }
    Ok(())
}

/// Refuse with `status` and its general reason ([`http::reject`]). Then close the
/// socket.
///
/// # Errors
///
/// The socket's write error.
pub async fn reject<S: Write>(socket: &mut S, status: Status) -> Result<(), S::Error> {
    refuse(socket, Refusal::Status(status)).await
}

/// Refuse a connection and say why ([`http::refuse`]): for one the device has no
/// task or socket for, `Refusal::Busy(connections)` answers `503 Service
/// Unavailable: all 4 connections busy, retry after 1 s` with `Retry-After: 1`.
/// Then close the socket.
///
/// # Errors
///
/// The socket's write error.
pub async fn refuse<S: Write>(socket: &mut S, why: Refusal<'_>) -> Result<(), S::Error> {
    match refuse_and_close::<S, ()>(socket, why).await {
        Err(ServeError::Write(Some(e))) => Err(e),
        _ => Ok(()),
    }
}
