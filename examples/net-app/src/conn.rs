//! The connection tasks, which serve connections with the core's async HTTP
//! transport (`emcp::transport::asynch::serve_http_connection`), and the listeners,
//! which accept them.
//!
//! Every task shares one [`Endpoint`]: the server and the legacy era's session behind
//! a blocking mutex that is never held across an `await`. A task locks it to answer
//! one request into its own `tx_buf`, unlocks, then writes; a request that became an
//! event stream (a long-running tool, `subscriptions/listen`, a session's GET stream)
//! is continued at each tick by the task that holds its connection, so every
//! connection does only its own share of the work. A response longer than `tx_buf`
//! is answered -32603 for its id.
//!
//! A connection's end and the next one's start overlap: a client that opens a new
//! connection per request sends its next SYN as soon as it has read an answer, in
//! the same moment as its FIN, before the device has seen that the connection it is
//! serving is over. A SYN that finds no socket listening is reset, so there are more
//! sockets than connection tasks ([`CONNECTIONS`] with the task's rings, and
//! [`BACKLOG`] more with small ones), and every socket not in use listens, each in
//! a listener task of its own: a listen backlog. A connection accepted goes to the
//! first connection task free; if none is free within [`GRACE`], its listener
//! answers `503 Service Unavailable` with `Retry-After: 1` and a body saying so
//! (`all N connections busy, retry after 1 s`), so that a client that comes when the
//! device is full learns why instead of meeting a reset. Beyond the sockets, the TCP
//! stack resets new connections. A served socket goes back to the listeners, which
//! close it (a peer that closed first is reset at once: it has everything; else the
//! device's FIN waits for its acknowledgement) and listen on it again.

use embassy_futures::select::{select, Either};
use embassy_net::tcp::{State, TcpSocket};
use embassy_net::Stack;
use embassy_sync::blocking_mutex::raw::NoopRawMutex;
use embassy_time::{with_timeout, Duration, Timer};
use emcp::transport::asynch::{serve_http_connection, HttpState, Limits, Shared, Tick};
use emcp::transport::http::{refuse, Policy, Refusal};
use emcp::wire::json::{Sink, SinkError, SliceSink};
use static_cell::{ConstStaticCell, StaticCell};

use crate::device::{BACKLOG, BACK_RX, BACK_TX, CONNECTIONS, REQUEST, SOCKET_RX, SOCKET_TX};
use crate::fmt::log_warn;
use crate::queue::Queue;

/// How often an open stream runs its job or collects its notifications, in ms.
const TICK_MS: u32 = 5;

/// A connection waits this many ticks (30 s) for its next request before it is
/// closed, and a request that has begun must arrive within as many (else 408); open
/// streams are exempt.
const IDLE_TICKS: u32 = 6000;

/// The connections' time: a timer per tick while a stream is open or a request is
/// arriving, and one timer for the whole idle limit while a connection waits for its
/// next request (so an idle keep-alive connection sleeps).
struct Ticks;

impl Tick for Ticks {
    fn tick(&mut self) -> impl core::future::Future<Output = ()> {
        Timer::after_millis(u64::from(TICK_MS))
    }
    fn ticks(&mut self, n: u32) -> impl core::future::Future<Output = ()> {
        Timer::after_millis(u64::from(TICK_MS) * u64::from(n))
    }
}

/// The socket's own send ring: small, since every response is built whole in
/// `tx_buf` first and written from there.
const SOCKET_RING: usize = 512;

/// The TCP sockets: one per connection task and the backlog's.
pub const SOCKETS: usize = CONNECTIONS + BACKLOG;

/// How long an accepted connection waits for a connection task before it is
/// answered 503.
pub const GRACE: Duration = Duration::from_millis(500);

/// How long a closing socket waits for its FIN to be acknowledged, and for the reset
/// that ends it to leave, before it is reset and reused anyway.
const CLOSE_LIMIT: Duration = Duration::from_secs(2);

/// A socket's rings.
struct Rings<const RX: usize, const TX: usize> {
    rx: [u8; RX],
    tx: [u8; TX],
}

impl<const RX: usize, const TX: usize> Rings<RX, TX> {
    #[allow(clippy::declare_interior_mutable_const)]
    const CELL: ConstStaticCell<Self> = ConstStaticCell::new(Rings {
        rx: [0; RX],
        tx: [0; TX],
    });
}

static RINGS: [ConstStaticCell<Rings<SOCKET_RX, SOCKET_RING>>; CONNECTIONS] =
    [Rings::CELL; CONNECTIONS];
static BACK_RINGS: [ConstStaticCell<Rings<BACK_RX, BACK_TX>>; BACKLOG] = [Rings::CELL; BACKLOG];

/// The sockets as they go round: idle (to close and listen on, waited for by the
/// listeners), accepted (for a connection task, waited for by those), and the
/// connection tasks free (a token each, waited for by the listeners). Each holds
/// every item there is, so that a send never fails.
pub struct Sockets {
    idle: Queue<TcpSocket<'static>, SOCKETS, SOCKETS>,
    accepted: Queue<TcpSocket<'static>, SOCKETS, CONNECTIONS>,
    free: Queue<(), CONNECTIONS, SOCKETS>,
}

/// Make the sockets (once: `None` after), all idle, every connection task free.
pub fn sockets(stack: Stack<'static>) -> Option<&'static Sockets> {
    static SOCKETS_CELL: StaticCell<Sockets> = StaticCell::new();
    let sockets: &'static Sockets = SOCKETS_CELL.try_init(Sockets {
        idle: Queue::new(),
        accepted: Queue::new(),
        free: Queue::new(),
    })?;
    for cell in &RINGS {
        let rings = cell.try_take()?;
        add(sockets, stack, &mut rings.rx, &mut rings.tx);
    }
    for cell in &BACK_RINGS {
        let rings = cell.try_take()?;
        add(sockets, stack, &mut rings.rx, &mut rings.tx);
    }
    for _ in 0..CONNECTIONS {
        let _ = sockets.free.send(());
    }
    Some(sockets)
}

/// One idle socket on these rings. Not inlined: the stack's socket is built in this
/// frame, one at a time.
#[inline(never)]
fn add(sockets: &Sockets, stack: Stack<'static>, rx: &'static mut [u8], tx: &'static mut [u8]) {
    let _ = sockets.idle.send(TcpSocket::new(stack, rx, tx));
}

/// The server and session every connection task shares.
#[cfg(feature = "sensor")]
pub type Endpoint = Shared<NoopRawMutex, HttpState<sensor_board::Board>>;
/// The server and session every connection task shares.
#[cfg(feature = "conformance")]
pub type Endpoint = Shared<NoopRawMutex, HttpState<conformance_device::Fixtures, 8, 4, 2>>;

/// One connection task (of [`CONNECTIONS`]): serve the connections accepted, one at
/// a time.
#[embassy_executor::task(pool_size = CONNECTIONS)]
pub async fn task(
    sockets: &'static Sockets,
    shared: &'static Endpoint,
    policy: &'static Policy,
    slot: usize,
) -> ! {
    // In the task's future, which the executor keeps in a static: not on the stack.
    let mut rx_buf = [0u8; REQUEST];
    let mut tx_buf = [0u8; SOCKET_TX];
    let limits = Limits::new().idle_ticks(IDLE_TICKS).tick_ms(TICK_MS);
    loop {
        let mut socket = sockets.accepted.receive().await;
        let mut tick = Ticks;
        let served = serve_http_connection(
            shared,
            &mut socket,
            &mut rx_buf,
            &mut tx_buf,
            policy,
            &limits,
            &mut tick,
        )
        .await;
        if served.is_err() {
            log_warn!("connection {}: socket error", slot);
        }
        // Free for the next connection at once; a listener closes this one.
        let _ = sockets.free.send(());
        let _ = sockets.idle.send(socket);
    }
}

/// One listener (of [`SOCKETS`]): take an idle socket, close what it held, accept
/// on it, and hand the connection to a connection task, or answer it 503 if none is
/// free within [`GRACE`].
#[embassy_executor::task(pool_size = SOCKETS)]
pub async fn listener(sockets: &'static Sockets, port: u16) -> ! {
    loop {
        let mut socket = sockets.idle.receive().await;
        settle(&mut socket).await;
        if socket.accept(port).await.is_err() {
            let _ = sockets.idle.send(socket);
            continue;
        }
        match select(sockets.free.receive(), Timer::after(GRACE)).await {
            Either::First(()) => {
                let _ = sockets.accepted.send(socket);
            }
            Either::Second(()) => {
                log_warn!("connections full: 503");
                let _ = with_timeout(CLOSE_LIMIT, async {
                    // Written straight into the empty ring: no buffer in the future.
                    let _ = socket.write_with(busy_answer).await;
                    socket.close();
                    let _ = socket.flush().await;
                })
                .await;
                let _ = sockets.idle.send(socket);
            }
        }
    }
}

/// Bring a socket whose connection was served or refused to `Closed`. A peer that
/// closed first has everything sent (the transport waits for the acknowledgement of
/// each answer): it is reset at once, so that the socket listens again without a
/// round trip. Else the socket sends its FIN and waits (bounded) for it to be
/// acknowledged, and what is left (the peer's FIN) is reset. Either way it waits for
/// the reset to leave.
async fn settle(socket: &mut TcpSocket<'_>) {
    match socket.state() {
        State::Closed => return,
        State::CloseWait => socket.abort(),
        _ => {
            socket.close();
            let _ = with_timeout(CLOSE_LIMIT, socket.flush()).await;
            socket.abort();
        }
    }
    let _ = with_timeout(CLOSE_LIMIT, socket.flush()).await;
}

/// The 503 a listener answers (`all N connections busy, retry after 1 s`), rendered
/// into `ring`: its length, or nothing if it does not fit whole.
fn busy_answer(ring: &mut [u8]) -> (usize, ()) {
    struct Whole<'a> {
        sink: SliceSink<'a>,
        cut: bool,
    }
    impl Sink for Whole<'_> {
        fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
            let written = self.sink.write(bytes);
            self.cut |= written.is_err();
            written
        }
    }
    let mut answer = Whole {
        sink: SliceSink::new(ring),
        cut: false,
    };
    refuse(&mut answer, Refusal::Busy(CONNECTIONS));
    (if answer.cut { 0 } else { answer.sink.len() }, ())
}
