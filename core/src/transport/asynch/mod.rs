//! Async serving (cargo feature `async`) over `embedded-io-async` `Read`/`Write`, for
//! Embassy and any other executor: still `no_std`, no `alloc`, no executor, timer or
//! network stack assumed. (`asynch`, as in `embedded-hal-async`'s modules: `async` is a
//! keyword.)
//!
//! - [`serve`] — the counterpart of [`crate::transport::serve::serve`] for one byte
//!   stream (UART, USB-CDC): reads, frames, answers, and runs pending tool jobs and
//!   sends change notifications ([`crate::Device::take_changes`], raised from
//!   interrupts) at every [`Tick`] while it waits for input.
//! - `serve_http_connection` (with feature `http`) — one Streamable HTTP
//!   connection, picoserve's shape: spawn one task per connection, each with its own
//!   receive and transmit buffers, all sharing one [`Shared`] server.
//!
//! Time comes from the caller as a [`Tick`]: any closure returning a future that
//! completes after a while, such as `|| embassy_time::Timer::after_millis(10)`. Between
//! ticks nothing is polled; a tick bounds how late a job's next step or a change
//! notification goes out.
//!
//! # Sharing one server between connections
//!
//! An HTTP client opens several connections to one device (POSTs, a GET stream,
//! `subscriptions/listen` streams), and they all talk to one [`crate::Server`]. It
//! sits in a [`Shared`]: an `embassy-sync` blocking mutex around a `RefCell`. **The
//! server is never held across an `.await`.** A connection reads (await), then takes
//! the server for one synchronous step — `transport::http::serve` writing
//! into the connection's own transmit buffer — releases it, and writes that buffer
//! to its socket (await). So no connection waits for another's network I/O, and the
//! lock is held for one request's handling (what the blocking transports do in the
//! same place). `CriticalSectionRawMutex` lets the server be shared with interrupt
//! handlers and other executors; `NoopRawMutex` is enough for tasks of one executor.
//!
//! Output of one step goes to the connection that made it, never elsewhere, so no
//! connection keeps lines for another:
//!
//! - A request's answer, and what its handler writes meanwhile (progress, log
//!   messages), goes into that connection's transmit buffer. A response too large
//!   for it is taken back and answered with -32603 for the same id, as for any fixed
//!   buffer.
//! - A request that became a pending job (a long-running tool, a tool waiting for
//!   the client's input) keeps its connection as an open event stream; at each tick
//!   that connection continues **its own** job one step
//!   ([`Server::poll_job`](crate::Server::poll_job)) and sends what it wrote, until the
//!   job's answer ends the stream. Its connection closing cancels the job
//!   ([`Server::cancel`](crate::Server::cancel)): nobody would read its answer.
//! - An open listen stream (2026-07-28) or a legacy-era session's GET stream sends, at
//!   each tick, the change notifications pending for **that** stream
//!   (`Server::poll_changes`, feature `routes`); the server keeps one
//!   pending bit per resource for every subscriber, so a change reaches every stream
//!   that listens to it, whichever polls first.
//!
//! **Bounds.** Connections served at once = the tasks the user spawns, each with its
//! socket and its two buffers (nothing else is kept per connection: an open stream's
//! request id, at most [`MAX_ID_LEN`](crate::wire::rpc::MAX_ID_LEN) bytes, lives in
//! the task). The server bounds the rest: `L` listen streams and `J` pending jobs
//! of [`Server<D, L, J, W, K>`](crate::Server) (one more is refused with a JSON-RPC
//! error, as on any transport), one legacy-era session. A connection beyond the
//! spawned tasks waits in the network stack's accept queue (or is refused by it).
//!
//! # On Embassy
//!
//! A pool of connection tasks on `embassy-net`, each accepting on port 80 with its
//! own socket and buffers, all serving one shared server (a sketch: `Board`, its
//! `CONFIG` and the network setup are the firmware's):
//!
//! ```ignore
//! use embassy_net::{tcp::TcpSocket, Stack};
//! use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
//! use embassy_time::Timer;
//! use emcp::transport::asynch::{serve_http_connection, HttpState, Limits, Shared};
//! use emcp::transport::http::Policy;
//!
//! type Endpoint = Shared<CriticalSectionRawMutex, HttpState<Board>>;
//!
//! static POLICY: Policy = Policy {
//!     hosts: &["10.0.2.15"], // the device's own address or name (or `own`: a DHCP one)
//!     max_body: 4096,
//!     ..Policy::new()
//! };
//!
//! #[embassy_executor::task(pool_size = 3)]
//! async fn mcp(stack: Stack<'static>, endpoint: &'static Endpoint) -> ! {
//!     let (mut socket_rx, mut socket_tx) = ([0u8; 1024], [0u8; 1024]);
//!     let (mut rx_buf, mut tx_buf) = ([0u8; 4096 + 512], [0u8; 2048]);
//!     let limits = Limits::new().idle_ticks(1000).tick_ms(10); // 10 s of 10 ms ticks
//!     loop {
//!         let mut socket = TcpSocket::new(stack, &mut socket_rx, &mut socket_tx);
//!         if socket.accept(80).await.is_err() {
//!             continue;
//!         }
//!         let mut tick = || Timer::after_millis(10);
//!         let _ = serve_http_connection(
//!             endpoint, &mut socket, &mut rx_buf, &mut tx_buf, &POLICY, &limits, &mut tick,
//!         )
//!         .await;
//!         socket.close();
//!         let _ = socket.flush().await;
//!     }
//! }
//!
//! // In main: one shared server, then the tasks.
//! static ENDPOINT: static_cell::StaticCell<Endpoint> = static_cell::StaticCell::new();
//! let server = Server::new(Board::new(), CONFIG).unwrap();
//! let endpoint = ENDPOINT.init(Shared::new(HttpState::new(server, seed_from_rng)));
//! for _ in 0..3 {
//!     spawner.spawn(mcp(stack, endpoint)).unwrap();
//! }
//! ```
//!
//! A UART is one task: `serve(&mut server, &mut framer, &mut rx, &mut tx, &mut
//! tx_buf, &mut tick)` with the two halves of `BufferedUart::split()`.
//!
//! A listen stream ends (its chunked body closed, the connection kept) when the
//! client cancels it or the server is reset; a GET stream when its session ends
//! (DELETE, or a new `initialize`).
//!
//! # Panics
//!
//! Nothing here panics on any input, and no lock is taken twice ([`Shared::with`]
//! answers `None` instead of panicking). Like every `async fn`, the futures carry
//! rustc's check against being polled again after completion, a `core::panicking`
//! call that an executor never reaches: an image using this module links it, which a
//! "no panic symbol" check of the image must allow for.
//!
//! # Not supported yet
//!
//! - A stream is not resumable (`Last-Event-ID` is ignored; events carry no `id`).

#[cfg(feature = "http")]
mod http;
mod stream;

#[cfg(feature = "http")]
pub use http::{refuse, reject, serve_http_connection, HttpState, Limits, MIN_TX_BUF};
pub use stream::serve;

use core::cell::RefCell;
use core::future::Future;

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embedded_io_async::Write;

use crate::transport::serve::ServeError;

/// Time between polls while a connection waits: [`Tick::tick`] returns a future that
/// completes after a while (for example `embassy_time::Timer::after_millis(10)`).
///
/// Any `FnMut() -> impl Future<Output = ()>` closure is a `Tick`:
///
/// ```
/// use emcp::transport::asynch::Tick;
/// fn takes(_: impl Tick) {}
/// takes(|| core::future::ready(())); // on Embassy: || Timer::after_millis(10)
/// ```
pub trait Tick {
    /// Wait until the next poll is due.
    fn tick(&mut self) -> impl Future<Output = ()>;

    /// Wait `n` ticks in one go: what a connection waiting for its next request, with
    /// nothing else to do, waits for its idle limit (`Limits::idle_ticks`, HTTP). The
    /// default waits for `n` times [`Tick::tick`]; a `Tick` on a timer should start
    /// one timer for the whole time instead, so that the waiting connection sleeps
    /// until a request or the limit comes:
    ///
    /// ```
    /// use core::future::Future;
    /// use emcp::transport::asynch::Tick;
    ///
    /// /// Ticks of 5 ms; on Embassy each wait is an `embassy_time::Timer`.
    /// struct Ticks;
    /// # async fn after_ms(_: u64) {}
    /// impl Tick for Ticks {
    ///     fn tick(&mut self) -> impl Future<Output = ()> {
    ///         after_ms(5) // Timer::after_millis(5)
    ///     }
    ///     fn ticks(&mut self, n: u32) -> impl Future<Output = ()> {
    ///         after_ms(5 * u64::from(n)) // one timer, not n
    ///     }
    /// }
    /// ```
    fn ticks(&mut self, n: u32) -> impl Future<Output = ()> {
        async move {
            for _ in 0..n {
                self.tick().await;
            }
        }
    }
}

impl<F, T> Tick for F
where
    F: FnMut() -> T,
    T: Future<Output = ()>,
{
    fn tick(&mut self) -> impl Future<Output = ()> {
        self()
    }
}

/// State shared by connection tasks (an HTTP endpoint's server and sessions): a
/// blocking mutex of `M` around a `RefCell`, taken only for synchronous steps
/// ([`Shared::with`]), never across an `.await`.
///
/// `M` is an `embassy_sync` raw mutex: `CriticalSectionRawMutex` (any context,
/// interrupts included; the firmware provides a `critical-section` implementation,
/// such as `cortex-m`'s feature `critical-section-single-core`), `ThreadModeRawMutex`,
/// or `NoopRawMutex` (tasks of one executor). Put it in a `static` (`static_cell::StaticCell` builds one at run time,
/// as [`crate::Server::new`] is not `const`).
pub struct Shared<M: RawMutex, S> {
    inner: Mutex<M, RefCell<S>>,
}

impl<M: RawMutex, S> Shared<M, S> {
    /// Share `state`.
    pub const fn new(state: S) -> Self {
        Shared {
            inner: Mutex::new(RefCell::new(state)),
        }
    }

    /// Run `f` on the state, under the mutex. `None` when the state is already taken:
    /// `f` was called from inside another `with` on the same state (never the case
    /// for the connection functions of this module, which hold no lock across an
    /// `.await` or a call back into user code).
    pub fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        self.inner
            .lock(|cell| cell.try_borrow_mut().ok().map(|mut s| f(&mut s)))
    }

    /// The state back.
    pub fn into_inner(self) -> S {
        self.inner.into_inner().into_inner()
    }
}

/// Write all of `bytes` (no `write_all`: a writer answering `Ok(0)` is an error here,
/// not a panic).
async fn send<W: Write, R>(
    writer: &mut W,
    mut bytes: &[u8],
) -> Result<(), ServeError<R, W::Error>> {
    while !bytes.is_empty() {
        match writer.write(bytes).await {
            Ok(0) => return Err(ServeError::Write(None)),
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(e) => return Err(ServeError::Write(Some(e))),
        }
    }
    Ok(())
}

/// Flush the writer.
async fn flush<W: Write, R>(writer: &mut W) -> Result<(), ServeError<R, W::Error>> {
    writer.flush().await.map_err(|e| ServeError::Write(Some(e)))
}
