//! One connection task: accept on port 80, serve HTTP requests with the core's
//! sans-IO transport (`emcp::transport::http::serve`), and keep a request's event
//! stream open while pending jobs or a listen stream feed it.
//!
//! A response is written straight into the socket's send buffer (`write_with`, on
//! an empty buffer so all of it is free), under the shared mutex and without an
//! `await`; the socket sends it afterwards. A response longer than that buffer
//! ([`SOCKET_TX`]) cannot be sent: the connection is closed.

use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_net::Stack;
use embassy_time::{Duration, Timer};
use emcp::transport::http::{self, reply, Policy, Served, Status};
use emcp::wire::json::{self, Sink, SinkError, SliceSink};

use crate::device::{CONNECTIONS, MAX_BODY, REQUEST, SOCKET_RX, SOCKET_TX};
use crate::shared::{Shared, SharedCell, MAX_ID};

/// The port served.
pub const PORT: u16 = 80;

/// What the endpoint accepts. `10.0.2.15` is the device's own address on QEMU's
/// user network; loopback names (the host side of the port forward) always pass.
pub const POLICY: Policy = Policy {
    endpoint: "/mcp",
    hosts: &["10.0.2.15"],
    max_body: MAX_BODY,
    bearer: None,
};

/// A connection without a complete request for this long is closed.
const IDLE: Duration = Duration::from_secs(30);

/// How often an open stream collects the lines routed to it (and pending jobs run).
const STREAM_TICK: Duration = Duration::from_millis(5);

#[embassy_executor::task(pool_size = CONNECTIONS)]
pub async fn task(stack: Stack<'static>, shared: &'static SharedCell, slot: usize) -> ! {
    let mut rx = [0u8; SOCKET_RX];
    let mut tx = [0u8; SOCKET_TX];
    let mut buf = [0u8; REQUEST];
    loop {
        let mut socket = TcpSocket::new(stack, &mut rx, &mut tx);
        socket.set_timeout(Some(IDLE));
        if let Err(e) = socket.accept(PORT).await {
            defmt::warn!("conn {}: accept: {}", slot, e);
            continue;
        }
        defmt::debug!("conn {}: open from {}", slot, socket.remote_endpoint());
        let graceful = serve(&mut socket, shared, slot, &mut buf).await;
        shared.lock(|s| {
            let s = &mut *s.borrow_mut();
            if let Some(outbox) = s.outboxes.get_mut(slot) {
                let listen = outbox.open && !outbox.until_response && !outbox.request.is_empty();
                if let (true, Some(endpoint)) = (listen, s.endpoint.as_mut()) {
                    endpoint.server.close_listen(&outbox.request);
                }
                outbox.close();
            }
        });
        if graceful {
            socket.close();
            let _ = socket.flush().await;
        } else {
            socket.abort();
            let _ = socket.flush().await;
        }
        defmt::debug!("conn {}: closed", slot);
    }
}

/// Serve one connection until it closes, a request asks to close it, or its stream
/// ends. Returns false when it should be reset rather than closed.
async fn serve(
    socket: &mut TcpSocket<'_>,
    shared: &'static SharedCell,
    slot: usize,
    buf: &mut [u8],
) -> bool {
    let mut len = 0;
    loop {
        while len > 0 {
            if socket.flush().await.is_err() {
                return false;
            }
            let outcome = socket
                .write_with(|free| {
                    let mut out = Watched::new(free);
                    let step = shared.lock(|s| {
                        let s = &mut *s.borrow_mut();
                        let Shared {
                            endpoint: Some(endpoint),
                            scratch,
                            outboxes,
                        } = s
                        else {
                            return Step::Failed;
                        };
                        let served = http::serve(
                            &mut endpoint.server,
                            &mut endpoint.sessions,
                            &POLICY,
                            buf.get(..len).unwrap_or_default(),
                            scratch,
                            &mut out,
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
                                request,
                                until_response,
                                ..
                            } => {
                                let opened = outboxes
                                    .get_mut(slot)
                                    .is_some_and(|o| o.open(request, until_response));
                                if opened {
                                    Step::Stream
                                } else {
                                    Step::Failed
                                }
                            }
                        };
                        s.poll();
                        step
                    });
                    let step = if out.failed { Step::Failed } else { step };
                    (out.sink.len(), step)
                })
                .await;
            let step = match outcome {
                Ok(step) => step,
                Err(_) => return false,
            };
            match step {
                Step::Incomplete if len == buf.len() => {
                    // The head alone fills the buffer.
                    let _ = write_all(socket, |out| {
                        http::reject(out, Status::HeadersTooLarge);
                    })
                    .await;
                    return true;
                }
                Step::Incomplete => break,
                Step::Failed => {
                    defmt::warn!("conn {}: response over {} bytes: closed", slot, SOCKET_TX);
                    return false;
                }
                Step::Done {
                    consumed,
                    keep_alive,
                } => {
                    // Keep what follows the request (pipelined bytes), moved to the front.
                    let mut i = 0;
                    while let Some(&b) = buf.get(consumed + i).filter(|_| consumed + i < len) {
                        if let Some(d) = buf.get_mut(i) {
                            *d = b;
                        }
                        i += 1;
                    }
                    len = i;
                    if !keep_alive {
                        return true;
                    }
                }
                Step::Stream => {
                    socket.set_timeout(None);
                    return stream(socket, shared, slot).await;
                }
            }
        }
        let Some(free) = buf.get_mut(len..) else {
            return false;
        };
        match socket.read(free).await {
            Ok(0) | Err(_) => return true,
            Ok(n) => len += n,
        }
    }
}

/// What one `http::serve` call did, carried out of the mutex.
#[derive(Clone, Copy)]
enum Step {
    Incomplete,
    Done {
        consumed: usize,
        keep_alive: bool,
    },
    /// The connection now carries the request's event stream.
    Stream,
    /// The response did not fit the send buffer (or the stream had no outbox).
    Failed,
}

/// Keep an open event stream going: every [`STREAM_TICK`], run pending jobs and
/// send the lines routed to this connection as events, until the stream's final
/// response went out, the client closed, or a line did not fit.
async fn stream(socket: &mut TcpSocket<'_>, shared: &'static SharedCell, slot: usize) -> bool {
    let mut drain = [0u8; 64];
    loop {
        if socket.flush().await.is_err() {
            return false;
        }
        let sent = socket
            .write_with(|free| {
                let mut out = Watched::new(free);
                let over = shared.lock(|s| {
                    let s = &mut *s.borrow_mut();
                    s.poll();
                    let Some(outbox) = s.outboxes.get_mut(slot) else {
                        return Some(false);
                    };
                    if outbox.overflowed {
                        return Some(false);
                    }
                    let mut ended = false;
                    let mut request = heapless::Vec::<u8, MAX_ID>::new();
                    let _ = request.extend_from_slice(&outbox.request);
                    for line in outbox.lines.split(|&b| b == b'\n') {
                        if line.is_empty() {
                            continue;
                        }
                        let _ = reply::event(&mut out, line);
                        if outbox.until_response && is_response_to(line, &request) {
                            let _ = reply::end_stream(&mut out);
                            ended = true;
                            break;
                        }
                    }
                    outbox.lines.clear();
                    ended.then_some(true)
                });
                let over = if out.failed { Some(false) } else { over };
                (out.sink.len(), over)
            })
            .await;
        match sent {
            Ok(None) => {}
            Ok(Some(graceful)) => return graceful,
            Err(_) => return false,
        }
        match select(Timer::after(STREAM_TICK), socket.read(&mut drain)).await {
            Either::First(()) => {}
            // The client closed the stream (or sent something it should not have).
            Either::Second(Ok(0) | Err(_)) => return false,
            Either::Second(Ok(_)) => {}
        }
    }
}

/// Whether `line` is the response (result or error) to the request with this id.
fn is_response_to(line: &[u8], id: &[u8]) -> bool {
    json::parse(line)
        .is_ok_and(|v| v.get("method").is_none() && v.get("id").is_some_and(|i| i.raw() == id))
}

/// Write what `f` writes into the empty send buffer.
async fn write_all(socket: &mut TcpSocket<'_>, f: impl FnOnce(&mut dyn Sink)) -> bool {
    if socket.flush().await.is_err() {
        return false;
    }
    let written = socket
        .write_with(|free| {
            let mut out = Watched::new(free);
            f(&mut out);
            (out.sink.len(), !out.failed)
        })
        .await;
    matches!(written, Ok(true)) && socket.flush().await.is_ok()
}

/// A [`SliceSink`] that remembers whether a write was refused (the response was cut).
struct Watched<'b> {
    sink: SliceSink<'b>,
    failed: bool,
}

impl<'b> Watched<'b> {
    fn new(buf: &'b mut [u8]) -> Self {
        Watched {
            sink: SliceSink::new(buf),
            failed: false,
        }
    }
}

impl Sink for Watched<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let r = self.sink.write(bytes);
        self.failed |= r.is_err();
        r
    }
}
