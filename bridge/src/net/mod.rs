//! A networked device on stdio: `emcp-bridge http URL` POSTs each host line to the
//! device's Streamable HTTP endpoint and writes what comes back — a JSON body, or the
//! events of an event stream (progress, log messages and requests of the device
//! before the response) — as lines to the host.
//!
//! Host lines are read as in the other modes ([`crate::pump::Lines`],
//! [`Message::from_host`], [`crate::relay::Config::line_max`]): a line the core
//! answers with id `null` (not JSON, a batch, an id it cannot echo), or one longer
//! than the line limit, is answered here with the core's own error and not sent.
//!
//! **Requests run at once.** Each request has an exchange (a connection and a thread)
//! of its own, so a long tool call never holds up a ping. Notifications and the
//! host's answers to the device's requests go out in order on one thread (202).
//!
//! **Exactly one answer per request.** The device's response; or the bridge's error
//! ([`Failure`]) when the device cannot be reached, answers with a status other
//! than 2xx and no JSON-RPC response for the request (the status and the device's
//! text in the message), closes the connection before the response (a reset), or
//! leaves the request unanswered for the timeout (progress restarts it; the device
//! is sent `notifications/cancelled`). A request the host cancels gets no answer, and
//! its connection is closed.
//!
//! **Eras.** A message whose `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion` is a 2026-07-28 one: it goes with the
//! headers `MCP-Protocol-Version`, `Mcp-Method` and, for `tools/call`, `prompts/get`,
//! `resources/read` and `tasks/*`, `Mcp-Name`, and no session. Anything else belongs
//! to the initialize era: the `Mcp-Session-Id` the device gave the `initialize` and
//! the negotiated `MCP-Protocol-Version` go with every later message, and a GET with
//! the session opens the device's stream of server-initiated messages (resource
//! updates) when it offers one (405 otherwise).
//!
//! **Device reboots.** A rebooted device has forgotten the session and answers 404
//! to it. The bridge then replays the session on the device, as the serial mode does
//! after a reset (the `initialize` it saw with an id of its own, its answer
//! swallowed; `notifications/initialized`; the last `logging/setLevel`; every
//! `resources/subscribe` still on), and sends the request again under the new
//! session: a request refused for its session never ran. A request the device had
//! when it went down gets an error (the connection dropped, or the timeout); an open
//! `subscriptions/listen` stream is re-opened on the device when it is back, and its
//! second acknowledgement swallowed.
//!
//! **Bounded.** A message from the device (a JSON body, an event) is at most
//! [`MAX_MESSAGE`] bytes: a longer event is dropped and reported, a longer body fails
//! the request. A response head is at most [`client::MAX_HEAD`]. Requests in flight
//! at once: [`MAX_IN_FLIGHT`].

pub mod client;
pub mod sse;

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use emcp::wire::json;
use emcp::wire::rpc;

use crate::link::backoff;
use crate::message::{self, Kind, Message};
use crate::pump::{Frame, Lines, MAX_LINE};
use crate::relay::Fault;
use client::{Abort, Response, SendError, Url};
use sse::{Event, Events};

/// Largest message from the device (a JSON body, one event's data).
pub const MAX_MESSAGE: usize = MAX_LINE;

/// Requests in flight at once; one more is answered [`Fault::Unavailable`].
pub const MAX_IN_FLIGHT: usize = 256;

/// Bytes of a refusal's body kept for the error message (the rest is read and
/// dropped up to this many bytes more, then the connection closed).
const MAX_REFUSAL: usize = 64 * 1024;

/// Characters of a refusal's body quoted in the error message.
const QUOTED: usize = 300;

/// How long a notification, a refusal's body or a replayed request may take.
const SHORT: Duration = Duration::from_secs(10);

/// How long an `initialize` waits for the session's GET stream to be connected
/// before it is answered (so that updates of a subscription made right after reach
/// the host).
const GET_WAIT: Duration = Duration::from_secs(2);

/// How long a host line waits for the line before it to be under way on the device
/// (its answer written, its event stream open, a notification sent): so that quick
/// answers come in the order of their requests, as from a device on a serial line,
/// while a request answered by a stream (a long tool call) holds up nothing.
pub const ORDER_WAIT: Duration = Duration::from_secs(1);

/// Prefix of the ids of requests the bridge makes itself.
const REPLAY_ID: &str = "emcp-bridge/replay/";

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// What `emcp-bridge http` needs besides the URL.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// How long a request may go unanswered (`None`: forever); a progress
    /// notification for it starts the clock again; `subscriptions/listen` has none.
    pub timeout: Option<Duration>,
    /// The longest host line sent; a longer one is answered as the core answers a
    /// line longer than its buffer.
    pub line_max: usize,
}

/// Why the bridge answers a request itself. The one place that maps them to
/// JSON-RPC codes: [`Fault`]'s codes, a message saying what the device did.
#[derive(Debug)]
pub enum Failure {
    /// Connecting (or sending) failed: -32000.
    Unreachable(io::Error),
    /// The connection ended or broke before the response: -32000.
    Dropped(io::Error),
    /// A status other than 2xx without a JSON-RPC response to the request: -32000,
    /// with the status, reason and the device's text.
    Status(u16, String, String),
    /// A 2xx answer that is not the request's response (empty, another id, over
    /// [`MAX_MESSAGE`]): -32000.
    NoResponse(String),
    /// The device forgot the session and re-initializing it failed: -32000.
    SessionLost(String),
    /// No response within the timeout: -32001.
    Timeout,
}

impl Failure {
    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        match self {
            Failure::Timeout => Fault::Timeout.code(),
            _ => Fault::Reset.code(),
        }
    }

    /// The error message.
    pub fn message(&self, url: &str) -> String {
        match self {
            Failure::Unreachable(e) => format!("Device unreachable at {url}: {e} (emcp-bridge)"),
            Failure::Dropped(e) => format!(
                "Device connection lost before the response (device reset?): {e} (emcp-bridge)"
            ),
            Failure::Status(status, reason, text) if text.is_empty() => {
                format!("Device answered HTTP {status} {reason} (emcp-bridge)")
            }
            Failure::Status(status, reason, text) => {
                format!("Device answered HTTP {status} {reason}: {text} (emcp-bridge)")
            }
            Failure::NoResponse(what) => {
                format!("Device answered without a response to the request: {what} (emcp-bridge)")
            }
            Failure::SessionLost(why) => format!(
                "Device session lost (the device restarted?) and re-initializing it failed: {why} (emcp-bridge)"
            ),
            Failure::Timeout => Fault::Timeout.message().to_owned(),
        }
    }

    fn from_read(e: io::Error) -> Failure {
        match e.kind() {
            io::ErrorKind::TimedOut => Failure::Timeout,
            io::ErrorKind::InvalidData => Failure::NoResponse(e.to_string()),
            _ => Failure::Dropped(e),
        }
    }
}

/// One request in flight.
#[derive(Debug, Default)]
struct Flight {
    /// A `subscriptions/listen` stream: no timeout, re-opened after a reset.
    listen: bool,
    /// Answered or cancelled: nothing more for it goes to the host.
    done: AtomicBool,
    /// Its connection, while one is open.
    abort: Mutex<Option<Abort>>,
    /// Dropped once the request is under way ([`ORDER_WAIT`]).
    started: Mutex<Option<Sender<()>>>,
}

impl Flight {
    fn end(&self) {
        self.started();
        self.done.store(true, Ordering::Release);
        if let Some(a) = lock(&self.abort).as_ref() {
            a.abort();
        }
    }

    /// Under way: the next host line may go.
    fn started(&self) {
        lock(&self.started).take();
    }

    fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    fn set_abort(&self, abort: Abort) {
        if self.is_done() {
            abort.abort();
        }
        *lock(&self.abort) = Some(abort);
    }
}

/// The initialize-era session, and what the host set up in it (replayed after the
/// device forgot it).
#[derive(Debug, Default)]
struct Session {
    /// The device's `Mcp-Session-Id`.
    id: Option<String>,
    /// The negotiated protocol version (`MCP-Protocol-Version`).
    version: Option<String>,
    /// Bumped at every new session: requests, and the GET stream, know which one
    /// they used.
    generation: u64,
    /// `params` of the host's `initialize` the device accepted.
    initialize: Option<String>,
    /// The host's `notifications/initialized` line.
    initialized: Option<Vec<u8>>,
    /// `params` of the last `logging/setLevel`.
    log_level: Option<String>,
    /// `resources/subscribe` params by URI, in order.
    subscriptions: Vec<(String, String)>,
}

struct Bridge {
    url: Url,
    /// The URL as given, for messages.
    shown: String,
    options: Options,
    out: Mutex<Box<dyn Write + Send>>,
    flights: Mutex<HashMap<String, Arc<Flight>>>,
    /// Notified when a flight ends.
    idle: Condvar,
    session: Mutex<Session>,
    poster: Mutex<Sender<(Vec<u8>, Sender<()>)>>,
    /// The session's GET stream's connection.
    get_abort: Mutex<Option<Abort>>,
    next_replay: AtomicU64,
    stopping: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Relay the host (`host_in`, `host_out`) to the device at `url` until the host's
/// input ends and every request is answered.
///
/// # Errors
///
/// `url` is not an `http://` URL.
pub fn run(
    url: &str,
    host_in: impl Read + Send + 'static,
    host_out: impl Write + Send + 'static,
    options: Options,
) -> io::Result<()> {
    let parsed = Url::parse(url).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let (post_tx, post_rx) = mpsc::channel();
    let bridge = Arc::new(Bridge {
        url: parsed,
        shown: url.to_owned(),
        options,
        out: Mutex::new(Box::new(host_out)),
        flights: Mutex::new(HashMap::new()),
        idle: Condvar::new(),
        session: Mutex::new(Session::default()),
        poster: Mutex::new(post_tx),
        get_abort: Mutex::new(None),
        next_replay: AtomicU64::new(0),
        stopping: AtomicBool::new(false),
    });
    {
        let bridge = Arc::clone(&bridge);
        thread::spawn(move || bridge.post_loop(&post_rx));
    }
    let mut lines = Lines::new(host_in);
    let mut order = Order(None);
    loop {
        match lines.next_line() {
            Ok(Some(Frame::Line(line))) => bridge.host_line(&line, &mut order),
            Ok(Some(Frame::TooLong)) => {
                order.wait();
                bridge.write(&message::too_long_line(MAX_LINE));
            }
            Ok(None) | Err(_) => break,
        }
    }
    bridge.finish();
    Ok(())
}

/// The host line before this one, and when it went ([`ORDER_WAIT`]).
struct Order(Option<(Receiver<()>, Instant)>);

impl Order {
    /// Wait (at most [`ORDER_WAIT`] from when it went) until the line before is under
    /// way.
    fn wait(&mut self) {
        if let Some((rx, since)) = self.0.take() {
            let _ = rx.recv_timeout(ORDER_WAIT.saturating_sub(since.elapsed()));
        }
    }

    /// A new line went; the sender returned is dropped once it is under way.
    fn went(&mut self) -> Sender<()> {
        let (tx, rx) = mpsc::channel();
        self.0 = Some((rx, Instant::now()));
        tx
    }
}

impl Bridge {
    /// A line to the host.
    fn write(&self, line: &[u8]) {
        let mut out = lock(&self.out);
        let written = out
            .write_all(line)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if let Err(e) = written {
            if !self.stopping.swap(true, Ordering::AcqRel) {
                eprintln!("emcp-bridge: writing to the host: {e}");
            }
        }
    }

    /// Answer request `id` of `flight` with `line`, unless it was answered or
    /// cancelled already.
    fn answer(&self, id: &str, flight: &Arc<Flight>, line: &[u8]) {
        let mut flights = lock(&self.flights);
        if flights.get(id).is_some_and(|f| Arc::ptr_eq(f, flight)) {
            flights.remove(id);
            flight.done.store(true, Ordering::Release);
            self.write(line);
            self.idle.notify_all();
        }
    }

    /// A notification or an answer to the device; `sent` is dropped once it went.
    fn post(&self, line: Vec<u8>, sent: Sender<()>) {
        let _ = lock(&self.poster).send((line, sent));
    }

    fn host_line(self: &Arc<Self>, line: &[u8], order: &mut Order) {
        if line.len() > self.options.line_max {
            order.wait();
            return self.write(&message::too_long_line(self.options.line_max));
        }
        // Skipped as the core's framer skips it.
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            return;
        }
        order.wait();
        let msg = Message::from_host(line);
        match msg.kind {
            Kind::Request => self.host_request(msg, line, order.went()),
            Kind::Notification => {
                match msg.method() {
                    "notifications/initialized" if stateless_version(&msg).is_none() => {
                        lock(&self.session).initialized = Some(line.to_vec());
                    }
                    "notifications/cancelled" => {
                        if let Some(id) = msg.param("requestId") {
                            let flight = lock(&self.flights).remove(&id);
                            if let Some(f) = flight {
                                f.end();
                                self.idle.notify_all();
                            }
                        }
                    }
                    _ => {}
                }
                self.post(message::one_line(line), order.went());
            }
            Kind::Other if msg.rejected.is_some() => {
                // What the core answers with id null: its own error line.
                let mut out = Collect(Vec::new());
                if let Some(error) = msg.rejected {
                    rpc::write_error(&mut out, None, error.into(), None);
                }
                let mut answer = out.0;
                if answer.last() == Some(&b'\n') {
                    answer.pop();
                }
                self.write(&answer);
            }
            // The host's answers to the device's requests, and the rest: sent, 202.
            Kind::Response | Kind::Other => self.post(message::one_line(line), order.went()),
        }
    }

    fn host_request(self: &Arc<Self>, msg: Message, line: &[u8], started: Sender<()>) {
        let id = msg.id.clone().unwrap_or_default();
        let legacy = stateless_version(&msg).is_none();
        let flight = Arc::new(Flight {
            listen: !legacy && msg.method() == "subscriptions/listen",
            started: Mutex::new(Some(started)),
            ..Flight::default()
        });
        {
            let mut flights = lock(&self.flights);
            if flights.contains_key(&id) {
                drop(flights);
                let fault = Fault::DuplicateId;
                return self.write(&message::error_line(&id, fault.code(), fault.message()));
            }
            if flights.len() >= MAX_IN_FLIGHT {
                drop(flights);
                let fault = Fault::Unavailable;
                return self.write(&message::error_line(&id, fault.code(), fault.message()));
            }
            flights.insert(id.clone(), Arc::clone(&flight));
        }
        if legacy {
            let mut s = lock(&self.session);
            match msg.method() {
                "logging/setLevel" => s.log_level = msg.params.clone(),
                "resources/subscribe" | "resources/unsubscribe" => {
                    if let (Some(uri), Some(params)) = (msg.param("uri"), msg.params.clone()) {
                        s.subscriptions.retain(|(u, _)| *u != uri);
                        if msg.method() == "resources/subscribe" {
                            s.subscriptions.push((uri, params));
                        }
                    }
                }
                _ => {}
            }
        }
        let bridge = Arc::clone(self);
        let line = message::one_line(line);
        let (id_, flight_) = (id.clone(), Arc::clone(&flight));
        let spawned = thread::Builder::new().spawn(move || {
            let outcome = bridge.exchange(&msg, &line, &flight);
            match outcome {
                Ok(answer) => {
                    bridge.answer(&id, &flight, &answer);
                    flight.started();
                }
                Err(failure) => {
                    if flight.is_done() {
                        return; // cancelled: no answer
                    }
                    let text = failure.message(&bridge.shown);
                    bridge.answer(
                        &id,
                        &flight,
                        &message::error_line(&id, failure.code(), &text),
                    );
                    flight.started();
                    if matches!(failure, Failure::Timeout) {
                        let (sent, _) = mpsc::channel();
                        bridge.post(message::cancel_line(&id, "timed out"), sent);
                    }
                }
            }
        });
        if spawned.is_err() {
            let fault = Fault::Unavailable;
            self.answer(
                &id_,
                &flight_,
                &message::error_line(&id_, fault.code(), fault.message()),
            );
        }
    }

    /// The headers of a message: its era's, and the session's.
    fn headers(&self, msg: &Message, session: Option<&Session>) -> Vec<(&'static str, String)> {
        let mut h = base_headers();
        let safe = |v: &str| v.bytes().all(|b| b == b'\t' || (b >= 0x20 && b != 0x7f));
        if let Some(version) = stateless_version(msg) {
            // A value a header cannot carry is left out: the device answers -32020.
            if safe(&version) {
                h.push(("MCP-Protocol-Version", version));
            }
            if let Some(method) = msg.method.clone().filter(|m| safe(m)) {
                h.push(("Mcp-Method", method));
            }
            let named = match msg.method() {
                "tools/call" | "prompts/get" => Some("name"),
                "resources/read" => Some("uri"),
                "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
                _ => None,
            };
            let name = named
                .and_then(|key| msg.param(key))
                .and_then(|v| message::string_value(&v));
            if let Some(name) = name.filter(|n| safe(n)) {
                h.push(("Mcp-Name", name));
            }
        } else if let Some(s) = session {
            if let Some(id) = &s.id {
                h.push(("Mcp-Session-Id", id.clone()));
            }
            if let Some(v) = &s.version {
                h.push(("MCP-Protocol-Version", v.clone()));
            }
        }
        h
    }

    /// One request to its answer (or a failure).
    fn exchange(
        self: &Arc<Self>,
        msg: &Message,
        line: &[u8],
        flight: &Flight,
    ) -> Result<Vec<u8>, Failure> {
        let id = msg.id.clone().unwrap_or_default();
        let legacy = stateless_version(msg).is_none();
        let initialize = legacy && msg.method() == "initialize";
        let progress = msg.meta("progressToken");
        let timeout = self.options.timeout.filter(|_| !flight.listen);
        let mut deadline = timeout.map(|t| Instant::now() + t);
        let mut resent = false;
        let mut reopened = false;
        let mut attempt = 0u32;
        loop {
            let (headers, generation, with_session) = {
                let s = lock(&self.session);
                let session = (!initialize).then_some(&*s);
                let with_session = legacy && !initialize && s.id.is_some();
                (self.headers(msg, session), s.generation, with_session)
            };
            let sent = client::send(&self.url, "POST", &headers, line, deadline, |a| {
                flight.set_abort(a);
            });
            if flight.is_done() {
                return Err(Failure::Dropped(io::ErrorKind::Interrupted.into()));
            }
            let mut response = match sent {
                Ok(r) => r,
                Err(e) if flight.listen && !self.stopping.load(Ordering::Acquire) => {
                    // The device is away: the stream waits for it.
                    attempt = attempt.saturating_add(1);
                    if attempt == 1 {
                        eprintln!("emcp-bridge: listen stream {id}: {e}; re-opening when the device is back");
                    }
                    thread::sleep(backoff(
                        Duration::from_millis(100),
                        Duration::from_secs(2),
                        attempt,
                    ));
                    reopened = true;
                    continue;
                }
                Err(e) if e.io().kind() == io::ErrorKind::TimedOut => return Err(Failure::Timeout),
                Err(SendError::Connect(e)) => return Err(Failure::Unreachable(e)),
                Err(SendError::Exchange(e)) => return Err(Failure::from_read(e)),
            };
            if !(200..300).contains(&response.status) {
                let (answer, text) = refusal(&mut response, &id);
                if let Some(answer) = answer {
                    return Ok(answer); // a JSON-RPC error with its HTTP status (2026-07-28)
                }
                if response.status == 404 && with_session && !resent {
                    resent = true;
                    self.reinitialize(generation, response.status)
                        .map_err(Failure::SessionLost)?;
                    continue;
                }
                return Err(Failure::Status(response.status, response.reason, text));
            }
            let session_id = response.header("mcp-session-id").map(str::to_owned);
            let result = if response.is_event_stream() {
                flight.started(); // answered by a stream: the next line need not wait
                let swallow = reopened;
                self.stream(
                    &mut response,
                    &id,
                    progress.as_deref(),
                    &mut deadline,
                    swallow,
                    flight,
                )
            } else {
                read_json(&mut response, &id)
            };
            match result {
                Ok(answer) => {
                    if initialize {
                        self.initialized(msg, &answer, session_id);
                    }
                    return Ok(answer);
                }
                Err(e)
                    if flight.listen
                        && !flight.is_done()
                        && !self.stopping.load(Ordering::Acquire) =>
                {
                    eprintln!(
                        "emcp-bridge: listen stream {id}: {}; re-opening",
                        e.message(&self.shown)
                    );
                    attempt = 1;
                    thread::sleep(Duration::from_millis(100));
                    reopened = true;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The events of a response until the request's own response, which is returned;
    /// the others go to the host.
    fn stream(
        &self,
        response: &mut Response,
        id: &str,
        progress: Option<&str>,
        deadline: &mut Option<Instant>,
        mut swallow_ack: bool,
        flight: &Flight,
    ) -> Result<Vec<u8>, Failure> {
        let mut events = Events::new(&mut response.body, MAX_MESSAGE);
        loop {
            events.get_mut().set_deadline(*deadline);
            let data = match events.next_event().map_err(Failure::from_read)? {
                None => return Err(Failure::Dropped(client::dropped())),
                Some(Event::TooLong) => {
                    eprintln!("emcp-bridge: an event over {MAX_MESSAGE} bytes from the device was dropped");
                    continue;
                }
                Some(Event::Data(data)) => data,
            };
            let line = message::one_line(&data);
            let Some(msg) = Message::parse(&line) else {
                eprintln!(
                    "emcp-bridge: device event not JSON, dropped: {}",
                    quote(&line)
                );
                continue;
            };
            if msg.kind == Kind::Response && msg.id.as_deref() == Some(id) {
                return Ok(line);
            }
            if msg.kind == Kind::Notification {
                if msg.method() == "notifications/progress"
                    && progress.is_some()
                    && msg.param("progressToken").as_deref() == progress
                {
                    if let Some(t) = self.options.timeout.filter(|_| deadline.is_some()) {
                        *deadline = Some(Instant::now() + t);
                    }
                }
                if swallow_ack
                    && msg.method() == "notifications/subscriptions/acknowledged"
                    && msg.meta(SUBSCRIPTION_ID).as_deref() == Some(id)
                {
                    swallow_ack = false; // a re-opened stream: the host has its acknowledgement
                    continue;
                }
            }
            if flight.is_done() {
                return Err(Failure::Dropped(io::ErrorKind::Interrupted.into()));
            }
            self.write(&line);
        }
    }

    /// The host's `initialize` was answered: a new session (when the answer is a
    /// result), its stream opened.
    fn initialized(self: &Arc<Self>, msg: &Message, answer: &[u8], session_id: Option<String>) {
        let Some(version) = result_string(answer, "protocolVersion") else {
            return; // an error: no session
        };
        let generation = {
            let mut s = lock(&self.session);
            *s = Session {
                id: session_id,
                version: Some(version),
                generation: s.generation + 1,
                initialize: Some(msg.params.clone().unwrap_or_else(|| "{}".into())),
                ..Session::default()
            };
            s.id.is_some().then_some(s.generation)
        };
        if let Some(generation) = generation {
            self.open_get_stream(generation);
        }
    }

    /// Start the session's GET stream (generation `generation`) and wait a moment for
    /// the device's answer to it.
    fn open_get_stream(self: &Arc<Self>, generation: u64) {
        // The old session's stream holds one of the device's few connections.
        if let Some(old) = lock(&self.get_abort).take() {
            old.abort();
        }
        let (tx, rx) = mpsc::channel();
        let bridge = Arc::clone(self);
        thread::spawn(move || bridge.get_loop(generation, &tx));
        let _ = rx.recv_timeout(GET_WAIT);
    }

    /// The session's GET stream while its generation is current: the device's
    /// messages to the host. Re-opened when it ends; a 404 (the device forgot the
    /// session) re-initializes it; any other refusal (405: the device offers none)
    /// ends it. `opened` hears when the connection is open (or could not be).
    fn get_loop(self: &Arc<Self>, generation: u64, opened: &Sender<()>) {
        let mut attempt = 0u32;
        let current = |b: &Bridge| {
            !b.stopping.load(Ordering::Acquire) && lock(&b.session).generation == generation
        };
        while current(self) {
            let headers = {
                let s = lock(&self.session);
                let mut h = vec![("Accept", "text/event-stream".to_owned())];
                h.extend(s.id.clone().map(|id| ("Mcp-Session-Id", id)));
                h.extend(s.version.clone().map(|v| ("MCP-Protocol-Version", v)));
                h
            };
            let sent = client::send(&self.url, "GET", &headers, b"", None, |a| {
                if current(self) {
                    *lock(&self.get_abort) = Some(a);
                } else {
                    a.abort(); // a newer session's stream took its place meanwhile
                }
                // Connected: the request is on its way ahead of the host's next one (a
                // device may hold the stream's head until its first event).
                let _ = opened.send(());
            });
            let _ = opened.send(());
            attempt = attempt.saturating_add(1);
            match sent {
                Ok(mut r) if r.status == 200 && r.is_event_stream() => {
                    attempt = 1;
                    let mut events = Events::new(&mut r.body, MAX_MESSAGE);
                    while let Ok(Some(event)) = events.next_event() {
                        if !current(self) {
                            return;
                        }
                        match event {
                            Event::Data(data) => self.write(&message::one_line(&data)),
                            Event::TooLong => eprintln!(
                                "emcp-bridge: an event over {MAX_MESSAGE} bytes from the device was dropped"
                            ),
                        }
                    }
                }
                Ok(r) if r.status == 404 => {
                    if let Err(e) = self.reinitialize(generation, 404) {
                        eprintln!("emcp-bridge: {e}");
                    } else {
                        return; // the new session has a stream of its own
                    }
                }
                Ok(r) => {
                    if r.status != 405 {
                        eprintln!(
                            "emcp-bridge: the device refused the session's GET stream: HTTP {} {}",
                            r.status, r.reason
                        );
                    }
                    return;
                }
                Err(_) => {} // the device is away: try again
            }
            thread::sleep(backoff(
                Duration::from_millis(100),
                Duration::from_secs(2),
                attempt,
            ));
        }
    }

    /// The device answered 404 to session generation `seen`: unless another request
    /// did it already, replay the host's session on the device.
    fn reinitialize(self: &Arc<Self>, seen: u64, status: u16) -> Result<(), String> {
        let mut s = lock(&self.session);
        if s.generation != seen {
            return Ok(());
        }
        let Some(params) = s.initialize.clone() else {
            return Err("the host has not initialized a session".into());
        };
        eprintln!(
            "emcp-bridge: the device answered HTTP {status} to session {} (it restarted?): re-initializing",
            s.id.as_deref().unwrap_or("-")
        );
        let init = message::request_line(&self.replay_id(), "initialize", Some(&params));
        let base = base_headers();
        let (answer, session_id) = self.call(&init, &base)?;
        let version = result_string(&answer, "protocolVersion")
            .ok_or_else(|| format!("the device refused the initialize: {}", quote(&answer)))?;
        s.id = session_id;
        s.version = Some(version);
        s.generation += 1;
        let generation = s.generation;
        let mut headers = base;
        headers.extend(s.id.clone().map(|id| ("Mcp-Session-Id", id)));
        headers.extend(s.version.clone().map(|v| ("MCP-Protocol-Version", v)));
        let mut replay = Vec::new();
        replay.extend(s.initialized.clone());
        if let Some(level) = &s.log_level {
            replay.push(message::request_line(
                &self.replay_id(),
                "logging/setLevel",
                Some(level),
            ));
        }
        for (_, params) in &s.subscriptions {
            replay.push(message::request_line(
                &self.replay_id(),
                "resources/subscribe",
                Some(params),
            ));
        }
        for line in replay {
            if let Err(e) = self.call(&line, &headers) {
                eprintln!("emcp-bridge: replaying {}: {e}", quote(&line));
            }
        }
        eprintln!(
            "emcp-bridge: re-initialized: session {}",
            s.id.as_deref().unwrap_or("-")
        );
        let has_stream = s.id.is_some();
        drop(s);
        if has_stream {
            self.open_get_stream(generation);
        }
        Ok(())
    }

    fn replay_id(&self) -> String {
        let n = self.next_replay.fetch_add(1, Ordering::AcqRel) + 1;
        format!("\"{REPLAY_ID}{n}\"")
    }

    /// A message of the bridge's own to the device: the response to it when it is a
    /// request (JSON or the first response in an event stream; nothing else of the
    /// stream reaches the host), and the `Mcp-Session-Id` the device sent.
    fn call(
        &self,
        line: &[u8],
        headers: &[(&str, String)],
    ) -> Result<(Vec<u8>, Option<String>), String> {
        let deadline = Some(Instant::now() + self.options.timeout.unwrap_or(SHORT).min(SHORT));
        let mut r = client::send(&self.url, "POST", headers, line, deadline, |_| {})
            .map_err(|e| format!("{}: {e}", self.shown))?;
        let session = r.header("mcp-session-id").map(str::to_owned);
        let Some(id) = Message::parse(line).and_then(|m| m.id) else {
            let _ = r.body.read_max(MAX_REFUSAL);
            return match (200..300).contains(&r.status) {
                true => Ok((Vec::new(), session)),
                false => Err(format!("HTTP {} {}", r.status, r.reason)),
            };
        };
        if !(200..300).contains(&r.status) {
            let (answer, text) = refusal(&mut r, &id);
            return match answer {
                Some(a) => Ok((a, session)),
                None => Err(format!("HTTP {} {}: {text}", r.status, r.reason)),
            };
        }
        if r.is_event_stream() {
            let mut events = Events::new(&mut r.body, MAX_MESSAGE);
            while let Ok(Some(event)) = events.next_event() {
                if let Event::Data(data) = event {
                    let line = message::one_line(&data);
                    if answers(&line, &id) {
                        return Ok((line, session));
                    }
                }
            }
            return Err("the stream ended before the response".into());
        }
        read_json(&mut r, &id)
            .map(|a| (a, session))
            .map_err(|f| f.message(&self.shown))
    }

    /// Notifications and the host's answers, in order, each a POST (202 expected).
    fn post_loop(self: &Arc<Self>, lines: &Receiver<(Vec<u8>, Sender<()>)>) {
        for (line, _sent) in lines {
            let msg = Message::from_host(&line);
            let headers = {
                let s = lock(&self.session);
                self.headers(&msg, Some(&s))
            };
            let deadline = Some(Instant::now() + SHORT);
            match client::send(&self.url, "POST", &headers, &line, deadline, |_| {}) {
                Ok(mut r) if (200..300).contains(&r.status) => {
                    let _ = r.body.read_max(MAX_REFUSAL);
                }
                Ok(mut r) => {
                    let (_, text) = refusal(&mut r, "");
                    eprintln!(
                        "emcp-bridge: the device refused {}: HTTP {} {} {text}",
                        quote(&line),
                        r.status,
                        r.reason
                    );
                }
                Err(e) => eprintln!("emcp-bridge: sending {}: {e}", quote(&line)),
            }
        }
    }

    /// The host's input ended: wait for every request but open listen streams, then
    /// answer those (the bridge is stopping) and stop.
    fn finish(&self) {
        let mut flights = lock(&self.flights);
        while flights.values().any(|f| !f.listen) {
            flights = self.idle.wait(flights).unwrap_or_else(|p| p.into_inner());
        }
        self.stopping.store(true, Ordering::Release);
        let mut open: Vec<(String, Arc<Flight>)> = flights.drain().collect();
        drop(flights);
        open.sort_by(|a, b| a.0.cmp(&b.0));
        let fault = Fault::Unavailable;
        for (id, flight) in open {
            flight.end();
            self.write(&message::error_line(&id, fault.code(), fault.message()));
        }
        if let Some(a) = lock(&self.get_abort).as_ref() {
            a.abort();
        }
        // The host is done with the session: the device may free it (spec: DELETE).
        let headers = {
            let s = lock(&self.session);
            let mut h = Vec::new();
            h.extend(s.id.clone().map(|id| ("Mcp-Session-Id", id)));
            h.extend(s.version.clone().map(|v| ("MCP-Protocol-Version", v)));
            h
        };
        if !headers.is_empty() && headers[0].0 == "Mcp-Session-Id" {
            let deadline = Some(Instant::now() + Duration::from_secs(2));
            if let Ok(mut r) = client::send(&self.url, "DELETE", &headers, b"", deadline, |_| {}) {
                let _ = r.body.read_max(MAX_REFUSAL);
            }
        }
    }
}

/// The headers of every POST.
fn base_headers() -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
    ]
}

/// A sink collecting bytes.
struct Collect(Vec<u8>);

impl json::Sink for Collect {
    fn write(&mut self, bytes: &[u8]) -> Result<(), json::SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// The 2026-07-28 protocol version a message claims (`params._meta`), decoded.
fn stateless_version(msg: &Message) -> Option<String> {
    msg.meta(PROTOCOL_VERSION)
        .and_then(|v| message::string_value(&v))
}

/// `result.<key>` of a response line, when a string.
fn result_string(line: &[u8], key: &str) -> Option<String> {
    let v = json::parse_with_depth(line, json::DEPTH_LIMIT).ok()?;
    let raw = v.get("result")?.get(key)?.raw();
    message::string_value(&String::from_utf8_lossy(raw))
}

/// Whether `line` is a JSON-RPC response to `id`.
fn answers(line: &[u8], id: &str) -> bool {
    Message::parse(line).is_some_and(|m| m.kind == Kind::Response && m.id.as_deref() == Some(id))
}

/// Text for a message: lossy UTF-8, line breaks as spaces, at most [`QUOTED`]
/// characters.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    let mut out: String = text
        .chars()
        .take(QUOTED)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() > QUOTED {
        out.push('…');
    }
    out
}

/// A refusal's body: the JSON-RPC response to `id` in it, else its text.
fn refusal(response: &mut Response, id: &str) -> (Option<Vec<u8>>, String) {
    response.body.set_deadline(Some(Instant::now() + SHORT));
    let mut kept = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = response.body.read(&mut buf) {
        if n == 0 || kept.len() >= MAX_REFUSAL {
            break;
        }
        kept.extend_from_slice(&buf[..n]);
    }
    let body = if response.is_event_stream() {
        // The data of its first event.
        let mut events = Events::new(&kept[..], MAX_REFUSAL);
        match events.next_event() {
            Ok(Some(Event::Data(d))) => d,
            _ => kept.clone(),
        }
    } else {
        kept.clone()
    };
    let line = message::one_line(&body);
    if answers(&line, id) {
        return (Some(line), String::new());
    }
    (None, quote(&kept))
}

/// A JSON body: the response to `id`.
fn read_json(response: &mut Response, id: &str) -> Result<Vec<u8>, Failure> {
    let body = response
        .body
        .read_max(MAX_MESSAGE)
        .map_err(Failure::from_read)?;
    let line = message::one_line(&body);
    if answers(&line, id) {
        return Ok(line);
    }
    let status = response.status;
    Err(Failure::NoResponse(match quote(&line) {
        t if t.is_empty() => format!("HTTP {status} with no body"),
        t => format!("HTTP {status}: {t}"),
    }))
}
