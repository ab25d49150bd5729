//! What the connection tasks share: the one MCP server, its HTTP session, and an
//! outbox per connection for the lines `Server::poll` routes to an open stream.
//!
//! Everything sits behind one blocking mutex that is never held across an
//! `await`: a task locks it to answer one request (writing the response straight
//! into its socket's send buffer) or to collect its stream's lines, then unlocks.
//! All tasks run on one executor, so a `NoopRawMutex` is enough.

use core::cell::RefCell;

use embassy_sync::blocking_mutex::raw::NoopRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use emcp::transport::http::Sessions;
use emcp::wire::json::{Sink, SinkError};

use crate::device::AppServer;
pub use crate::device::CONNECTIONS;

/// Bytes the server may hold of a response's first line while it picks the status
/// and framing: a response this long or shorter goes out with `Content-Length`,
/// a longer one chunked.
pub const SCRATCH: usize = 1536;

/// Bytes an open stream may have waiting between two deliveries (its outbox).
pub const OUTBOX: usize = 512;

/// Longest request id (JSON text) an open stream is routed by.
pub const MAX_ID: usize = 64;

/// The server and its HTTP state. Built in its static at compile time (no copy
/// through the stack at start-up); the server is installed once it is made.
pub struct Shared {
    pub endpoint: Option<Endpoint>,
    pub scratch: [u8; SCRATCH],
    pub outboxes: [Outbox; CONNECTIONS],
}

/// The server and its legacy-era HTTP session.
pub struct Endpoint {
    pub server: AppServer,
    pub sessions: Sessions,
}

/// [`Shared`] behind its mutex.
pub type SharedCell = Mutex<NoopRawMutex, RefCell<Shared>>;

/// The lines routed to one connection's open event stream, until its task sends them.
pub struct Outbox {
    /// A stream is open on this connection.
    pub open: bool,
    /// The request it serves (JSON text of its id; empty for a session's GET stream).
    pub request: heapless::Vec<u8, MAX_ID>,
    /// The stream ends with the response to `request`.
    pub until_response: bool,
    /// Complete JSON-RPC lines, each ending in `\n`.
    pub lines: heapless::Vec<u8, OUTBOX>,
    /// A line did not fit: the stream is broken and must close.
    pub overflowed: bool,
}

impl Outbox {
    pub const fn new() -> Self {
        Outbox {
            open: false,
            request: heapless::Vec::new(),
            until_response: false,
            lines: heapless::Vec::new(),
            overflowed: false,
        }
    }

    /// Open a stream serving `request`. Returns false when the id is too long.
    pub fn open(&mut self, request: &[u8], until_response: bool) -> bool {
        self.request.clear();
        self.lines.clear();
        self.overflowed = false;
        self.until_response = until_response;
        self.open = self.request.extend_from_slice(request).is_ok();
        self.open
    }

    pub fn close(&mut self) {
        self.open = false;
        self.lines.clear();
    }
}

impl Shared {
    pub const fn new() -> Self {
        Shared {
            endpoint: None,
            scratch: [0; SCRATCH],
            outboxes: [const { Outbox::new() }; CONNECTIONS],
        }
    }

    /// Continue pending jobs and send change notifications into the outboxes.
    pub fn poll(&mut self) {
        if let Some(endpoint) = self.endpoint.as_mut() {
            let mut router = Router {
                outboxes: &mut self.outboxes,
                to: None,
            };
            endpoint.server.poll(&mut router);
        }
    }
}

/// Appends each line `Server::poll` writes to the outbox of the stream it is
/// routed to; lines for no open stream are dropped.
struct Router<'a> {
    outboxes: &'a mut [Outbox],
    to: Option<usize>,
}

impl Sink for Router<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        if let Some(outbox) = self.to.and_then(|i| self.outboxes.get_mut(i)) {
            if outbox.lines.extend_from_slice(bytes).is_err() {
                outbox.overflowed = true;
            }
        }
        Ok(())
    }

    fn route(&mut self, request: Option<&[u8]>) {
        let request = request.unwrap_or_default();
        self.to = self
            .outboxes
            .iter()
            .position(|o| o.open && o.request.as_slice() == request);
    }
}
