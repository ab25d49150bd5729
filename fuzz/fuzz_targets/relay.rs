//! The bridge's relay (`emcp_bridge::relay::Relay`, sans-IO), driven as the pump
//! drives it: host lines and device lines in any interleaving, the device resetting
//! and coming back at any point, time passing; client ids drawn from the shapes the
//! bridge gives its own requests (small integers, `"emcp-bridge/replay/1"`,
//! `"emcp-bridge/h/1"`, `"emcp-bridge/mqtt/open"`) besides others (huge integers,
//! `-0`, escaped strings).
//!
//! Input: four knob bytes (the timeout: 0 none, else N × 100 ms; the held-line
//! limit, 1–8; the device's line buffer, 16–1036 bytes; requests in flight, 1–16),
//! then operations, each an op byte and its operands:
//!
//! | op % 8 | what happens |
//! |---|---|
//! | 0 | host bytes (length byte, bytes): split into lines as the pump's reader does |
//! | 1 | device bytes (length byte, bytes), lines likewise, when connected |
//! | 2 | a host request (id byte, method byte): id and method from small pools (ids collide on purpose) |
//! | 3 | the device answers one request it was sent (result or error) |
//! | 4 | the device resets (connected → down) or comes (back) |
//! | 5 | time passes (byte × 50 ms), then the deadlines run |
//! | 6 | the host cancels an id from the pool |
//! | 7 | the device sends something of its own: a request, progress, an acknowledgement, an answer |
//!
//! Each request of op 2 carries a number of its own (a root member `"emcp-fuzz"`, which
//! the core ignores), and the device's answers of op 3 carry the number of the request
//! they answer; raw lines (ops 0, 1) holding that name are not sent. At the end the
//! relay is closed (the bridge stopping). Oracle — every host request is answered
//! exactly once, with its own answer:
//! - a host request is what the core answers with its id (`emcp::wire::rpc::parse`:
//!   a request, or a message rejected with its id), on a line within the device's
//!   line buffer; `notifications/cancelled` for an id with a request outstanding
//!   withdraws it (MCP: no response follows);
//! - a request whose id is outstanding already is answered at once (the bridge's
//!   error), and the one outstanding keeps its place;
//! - at no point has an id an answer without a request outstanding for it, and after
//!   the close every request has its answer or was withdrawn;
//! - a device answer carrying a request's number reaches the host with that request's
//!   id, and when that request is outstanding it reaches the host at once: never
//!   swallowed, never given to another request;
//! - no two requests on the device share an id (a request is what the core answers
//!   with an id, as above; a listen stream re-sent after a reset is the same one);
//! - every line written either way is one line (no newline inside), every line to the
//!   host is JSON.
#![no_main]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use emcp::wire::json;
use emcp::wire::rpc;
use emcp_bridge::message::Message;
use emcp_bridge::relay::{Config, Out, Relay};
use libfuzzer_sys::fuzz_target;

// Linked for the targets' allocator (see `emcp_fuzz`).
use emcp_fuzz as _;

const IDS: [&str; 16] = [
    "1",
    "2",
    "3",
    "10",
    "0",
    "-0",
    "123456789012345678901234567890",
    "18446744073709551616",
    "\"a\"",
    r#""a\u0041""#,
    "\"1\"",
    "\"\"",
    "\"emcp-bridge/replay/1\"",
    "\"emcp-bridge/h/1\"",
    "\"emcp-bridge/mqtt/open\"",
    "\"aA\"",
];

const METHODS: [&str; 8] = [
    "ping",
    "tools/call",
    "initialize",
    "subscriptions/listen",
    "resources/subscribe",
    "logging/setLevel",
    "tools/list",
    "resources/unsubscribe",
];

/// The root member numbering the driver's requests, and the member of the device's
/// answers that names the request answered.
const MARK: &str = "emcp-fuzz";

/// Host requests outstanding and the totals.
#[derive(Default)]
struct Ledger {
    /// Raw id → the driver's number of the request outstanding with it (`None`: a
    /// raw host line's).
    open: HashMap<Vec<u8>, Option<u64>>,
    asked: usize,
    answered: usize,
    withdrawn: usize,
    line_max: usize,
}

/// The host request just sent: its id and whether one was outstanding with it.
struct Just {
    id: Vec<u8>,
    was_open: bool,
}

impl Ledger {
    /// A line from the host, before the relay sees it; `mark`: the driver's number.
    fn host(&mut self, line: &[u8], mark: Option<u64>) -> Option<Just> {
        if line.len() > self.line_max {
            return None; // the core answers it with id null
        }
        let id = match rpc::parse(line) {
            Ok(rpc::Message::Request(r)) => r.id.raw().to_vec(),
            Err(rpc::Rejected { id: Some(id), .. }) => id.raw().to_vec(),
            Ok(rpc::Message::Notification(n)) if n.method.eq_str("notifications/cancelled") => {
                let id = n.params.and_then(|p| p.get("requestId"))?;
                if self.open.remove(id.raw()).is_some() {
                    self.withdrawn += 1;
                }
                return None;
            }
            _ => return None,
        };
        self.asked += 1;
        let was_open = self.open.contains_key(&id);
        if !was_open {
            self.open.insert(id.clone(), mark);
        }
        Some(Just { id, was_open })
    }

    /// What the relay asked for after `just` (the host request just sent, if any);
    /// returns the lines sent to the device and the ids answered.
    fn out(&mut self, out: Vec<Out>, just: Option<Just>) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let mut device = Vec::new();
        let mut answered = Vec::new();
        let mut just = just;
        for o in out {
            let line = match o {
                Out::HostMessage(m) => {
                    same_as_read(&m);
                    m.into_line()
                }
                Out::Host(line) => line,
                Out::Device(line) => {
                    assert!(!line.contains(&b'\n'), "a newline inside a device line");
                    device.push(line);
                    continue;
                }
                Out::Note(_) => continue,
            };
            assert!(!line.contains(&b'\n'), "a newline inside a host line");
            let v = json::parse_with_depth(&line, json::DEPTH_LIMIT)
                .unwrap_or_else(|e| panic!("not JSON to the host ({e:?}): {}", show(&line)));
            // The first member of each name (as `get` finds it), in one pass.
            let [mut method, mut result, mut error, mut id] = [None; 4];
            for (k, x) in v.members() {
                for (name, slot) in [
                    ("method", &mut method),
                    ("result", &mut result),
                    ("error", &mut error),
                    ("id", &mut id),
                ] {
                    if slot.is_none() && k.eq_str(name) {
                        *slot = Some(x);
                    }
                }
            }
            let is_response = method.is_none() && (result.is_some() || error.is_some());
            let Some(id) = id.filter(|i| is_response && !i.is_null()) else {
                continue;
            };
            let id = id.raw().to_vec();
            self.answered += 1;
            answered.push(id.clone());
            if let Some(j) = just.take_if(|j| j.id == id) {
                // The bridge's answer to the request just sent, at once.
                if !j.was_open {
                    self.open.remove(&id);
                }
                continue;
            }
            let Some(mark) = self.open.remove(&id) else {
                panic!(
                    "id {} answered without a request outstanding: {}",
                    show(&id),
                    show(&line)
                );
            };
            let carried = result
                .or_else(|| error.and_then(|e| e.get("data")))
                .and_then(|r| r.get(MARK))
                .and_then(|n| std::str::from_utf8(n.raw()).ok()?.parse::<u64>().ok());
            if let Some(carried) = carried {
                assert_eq!(
                    mark,
                    Some(carried),
                    "the answer to request {carried} went to id {}: {}",
                    show(&id),
                    show(&line)
                );
            }
        }
        if let Some(j) = just {
            assert!(
                !j.was_open,
                "a second request with id {} in flight was taken",
                show(&j.id)
            );
        }
        (device, answered)
    }
}
fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().take(200).collect()
}

/// A message the relay read (a device line, its id swapped when an answer) is what
/// reading its line finds: its parts, and where its ids and `params` are (what a
/// swap and a parameter read of each find).
fn same_as_read(m: &Message) {
    let again = Message::parse(m.line())
        .unwrap_or_else(|| panic!("a message to the host not JSON: {}", show(m.line())));
    let parts = |m: &Message| {
        (
            (
                m.kind.clone(),
                m.id.clone(),
                m.method.clone(),
                m.params.clone(),
            ),
            (m.is_error, m.rejected, m.line().to_vec(), m.with_id("0")),
            (m.param("progressToken"), m.meta("progressToken")),
        )
    };
    assert!(
        parts(m) == parts(&again),
        "a message not as its line reads: {}",
        show(m.line())
    );
}

/// Lines as the pump's reader yields them: split at `\n`, a trailing `\r` dropped,
/// empty lines skipped.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
}

/// A request on the device: its id there and the driver's number (`None`: the
/// bridge's own, or a raw line's).
struct OnDevice {
    id: String,
    mark: Option<u64>,
}

/// The driver's number of a request line (its root member [`MARK`]).
fn mark_of(line: &[u8]) -> Option<u64> {
    let v = json::parse_with_depth(line, json::DEPTH_LIMIT).ok()?;
    std::str::from_utf8(v.get(MARK)?.raw()).ok()?.parse().ok()
}

/// The id the device's core answers `line` with, if it answers one, and whether the
/// line opens a listen stream: a request, or a message rejected with its id
/// (`rpc::parse`, as the core reads it). A line it answers with id `null` (an id of
/// another type, `1.7`, say) has none: two such lines cannot be taken for each other.
fn device_request(line: &[u8]) -> Option<(String, bool)> {
    let text = |id: rpc::Id<'_>| String::from_utf8_lossy(id.raw()).into_owned();
    match rpc::parse(line) {
        Ok(rpc::Message::Request(r)) => Some((text(r.id), r.method.eq_str("subscriptions/listen"))),
        Err(rpc::Rejected { id: Some(id), .. }) => Some((text(id), false)),
        _ => None,
    }
}

struct World {
    relay: Relay,
    ledger: Ledger,
    /// Requests written to the current device, in order (to answer).
    on_device: Vec<OnDevice>,
    /// Every id a request went to the device with, and the line.
    wires: HashMap<String, Vec<u8>>,
}

impl World {
    /// Carry out what the relay asked for after `just`; the ids answered.
    fn note(&mut self, out: Vec<Out>, just: Option<Just>) -> Vec<Vec<u8>> {
        let (device, answered) = self.ledger.out(out, just);
        for line in device {
            let Some((id, listen)) = device_request(&line) else {
                continue;
            };
            let mark = mark_of(&line);
            // Ids are never shared: a listen stream re-sent after a reset is the same
            // line again.
            if let Some(before) = self.wires.insert(id.clone(), line.clone()) {
                assert!(
                    listen && before == line,
                    "two requests on the device with id {id}: {} and {}",
                    show(&before),
                    show(&line)
                );
            }
            self.on_device.push(OnDevice { id, mark });
        }
        answered
    }

    /// A host line.
    fn host(&mut self, line: &[u8], mark: Option<u64>, now: Instant) {
        let just = self.ledger.host(line, mark);
        let out = self.relay.host_line(line, now);
        self.note(out, just);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut data = data.iter().copied();
    let mut next = || data.next();
    let timeout = next().unwrap_or(0);
    let held = next().unwrap_or(0);
    let line_max = 16 + usize::from(next().unwrap_or(255)) * 4;
    let in_flight = next().unwrap_or(255);
    let config = Config {
        timeout: (timeout != 0).then(|| Duration::from_millis(100) * u32::from(timeout)),
        max_held: 1 + usize::from(held % 8),
        line_max,
        max_in_flight: 1 + usize::from(in_flight % 16),
    };
    let mut w = World {
        relay: Relay::new(config),
        ledger: Ledger {
            line_max,
            ..Ledger::default()
        },
        on_device: Vec::new(),
        wires: HashMap::new(),
    };
    let start = Instant::now();
    let mut now = start;
    let mut up = false;
    let mut marks = 0u64;
    let bytes = |n: u8, next: &mut dyn FnMut() -> Option<u8>| -> Vec<u8> {
        (0..n).map_while(|_| next()).collect()
    };
    let forged = |line: &[u8]| memchr::memmem::find(line, MARK.as_bytes()).is_some();
    while let Some(op) = next() {
        match op % 8 {
            0 => {
                let n = next().unwrap_or(0);
                let b = bytes(n, &mut next);
                for line in lines(&b).filter(|l| !forged(l)) {
                    w.host(line, None, now);
                }
            }
            1 if up => {
                let n = next().unwrap_or(0);
                let b = bytes(n, &mut next);
                for line in lines(&b).filter(|l| !forged(l)) {
                    let out = w.relay.device_line(line, now);
                    w.note(out, None);
                }
            }
            2 => {
                let id = IDS[usize::from(next().unwrap_or(0) % 16)];
                let pick = next().unwrap_or(0);
                let method = METHODS[usize::from(pick % 8)];
                let params = match pick / 8 % 4 {
                    0 => String::new(),
                    1 => r#","params":{"_meta":{"progressToken":"p"}}"#.into(),
                    2 => r#","params":{"uri":"led://state","level":"info"}"#.into(),
                    _ => r#","params":[]"#.into(),
                };
                marks += 1;
                let line = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","{MARK}":{marks}{params}}}"#
                );
                w.host(line.as_bytes(), Some(marks), now);
            }
            3 if up && !w.on_device.is_empty() => {
                let pick = usize::from(next().unwrap_or(0));
                let OnDevice { id, mark } = w.on_device.remove(pick % w.on_device.len());
                let carried = mark.map_or(String::new(), |m| format!(r#""{MARK}":{m}"#));
                let line = if pick & 0x80 == 0 {
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{{carried}}}}}"#)
                } else {
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"x","data":{{{carried}}}}}}}"#
                    )
                };
                // The host's request this answers, when outstanding: answered now.
                let expected = mark.and_then(|m| {
                    w.ledger
                        .open
                        .iter()
                        .find(|(_, k)| **k == Some(m))
                        .map(|(id, _)| id.clone())
                });
                let out = w.relay.device_line(line.as_bytes(), now);
                let answered = w.note(out, None);
                if let Some(host_id) = expected {
                    assert!(
                        answered.contains(&host_id),
                        "the device answered request {} (id {}) and the host did not get it",
                        mark.unwrap_or_default(),
                        show(&host_id)
                    );
                }
            }
            4 => {
                let out = if up {
                    w.on_device.clear();
                    w.relay.disconnected(now)
                } else {
                    w.relay.connected(now)
                };
                up = !up;
                w.note(out, None);
            }
            5 => {
                now += Duration::from_millis(50) * u32::from(next().unwrap_or(0));
                let out = w.relay.tick(now);
                w.note(out, None);
            }
            6 => {
                let id = IDS[usize::from(next().unwrap_or(0) % 16)];
                let line = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
                );
                w.host(line.as_bytes(), None, now);
            }
            7 if up => {
                let pick = next().unwrap_or(0);
                let id = IDS[usize::from(pick % 16)];
                let line = match pick / 16 % 4 {
                    0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roots/list"}}"#),
                    1 => r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#.into(),
                    2 => format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}}}}}}"#
                    ),
                    _ => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
                };
                let out = w.relay.device_line(line.as_bytes(), now);
                w.note(out, None);
            }
            _ => {}
        }
    }
    let out = w.relay.close();
    w.note(out, None);
    assert_eq!(w.relay.in_flight(), 0, "requests left after close");
    let l = &w.ledger;
    assert!(
        l.open.is_empty(),
        "ids without an answer after the close: {:?}",
        l.open.keys().map(|k| show(k)).collect::<Vec<_>>()
    );
    assert_eq!(
        l.answered + l.withdrawn,
        l.asked,
        "asked {}, answered {}, withdrawn {}",
        l.asked,
        l.answered,
        l.withdrawn
    );
});
