//! Every device online behind the broker as one MCP server, as a [`Link`] whose far
//! end is the gateway itself (a thread holding the broker connection and the fleet's
//! state), so the host's stdio or HTTP side and the relay are the bridge's own.
//!
//! **Names.** Each device gets a *label*: its server name with `/` written `.` and any
//! character MCP's names do not allow (`[A-Za-z0-9_.-]`) written `_` —
//! `greenhouse/bed-3` → `greenhouse.bed-3`; a second device online with the same
//! label gets `.{server-id}` appended. Tools and prompts are listed as
//! `{label}.{name}` (one not fitting MCP's 128 characters is left out, with a note);
//! resources and templates as `emcp-fleet://{label}/{uri}`. A call is matched against
//! the devices' current lists, never parsed apart, so a name's own dots are harmless.
//!
//! **Lifecycle.** A retained online presence adds a device: `initialize` on its
//! control topic, `notifications/initialized`, then the lists of each capability it
//! declared (following `nextCursor`). When all are in, the device is listed and the
//! host gets `notifications/{tools,resources,prompts}/list_changed`. Its presence
//! going empty (its will, its shutdown), a new online notification (a restart), or its
//! `notifications/disconnected` removes it: each call it had is answered at once with
//! error -32000 naming the device, and the lists change again. A device's own
//! `list_changed` on its capability topic refetches that list. The broker going away
//! removes every device the same way; the gateway reconnects (100 ms doubling to 2 s)
//! and finds them again from their retained presence.
//!
//! **Bounds.** At most [`MAX_DEVICES`] devices (later ones are ignored, with a note),
//! [`MAX_ITEMS`] tools, resources, templates or prompts each per device over at most
//! [`MAX_PAGES`] pages, [`MAX_CALLS`] requests in flight to devices (a call beyond is
//! answered -32000 at once), [`super::client::QUEUE`] events queued towards the
//! gateway thread (host lines and broker events: a full queue holds its sender) and
//! lines towards the host; a device's answer waits at most [`CALL_TIMEOUT`]
//! (`tools/call`) or [`TIMEOUT`] (anything else), then the call gets -32001. Broker
//! packets are bounded by [`super::client::MAX_PACKET`].

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::client::{self, Broker, Client, Incoming};
use super::topic::{self, Parsed};
use super::{new_client_id, LineWriter};
use crate::link::{backoff, Connection, Link};
use crate::message::{error_line, error_line_data, Kind as MessageKind, Message};
use emcp::wire::error::RpcError;

/// Devices tracked at once.
pub const MAX_DEVICES: usize = 1024;
/// Items kept per list per device.
pub const MAX_ITEMS: usize = 256;
/// Pages fetched per list per device.
pub const MAX_PAGES: u32 = 16;
/// Requests in flight to devices (the host's and the gateway's own).
pub const MAX_CALLS: usize = 1024;
/// How long a device may take over `tools/call`.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a device may take over anything else.
pub const TIMEOUT: Duration = Duration::from_secs(30);
/// Longest host line taken.
const MAX_LINE: usize = crate::pump::MAX_LINE;
/// The URI scheme of the fleet's resources.
pub const SCHEME: &str = "emcp-fleet://";
/// Longest tool or prompt name MCP allows.
const NAME_MAX: usize = 128;
/// Protocol revisions the fleet answers `initialize` with (the newest is the default).
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The four lists a device may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Tools,
    Resources,
    Templates,
    Prompts,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Tools, Kind::Resources, Kind::Templates, Kind::Prompts];
    fn method(self) -> &'static str {
        match self {
            Kind::Tools => "tools/list",
            Kind::Resources => "resources/list",
            Kind::Templates => "resources/templates/list",
            Kind::Prompts => "prompts/list",
        }
    }
    fn key(self) -> &'static str {
        match self {
            Kind::Tools => "tools",
            Kind::Resources => "resources",
            Kind::Templates => "resourceTemplates",
            Kind::Prompts => "prompts",
        }
    }
    fn index(self) -> usize {
        self as usize
    }
    /// The capability that declares it.
    fn capability(self) -> &'static str {
        match self {
            Kind::Tools => "tools",
            Kind::Resources | Kind::Templates => "resources",
            Kind::Prompts => "prompts",
        }
    }
    /// The host notification that says it changed.
    fn changed(self) -> &'static str {
        match self {
            Kind::Tools => "notifications/tools/list_changed",
            Kind::Resources | Kind::Templates => "notifications/resources/list_changed",
            Kind::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// The whole fleet behind `broker`, server names matching `filter`.
pub struct Fleet {
    broker: Broker,
    filter: String,
    input: Option<SyncSender<Input>>,
}

impl Fleet {
    /// The fleet of devices whose server names match the topic filter `filter`
    /// (`#`: all) behind the broker at `broker`.
    pub fn new(broker: Broker, filter: String) -> Self {
        Fleet {
            broker,
            filter,
            input: None,
        }
    }
}

/// What the gateway thread reacts to.
enum Input {
    /// A line from the host side.
    Host(Vec<u8>),
    /// An event of broker connection `n`.
    Mqtt(u64, Incoming),
    /// Where the host side's lines go from now on.
    Attach(SyncSender<Vec<u8>>),
    /// The bridge is stopping.
    Stop,
}

impl Link for Fleet {
    fn open(&mut self) -> io::Result<Connection> {
        let input = match &self.input {
            Some(i) => i.clone(),
            None => {
                let (tx, rx) = mpsc::sync_channel(client::QUEUE);
                let mut gateway =
                    Gateway::new(self.broker.clone(), self.filter.clone(), tx.clone());
                thread::spawn(move || gateway.run(&rx));
                self.input = Some(tx.clone());
                tx
            }
        };
        let (out_tx, out_rx) = mpsc::sync_channel(client::QUEUE);
        input
            .send(Input::Attach(out_tx))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the gateway stopped"))?;
        let writer_input = input.clone();
        Ok(Connection {
            reader: Box::new(Out {
                rx: out_rx,
                pending: Vec::new(),
                at: 0,
            }),
            writer: Box::new(LineWriter::new(MAX_LINE, move |line: &[u8]| {
                writer_input
                    .send(Input::Host(line.to_vec()))
                    .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the gateway stopped"))
            })),
        })
    }

    fn close(&mut self) {}

    fn stop(&mut self) {
        if let Some(input) = self.input.take() {
            let _ = input.send(Input::Stop);
        }
    }

    fn describe(&self) -> String {
        format!("MQTT fleet {} at {}", self.filter, self.broker)
    }
}

/// The gateway's lines for the host side, as a byte stream.
struct Out {
    rx: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    at: usize,
}

impl Read for Out {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.pending.len() {
            match self.rx.recv() {
                Ok(line) => {
                    self.pending = line;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let rest = self.pending.get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// One device online.
#[derive(Debug)]
struct Device {
    name: String,
    label: String,
    /// Answered `initialize`.
    initialized: bool,
    /// Lists still being fetched (by [`Kind::index`]).
    loading: [bool; 4],
    lists: [Vec<Value>; 4],
}

impl Device {
    fn ready(&self) -> bool {
        self.initialized && !self.loading.iter().any(|l| *l)
    }
}

/// What a request to a device is for.
#[derive(Debug)]
enum Purpose {
    /// The gateway's `initialize`.
    Init,
    /// A page of a list, with what earlier pages gave.
    List(Kind, Vec<Value>, u32),
    /// The host's request: its id; for `resources/read`, the URI prefix to put back.
    Host { id: String, prefix: Option<String> },
}

#[derive(Debug)]
struct Call {
    sid: String,
    purpose: Purpose,
    deadline: Instant,
}

/// The gateway's state and its broker connection.
struct Gateway {
    broker: Broker,
    filter: String,
    input: SyncSender<Input>,
    client: Option<Arc<Client>>,
    /// Broker connection number (events of older ones are ignored).
    conn: u64,
    attempt: u32,
    retry_at: Instant,
    devices: BTreeMap<String, Device>,
    calls: HashMap<u64, Call>,
    next_id: u64,
    out: Option<SyncSender<Vec<u8>>>,
    /// The host sent `initialize` (list changes are announced from then on).
    host_initialized: bool,
    full_noted: bool,
}

/// A response with the host's id as it wrote it (`id`: raw JSON text, so an integer
/// past 64 bits or an escaped string comes back byte for byte): `"key": value`.
fn reply(id: &str, key: &str, value: &Value) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"{key}":{value}}}"#).into_bytes()
}

fn response(id: &str, result: &Value) -> Vec<u8> {
    reply(id, "result", result)
}

fn error(id: &str, code: i64, message: &str) -> Vec<u8> {
    error_line(id, code, message)
}

/// MCP's log levels (`logging/setLevel`).
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// `name` as MCP names may read: `/` → `.`, others outside `[A-Za-z0-9_.-]` → `_`.
pub fn label_of(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '/' => '.',
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' => c,
            _ => '_',
        })
        .collect()
}

impl Gateway {
    fn new(broker: Broker, filter: String, input: SyncSender<Input>) -> Self {
        Gateway {
            broker,
            filter,
            input,
            client: None,
            conn: 0,
            attempt: 0,
            retry_at: Instant::now(),
            devices: BTreeMap::new(),
            calls: HashMap::new(),
            next_id: 0,
            out: None,
            host_initialized: false,
            full_noted: false,
        }
    }

    fn run(&mut self, rx: &Receiver<Input>) {
        loop {
            if self.client.is_none() && Instant::now() >= self.retry_at {
                self.connect();
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(Input::Host(line)) => self.host_line(&line),
                Ok(Input::Mqtt(n, event)) if n == self.conn => self.mqtt(event),
                Ok(Input::Mqtt(..)) => {}
                Ok(Input::Attach(out)) => self.out = Some(out),
                Ok(Input::Stop) | Err(RecvTimeoutError::Disconnected) => {
                    if let Some(c) = self.client.take() {
                        c.close();
                    }
                    return;
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.expire(Instant::now());
        }
    }

    /// A line to the host (its newline added).
    fn send(&self, mut line: Vec<u8>) {
        if let Some(out) = &self.out {
            line.push(b'\n');
            let _ = out.send(line);
        }
    }

    fn to_host(&self, message: &Value) {
        self.send(message.to_string().into_bytes());
    }

    fn connect(&mut self) {
        let id = new_client_id();
        let result = client::connect(&self.broker, &id).and_then(|(client, rx)| {
            let filter = client
                .name_filters
                .as_ref()
                .and_then(|f| f.first().cloned())
                .unwrap_or_else(|| self.filter.clone());
            client.subscribe(&topic::rpc_filter(&id))?;
            client.subscribe(&topic::capability_filter(&filter))?;
            client.subscribe(&topic::presence_filter(&filter))?;
            Ok((client, rx))
        });
        match result {
            Ok((client, rx)) => {
                self.conn += 1;
                let n = self.conn;
                let input = self.input.clone();
                thread::spawn(move || {
                    for event in rx {
                        if input.send(Input::Mqtt(n, event)).is_err() {
                            return;
                        }
                    }
                });
                eprintln!(
                    "emcp-bridge: MQTT fleet: connected to {} as {id}",
                    self.broker
                );
                self.client = Some(client);
                self.attempt = 0;
            }
            Err(e) => {
                if self.attempt == 0 {
                    eprintln!(
                        "emcp-bridge: MQTT fleet: broker {}: {e}; retrying",
                        self.broker
                    );
                }
                self.attempt = self.attempt.saturating_add(1);
                self.retry_at = Instant::now()
                    + backoff(
                        Duration::from_millis(100),
                        Duration::from_secs(2),
                        self.attempt,
                    );
            }
        }
    }

    fn mqtt(&mut self, event: Incoming) {
        match event {
            Incoming::Closed(why) => {
                eprintln!("emcp-bridge: MQTT fleet: {why}; reconnecting");
                self.client = None;
                self.retry_at = Instant::now();
                let sids: Vec<String> = self.devices.keys().cloned().collect();
                for sid in sids {
                    self.remove(&sid, "the gateway lost the broker");
                }
            }
            Incoming::SubAck { granted, .. } => {
                if !granted {
                    eprintln!("emcp-bridge: MQTT fleet: the broker refused a subscription");
                }
            }
            Incoming::Publish { topic, payload, .. } => match topic::parse(&topic) {
                Some(Parsed::Presence { sid, name }) => {
                    let (sid, name) = (sid.to_string(), name.to_string());
                    self.presence(&sid, &name, &payload);
                }
                Some(Parsed::Capability { sid, .. }) => {
                    let sid = sid.to_string();
                    self.capability(&sid, &payload);
                }
                Some(Parsed::Rpc { client, sid, .. }) => {
                    let ours = self.client.as_ref().is_some_and(|c| c.id == client);
                    if ours {
                        let sid = sid.to_string();
                        self.device_message(&sid, &payload);
                    }
                }
                None => {}
            },
        }
    }

    fn presence(&mut self, sid: &str, name: &str, payload: &[u8]) {
        let online = super::device::online(payload);
        if self.devices.contains_key(sid) {
            let why = if online {
                "the device restarted"
            } else {
                "the device went offline"
            };
            self.remove(sid, why);
        }
        if !online {
            return;
        }
        if self.devices.len() >= MAX_DEVICES {
            if !self.full_noted {
                eprintln!("emcp-bridge: MQTT fleet: {MAX_DEVICES} devices; more are ignored");
                self.full_noted = true;
            }
            return;
        }
        let mut label = label_of(name);
        if self.devices.values().any(|d| d.label == label) {
            label = format!("{label}.{}", label_of(sid));
        }
        eprintln!("emcp-bridge: MQTT fleet: device {name} ({sid}) online as {label}");
        self.devices.insert(
            sid.to_string(),
            Device {
                name: name.to_string(),
                label,
                initialized: false,
                loading: [false; 4],
                lists: Default::default(),
            },
        );
        let params = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "emcp-bridge fleet", "version": env!("CARGO_PKG_VERSION")},
        });
        if self
            .request(sid, "initialize", params, Purpose::Init)
            .is_err()
        {
            self.remove(sid, "the gateway could not reach it");
        }
    }

    /// Removes a device: its calls answered with -32000 naming it; lists changed.
    fn remove(&mut self, sid: &str, why: &str) {
        let Some(device) = self.devices.remove(sid) else {
            return;
        };
        let lost: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, c)| c.sid == sid)
            .map(|(id, _)| *id)
            .collect();
        for id in lost {
            if let Some(Call {
                purpose: Purpose::Host { id, .. },
                ..
            }) = self.calls.remove(&id)
            {
                let message = format!(
                    "device {} ({sid}) went away before answering: {why}",
                    device.name
                );
                self.send(error(&id, -32000, &message));
            }
        }
        eprintln!(
            "emcp-bridge: MQTT fleet: device {} ({sid}) removed: {why}",
            device.name
        );
        if device.ready() {
            self.changed(&device.lists);
        }
    }

    /// Announces the lists that are not empty in `lists` as changed.
    fn changed(&self, lists: &[Vec<Value>; 4]) {
        if !self.host_initialized {
            return;
        }
        let mut sent = Vec::new();
        for kind in Kind::ALL {
            let method = kind.changed();
            if !lists[kind.index()].is_empty() && !sent.contains(&method) {
                sent.push(method);
                self.to_host(&json!({"jsonrpc": "2.0", "method": method}));
            }
        }
    }

    /// Sends a request to device `sid`.
    fn request(
        &mut self,
        sid: &str,
        method: &str,
        params: Value,
        purpose: Purpose,
    ) -> io::Result<()> {
        let (client, topic) = {
            let (Some(client), Some(device)) = (&self.client, self.devices.get(sid)) else {
                return Err(io::Error::new(io::ErrorKind::NotConnected, "no broker"));
            };
            let topic = if method == "initialize" {
                topic::control(sid, &device.name)
            } else {
                topic::rpc(&client.id, sid, &device.name)
            };
            (Arc::clone(client), topic)
        };
        if self.calls.len() >= MAX_CALLS {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "too many requests in flight",
            ));
        }
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        client.publish(&topic, message.to_string().as_bytes())?;
        let timeout = if method == "tools/call" {
            CALL_TIMEOUT
        } else {
            TIMEOUT
        };
        self.calls.insert(
            id,
            Call {
                sid: sid.to_string(),
                purpose,
                deadline: Instant::now() + timeout,
            },
        );
        Ok(())
    }

    fn notify_device(&self, sid: &str, message: &Value) {
        if let (Some(client), Some(device)) = (&self.client, self.devices.get(sid)) {
            let _ = client.publish(
                &topic::rpc(&client.id, sid, &device.name),
                message.to_string().as_bytes(),
            );
        }
    }

    fn capability(&mut self, sid: &str, payload: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(payload) else {
            return;
        };
        let Some(device) = self.devices.get(sid) else {
            return;
        };
        let label = device.label.clone();
        match message.get("method").and_then(Value::as_str) {
            Some("notifications/tools/list_changed") => self.fetch(sid, &[Kind::Tools]),
            Some("notifications/prompts/list_changed") => self.fetch(sid, &[Kind::Prompts]),
            Some("notifications/resources/list_changed") => {
                self.fetch(sid, &[Kind::Resources, Kind::Templates]);
            }
            Some("notifications/resources/updated") => {
                if let Some(uri) = message.pointer("/params/uri").and_then(Value::as_str) {
                    let uri = format!("{SCHEME}{label}/{uri}");
                    self.to_host(&json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}));
                }
            }
            _ => {}
        }
    }

    /// (Re)fetches lists of device `sid`.
    fn fetch(&mut self, sid: &str, kinds: &[Kind]) {
        for &kind in kinds {
            if let Some(d) = self.devices.get_mut(sid) {
                d.loading[kind.index()] = true;
            }
            if self
                .request(
                    sid,
                    kind.method(),
                    json!({}),
                    Purpose::List(kind, Vec::new(), 1),
                )
                .is_err()
            {
                if let Some(d) = self.devices.get_mut(sid) {
                    d.loading[kind.index()] = false;
                }
            }
        }
    }

    fn device_message(&mut self, sid: &str, payload: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(payload) else {
            return;
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id");
        match (method, id) {
            (Some("notifications/disconnected"), None) => {
                self.remove(sid, "the device dropped the session");
            }
            (Some(m), Some(id)) => {
                // The device asks the gateway: ping is answered, the rest unsupported.
                let reply = if m == "ping" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found", "data": {"method": m}}})
                };
                self.notify_device(sid, &reply);
            }
            // Progress of a host's call (its token is the host's, passed through):
            // relayed while the device has a call of the host's in flight.
            (Some("notifications/progress"), None) => {
                // Progress restarts the clock of the device's calls (as the relay's).
                let deadline = Instant::now() + CALL_TIMEOUT;
                let mut relayed = false;
                for c in self.calls.values_mut().filter(|c| c.sid == sid) {
                    if matches!(c.purpose, Purpose::Host { .. }) {
                        c.deadline = c.deadline.max(deadline);
                        relayed = true;
                    }
                }
                if relayed {
                    self.to_host(&message);
                }
            }
            (Some(_), None) => {}
            (None, Some(id)) => {
                let Some(n) = id.as_u64() else {
                    return;
                };
                if self.calls.get(&n).is_some_and(|c| c.sid == sid) {
                    if let Some(call) = self.calls.remove(&n) {
                        self.answered(sid, call.purpose, &message);
                    }
                }
            }
            (None, None) => {}
        }
    }

    fn answered(&mut self, sid: &str, purpose: Purpose, message: &Value) {
        let result = message.get("result");
        match purpose {
            Purpose::Init => {
                let Some(result) = result else {
                    let why = message.pointer("/error/message").and_then(Value::as_str);
                    self.remove(sid, &format!("initialize failed: {}", why.unwrap_or("?")));
                    return;
                };
                self.notify_device(
                    sid,
                    &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                );
                let caps = result.get("capabilities");
                let kinds: Vec<Kind> = Kind::ALL
                    .into_iter()
                    .filter(|k| caps.and_then(|c| c.get(k.capability())).is_some())
                    .collect();
                if let Some(d) = self.devices.get_mut(sid) {
                    d.initialized = true;
                }
                self.fetch(sid, &kinds);
                self.maybe_ready(sid, &kinds);
            }
            Purpose::List(kind, mut items, pages) => {
                if let Some(page) = result
                    .and_then(|r| r.get(kind.key()))
                    .and_then(Value::as_array)
                {
                    let room = MAX_ITEMS.saturating_sub(items.len());
                    items.extend(page.iter().take(room).cloned());
                }
                let cursor = result
                    .and_then(|r| r.get("nextCursor"))
                    .and_then(Value::as_str);
                if let Some(cursor) =
                    cursor.filter(|_| pages < MAX_PAGES && items.len() < MAX_ITEMS)
                {
                    let params = json!({"cursor": cursor});
                    let purpose = Purpose::List(kind, items, pages + 1);
                    // On failure (no broker, too many calls) the list stays loading
                    // until the device is removed or the list times out.
                    let _ = self.request(sid, kind.method(), params, purpose);
                    return;
                }
                let was_ready = self.devices.get(sid).is_some_and(Device::ready);
                if let Some(d) = self.devices.get_mut(sid) {
                    d.lists[kind.index()] = items;
                    d.loading[kind.index()] = false;
                }
                if was_ready {
                    let mut only: [Vec<Value>; 4] = Default::default();
                    only[kind.index()] = vec![Value::Null];
                    self.changed(&only);
                } else {
                    self.maybe_ready(sid, &[kind]);
                }
            }
            Purpose::Host { id, prefix } => {
                let mut out = message.clone();
                if let (Some(prefix), Some(contents)) = (
                    prefix,
                    out.pointer_mut("/result/contents")
                        .and_then(Value::as_array_mut),
                ) {
                    for c in contents {
                        if let Some(uri) = c.get_mut("uri") {
                            let own = uri.as_str().map(|u| format!("{prefix}{u}"));
                            if let Some(own) = own {
                                *uri = Value::String(own);
                            }
                        }
                    }
                }
                let line = match (out.get("result"), out.get("error")) {
                    (Some(result), _) => response(&id, result),
                    (None, Some(e)) => reply(&id, "error", e),
                    (None, None) => {
                        error(&id, -32603, "the device answered without result or error")
                    }
                };
                self.send(line);
            }
        }
    }

    /// Announces device `sid` when it just became ready (`kinds`: what it brought).
    fn maybe_ready(&self, sid: &str, kinds: &[Kind]) {
        if let Some(d) = self.devices.get(sid) {
            if d.ready() {
                eprintln!("emcp-bridge: MQTT fleet: device {} listed", d.name);
                let mut all: [Vec<Value>; 4] = Default::default();
                for k in Kind::ALL {
                    if !d.lists[k.index()].is_empty() || kinds.contains(&k) {
                        all[k.index()] = vec![Value::Null];
                    }
                }
                self.changed(&all);
            }
        }
    }

    fn expire(&mut self, now: Instant) {
        let late: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, c)| c.deadline <= now)
            .map(|(id, _)| *id)
            .collect();
        for n in late {
            let Some(call) = self.calls.remove(&n) else {
                continue;
            };
            let name = self
                .devices
                .get(&call.sid)
                .map(|d| d.name.clone())
                .unwrap_or_default();
            match call.purpose {
                Purpose::Host { id, .. } => {
                    let message = format!("device {name} ({}) did not answer in time", call.sid);
                    self.send(error(&id, -32001, &message));
                }
                Purpose::Init => self.remove(&call.sid, "it did not answer initialize"),
                Purpose::List(kind, ..) => {
                    eprintln!(
                        "emcp-bridge: MQTT fleet: device {name} did not answer {}",
                        kind.method()
                    );
                    if let Some(d) = self.devices.get_mut(&call.sid) {
                        d.loading[kind.index()] = false;
                    }
                    self.maybe_ready(&call.sid, &[]);
                }
            }
        }
    }

    /// One line from the host: answered here, or forwarded to its device. The line is
    /// read as the core reads it ([`Message::from_host`]): a line the core rejects
    /// gets the core's error, with the id as written; the id of a request is kept as
    /// its raw text and echoed byte for byte; `params` are then read by serde_json
    /// (nesting bounded at 128).
    fn host_line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return; // as the core's framer: blank lines are no messages
        }
        let classified = Message::from_host(line);
        if let Some(rejected) = classified.rejected {
            let e = RpcError::from(rejected);
            let (prefix, rest) = e.message();
            let id = classified.id.as_deref().unwrap_or("null");
            return self.send(error(id, i64::from(e.code()), &format!("{prefix}{rest}")));
        }
        let params = match classified.params.as_deref() {
            None => Value::Object(Map::new()),
            // A number serde_json cannot hold (1e999999) leaves params unreadable: a
            // method that needs them says so (-32602).
            Some(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        };
        let method = classified.method.clone().unwrap_or_default();
        match (classified.kind, classified.id) {
            (MessageKind::Request, Some(id)) => self.host_request(id, &method, params),
            (MessageKind::Notification, _) => self.host_notification(&method, &params),
            _ => {} // responses (the gateway asks the host nothing), nothing the core answers
        }
    }

    fn host_notification(&mut self, method: &str, params: &Value) {
        if method != "notifications/cancelled" {
            return;
        }
        let Some(target) = params.get("requestId") else {
            return;
        };
        let found = self.calls.iter().find_map(|(n, c)| match &c.purpose {
            Purpose::Host { id, .. }
                if serde_json::from_str::<Value>(id).ok().as_ref() == Some(target) =>
            {
                Some((*n, c.sid.clone()))
            }
            _ => None,
        });
        if let Some((n, sid)) = found {
            self.calls.remove(&n);
            let mut p = params.clone();
            if let Some(o) = p.as_object_mut() {
                o.insert("requestId".into(), n.into());
            }
            self.notify_device(
                &sid,
                &json!({"jsonrpc": "2.0", "method": method, "params": p}),
            );
        }
    }

    /// The device, own URI and fleet prefix of the fleet's URI `uri`.
    fn find_uri(&self, uri: &str) -> Option<(String, String, String)> {
        let rest = uri.strip_prefix(SCHEME)?;
        let (label, own) = rest.split_once('/')?;
        let sid = self
            .devices
            .iter()
            .find(|(_, d)| d.ready() && d.label == label)?
            .0;
        Some((sid.clone(), own.to_string(), format!("{SCHEME}{label}/")))
    }

    /// A host request (`id`: its raw JSON text).
    fn host_request(&mut self, id: String, method: &str, mut params: Value) {
        let line = match method {
            "initialize" => {
                self.host_initialized = true;
                let asked = params.get("protocolVersion").and_then(Value::as_str);
                let version = asked
                    .filter(|v| VERSIONS.contains(v))
                    .unwrap_or(VERSIONS[VERSIONS.len() - 1]);
                response(
                    &id,
                    &json!({
                        "protocolVersion": version,
                        "capabilities": {
                            "tools": {"listChanged": true},
                            "resources": {"listChanged": true},
                            "prompts": {"listChanged": true},
                            "completions": {},
                        },
                        "serverInfo": {"name": "emcp-bridge-fleet", "version": env!("CARGO_PKG_VERSION")},
                        "instructions": "Every MCP device online behind the MQTT broker. Tools and prompts are named DEVICE.NAME, resources emcp-fleet://DEVICE/URI.",
                    }),
                )
            }
            "ping" => response(&id, &json!({})),
            "logging/setLevel" => match params.get("level").and_then(Value::as_str) {
                Some(level) if LEVELS.contains(&level) => response(&id, &json!({})),
                _ => error(&id, -32602, "params.level must be a log level"),
            },
            "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
                if params.get("cursor").is_some() {
                    error(
                        &id,
                        -32602,
                        "Invalid cursor: the fleet's lists come in one page",
                    )
                } else {
                    let kind = match method {
                        "tools/list" => Kind::Tools,
                        "resources/list" => Kind::Resources,
                        "resources/templates/list" => Kind::Templates,
                        _ => Kind::Prompts,
                    };
                    let mut result = Map::new();
                    result.insert(kind.key().into(), Value::Array(self.list(kind)));
                    response(&id, &Value::Object(result))
                }
            }
            "tools/call" | "prompts/get" => {
                let kind = if method == "tools/call" {
                    Kind::Tools
                } else {
                    Kind::Prompts
                };
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return self.send(error(&id, -32602, "params.name must be a string"));
                };
                let Some((sid, own)) = self.find(kind, name) else {
                    let what = if kind == Kind::Tools {
                        "tool"
                    } else {
                        "prompt"
                    };
                    return self.send(error(
                        &id,
                        -32602,
                        &format!("Unknown {what}: {name} (no device online has it)"),
                    ));
                };
                params["name"] = Value::String(own);
                return self.forward(&sid, method, params, id, None);
            }
            "resources/read" => {
                let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                    return self.send(error(&id, -32602, "params.uri must be a string"));
                };
                let Some((sid, own, prefix)) = self.find_uri(uri) else {
                    let data = json!({"code": -32002, "message": "Resource not found (no device online has it)", "data": {"uri": uri}});
                    return self.send(reply(&id, "error", &data));
                };
                params["uri"] = Value::String(own);
                return self.forward(&sid, method, params, id, Some(prefix));
            }
            "completion/complete" => {
                let reference = params.get("ref");
                let kind = reference
                    .and_then(|r| r.get("type"))
                    .and_then(Value::as_str);
                let found = match kind {
                    Some("ref/prompt") => reference
                        .and_then(|r| r.get("name"))
                        .and_then(Value::as_str)
                        .and_then(|name| self.find(Kind::Prompts, name))
                        .map(|(sid, own)| (sid, "name", own)),
                    Some("ref/resource") => reference
                        .and_then(|r| r.get("uri"))
                        .and_then(Value::as_str)
                        .and_then(|uri| self.find_uri(uri))
                        .map(|(sid, own, _)| (sid, "uri", own)),
                    _ => None,
                };
                let Some((sid, key, own)) = found else {
                    return self.send(error(
                        &id,
                        -32602,
                        "params.ref must name a prompt or resource of a device online",
                    ));
                };
                params["ref"][key] = Value::String(own);
                return self.forward(&sid, method, params, id, None);
            }
            _ => error_line_data(
                &id,
                -32601,
                "Method not found",
                &json!({ "method": method }),
            ),
        };
        self.send(line);
    }

    fn forward(
        &mut self,
        sid: &str,
        method: &str,
        params: Value,
        id: String,
        prefix: Option<String>,
    ) {
        let purpose = Purpose::Host {
            id: id.clone(),
            prefix,
        };
        if let Err(e) = self.request(sid, method, params, purpose) {
            let name = self
                .devices
                .get(sid)
                .map(|d| d.name.clone())
                .unwrap_or_default();
            self.send(error(
                &id,
                -32000,
                &format!("device {name} ({sid}) unreachable: {e}"),
            ));
        }
    }

    /// The fleet's list of `kind`, names or URIs namespaced.
    fn list(&self, kind: Kind) -> Vec<Value> {
        let mut all = Vec::new();
        for d in self.devices.values().filter(|d| d.ready()) {
            for item in &d.lists[kind.index()] {
                let mut item = item.clone();
                let renamed = match kind {
                    Kind::Tools | Kind::Prompts => rename(&mut item, "name", |n| {
                        let full = format!("{}.{n}", d.label);
                        (full.len() <= NAME_MAX).then_some(full)
                    }),
                    Kind::Resources => rename(&mut item, "uri", |u| {
                        Some(format!("{SCHEME}{}/{u}", d.label))
                    }),
                    Kind::Templates => rename(&mut item, "uriTemplate", |u| {
                        Some(format!("{SCHEME}{}/{u}", d.label))
                    }),
                };
                if renamed {
                    all.push(item);
                }
            }
        }
        all
    }

    /// The device and own name of the fleet's tool or prompt `name`.
    fn find(&self, kind: Kind, name: &str) -> Option<(String, String)> {
        self.devices
            .iter()
            .filter(|(_, d)| d.ready())
            .find_map(|(sid, d)| {
                let own = name.strip_prefix(d.label.as_str())?.strip_prefix('.')?;
                d.lists[kind.index()]
                    .iter()
                    .any(|i| i.get("name").and_then(Value::as_str) == Some(own))
                    .then(|| (sid.clone(), own.to_string()))
            })
    }
}

/// Replaces string field `key` of `item` by `f` of it; false when absent or refused.
fn rename(item: &mut Value, key: &str, f: impl FnOnce(&str) -> Option<String>) -> bool {
    let Some(field) = item.get_mut(key) else {
        return false;
    };
    let Some(new) = field.as_str().and_then(f) else {
        return false;
    };
    *field = Value::String(new);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_fit_mcp_names() {
        assert_eq!(label_of("greenhouse/bed-3"), "greenhouse.bed-3");
        assert_eq!(label_of("lab/ü b"), "lab.__b");
    }

    fn gateway() -> (Gateway, Receiver<Vec<u8>>) {
        let (tx, _rx) = mpsc::sync_channel(1);
        let mut g = Gateway::new(Broker::new("127.0.0.1:1".into()), "#".into(), tx);
        let (out, rx) = mpsc::sync_channel(64);
        g.out = Some(out);
        (g, rx)
    }

    fn answers(rx: &Receiver<Vec<u8>>) -> Vec<Value> {
        rx.try_iter()
            .map(|l| serde_json::from_slice(&l).unwrap())
            .collect()
    }

    #[test]
    fn host_lines_get_precise_errors() {
        let (mut g, rx) = gateway();
        g.host_line(b"{");
        g.host_line(b"[1]");
        g.host_line(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#);
        g.host_line(br#"{"jsonrpc":"2.0","id":7,"method":"nope"}"#);
        g.host_line(br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a.b"}}"#);
        g.host_line(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":[]}"#);
        g.host_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        g.host_line(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
        g.host_line(b" \t ");
        g.host_line(
            br#"{"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{"level":"loud"}}"#,
        );
        let got = answers(&rx);
        let codes: Vec<(Value, i64)> = got
            .iter()
            .map(|m| {
                (
                    m["id"].clone(),
                    m.pointer("/error/code")
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(
            codes,
            [
                (Value::Null, -32700),
                (Value::Null, -32600),
                (Value::Null, -32600),
                (json!(7), -32601),
                (json!("x"), -32602),
                (json!(8), -32602),
                (json!(9), 0),
                (json!(10), -32602),
            ]
        );
        // Method not found names the method.
        assert_eq!(got[3].pointer("/error/data/method"), Some(&json!("nope")));
    }

    #[test]
    fn ids_come_back_as_written() {
        let (mut g, rx) = gateway();
        g.host_line(br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#);
        g.host_line(br#"{"jsonrpc":"2.0","id":"a\u0041","method":"ping","method":7}"#);
        g.host_line(br#"{"jsonrpc":"2.0","id":5,"id":"dup","method":"ping"}"#);
        let lines: Vec<Vec<u8>> = rx.try_iter().collect();
        assert_eq!(
            lines,
            [
                br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#.to_vec(),
                br#"{"jsonrpc":"2.0","id":"a\u0041","result":{}}"#.to_vec(),
                br#"{"jsonrpc":"2.0","id":5,"result":{}}"#.to_vec(),
            ]
            .map(|mut l| {
                l.push(b'\n');
                l
            })
        );
    }

    #[test]
    fn deep_nesting_is_a_parse_error_not_a_crash() {
        let (mut g, rx) = gateway();
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        g.host_line(deep.as_bytes());
        assert_eq!(answers(&rx)[0]["error"]["code"], -32700);
    }

    #[test]
    fn lists_are_namespaced_and_calls_found() {
        let (mut g, _rx) = gateway();
        g.devices.insert(
            "s1".into(),
            Device {
                name: "greenhouse/bed-3".into(),
                label: "greenhouse.bed-3".into(),
                initialized: true,
                loading: [false; 4],
                lists: [
                    vec![json!({"name": "read.sensor", "inputSchema": {}})],
                    vec![json!({"uri": "sensor://t", "name": "t"})],
                    vec![],
                    vec![],
                ],
            },
        );
        let tools = g.list(Kind::Tools);
        assert_eq!(tools[0]["name"], "greenhouse.bed-3.read.sensor");
        assert_eq!(
            g.list(Kind::Resources)[0]["uri"],
            "emcp-fleet://greenhouse.bed-3/sensor://t"
        );
        assert_eq!(
            g.find(Kind::Tools, "greenhouse.bed-3.read.sensor"),
            Some(("s1".into(), "read.sensor".into()))
        );
        assert_eq!(g.find(Kind::Tools, "greenhouse.bed-3.other"), None);
    }

    #[test]
    fn a_device_removed_mid_call_fails_the_call() {
        let (mut g, rx) = gateway();
        g.devices.insert(
            "s1".into(),
            Device {
                name: "a/b".into(),
                label: "a.b".into(),
                initialized: true,
                loading: [false; 4],
                lists: Default::default(),
            },
        );
        g.calls.insert(
            1,
            Call {
                sid: "s1".into(),
                purpose: Purpose::Host {
                    id: r#""call-1""#.into(),
                    prefix: None,
                },
                deadline: Instant::now() + TIMEOUT,
            },
        );
        g.presence("s1", "a/b", b"");
        let got = answers(&rx);
        assert_eq!(got[0]["id"], "call-1");
        assert_eq!(got[0]["error"]["code"], -32000);
        assert!(got[0]["error"]["message"].as_str().unwrap().contains("a/b"));
        assert!(g.calls.is_empty() && g.devices.is_empty());
    }
}
