//! The bridge's relay (`emcp_bridge::relay::Relay`, sans-IO), driven as the pump
//! drives it: host lines and device lines in any interleaving, the device resetting
//! and coming back at any point, time passing.
//!
//! Input: three knob bytes (the timeout: 0 none, else N × 100 ms; the held-line
//! limit, 1–8; the device's line buffer, 16–1036 bytes), then operations, each an op
//! byte and its operands:
//!
//! | op % 8 | what happens |
//! |---|---|
//! | 0 | host bytes (length byte, bytes): split into lines as the pump's reader does |
//! | 1 | device bytes (length byte, bytes), lines likewise, when connected |
//! | 2 | a host request: id and method from small pools (ids collide on purpose) |
//! | 3 | the device answers one request it was sent (result or error) |
//! | 4 | the device resets (connected → down) or comes (back) |
//! | 5 | time passes (byte × 50 ms), then the deadlines run |
//! | 6 | the host cancels an id from the pool |
//! | 7 | the device sends something of its own: a request, progress, an acknowledgement |
//!
//! At the end the relay is closed (the bridge stopping). Oracle — every host request
//! is answered exactly once:
//! - a host request is what the core answers with its id (`emcp::wire::rpc::parse`:
//!   a request, or a message rejected with its id), on a line within the device's
//!   line buffer; `notifications/cancelled` for an id with a request outstanding
//!   withdraws one (MCP: no response follows);
//! - at no point has an id more answers than requests outstanding for it, and after
//!   the close every request has its answer or was withdrawn;
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

const IDS: [&str; 8] = [
    "1",
    "2",
    "\"a\"",
    "\"b\"",
    "-0",
    "\"1\"",
    "7",
    "\"emcp-bridge/replay/1\"",
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

/// Counts per raw id: requests sent, answers seen, requests withdrawn.
#[derive(Default)]
struct Ledger {
    ids: HashMap<Vec<u8>, (usize, usize, usize)>,
    line_max: usize,
}

impl Ledger {
    /// A line from the host, before the relay sees it.
    fn host(&mut self, line: &[u8]) {
        if line.len() > self.line_max {
            return; // the core answers it with id null
        }
        match rpc::parse(line) {
            Ok(rpc::Message::Request(r)) => self.ids.entry(r.id.raw().to_vec()).or_default().0 += 1,
            Err(rpc::Rejected { id: Some(id), .. }) => {
                self.ids.entry(id.raw().to_vec()).or_default().0 += 1;
            }
            Ok(rpc::Message::Notification(n)) if n.method.eq_str("notifications/cancelled") => {
                let Some(id) = n.params.and_then(|p| p.get("requestId")) else {
                    return;
                };
                if let Some(c) = self.ids.get_mut(id.raw()) {
                    if c.0 > c.1 + c.2 {
                        c.2 += 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// What the relay asked for; returns the lines sent to the device.
    fn out(&mut self, out: Vec<Out>) -> Vec<Vec<u8>> {
        let mut device = Vec::new();
        for o in out {
            match o {
                Out::Host(line) => {
                    assert!(!line.contains(&b'\n'), "a newline inside a host line");
                    let v = json::parse_with_depth(&line, json::DEPTH_LIMIT).unwrap_or_else(|e| {
                        panic!("not JSON to the host ({e:?}): {}", show(&line))
                    });
                    let is_response = v.get("method").is_none()
                        && (v.get("result").is_some() || v.get("error").is_some());
                    let Some(id) = v.get("id").filter(|i| is_response && !i.is_null()) else {
                        continue;
                    };
                    let c = self.ids.entry(id.raw().to_vec()).or_default();
                    c.1 += 1;
                    assert!(
                        c.1 + c.2 <= c.0,
                        "id {} answered more often than asked ({c:?}): {}",
                        show(id.raw()),
                        show(&line)
                    );
                }
                Out::Device(line) => {
                    assert!(!line.contains(&b'\n'), "a newline inside a device line");
                    device.push(line);
                }
                Out::Note(_) => {}
            }
        }
        device
    }
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).chars().take(200).collect()
}

/// Lines as the pump's reader yields them: split at `\n`, a trailing `\r` dropped,
/// empty lines skipped.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
}

fuzz_target!(|data: &[u8]| {
    let mut data = data.iter().copied();
    let mut next = || data.next();
    let timeout = next().unwrap_or(0);
    let held = next().unwrap_or(0);
    let line_max = 16 + usize::from(next().unwrap_or(255)) * 4;
    let config = Config {
        timeout: (timeout != 0).then(|| Duration::from_millis(100) * u32::from(timeout)),
        max_held: 1 + usize::from(held % 8),
        line_max,
    };
    let mut relay = Relay::new(config);
    let mut ledger = Ledger {
        line_max,
        ..Ledger::default()
    };
    let start = Instant::now();
    let mut now = start;
    let mut up = false;
    // Ids of requests written to the current device, in order (to answer).
    let mut on_device: Vec<String> = Vec::new();
    let note = |out: Vec<Out>, on_device: &mut Vec<String>, ledger: &mut Ledger| {
        for line in ledger.out(out) {
            if let Some(m) = Message::parse(&line) {
                if let (Some(id), Some(_)) = (m.id, m.method) {
                    on_device.push(id);
                }
            }
        }
    };
    let bytes = |n: u8, next: &mut dyn FnMut() -> Option<u8>| -> Vec<u8> {
        (0..n).map_while(|_| next()).collect()
    };
    while let Some(op) = next() {
        match op % 8 {
            0 => {
                let n = next().unwrap_or(0);
                let b = bytes(n, &mut next);
                for line in lines(&b) {
                    ledger.host(line);
                    let out = relay.host_line(line, now);
                    note(out, &mut on_device, &mut ledger);
                }
            }
            1 if up => {
                let n = next().unwrap_or(0);
                let b = bytes(n, &mut next);
                for line in lines(&b) {
                    let out = relay.device_line(line, now);
                    note(out, &mut on_device, &mut ledger);
                }
            }
            2 => {
                let pick = next().unwrap_or(0);
                let id = IDS[usize::from(pick % 8)];
                let method = METHODS[usize::from(pick / 8 % 8)];
                let params = match pick / 64 {
                    0 => String::new(),
                    1 => r#","params":{"_meta":{"progressToken":"p"}}"#.into(),
                    2 => r#","params":{"uri":"led://state","level":"info"}"#.into(),
                    _ => r#","params":[]"#.into(),
                };
                let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}"#);
                ledger.host(line.as_bytes());
                let out = relay.host_line(line.as_bytes(), now);
                note(out, &mut on_device, &mut ledger);
            }
            3 if up && !on_device.is_empty() => {
                let pick = usize::from(next().unwrap_or(0));
                let id = on_device.remove(pick % on_device.len());
                let line = if pick & 0x80 == 0 {
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
                } else {
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"x"}}}}"#
                    )
                };
                let out = relay.device_line(line.as_bytes(), now);
                note(out, &mut on_device, &mut ledger);
            }
            4 => {
                let out = if up {
                    on_device.clear();
                    relay.disconnected(now)
                } else {
                    relay.connected(now)
                };
                up = !up;
                note(out, &mut on_device, &mut ledger);
            }
            5 => {
                now += Duration::from_millis(50) * u32::from(next().unwrap_or(0));
                let out = relay.tick(now);
                note(out, &mut on_device, &mut ledger);
            }
            6 => {
                let id = IDS[usize::from(next().unwrap_or(0) % 8)];
                let line = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
                );
                ledger.host(line.as_bytes());
                let out = relay.host_line(line.as_bytes(), now);
                note(out, &mut on_device, &mut ledger);
            }
            7 if up => {
                let pick = next().unwrap_or(0);
                let id = IDS[usize::from(pick % 8)];
                let line = match pick / 8 % 4 {
                    0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roots/list"}}"#),
                    1 => r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#.into(),
                    2 => format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}}}}}}"#
                    ),
                    _ => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
                };
                let out = relay.device_line(line.as_bytes(), now);
                note(out, &mut on_device, &mut ledger);
            }
            _ => {}
        }
    }
    let out = relay.close();
    note(out, &mut on_device, &mut ledger);
    assert_eq!(relay.in_flight(), 0, "requests left after close");
    for (id, (asked, answered, withdrawn)) in &ledger.ids {
        assert_eq!(
            answered + withdrawn,
            *asked,
            "id {}: asked {asked}, answered {answered}, withdrawn {withdrawn}",
            show(id)
        );
    }
});
