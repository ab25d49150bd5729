//! One connection task: accept on port 80 and serve the connection with the core's
//! async HTTP transport (`emcp::transport::asynch::serve_http_connection`).
//!
//! Every task shares one [`Endpoint`]: the server and the legacy era's session behind
//! a blocking mutex that is never held across an `await`. A task locks it to answer
//! one request into its own `tx_buf`, unlocks, then writes; a request that became an
//! event stream (a long-running tool, `subscriptions/listen`, a session's GET stream)
//! is continued at each tick by the task that holds its connection, so every
//! connection does only its own share of the work. A response longer than `tx_buf`
//! is answered -32603 for its id.
//!
//! One more socket, [`overflow`], listens only while every connection task is busy
//! and answers `503 Service Unavailable` with `Retry-After: 1`, so a client that
//! comes when the device is full learns so instead of meeting a reset. Beyond that
//! one (while it is answering), the TCP stack resets new connections.

use core::sync::atomic::{AtomicUsize, Ordering};

use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_net::Stack;
use embassy_sync::blocking_mutex::raw::{CriticalSectionRawMutex, NoopRawMutex};
use embassy_sync::signal::Signal;
use embassy_time::{with_timeout, Duration, Timer};
use emcp::transport::asynch::{reject, serve_http_connection, HttpState, Limits, Shared, Tick};
use emcp::transport::http::{Policy, Status};

use crate::device::{CONNECTIONS, MAX_BODY, REQUEST, SOCKET_RX, SOCKET_TX};

/// The port served.
pub const PORT: u16 = 80;

/// What the endpoint accepts. `10.0.2.15` is the device's own address on QEMU's
/// user network; loopback names (the host side of the port forward) always pass.
pub const POLICY: Policy = Policy {
    endpoint: "/mcp",
    hosts: &["10.0.2.15"],
    max_body: MAX_BODY,
    bearer: BEARER,
};

/// The bearer token every request must carry, set when the image is built
/// (`EMCP_BEARER=<token> run.sh …`); none when unset or empty. A product provisions
/// it per device rather than per build.
const BEARER: Option<&str> = match option_env!("EMCP_BEARER") {
    Some(token) if !token.is_empty() => Some(token),
    _ => None,
};

/// Connection tasks serving a connection now.
static BUSY: AtomicUsize = AtomicUsize::new(0);

/// Raised whenever [`BUSY`] changes; [`overflow`] waits on it.
static BUSY_CHANGED: Signal<CriticalSectionRawMutex, ()> = Signal::new();

fn busy(delta: isize) {
    if delta > 0 {
        BUSY.fetch_add(1, Ordering::Relaxed);
    } else {
        BUSY.fetch_sub(1, Ordering::Relaxed);
    }
    BUSY_CHANGED.signal(());
}

fn full() -> bool {
    BUSY.load(Ordering::Relaxed) >= CONNECTIONS
}

/// How often an open stream runs its job or collects its notifications, in ms.
const TICK_MS: u64 = 5;

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
        Timer::after_millis(TICK_MS)
    }
    fn ticks(&mut self, n: u32) -> impl core::future::Future<Output = ()> {
        Timer::after_millis(TICK_MS * u64::from(n))
    }
}

/// The socket's own send ring: small, since every response is built whole in
/// `tx_buf` first and written from there.
const SOCKET_RING: usize = 512;

/// The server and session every connection task shares.
#[cfg(feature = "sensor")]
pub type Endpoint = Shared<NoopRawMutex, HttpState<sensor_board::Board>>;
/// The server and session every connection task shares.
#[cfg(feature = "conformance")]
pub type Endpoint = Shared<NoopRawMutex, HttpState<conformance_device::Fixtures, 8, 4, 2>>;

#[embassy_executor::task(pool_size = CONNECTIONS)]
pub async fn task(stack: Stack<'static>, shared: &'static Endpoint, slot: usize) -> ! {
    // In the task's future, which the executor keeps in a static: not on the stack.
    let mut socket_rx = [0u8; SOCKET_RX];
    let mut socket_tx = [0u8; SOCKET_RING];
    let mut rx_buf = [0u8; REQUEST];
    let mut tx_buf = [0u8; SOCKET_TX];
    let limits = Limits::new().idle_ticks(IDLE_TICKS);
    loop {
        let mut socket = TcpSocket::new(stack, &mut socket_rx, &mut socket_tx);
        if socket.accept(PORT).await.is_err() {
            continue;
        }
        busy(1);
        let mut tick = Ticks;
        let served = serve_http_connection(
            shared,
            &mut socket,
            &mut rx_buf,
            &mut tx_buf,
            &POLICY,
            &limits,
            &mut tick,
        )
        .await;
        if served.is_err() {
            defmt::warn!("connection {}: socket error", slot);
        }
        socket.close();
        let _ = socket.flush().await;
        busy(-1);
    }
}

/// How long the overflow socket waits for its 503 to leave before it drops the
/// connection.
const OVERFLOW_FLUSH: Duration = Duration::from_secs(2);

/// The overflow socket: while every connection task is busy, accept on the same
/// port and answer `503` with `Retry-After: 1` without reading the request. It stops
/// listening as soon as a task is free again, so that it does not take a connection
/// a task could serve.
#[embassy_executor::task]
pub async fn overflow(stack: Stack<'static>) -> ! {
    let mut rx = [0u8; 128];
    let mut tx = [0u8; 128];
    loop {
        while !full() {
            BUSY_CHANGED.wait().await;
        }
        let mut socket = TcpSocket::new(stack, &mut rx, &mut tx);
        let until_free = async {
            while full() {
                BUSY_CHANGED.wait().await;
            }
        };
        match select(socket.accept(PORT), until_free).await {
            Either::First(Ok(())) => {
                defmt::warn!("connections full: 503");
                let _ = with_timeout(OVERFLOW_FLUSH, async {
                    let _ = reject(&mut socket, Status::ServiceUnavailable).await;
                    socket.close();
                    let _ = socket.flush().await;
                })
                .await;
            }
            Either::First(Err(_)) => {}
            Either::Second(()) => socket.abort(),
        }
    }
}
