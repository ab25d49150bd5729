//! The connection tasks: each accepts on the configured port and serves the
//! connection with the core's async HTTP transport
//! (`emcp::transport::asynch::serve_http_connection`).
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
//! and answers `503 Service Unavailable` with `Retry-After: 1` and a body saying so,
//! so a client that comes when the device is full learns why instead of meeting a
//! reset. Beyond that one (while it is answering), the TCP stack resets new
//! connections.

use core::cell::Cell;

use embassy_futures::select::{select, Either};
use embassy_net::tcp::TcpSocket;
use embassy_net::Stack;
use embassy_sync::blocking_mutex::raw::{CriticalSectionRawMutex, NoopRawMutex};
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::signal::Signal;
use embassy_time::{with_timeout, Duration, Timer};
use emcp::transport::asynch::{refuse, serve_http_connection, HttpState, Limits, Shared, Tick};
use emcp::transport::http::{Policy, Refusal};

use crate::device::{CONNECTIONS, REQUEST, SOCKET_RX, SOCKET_TX};
use crate::fmt::log_warn;

/// Connection tasks serving a connection now. Counted under a critical section
/// rather than with an atomic add, which Cortex-M0+ and RV32IMC lack.
static BUSY: Mutex<CriticalSectionRawMutex, Cell<usize>> = Mutex::new(Cell::new(0));

/// Raised whenever [`BUSY`] changes; [`overflow`] waits on it.
static BUSY_CHANGED: Signal<CriticalSectionRawMutex, ()> = Signal::new();

fn busy(delta: isize) {
    BUSY.lock(|b| b.set(b.get().saturating_add_signed(delta)));
    BUSY_CHANGED.signal(());
}

fn full() -> bool {
    BUSY.lock(Cell::get) >= CONNECTIONS
}

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

/// The server and session every connection task shares.
#[cfg(feature = "sensor")]
pub type Endpoint = Shared<NoopRawMutex, HttpState<sensor_board::Board>>;
/// The server and session every connection task shares.
#[cfg(feature = "conformance")]
pub type Endpoint = Shared<NoopRawMutex, HttpState<conformance_device::Fixtures, 8, 4, 2>>;

/// One connection task (of [`CONNECTIONS`]).
#[embassy_executor::task(pool_size = CONNECTIONS)]
pub async fn task(
    stack: Stack<'static>,
    shared: &'static Endpoint,
    policy: &'static Policy,
    port: u16,
    slot: usize,
) -> ! {
    // In the task's future, which the executor keeps in a static: not on the stack.
    let mut socket_rx = [0u8; SOCKET_RX];
    let mut socket_tx = [0u8; SOCKET_RING];
    let mut rx_buf = [0u8; REQUEST];
    let mut tx_buf = [0u8; SOCKET_TX];
    let limits = Limits::new().idle_ticks(IDLE_TICKS).tick_ms(TICK_MS);
    loop {
        let mut socket = TcpSocket::new(stack, &mut socket_rx, &mut socket_tx);
        if socket.accept(port).await.is_err() {
            continue;
        }
        busy(1);
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
        socket.close();
        let _ = socket.flush().await;
        busy(-1);
    }
}

/// How long the overflow socket waits for its 503 to leave before it drops the
/// connection.
const OVERFLOW_FLUSH: Duration = Duration::from_secs(2);

/// The overflow socket: while every connection task is busy, accept on the same
/// port and answer `503` with `Retry-After: 1` (`all N connections busy, retry after
/// 1 s`) without reading the request. It stops listening as soon as a task is free
/// again, so that it does not take a connection a task could serve.
#[embassy_executor::task]
pub async fn overflow(stack: Stack<'static>, port: u16) -> ! {
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
        match select(socket.accept(port), until_free).await {
            Either::First(Ok(())) => {
                log_warn!("connections full: 503");
                let _ = with_timeout(OVERFLOW_FLUSH, async {
                    let _ = refuse(&mut socket, Refusal::Busy(CONNECTIONS)).await;
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
