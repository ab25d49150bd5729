//! The bridge's HTTP side without its sockets: the `Mux` (client ids ↔ bridge ids,
//! the routing of device lines to requests and the session stream) in front of the
//! `Relay`, as the pump joins them, with each body prepared as `bridge/src/http`
//! prepares it (`Message::from_host`, `mux::for_device`, `Message::into_one_line`, the
//! device's line buffer).
//!
//! Input: three knob bytes (timeout: 0 none, else N × 100 ms; held-line limit 1–8;
//! the device's line buffer, 16–1036 bytes), then operations (op byte, operands):
//!
//! | op % 8 | what happens |
//! |---|---|
//! | 0 | a POST: id and method from small pools (client ids collide on purpose) |
//! | 1 | a POST of raw bytes (length byte, bytes) |
//! | 2 | the device answers one request it was sent (result or error) |
//! | 3 | device bytes (length byte, bytes), split into lines, when connected |
//! | 4 | the device resets or comes (back) |
//! | 5 | time passes (byte × 50 ms), then the deadlines run |
//! | 6 | a client leaves an open request (its connection closes) |
//! | 7 | a client cancels an id from the pool, or opens the session's GET stream |
//!
//! At the end the relay is closed. Oracle — each POSTed request gets exactly one
//! response (`Delivery::Last`), carrying its client's id, unless its client left or
//! cancelled it first: never two, and after the close none missing. Lines for a
//! request before its response are never JSON-RPC responses to another id.
//!
//! The connections are read when what reached them matters, and a channel keeps its
//! lines in order: before a client leaves or cancels (a response before that is not
//! one after it), and at the end; not after every delivery.
//!
//! What the oracle reads of a line (a response's id, a device line's request id) is
//! kept for the process by the line's bytes (`emcp_fuzz::Memo`): a mutated input
//! repeats most of its parent's lines, and each distinct line is read once.
#![no_main]

use std::cell::RefCell;

use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use emcp::wire::json;
use emcp_bridge::http::mux::{self, Delivery, HttpEvent, Mux};
use emcp_bridge::message::{Kind, Message};
use emcp_bridge::pump::HostSide;
use emcp_bridge::relay::{Config, Out, Relay};
use emcp_fuzz::Memo;
use libfuzzer_sys::fuzz_target;

const IDS: [&str; 6] = ["1", "2", "\"a\"", "\"1\"", "\"emcp-bridge/h/1\"", "-0"];

const METHODS: [&str; 6] = [
    "ping",
    "tools/call",
    "subscriptions/listen",
    "initialize",
    "resources/subscribe",
    "tools/list",
];

thread_local! {
    /// The id of each response line the oracle read (its raw JSON, empty without one).
    static RESPONSE_ID: RefCell<Memo> = RefCell::new(Memo::new(32 << 20, 1 << 17));
    /// The id of each line to the device that is a request (raw JSON, else empty).
    static REQUEST_ID: RefCell<Memo> = RefCell::new(Memo::new(32 << 20, 1 << 17));
}

/// One POSTed request.
struct Posted {
    client: Vec<u8>,
    bridge: String,
    rx: Receiver<Delivery>,
    answered: usize,
    /// The client left or cancelled it before its response.
    withdrawn: bool,
    /// The mux dropped its sender and everything sent was read: nothing more can come.
    closed: bool,
}

struct World {
    relay: Relay,
    mux: Mux,
    posted: Vec<Posted>,
    /// The ids of the requests on the device, read from `unread` when needed.
    on_device: Vec<String>,
    /// Lines sent to the device not looked at yet: most are never answered by op 2
    /// (the device resets, the input ends), so they are read only when one is.
    unread: Vec<Vec<u8>>,
    line_max: usize,
    next: u64,
    now: Instant,
    /// Something was delivered to a connection since they were last read.
    delivered: bool,
}

/// The id of `line` when it is a request as `Message::parse` reads one (the first
/// `id`, not null, and the first `method`, a string: one walk, which stops once it
/// has both), its raw JSON; empty otherwise.
fn request_id(line: &[u8]) -> Vec<u8> {
    let Ok(v) = json::parse_with_depth(line, json::DEPTH_LIMIT) else {
        return Vec::new();
    };
    let (mut id, mut method) = (None, None);
    for (key, value) in v.members() {
        let plain = key.as_plain();
        let is = |name: &str| plain.map_or_else(|| key.eq_str(name), |k| k == name);
        if is("id") {
            id.get_or_insert(value);
        } else if is("method") {
            method.get_or_insert(value);
        }
        if id.is_some() && method.is_some() {
            break;
        }
    }
    match (id, method) {
        (Some(id), Some(method)) if !id.is_null() && method.as_str().is_some() => id.raw().to_vec(),
        _ => Vec::new(),
    }
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().take(200).collect()
}

impl World {
    /// Carry out what the relay asked for, as the pump does.
    fn apply(&mut self, out: Vec<Out>) {
        for o in out {
            match o {
                Out::Host(line) => {
                    let _ = self.mux.deliver(line);
                    self.delivered = true;
                }
                Out::HostMessage(m) => {
                    let _ = self.mux.deliver_message(m);
                    self.delivered = true;
                }
                Out::Device(line) => {
                    assert!(!line.contains(&b'\n'), "a newline inside a device line");
                    self.unread.push(line);
                }
                Out::Note(_) => {}
            }
        }
    }

    /// The ids of the requests sent to the device since it (re)connected and not
    /// answered by op 2, in the order they were sent.
    fn on_device(&mut self) -> &mut Vec<String> {
        for line in self.unread.drain(..) {
            let id = REQUEST_ID.with(|m| m.borrow_mut().get(&line, || request_id(&line)));
            if !id.is_empty() {
                self.on_device
                    .push(String::from_utf8_lossy(&id).into_owned());
            }
        }
        &mut self.on_device
    }

    /// Lines from the host side (the mux) into the relay.
    fn host_lines(&mut self, lines: Vec<Message>) {
        for line in lines {
            let out = self.relay.host_message(line, self.now);
            self.apply(out);
        }
    }

    /// What reached each request's connection since it was last read. Only `deliver`
    /// sends to a connection: with nothing delivered since, there is nothing to read.
    fn drain(&mut self) {
        if !std::mem::take(&mut self.delivered) {
            return;
        }
        for p in self.posted.iter_mut().filter(|p| !p.closed) {
            loop {
                let d = match p.rx.try_recv() {
                    Ok(d) => d,
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => {
                        p.closed = true;
                        break;
                    }
                };
                match d {
                    Delivery::Last(line) => {
                        p.answered += 1;
                        assert!(
                            p.answered == 1 && !p.withdrawn,
                            "a second response, or one after the client left: {}",
                            show(&line)
                        );
                        let id = RESPONSE_ID.with(|m| {
                            m.borrow_mut().get(&line, || {
                                let v = json::parse_with_depth(&line, json::DEPTH_LIMIT)
                                    .unwrap_or_else(|e| {
                                        panic!("response not JSON ({e:?}): {}", show(&line))
                                    });
                                v.get("id").map_or_else(Vec::new, |i| i.raw().to_vec())
                            })
                        });
                        let id = id.as_slice();
                        if id != p.client {
                            assert_eq!(
                                show(id),
                                show(&p.client),
                                "a response with another id: {}",
                                show(&line)
                            );
                        }
                    }
                    Delivery::Line(line) => {
                        assert!(
                            p.answered == 0,
                            "a line after the response: {}",
                            show(&line)
                        );
                    }
                }
            }
        }
    }

    /// One POST body, prepared as `bridge/src/http` prepares it.
    fn post(&mut self, body: &[u8]) {
        if body.len() > self.line_max {
            return; // answered on the connection (line too long), never relayed
        }
        let msg = Message::from_host(body);
        match msg.kind {
            Kind::Request => {}
            Kind::Other if msg.rejected.is_some() => return, // answered on the connection
            _ => {
                if msg.method() == "notifications/cancelled" {
                    if let Some(client) = msg.param("requestId") {
                        self.drain();
                        // The mux cancels the one open request with that client id,
                        // none when several are open under it.
                        let mut open = self.posted.iter_mut().filter(|p| {
                            p.client == client.as_bytes() && p.answered == 0 && !p.withdrawn
                        });
                        if let (Some(p), None) = (open.next(), open.next()) {
                            p.withdrawn = true;
                        }
                    }
                }
                let lines = self.mux.event(HttpEvent::Forward(msg.into_one_line()));
                return self.host_lines(lines);
            }
        }
        self.next += 1;
        let bridge = Mux::bridge_id(self.next);
        let sent = mux::for_device(&msg, &bridge);
        if sent.line().len() > self.line_max {
            return; // answered on the connection
        }
        let (tx, rx) = mpsc::channel();
        self.posted.push(Posted {
            client: msg.id.clone().unwrap_or_default().into_bytes(),
            bridge: bridge.clone(),
            rx,
            answered: 0,
            withdrawn: false,
            closed: false,
        });
        let lines = self.mux.event(HttpEvent::Request {
            message: msg,
            sent,
            bridge,
            reply: tx,
        });
        self.host_lines(lines);
    }
}

fuzz_target!(
    init: {
        // The memos take their memory before the first run (see `Memo`).
        RESPONSE_ID.with(|_| ());
        REQUEST_ID.with(|_| ());
    },
    |data: &[u8]| {
    let mut data = data.iter().copied();
    let mut next = || data.next();
    let timeout = next().unwrap_or(0);
    let held = next().unwrap_or(0);
    let line_max = 16 + usize::from(next().unwrap_or(255)) * 4;
    let config = Config {
        timeout: (timeout != 0).then(|| Duration::from_millis(100) * u32::from(timeout)),
        max_held: 1 + usize::from(held % 8),
        line_max,
        ..Config::default()
    };
    let mut w = World {
        relay: Relay::new(config),
        mux: Mux::new(),
        posted: Vec::new(),
        on_device: Vec::new(),
        unread: Vec::new(),
        line_max,
        next: 0,
        now: Instant::now(),
        delivered: false,
    };
    let mut up = false;
    let mut sessions = Vec::new();
    let bytes = |next: &mut dyn FnMut() -> Option<u8>| -> Vec<u8> {
        let n = next().unwrap_or(0);
        (0..n).map_while(|_| next()).collect()
    };
    while let Some(op) = next() {
        match op % 8 {
            0 => {
                let pick = next().unwrap_or(0);
                let id = IDS[usize::from(pick % 6)];
                let method = METHODS[usize::from(pick / 6 % 6)];
                let params = match pick / 36 {
                    0 => "",
                    1 => r#","params":{"_meta":{"progressToken":"p"}}"#,
                    2 => r#","params":{"uri":"led://state"}"#,
                    3 => "\n,\r\n\"params\" : {}",
                    4 => r#","params":[]"#,
                    _ => r#","jsonrpc":"1.0""#,
                };
                let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}"#);
                w.post(body.as_bytes());
            }
            1 => {
                let body = bytes(&mut next);
                w.post(&body);
            }
            2 if up && !w.on_device().is_empty() => {
                let pick = usize::from(next().unwrap_or(0));
                let on_device = w.on_device();
                let id = on_device.remove(pick % on_device.len());
                let line = match pick % 3 {
                    0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
                    1 => format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"x"}}}}"#
                    ),
                    _ => format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}}}}}}"#
                    ),
                };
                let out = w.relay.device_line(line.as_bytes(), w.now);
                w.apply(out);
            }
            3 if up => {
                let b = bytes(&mut next);
                for line in b.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                    let out = w.relay.device_line(line, w.now);
                    w.apply(out);
                }
            }
            4 => {
                let out = if up {
                    w.on_device.clear();
                    w.unread.clear();
                    w.relay.disconnected(w.now)
                } else {
                    w.relay.connected(w.now)
                };
                up = !up;
                w.apply(out);
            }
            5 => {
                w.now += Duration::from_millis(50) * u32::from(next().unwrap_or(0));
                let out = w.relay.tick(w.now);
                w.apply(out);
            }
            6 if !w.posted.is_empty() => {
                w.drain();
                let i = usize::from(next().unwrap_or(0)) % w.posted.len();
                let p = &mut w.posted[i];
                if p.answered == 0 {
                    p.withdrawn = true;
                }
                let bridge = p.bridge.clone();
                let lines = w.mux.event(HttpEvent::Closed(bridge));
                w.host_lines(lines);
            }
            7 => {
                let pick = next().unwrap_or(0);
                if pick & 0x80 != 0 {
                    let (tx, rx) = mpsc::channel();
                    sessions.push(rx);
                    let lines = w.mux.event(HttpEvent::SessionStream(tx));
                    w.host_lines(lines);
                } else {
                    let id = IDS[usize::from(pick % 6)];
                    let body = format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
                    );
                    w.post(body.as_bytes());
                }
            }
            _ => {}
        }
        // A stream the mux replaced (its sender gone) is dropped once read to the end.
        sessions.retain(|s: &Receiver<Delivery>| loop {
            match s.try_recv() {
                Ok(Delivery::Line(l) | Delivery::Last(l)) => {
                    assert!(!l.contains(&b'\n'), "a newline inside a session line");
                }
                Err(mpsc::TryRecvError::Empty) => break true,
                Err(mpsc::TryRecvError::Disconnected) => break false,
            }
        });
    }
    let out = w.relay.close();
    w.apply(out);
    w.drain();
    for p in &w.posted {
        assert!(
            p.answered == 1 || (p.answered == 0 && p.withdrawn),
            "request {} (client id {}) answered {} times, withdrawn: {}",
            p.bridge,
            show(&p.client),
            p.answered,
            p.withdrawn
        );
    }
});
