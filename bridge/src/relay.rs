//! The relay: a pure state machine between one host and one device link.
//!
//! Lines in, lines out, no I/O and no clock of its own (every call takes `now`):
//!
//! - host line → device ([`Relay::host_line`]); device line → host
//!   ([`Relay::device_line`]); forwarded lines are the exact bytes received but for
//!   the ids swapped (below);
//! - the device link went away ([`Relay::disconnected`]) or came (back)
//!   ([`Relay::connected`]); deadlines pass ([`Relay::tick`]).
//!
//! **Exactly one response per host request.** Every request from the host is kept
//! in an in-flight table, keyed by the raw text of its id, until one response has
//! gone back: the device's, or the bridge's own error ([`Fault`]) when the device
//! reset with the request on it, the request timed out, the host reused an id
//! still in flight, or [`Config::max_in_flight`] requests are in flight already.
//! A request the host cancels (`notifications/cancelled`) leaves the table without
//! a response, as MCP specifies.
//!
//! **The device sees the bridge's ids only.** Each host request goes to the device
//! with an id of the bridge's own — a JSON integer from one counter that also numbers
//! the bridge's replayed requests, never reused — and its answer comes back with the
//! host's id restored byte for byte (`7`, `"a\u0041"`, `123456789012345678901234567890`
//! as the host wrote it): whatever ids the host picks, none can be taken for another
//! request or for one of the bridge's, and a late answer to a request that timed out
//! or was cancelled names an id no request has any more (dropped). The ids that
//! name a request inside a message are swapped too: `requestId` of the host's
//! `notifications/cancelled`, and the subscription id of a listen stream's
//! notifications. The rest of each line is forwarded byte for byte; progress tokens
//! are the host's own and pass unchanged.
//!
//! **Resets.** Requests written to the device before it went away are answered
//! with [`Fault::Reset`]; requests that arrive while it is away wait (their
//! timeouts running) and go out once it is back. On reconnection the bridge first
//! re-establishes what the host had set up on the old device, answering nothing of
//! it to the host: the `initialize` request it saw (with a bridge id, response
//! swallowed), `notifications/initialized`, the last `logging/setLevel`, every
//! `resources/subscribe` not since unsubscribed, and every open 2026-07-28
//! `subscriptions/listen` stream (re-sent as first sent, bridge id and all; its new
//! acknowledgement is swallowed, so the host's stream just continues).
//!
//! Requests from the device to the host (sampling, elicitation, roots, ping) and
//! notifications pass to the host unchanged; the host's responses to them go back
//! to the device that asked, and are dropped when that device has since reset.

use std::collections::{BTreeSet, VecDeque};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use emcp::wire::error::{RequestError, RpcError};
// foldhash, seeded at random per map, not std's SipHash: the one map whose keys a
// client picks (`pending`, the host's ids) holds at most `Config::max_in_flight`,
// which bounds what colliding ids could cost whatever the hash; the others are keyed
// by the bridge's own ids or the device's.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::message::{self, Kind, Message};

/// Why the bridge answers a host request itself. One place maps these to JSON-RPC
/// codes ([`Fault::code`]); the codes are the MCP SDKs' own for a closed connection
/// and a request timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// The device reset (port gone, child exited) while the request was on it: -32000.
    Reset,
    /// No answer within the timeout: -32001.
    Timeout,
    /// The device is away and too many requests already wait for it, or the bridge is
    /// shutting down: -32000.
    Unavailable,
    /// The host sent a request whose id is still in flight: -32600.
    DuplicateId,
    /// [`Config::max_in_flight`] host requests are in flight already: -32000.
    Busy,
    /// A `resources/subscribe` of a new URI when [`MAX_SUBSCRIPTIONS`] are kept for
    /// replay already: -32000 (not relayed, so none is held that a reset would lose).
    TooManySubscriptions,
}

/// Every fault, in the order of [`Fault::tail`]'s places.
const FAULTS: [Fault; 6] = [
    Fault::Reset,
    Fault::Timeout,
    Fault::Unavailable,
    Fault::DuplicateId,
    Fault::Busy,
    Fault::TooManySubscriptions,
];

/// Most `resources/subscribe` URIs the bridge keeps to replay after a device reset.
/// A device serves far fewer (the core's bound is `MAX_RESOURCES`); the bound keeps a
/// client that subscribes to ever new URIs from growing the bridge without end.
pub const MAX_SUBSCRIPTIONS: usize = 256;

impl Fault {
    /// The JSON-RPC error code.
    pub fn code(self) -> i64 {
        match self {
            Fault::Reset | Fault::Unavailable | Fault::Busy | Fault::TooManySubscriptions => -32000,
            Fault::Timeout => -32001,
            Fault::DuplicateId => -32600,
        }
    }

    /// Its answer's error member and end ([`message::error_tail`]), made once: a
    /// reset or the close answers every request in flight with the same one.
    fn tail(self) -> &'static str {
        static TAILS: OnceLock<[String; 6]> = OnceLock::new();
        let tails =
            TAILS.get_or_init(|| FAULTS.map(|f| message::error_tail(f.code(), f.message())));
        let place = match self {
            Fault::Reset => 0,
            Fault::Timeout => 1,
            Fault::Unavailable => 2,
            Fault::DuplicateId => 3,
            Fault::Busy => 4,
            Fault::TooManySubscriptions => 5,
        };
        tails.get(place).map_or("", String::as_str)
    }

    /// The error message.
    pub fn message(self) -> &'static str {
        match self {
            Fault::Reset => "Device reset: the request was lost (emcp-bridge)",
            Fault::Timeout => "Request timed out: the device did not answer (emcp-bridge)",
            Fault::Unavailable => "Device unavailable (emcp-bridge)",
            Fault::DuplicateId => "Request id already in flight (emcp-bridge)",
            Fault::Busy => "Too many requests in flight: wait for answers (emcp-bridge)",
            Fault::TooManySubscriptions => {
                "Too many resource subscriptions to keep across device resets (emcp-bridge)"
            }
        }
    }
}

/// One thing to do after a relay call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Out {
    /// Write this line (without newline) to the host.
    Host(Vec<u8>),
    /// Write this message's line to the host: a device line, read already (with the
    /// host's id in place of the bridge's when it is an answer).
    HostMessage(Message),
    /// Write this line (without newline) to the device.
    Device(Vec<u8>),
    /// A diagnostic for stderr.
    Note(String),
}

/// What the relay accepts.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// How long a request may go unanswered (`None`: forever). A progress notification
    /// for the request starts it again. `subscriptions/listen` has none. Default 60 s.
    pub timeout: Option<Duration>,
    /// Host lines that may wait for an absent device (default 256); a request beyond
    /// is answered [`Fault::Unavailable`] at once.
    pub max_held: usize,
    /// Host requests in flight at once, open listen streams included (default 1024):
    /// the bound of the table that maps the bridge's ids back to the host's; a request
    /// beyond is answered [`Fault::Busy`] at once.
    pub max_in_flight: usize,
    /// The device's line buffer in bytes (default the core's, 4096): a longer host
    /// line is answered here as the core answers it (`line too long`, id `null`) and
    /// not sent. The device would answer it so, and an id-null answer names no
    /// request, so the bridge could not close the request it tracks for the line.
    pub line_max: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout: Some(Duration::from_secs(60)),
            max_held: 256,
            max_in_flight: 1024,
            line_max: emcp::wire::framing::DEFAULT_LINE_LEN,
        }
    }
}

/// The `_meta` member naming a listen stream (its request's id) in its notifications.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No device.
    Down,
    /// Connected; the replayed `initialize` (this bridge id) is not answered yet.
    Replaying,
    /// Connected and re-established: host lines go straight through.
    Up,
}

#[derive(Debug)]
struct Pending {
    /// The id the device knows it by (the bridge's own, JSON text).
    wire: String,
    /// Written to the current device (else it waits in `held`).
    sent: bool,
    deadline: Option<Instant>,
    /// `params._meta.progressToken`, JSON text.
    progress: Option<String>,
    /// The request line, as sent, of an open `subscriptions/listen` (re-sent after a
    /// reset).
    listen: Option<Vec<u8>>,
}

/// Whose request the device is answering, by the bridge id it was sent with.
#[derive(Debug)]
enum Wire {
    /// The host's: its id (JSON text, as the host wrote it).
    Host(String),
    /// The bridge's replay of this method, on the current connection.
    Replay(String),
}

/// What the host set up on the device, replayed after a reset.
#[derive(Debug, Default)]
struct Session {
    /// `params` of the host's `initialize`, once the device accepted it.
    initialize: Option<String>,
    /// The host's `initialize` in flight: its id and params.
    initializing: Option<(String, Option<String>)>,
    /// The host's `notifications/initialized` line.
    initialized: Option<Vec<u8>>,
    /// `params` of the last `logging/setLevel`.
    log_level: Option<String>,
    /// `resources/subscribe` params by URI (JSON text), in order.
    subscriptions: Vec<(String, String)>,
}

/// The relay state machine (see the module docs).
#[derive(Debug)]
pub struct Relay {
    config: Config,
    state: State,
    pending: HashMap<String, Pending>,
    /// The host ids of the open listen streams in `pending`, in the order they are
    /// re-sent after a reset (kept in order as they come and go: a reset sorts none).
    listens: BTreeSet<String>,
    /// Every bridge id with a request on it: the host's in `pending`, and the
    /// bridge's replays on the current connection.
    wires: HashMap<String, Wire>,
    /// Host lines waiting for the device, as they will be sent: (request id, line).
    held: VecDeque<(Option<String>, Vec<u8>)>,
    session: Session,
    /// Bridge ids of re-sent listen streams whose acknowledgement is swallowed.
    acks: HashSet<String>,
    /// Ids of the current device's requests to the host, not yet answered.
    device_requests: HashSet<String>,
    /// The last bridge id given.
    next_wire: u64,
    replay_deadline: Option<Instant>,
    /// Connections so far.
    connections: u64,
}

impl Relay {
    /// A relay with no device yet: host lines wait until [`Relay::connected`].
    pub fn new(config: Config) -> Self {
        Relay {
            config,
            state: State::Down,
            pending: HashMap::new(),
            listens: BTreeSet::new(),
            wires: HashMap::new(),
            held: VecDeque::new(),
            session: Session::default(),
            acks: HashSet::new(),
            device_requests: HashSet::new(),
            next_wire: 0,
            replay_deadline: None,
            connections: 0,
        }
    }

    /// Host requests without their response yet (open listen streams included).
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// Whether every host request except open listen streams has been answered.
    pub fn is_idle(&self) -> bool {
        self.pending.values().all(|p| p.listen.is_some())
    }

    /// Whether a device is connected.
    pub fn is_connected(&self) -> bool {
        self.state != State::Down
    }

    /// The earliest deadline: call [`Relay::tick`] then.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.pending
            .values()
            .filter_map(|p| p.deadline)
            .chain(self.replay_deadline)
            .min()
    }

    /// A device is connected (the first time, or again after a reset): re-establish the
    /// host's session on it, then send what waited.
    pub fn connected(&mut self, now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        self.connections += 1;
        if self.connections > 1 {
            out.push(Out::Note(format!(
                "device connected again (connection {})",
                self.connections
            )));
        }
        self.wires.retain(|_, w| matches!(w, Wire::Host(_)));
        self.acks.clear();
        self.device_requests.clear();
        if let Some(params) = self.session.initialize.clone() {
            let id = self.replay_id("initialize");
            out.push(Out::Device(message::request_line(
                &id,
                "initialize",
                Some(&params),
            )));
            self.state = State::Replaying;
            self.replay_deadline = self.config.timeout.map(|t| now + t);
        } else {
            self.establish(&mut out);
        }
        out
    }

    /// The device went away (port closed, child exited): answer every request it had
    /// with [`Fault::Reset`]; later host lines wait for [`Relay::connected`].
    pub fn disconnected(&mut self, _now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        if self.state == State::Down {
            return out;
        }
        self.state = State::Down;
        self.replay_deadline = None;
        let mut lost: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.sent && p.listen.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        lost.sort(); // a stable order for the host and for tests
        for id in &lost {
            self.forget(id);
            out.push(fail(id, Fault::Reset));
        }
        self.wires.retain(|_, w| matches!(w, Wire::Host(_)));
        for p in self.pending.values_mut() {
            p.sent = false; // listen streams: re-sent on the next connection
        }
        if let Some((id, _)) = &self.session.initializing {
            if lost.contains(id) {
                self.session.initializing = None;
            }
        }
        out.push(Out::Note(format!(
            "device reset: {} request(s) in flight answered with error {}",
            lost.len(),
            Fault::Reset.code()
        )));
        out
    }

    /// A host line too long to read (the pump's [`crate::pump::MAX_LINE`]): answered as
    /// the core answers a line longer than its buffer, naming that limit.
    pub fn host_too_long(&mut self) -> Vec<Out> {
        vec![Out::Host(message::too_long_line(crate::pump::MAX_LINE))]
    }

    /// One line from the host (without its newline).
    pub fn host_line(&mut self, line: &[u8], now: Instant) -> Vec<Out> {
        if line.len() > self.config.line_max {
            return vec![Out::Host(message::too_long_line(self.config.line_max))];
        }
        self.host_message(Message::from_host(line), now)
    }

    /// One line from the host, read already: as [`Relay::host_line`] of its line. A
    /// message not read by [`Message::from_host`]'s rules is read again by them.
    pub fn host_message(&mut self, msg: Message, now: Instant) -> Vec<Out> {
        let line = msg.line();
        if line.len() > self.config.line_max {
            return vec![Out::Host(message::too_long_line(self.config.line_max))];
        }
        // Classified as the core behind the device does: a request is what it answers
        // with its id, however malformed (its error then comes from the device).
        let msg = match msg.is_from_host() {
            true => msg,
            false => Message::from_host(line),
        };
        let line = msg.line();
        let mut out = Vec::new();
        match msg.kind {
            Kind::Request => self.host_request(&msg, now, &mut out),
            Kind::Notification => self.host_notification(&msg, line, &mut out),
            Kind::Response => {
                let id = msg.id.clone().unwrap_or_default();
                if self.state != State::Down && self.device_requests.remove(&id) {
                    out.push(Out::Device(line.to_vec()));
                } else {
                    out.push(Out::Note(format!(
                        "host response to {id} dropped: the device that asked has reset"
                    )));
                }
            }
            // Answered with id null by the device (not JSON, a batch, an id it cannot
            // echo): nothing to track.
            Kind::Other => self.send_or_hold(None, line, &mut out),
        }
        out
    }

    fn host_request(&mut self, msg: &Message, now: Instant, out: &mut Vec<Out>) {
        let id = msg.id.clone().unwrap_or_default();
        if self.pending.contains_key(&id) {
            out.push(fail(&id, Fault::DuplicateId));
            return;
        }
        if self.pending.len() >= self.config.max_in_flight {
            out.push(fail(&id, Fault::Busy));
            return;
        }
        let wire = self.wire_id();
        // A request is an object with an id (`Message::from_host`): `with_id` finds it.
        let Some(line) = msg.with_id(&wire) else {
            out.push(fail(&id, Fault::Unavailable));
            return;
        };
        if line.len() > self.config.line_max {
            // Within the device's buffer as the host wrote it, over it with the bridge's
            // id: the core's answer to a line too long, with the host's id.
            let e = RpcError::from(RequestError::TooLong);
            let (prefix, rest) = e.message();
            let text = format!("{prefix}{rest}");
            let limit = serde_json::json!({ "limit": self.config.line_max });
            out.push(Out::Host(message::error_line_data(
                &id,
                e.code().into(),
                &text,
                &limit,
            )));
            return;
        }
        let listen = msg.method() == "subscriptions/listen";
        if msg.method() == "resources/subscribe"
            && self.session.subscriptions.len() >= MAX_SUBSCRIPTIONS
            && msg
                .param("uri")
                .is_none_or(|uri| !self.session.subscriptions.iter().any(|(u, _)| *u == uri))
        {
            out.push(fail(&id, Fault::TooManySubscriptions));
            return;
        }
        match msg.method() {
            "initialize" => {
                // A new session: what was set up on the old one is gone.
                self.session = Session {
                    initializing: Some((id.clone(), msg.params.clone())),
                    ..Session::default()
                };
            }
            "logging/setLevel" => self.session.log_level = msg.params.clone(),
            "resources/subscribe" | "resources/unsubscribe" => {
                if let (Some(uri), Some(params)) = (msg.param("uri"), msg.params.clone()) {
                    self.session.subscriptions.retain(|(u, _)| *u != uri);
                    if msg.method() == "resources/subscribe" {
                        self.session.subscriptions.push((uri, params));
                    }
                }
            }
            _ => {}
        }
        let deadline = match listen {
            true => None,
            false => self.config.timeout.map(|t| now + t),
        };
        self.pending.insert(
            id.clone(),
            Pending {
                wire: wire.clone(),
                sent: false,
                deadline,
                progress: msg.meta("progressToken"),
                listen: listen.then(|| line.clone()),
            },
        );
        self.wires.insert(wire, Wire::Host(id.clone()));
        if listen {
            self.listens.insert(id.clone());
        }
        self.send_or_hold(Some(id), &line, out);
    }

    fn host_notification(&mut self, msg: &Message, line: &[u8], out: &mut Vec<Out>) {
        match msg.method() {
            "notifications/initialized" => self.session.initialized = Some(line.to_vec()),
            "notifications/cancelled" => {
                let Some(id) = msg.param("requestId") else {
                    return self.send_or_hold(None, line, out);
                };
                let Some(p) = self.forget(&id) else {
                    return; // answered already, or never asked: nothing to cancel
                };
                if !p.sent {
                    // Still waiting here: the device never sees it, nor the cancel.
                    self.held.retain(|(k, _)| k.as_deref() != Some(id.as_str()));
                    return;
                }
                // The device knows the request by the bridge's id; a late answer to it
                // names an id no request has any more, and is dropped.
                let line = msg
                    .with_value(&["params", "requestId"], &p.wire)
                    .unwrap_or_else(|| message::cancel_line(&p.wire, "cancelled"));
                return self.send_or_hold(None, &line, out);
            }
            _ => {}
        }
        self.send_or_hold(None, line, out);
    }

    /// One line from the device (without its newline).
    pub fn device_line(&mut self, line: &[u8], now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        let Some(msg) = Message::parse(line) else {
            let text = String::from_utf8_lossy(line);
            out.push(Out::Note(format!("device: not JSON, dropped: {text}")));
            return out;
        };
        match msg.kind {
            Kind::Response => {
                let Some(id) = msg.id.clone() else {
                    // id null: the answer to a line the device could not parse.
                    out.push(Out::HostMessage(msg));
                    return out;
                };
                match self.wires.get(&id) {
                    Some(Wire::Replay(method)) => {
                        let method = method.clone();
                        self.wires.remove(&id);
                        self.replayed(&method, &msg, line, &mut out);
                    }
                    Some(Wire::Host(host_id)) => {
                        let host_id = host_id.clone();
                        self.forget(&host_id);
                        if let Some((init, params)) = self.session.initializing.take() {
                            if init == host_id && !msg.is_error {
                                self.session.initialize =
                                    Some(params.unwrap_or_else(|| "{}".into()));
                            } else if init != host_id {
                                self.session.initializing = Some((init, params));
                            }
                        }
                        // A response has its id (it was read): the host's goes in its place.
                        if let Some(answer) = msg.swap_id(&host_id) {
                            out.push(Out::HostMessage(answer));
                        }
                    }
                    None => out.push(Out::Note(format!(
                        "answer to {id}, a request timed out, cancelled or never sent, dropped"
                    ))),
                }
            }
            Kind::Request => {
                if let Some(id) = &msg.id {
                    self.device_requests.insert(id.clone());
                }
                out.push(Out::HostMessage(msg));
            }
            Kind::Notification => {
                let mut swapped = None;
                if let Some(sub) = msg.meta(SUBSCRIPTION_ID) {
                    let acknowledged = msg.method() == "notifications/subscriptions/acknowledged";
                    if acknowledged && self.acks.remove(&sub) {
                        return out; // a re-made stream: the host has its acknowledgement
                    }
                    // A listen stream's: it names the stream by the bridge's id.
                    let host_id = match self.wires.get(&sub) {
                        Some(Wire::Host(id)) => id,
                        _ => {
                            out.push(Out::Note(format!(
                                "{} for a closed stream ({sub}) dropped",
                                msg.method()
                            )));
                            return out;
                        }
                    };
                    let path = ["params", "_meta", SUBSCRIPTION_ID];
                    match msg.swap_value(&path, host_id) {
                        Some(m) => swapped = Some(m),
                        None => return out,
                    }
                }
                if msg.method() == "notifications/progress" {
                    if let (Some(token), Some(t)) =
                        (msg.param("progressToken"), self.config.timeout)
                    {
                        for p in self.pending.values_mut() {
                            if p.progress.as_deref() == Some(token.as_str()) {
                                p.deadline = Some(now + t);
                            }
                        }
                    }
                }
                out.push(Out::HostMessage(swapped.unwrap_or(msg)));
            }
            Kind::Other => out.push(Out::HostMessage(msg)),
        }
        out
    }

    /// Answer every request whose deadline has passed with [`Fault::Timeout`] (and tell
    /// the device to stop working on it).
    pub fn tick(&mut self, now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        let mut due: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| id.clone())
            .collect();
        due.sort();
        for id in due {
            let Some(p) = self.forget(&id) else {
                continue;
            };
            out.push(fail(&id, Fault::Timeout));
            if p.sent {
                if self.state != State::Down {
                    out.push(Out::Device(message::cancel_line(&p.wire, "timed out")));
                }
            } else {
                self.held.retain(|(k, _)| k.as_deref() != Some(id.as_str()));
            }
        }
        if self.replay_deadline.is_some_and(|d| d <= now) {
            out.push(Out::Note(
                "the device did not answer the replayed initialize; going on".into(),
            ));
            self.establish(&mut out);
        }
        out
    }

    /// The bridge is stopping: answer every request still in flight with
    /// [`Fault::Unavailable`].
    pub fn close(&mut self) -> Vec<Out> {
        let mut ids: Vec<String> = self.pending.keys().cloned().collect();
        ids.sort();
        self.pending.clear();
        self.listens.clear();
        self.wires.clear();
        self.held.clear();
        ids.iter().map(|id| fail(id, Fault::Unavailable)).collect()
    }

    /// The response to a request the bridge replayed: swallowed.
    fn replayed(&mut self, method: &str, msg: &Message, line: &[u8], out: &mut Vec<Out>) {
        if msg.is_error {
            let text = String::from_utf8_lossy(line);
            out.push(Out::Note(format!("replayed {method} failed: {text}")));
        }
        if method == "initialize" && self.state == State::Replaying {
            self.establish(out);
        }
    }

    /// The rest of the replay after `initialize`, then everything that waited.
    fn establish(&mut self, out: &mut Vec<Out>) {
        self.replay_deadline = None;
        if self.session.initialize.is_some() {
            if let Some(line) = &self.session.initialized {
                out.push(Out::Device(line.clone()));
            }
            if let Some(params) = self.session.log_level.clone() {
                let id = self.replay_id("logging/setLevel");
                out.push(Out::Device(message::request_line(
                    &id,
                    "logging/setLevel",
                    Some(&params),
                )));
            }
            for (_, params) in self.session.subscriptions.clone() {
                let id = self.replay_id("resources/subscribe");
                out.push(Out::Device(message::request_line(
                    &id,
                    "resources/subscribe",
                    Some(&params),
                )));
            }
        }
        for id in &self.listens {
            let Some(p) = self.pending.get_mut(id).filter(|p| !p.sent) else {
                continue;
            };
            // Not yet sent and not in `held`: an open stream of an earlier connection.
            if self.held.iter().any(|(k, _)| k.as_ref() == Some(id)) {
                continue;
            }
            p.sent = true;
            self.acks.insert(p.wire.clone());
            out.push(Out::Device(p.listen.clone().unwrap_or_default()));
        }
        self.state = State::Up;
        while let Some((key, line)) = self.held.pop_front() {
            if let Some(id) = &key {
                match self.pending.get_mut(id) {
                    Some(p) => p.sent = true,
                    None => continue, // timed out or cancelled meanwhile
                }
            }
            out.push(Out::Device(line));
        }
    }

    fn send_or_hold(&mut self, key: Option<String>, line: &[u8], out: &mut Vec<Out>) {
        if self.state == State::Up {
            if let Some(p) = key.as_ref().and_then(|k| self.pending.get_mut(k)) {
                p.sent = true;
            }
            out.push(Out::Device(line.to_vec()));
            return;
        }
        if self.held.len() >= self.config.max_held {
            if let Some(id) = key {
                self.forget(&id);
                out.push(fail(&id, Fault::Unavailable));
            }
            return;
        }
        self.held.push_back((key, line.to_vec()));
    }

    /// A bridge id never given before (JSON text: an integer).
    fn wire_id(&mut self) -> String {
        self.next_wire = self.next_wire.wrapping_add(1);
        self.next_wire.to_string()
    }

    /// A bridge id for a replay of `method`.
    fn replay_id(&mut self, method: &str) -> String {
        let id = self.wire_id();
        self.wires
            .insert(id.clone(), Wire::Replay(method.to_owned()));
        id
    }

    /// Host request `id` leaves the in-flight table, and its bridge id with it.
    fn forget(&mut self, id: &str) -> Option<Pending> {
        let p = self.pending.remove(id)?;
        if p.listen.is_some() {
            self.listens.remove(id);
        }
        self.wires.remove(&p.wire);
        Some(p)
    }
}

fn fail(id: &str, fault: Fault) -> Out {
    Out::HostMessage(Message::error(id, fault.tail()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const INIT_OK: &[u8] = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}"#;
    const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    fn req(id: &str, method: &str) -> Vec<u8> {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#).into_bytes()
    }

    /// Each fault's answer is the error line of its code and message.
    #[test]
    fn fault_answers_are_their_error_lines() {
        for f in FAULTS {
            let Out::HostMessage(m) = fail("\"x\"", f) else {
                panic!("{f:?}: not a message");
            };
            assert_eq!(
                m.line(),
                message::error_line("\"x\"", f.code(), f.message()),
                "{f:?}"
            );
        }
    }

    fn ok(id: &str) -> Vec<u8> {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#).into_bytes()
    }

    fn host(out: &[Out]) -> Vec<Vec<u8>> {
        out.iter()
            .filter_map(|o| match o {
                Out::Host(l) => Some(l.clone()),
                Out::HostMessage(m) => Some(m.line().to_vec()),
                _ => None,
            })
            .collect()
    }

    fn device(out: &[Out]) -> Vec<Vec<u8>> {
        out.iter()
            .filter_map(|o| match o {
                Out::Device(l) => Some(l.clone()),
                _ => None,
            })
            .collect()
    }

    fn error_code(line: &[u8]) -> Option<i64> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        v["error"]["code"].as_i64()
    }

    /// The bridge id host request `id` went to the device with.
    fn wire(r: &Relay, id: &str) -> String {
        r.pending[id].wire.clone()
    }

    /// `line` (host request `id`'s, or the device's answer to it) with the bridge id
    /// in place of `id`: as the device sees it, or says it.
    fn wired(r: &Relay, line: &[u8], id: &str) -> Vec<u8> {
        message::with_id(line, &wire(r, id)).unwrap()
    }

    /// The device's answer to host request `id`.
    fn answer(r: &Relay, id: &str) -> Vec<u8> {
        ok(&wire(r, id))
    }

    fn up() -> (Relay, Instant) {
        let now = Instant::now();
        let mut r = Relay::new(Config::default());
        assert!(r.connected(now).is_empty());
        (r, now)
    }

    /// An initialized legacy session.
    fn session() -> (Relay, Instant) {
        let (mut r, now) = up();
        let out = r.host_line(INIT, now);
        assert_eq!(device(&out), [wired(&r, INIT, "0")]);
        let out = r.device_line(&wired(&r, INIT_OK, "0"), now);
        assert_eq!(host(&out), [INIT_OK]);
        assert_eq!(device(&r.host_line(INITIALIZED, now)), [INITIALIZED]);
        (r, now)
    }

    #[test]
    fn forwards_exact_bytes_both_ways_but_the_id() {
        let (mut r, now) = up();
        let line = br#"{"jsonrpc":"2.0", "id" : "a\u0041" ,"method":"ping"}"#;
        let sent = device(&r.host_line(line, now));
        assert_eq!(sent, [br#"{"jsonrpc":"2.0", "id" : 1 ,"method":"ping"}"#]);
        assert_eq!(r.in_flight(), 1);
        let answer = br#"{"jsonrpc":"2.0","id":1, "result":{"x":1.0e2}}"#;
        assert_eq!(
            host(&r.device_line(answer, now)),
            [br#"{"jsonrpc":"2.0","id":"a\u0041", "result":{"x":1.0e2}}"#]
        );
        assert_eq!(r.in_flight(), 0);
        // A second answer to the same id is not delivered.
        assert!(host(&r.device_line(answer, now)).is_empty());
    }

    #[test]
    fn string_and_number_ids_are_distinct() {
        let (mut r, now) = up();
        r.host_line(&req("1", "ping"), now);
        r.host_line(&req("\"1\"", "ping"), now);
        assert_eq!(r.in_flight(), 2);
        let (a, b) = (answer(&r, "\"1\""), answer(&r, "1"));
        assert_eq!(host(&r.device_line(&a, now)), [ok("\"1\"")]);
        assert_eq!(host(&r.device_line(&b, now)), [ok("1")]);
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn reset_answers_each_request_on_the_device_exactly_once() {
        let (mut r, now) = up();
        for i in 1..=3 {
            r.host_line(&req(&i.to_string(), "tools/list"), now);
        }
        let first = answer(&r, "1");
        r.device_line(&answer(&r, "2"), now);
        let out = r.disconnected(now);
        let errors = host(&out);
        assert_eq!(errors.len(), 2);
        assert_eq!(
            errors,
            [
                message::error_line("1", -32000, Fault::Reset.message()),
                message::error_line("3", -32000, Fault::Reset.message())
            ]
        );
        // A second reset signal, and answers from the old device, add nothing.
        assert!(host(&r.disconnected(now)).is_empty());
        assert!(host(&r.device_line(&first, now)).is_empty());
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn requests_during_a_reset_wait_and_go_out_after_the_replay() {
        let (mut r, now) = session();
        r.disconnected(now);
        // Arrives while the device is away: held, not answered.
        let out = r.host_line(&req("5", "tools/list"), now);
        assert!(out.is_empty());
        let out = r.connected(now);
        let sent = device(&out);
        assert_eq!(
            sent.len(),
            1,
            "only the replayed initialize before its answer"
        );
        let replay = Message::parse(&sent[0]).unwrap();
        assert_eq!(replay.method(), "initialize");
        assert_eq!(
            replay.params.as_deref(),
            Message::parse(INIT).unwrap().params.as_deref()
        );
        let replay_id = replay.id.unwrap();
        // The device answers the replayed initialize: swallowed; then initialized and
        // the held request go out.
        let out = r.device_line(&ok(&replay_id), now);
        assert!(host(&out).is_empty());
        let held = wired(&r, &req("5", "tools/list"), "5");
        assert_eq!(device(&out), [INITIALIZED.to_vec(), held]);
        assert_eq!(host(&r.device_line(&answer(&r, "5"), now)), [ok("5")]);
    }

    #[test]
    fn subscriptions_and_log_level_are_remade_and_their_answers_swallowed() {
        let (mut r, now) = session();
        let sub = br#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"led://state"}}"#;
        let sub2 = br#"{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"sensor://x"}}"#;
        let unsub = br#"{"jsonrpc":"2.0","id":4,"method":"resources/unsubscribe","params":{"uri":"sensor://x"}}"#;
        let level =
            br#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"info"}}"#;
        for (line, id) in [(&sub[..], "2"), (sub2, "3"), (unsub, "4"), (level, "5")] {
            r.host_line(line, now);
            r.device_line(&answer(&r, id), now);
        }
        r.disconnected(now);
        let init = device(&r.connected(now));
        let init_id = Message::parse(&init[0]).unwrap().id.unwrap();
        let out = r.device_line(
            format!(r#"{{"id":{init_id},"result":{{}}}}"#).as_bytes(),
            now,
        );
        let sent: Vec<Message> = device(&out)
            .iter()
            .filter_map(|l| Message::parse(l))
            .collect();
        let methods: Vec<&str> = sent.iter().map(|m| m.method()).collect();
        assert_eq!(
            methods,
            [
                "notifications/initialized",
                "logging/setLevel",
                "resources/subscribe"
            ]
        );
        assert_eq!(sent[2].param("uri").as_deref(), Some(r#""led://state""#));
        for m in &sent[1..] {
            let id = m.id.clone().unwrap();
            assert!(host(&r.device_line(&ok(&id), now)).is_empty());
        }
        // Updates from the new device reach the host.
        let updated = br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"led://state"}}"#;
        assert_eq!(host(&r.device_line(updated, now)), [updated]);
    }

    #[test]
    fn a_new_initialize_forgets_the_old_session() {
        let (mut r, now) = session();
        let sub = br#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"led://state"}}"#;
        r.host_line(sub, now);
        r.device_line(&answer(&r, "2"), now);
        let init2 = br#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"v":2}}"#;
        r.host_line(init2, now);
        r.device_line(&answer(&r, "9"), now);
        r.disconnected(now);
        let sent = device(&r.connected(now));
        assert_eq!(
            Message::parse(&sent[0]).unwrap().params.as_deref(),
            Some(r#"{"v":2}"#)
        );
        let id = Message::parse(&sent[0]).unwrap().id.unwrap();
        let out = r.device_line(&ok(&id), now);
        assert!(device(&out).is_empty(), "no initialized, no subscription");
    }

    #[test]
    fn initialize_lost_in_a_reset_is_not_replayed() {
        let (mut r, now) = up();
        r.host_line(INIT, now);
        let out = r.disconnected(now);
        assert_eq!(error_code(&host(&out)[0]), Some(-32000));
        assert!(device(&r.connected(now)).is_empty());
    }

    #[test]
    fn timeout_answers_once_cancels_on_the_device_and_drops_the_late_answer() {
        let (mut r, now) = up();
        r.host_line(&req("7", "tools/call"), now);
        r.host_line(&req("8", "ping"), now);
        let seven = wire(&r, "7");
        let t = Config::default().timeout.unwrap();
        assert_eq!(r.next_deadline(), Some(now + t));
        assert!(r.tick(now + t / 2).is_empty());
        r.device_line(&answer(&r, "8"), now);
        let out = r.tick(now + t);
        assert_eq!(host(&out).len(), 1);
        assert_eq!(error_code(&host(&out)[0]), Some(-32001));
        let cancel = Message::parse(&device(&out)[0]).unwrap();
        assert_eq!(cancel.method(), "notifications/cancelled");
        assert_eq!(cancel.param("requestId"), Some(seven.clone()));
        assert!(r.tick(now + 2 * t).is_empty());
        assert!(host(&r.device_line(&ok(&seven), now + 2 * t)).is_empty());
        assert_eq!(r.next_deadline(), None);
    }

    #[test]
    fn progress_restarts_the_clock() {
        let (mut r, now) = up();
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"move_servo","_meta":{"progressToken":"p"}}}"#;
        r.host_line(call, now);
        let t = Config::default().timeout.unwrap();
        let progress = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#;
        assert_eq!(host(&r.device_line(progress, now + t / 2)), [progress]);
        assert!(host(&r.tick(now + t)).is_empty());
        assert_eq!(host(&r.tick(now + t + t / 2)).len(), 1);
    }

    #[test]
    fn a_held_request_that_times_out_never_reaches_the_device() {
        let (mut r, now) = up();
        r.disconnected(now);
        r.host_line(&req("1", "tools/call"), now);
        let t = Config::default().timeout.unwrap();
        let out = r.tick(now + t);
        assert_eq!(error_code(&host(&out)[0]), Some(-32001));
        assert!(device(&out).is_empty());
        assert!(device(&r.connected(now + t)).is_empty());
    }

    #[test]
    fn duplicate_ids_and_full_queues_are_answered_by_the_bridge() {
        let (mut r, now) = up();
        r.host_line(&req("1", "ping"), now);
        let out = r.host_line(&req("1", "ping"), now);
        assert_eq!(error_code(&host(&out)[0]), Some(-32600));
        assert!(device(&out).is_empty());
        let mut r = Relay::new(Config {
            max_held: 1,
            ..Config::default()
        });
        assert!(r.host_line(&req("1", "ping"), now).is_empty());
        let out = r.host_line(&req("2", "ping"), now);
        assert_eq!(error_code(&host(&out)[0]), Some(-32000));
        let held = wired(&r, &req("1", "ping"), "1");
        assert_eq!(device(&r.connected(now)), [held]);
        // A bounded table of requests in flight: one more is answered at once.
        let (mut r, now) = up();
        r.config.max_in_flight = 2;
        r.host_line(&req("1", "ping"), now);
        r.host_line(&req("2", "ping"), now);
        let out = r.host_line(&req("3", "ping"), now);
        assert_eq!(
            host(&out),
            [message::error_line("3", -32000, Fault::Busy.message())]
        );
        assert!(device(&out).is_empty());
        r.device_line(&answer(&r, "1"), now);
        assert_eq!(device(&r.host_line(&req("3", "ping"), now)).len(), 1);
    }

    #[test]
    fn subscriptions_kept_for_replay_are_bounded() {
        let (mut r, now) = up();
        let subscribe = |id: usize, uri: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/subscribe","params":{{"uri":"{uri}"}}}}"#
            )
            .into_bytes()
        };
        for i in 0..MAX_SUBSCRIPTIONS {
            let line = subscribe(i + 10, &format!("sensor://{i}"));
            assert_eq!(
                device(&r.host_line(&line, now)).len(),
                1,
                "subscription {i} relayed"
            );
            r.device_line(&answer(&r, &(i + 10).to_string()), now);
        }
        // One more URI: refused at once, not relayed, and not kept.
        let id = MAX_SUBSCRIPTIONS + 10;
        let out = r.host_line(&subscribe(id, "sensor://new"), now);
        assert_eq!(
            host(&out),
            [message::error_line(
                &id.to_string(),
                -32000,
                Fault::TooManySubscriptions.message()
            )]
        );
        assert!(device(&out).is_empty());
        assert_eq!(r.session.subscriptions.len(), MAX_SUBSCRIPTIONS);
        // A URI kept already is relayed as before (its entry replaced, not added).
        let again = r.host_line(&subscribe(id + 1, "sensor://0"), now);
        assert_eq!(device(&again).len(), 1);
        assert_eq!(r.session.subscriptions.len(), MAX_SUBSCRIPTIONS);
    }

    #[test]
    fn cancelled_requests_get_no_response_and_no_error() {
        let (mut r, now) = up();
        r.host_line(&req("1", "tools/call"), now);
        let one = wire(&r, "1");
        let cancel = message::cancel_line("1", "user");
        // The device hears of it by the bridge's id, the rest as the host wrote it.
        assert_eq!(
            device(&r.host_line(&cancel, now)),
            [message::cancel_line(&one, "user")]
        );
        assert!(r.is_idle());
        assert!(host(&r.device_line(&ok(&one), now)).is_empty());
        assert!(host(&r.disconnected(now)).is_empty());
        // Cancelled while waiting for the device: neither goes out.
        r.host_line(&req("2", "tools/call"), now);
        assert!(r
            .host_line(&message::cancel_line("2", "user"), now)
            .is_empty());
        assert!(device(&r.connected(now)).is_empty());
    }

    #[test]
    fn listen_streams_survive_resets() {
        let (mut r, now) = up();
        let listen = br#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["led://state"]}}}"#;
        let ack = |id: &str| {
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}},"notifications":{{}}}}}}"#).into_bytes()
        };
        let updated = |id: &str| {
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{{"uri":"led://state","_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}}}}}}"#).into_bytes()
        };
        let sent = device(&r.host_line(listen, now));
        let l = wire(&r, "\"L\"");
        assert_eq!(sent, [wired(&r, listen, "\"L\"")]);
        // The device names the stream by the bridge's id; the host hears its own.
        assert_eq!(host(&r.device_line(&ack(&l), now)), [ack("\"L\"")]);
        assert!(r.is_idle());
        assert_eq!(r.next_deadline(), None, "a listen stream has no timeout");
        assert!(host(&r.disconnected(now)).is_empty());
        assert_eq!(device(&r.connected(now)), sent);
        assert!(
            host(&r.device_line(&ack(&l), now)).is_empty(),
            "re-made: ack swallowed"
        );
        assert_eq!(host(&r.device_line(&updated(&l), now)), [updated("\"L\"")]);
        // Closed by the host: no longer re-made, and what the device still sends for
        // it reaches nobody.
        let out = r.host_line(&message::cancel_line("\"L\"", "done"), now);
        assert_eq!(device(&out), [message::cancel_line(&l, "done")]);
        assert!(host(&r.device_line(&updated(&l), now)).is_empty());
        r.disconnected(now);
        assert!(device(&r.connected(now)).is_empty());
    }

    #[test]
    fn device_requests_pass_and_answers_to_a_reset_device_are_dropped() {
        let (mut r, now) = up();
        let ask = br#"{"jsonrpc":"2.0","id":100,"method":"roots/list"}"#;
        assert_eq!(host(&r.device_line(ask, now)), [ask]);
        assert_eq!(device(&r.host_line(&ok("100"), now)), [ok("100")]);
        // The host's answer to a request that was not asked goes nowhere.
        assert!(device(&r.host_line(&ok("100"), now)).is_empty());
        r.device_line(ask, now);
        r.disconnected(now);
        r.connected(now);
        assert!(device(&r.host_line(&ok("100"), now)).is_empty());
    }

    #[test]
    fn device_noise_and_id_null_errors() {
        let (mut r, now) = up();
        let out = r.device_line(b"boot: firmware v1", now);
        assert!(host(&out).is_empty());
        assert!(matches!(out[0], Out::Note(_)));
        assert_eq!(device(&r.host_line(b"{oops", now)), [b"{oops"]);
        let parse_error =
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
        assert_eq!(host(&r.device_line(parse_error, now)), [parse_error]);
    }

    #[test]
    fn requests_the_core_rejects_with_their_id_are_tracked() {
        let (mut r, now) = up();
        for (line, id) in [
            (&br#"{"jsonrpc":"2.0","id":2,"method":7}"#[..], "2"),
            (br#"{"jsonrpc":"2.0","id":3}"#, "3"),
            (br#"{"id":4,"method":"ping"}"#, "4"),
        ] {
            let out = r.host_line(line, now);
            assert_eq!(device(&out), [wired(&r, line, id)]);
        }
        assert_eq!(r.in_flight(), 3);
        for id in ["2", "3", "4"] {
            let error = message::error_line(id, -32600, "Invalid Request");
            assert_eq!(host(&r.device_line(&wired(&r, &error, id), now)), [error]);
        }
        // Lines the core answers with id null are passed on, not tracked.
        let deep = [
            &b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":"[..],
            &[b'['; 40],
            &[b']'; 40],
            b"}",
        ]
        .concat();
        for line in [
            &deep[..],
            b"[]",
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        ] {
            assert_eq!(device(&r.host_line(line, now)), [line]);
        }
        assert_eq!(r.in_flight(), 0);
    }

    /// Every id shape a client may pick — the bridge's own among them — with an
    /// initialized session and a log level to replay.
    const CLIENT_IDS: [&str; 12] = [
        r#""emcp-bridge/replay/1""#,
        r#""emcp-bridge/replay/2""#,
        r#""emcp-bridge/h/1""#,
        "0",
        "1",
        "2",
        "3",
        "-0",
        "123456789012345678901234567890",
        r#""a\u0041""#,
        r#""\"2\"""#,
        r#""""#,
    ];

    /// A session with a log level, reset; the device is back and has been sent the
    /// replayed `initialize`: its id.
    fn replaying() -> (Relay, Instant, String) {
        let (mut r, now) = session();
        let level = br#"{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"info"}}"#;
        r.host_line(level, now);
        r.device_line(&ok(r#""lvl""#), now);
        r.disconnected(now);
        let init = device(&r.connected(now));
        let init_id = Message::parse(&init[0]).unwrap().id.unwrap();
        (r, now, init_id)
    }

    /// The id of the request for `method` among lines to the device.
    fn id_of(lines: &[Vec<u8>], method: &str) -> String {
        lines
            .iter()
            .filter_map(|l| Message::parse(l))
            .find(|m| m.kind == Kind::Request && m.method() == method)
            .and_then(|m| m.id)
            .unwrap_or_else(|| panic!("no {method} sent"))
    }

    #[test]
    fn a_client_id_in_the_bridges_own_shape_gets_its_own_answer() {
        for client in CLIENT_IDS {
            let (mut r, now, init_id) = replaying();
            // Arrives while the session is replayed: waits.
            let call = format!(r#"{{"jsonrpc":"2.0","id":{client},"method":"tools/list"}}"#);
            assert!(host(&r.host_line(call.as_bytes(), now)).is_empty());
            let sent = device(&r.device_line(&ok(&init_id), now));
            let (level, mine) = (id_of(&sent, "logging/setLevel"), id_of(&sent, "tools/list"));
            assert_ne!(level, mine, "client id {client}");
            // The device answers the client's request first, then the replayed one.
            let answer = format!(r#"{{"jsonrpc":"2.0","id":{mine},"result":{{"tools":[]}}}}"#);
            let expected = format!(r#"{{"jsonrpc":"2.0","id":{client},"result":{{"tools":[]}}}}"#);
            assert_eq!(
                host(&r.device_line(answer.as_bytes(), now)),
                [expected.into_bytes()],
                "client id {client}"
            );
            assert!(
                host(&r.device_line(&ok(&level), now)).is_empty(),
                "client id {client}: the replay's answer is swallowed"
            );
            assert_eq!(r.in_flight(), 0);
        }
    }

    #[test]
    fn a_client_id_equal_to_an_unanswered_replay_gets_its_own_answer() {
        let t = Config::default().timeout.unwrap();
        for client in CLIENT_IDS {
            let (mut r, now, init_id) = replaying();
            // The device does not answer the replayed initialize in time: the bridge
            // goes on without it.
            let later = now + t;
            let sent = device(&r.tick(later));
            let level = id_of(&sent, "logging/setLevel");
            let call = format!(r#"{{"jsonrpc":"2.0","id":{client},"method":"ping"}}"#);
            let mine = id_of(&device(&r.host_line(call.as_bytes(), later)), "ping");
            assert!(mine != init_id && mine != level, "client id {client}");
            let answer = format!(r#"{{"jsonrpc":"2.0","id":{mine},"result":{{"pong":1}}}}"#);
            let expected = format!(r#"{{"jsonrpc":"2.0","id":{client},"result":{{"pong":1}}}}"#);
            assert_eq!(
                host(&r.device_line(answer.as_bytes(), later)),
                [expected.into_bytes()],
                "client id {client}"
            );
            // The late answers to the bridge's own requests reach nobody.
            assert!(host(&r.device_line(&ok(&init_id), later)).is_empty());
            assert!(host(&r.device_line(&ok(&level), later)).is_empty());
        }
    }

    #[test]
    fn a_late_answer_never_answers_a_new_request_with_the_same_id() {
        let (mut r, now) = up();
        let t = Config::default().timeout.unwrap();
        let first = id_of(
            &device(&r.host_line(&req("7", "tools/call"), now)),
            "tools/call",
        );
        assert_eq!(error_code(&host(&r.tick(now + t))[0]), Some(-32001));
        // The client asks again with the same id; the old request's answer comes late.
        let second = id_of(&device(&r.host_line(&req("7", "ping"), now + t)), "ping");
        let late = format!(r#"{{"jsonrpc":"2.0","id":{first},"result":{{"old":1}}}}"#);
        assert!(host(&r.device_line(late.as_bytes(), now + t)).is_empty());
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{second},"result":{{"new":1}}}}"#);
        assert_eq!(
            host(&r.device_line(answer.as_bytes(), now + t)),
            [br#"{"jsonrpc":"2.0","id":7,"result":{"new":1}}"#]
        );
    }

    #[test]
    fn a_line_too_long_only_with_the_bridges_id_is_answered_with_the_hosts() {
        let line = req("1", "ping");
        let (mut r, now) = up();
        r.config.line_max = line.len();
        for n in [0, 2, 3, 4, 5, 6, 7, 8, 9] {
            r.host_line(&req(&n.to_string(), "ping"), now);
        }
        // The tenth bridge id has two digits: one byte more than the host's `1`.
        let out = r.host_line(&line, now);
        assert!(device(&out).is_empty());
        let error = host(&out);
        assert_eq!(error.len(), 1);
        assert_eq!(Message::parse(&error[0]).unwrap().id.as_deref(), Some("1"));
        assert_eq!(error_code(&error[0]), Some(-32600));
        // Naming the device's line buffer, as the core does.
        let error: serde_json::Value = serde_json::from_slice(&error[0]).unwrap();
        assert_eq!(error["error"]["data"]["limit"], line.len());
        assert_eq!(r.in_flight(), 9);
        // A host line over the limit as written: the same limit, id null.
        let out = r.host_line(&[&line[..], b" "].concat(), now);
        let error: serde_json::Value = serde_json::from_slice(&host(&out)[0]).unwrap();
        assert_eq!(error["id"], serde_json::Value::Null);
        assert_eq!(error["error"]["data"]["limit"], line.len());
    }

    #[test]
    fn close_answers_the_rest() {
        let (mut r, now) = up();
        r.host_line(&req("1", "ping"), now);
        r.host_line(&req("2", "ping"), now);
        let out = r.close();
        assert_eq!(host(&out).len(), 2);
        assert!(host(&out).iter().all(|l| error_code(l) == Some(-32000)));
    }

    /// Random interleavings of requests, answers, resets and timeouts: every request
    /// is answered exactly once.
    #[test]
    fn exactly_one_response_per_request_under_chaos() {
        let t = Duration::from_millis(50);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..50 {
            let start = Instant::now();
            let mut now = start;
            let mut r = Relay::new(Config {
                timeout: Some(t),
                max_held: 8,
                ..Config::default()
            });
            let mut connected = false;
            let mut on_device: Vec<String> = Vec::new();
            let mut answers: HashMap<String, usize> = HashMap::new();
            let mut sent = 0;
            let mut record = |out: Vec<Out>, on_device: &mut Vec<String>| {
                for o in out {
                    match o {
                        Out::Host(l) => {
                            let m = Message::parse(&l).unwrap();
                            *answers.entry(m.id.unwrap()).or_default() += 1;
                        }
                        Out::HostMessage(m) => {
                            *answers.entry(m.id.unwrap()).or_default() += 1;
                        }
                        Out::Device(l) => {
                            let m = Message::parse(&l).unwrap();
                            if m.kind == Kind::Request {
                                on_device.push(m.id.unwrap());
                            }
                        }
                        Out::Note(_) => {}
                    }
                }
            };
            for step in 0..400 {
                now += Duration::from_millis(rand(5));
                let out = match rand(10) {
                    0..=3 => {
                        sent += 1;
                        let id = if step % 2 == 0 {
                            step.to_string()
                        } else {
                            format!("\"s{step}\"")
                        };
                        r.host_line(&req(&id, "tools/call"), now)
                    }
                    4..=6 if !on_device.is_empty() && connected => {
                        let i = rand(on_device.len() as u64) as usize;
                        let id = on_device.swap_remove(i);
                        r.device_line(&ok(&id), now)
                    }
                    7 if connected => {
                        connected = false;
                        on_device.clear();
                        r.disconnected(now)
                    }
                    8 if !connected => {
                        connected = true;
                        r.connected(now)
                    }
                    _ => r.tick(now),
                };
                record(out, &mut on_device);
            }
            record(r.close(), &mut on_device);
            assert_eq!(answers.len(), sent);
            assert!(answers.values().all(|&n| n == 1), "{answers:?}");
        }
    }
}
