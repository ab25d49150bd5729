//! The serve loop against a scripted broker, in process: what it sends for what it
//! receives, byte for byte where it matters.

extern crate std;
use std::string::String;
use std::vec::Vec;

use super::packet::{self, kind};
use super::*;
use crate::model::registry::{Resource, Tool};
use crate::{Config, Device, Server, Step};

static TOOLS: [Tool<'static>; 2] = [
    Tool::new("echo", r#"{"type":"object"}"#),
    Tool::new("slow", r#"{"type":"object"}"#),
];

/// `echo` answers at once; `slow` is a job, answered at the next tick.
struct Echo;

impl Device for Echo {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut crate::device::ToolCall<'_>) -> Step {
        if call.tool() == 1 && call.can_defer() {
            return Step::Pending;
        }
        call.text("hi");
        Step::Done
    }
    fn poll_tool(&mut self, call: &mut crate::device::ToolCall<'_>) -> Step {
        call.text("slow done");
        Step::Done
    }
}

/// The broker's side: chunks to read, then end of input. An empty chunk: nothing to
/// read until a tick has passed.
struct Script(Vec<Vec<u8>>);

/// In a script: a tick passes here.
fn tick() -> Vec<u8> {
    Vec::new()
}

impl embedded_io_async::ErrorType for Script {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Read for Script {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        while self.0.first().is_some_and(Vec::is_empty) {
            self.0.remove(0);
            embassy_futures::yield_now().await;
        }
        if self.0.is_empty() {
            return Ok(0);
        }
        let chunk = &mut self.0[0];
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        chunk.drain(..n);
        if chunk.is_empty() {
            self.0.remove(0);
        }
        Ok(n)
    }
}

#[derive(Default)]
struct Sent(Vec<u8>);

impl embedded_io_async::ErrorType for Sent {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Write for Sent {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn packet(first: u8, body: &[u8]) -> Vec<u8> {
    let mut p = std::vec![first];
    let mut n = body.len();
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            p.push(b);
            break;
        }
        p.push(b | 0x80);
    }
    p.extend_from_slice(body);
    p
}

fn bin(s: &[u8]) -> Vec<u8> {
    let mut v = (s.len() as u16).to_be_bytes().to_vec();
    v.extend_from_slice(s);
    v
}

fn connack(props: &[(&str, &str)]) -> Vec<u8> {
    let mut p = Vec::new();
    for (k, v) in props {
        p.push(0x26);
        p.extend(bin(k.as_bytes()));
        p.extend(bin(v.as_bytes()));
    }
    let mut body = std::vec![0, 0, p.len() as u8];
    body.extend(p);
    packet(kind::CONNACK << 4, &body)
}

fn publish(topic: &str, client: Option<&str>, payload: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    if let Some(c) = client {
        p.push(0x26);
        p.extend(bin(b"MCP-MQTT-CLIENT-ID"));
        p.extend(bin(c.as_bytes()));
    }
    let mut body = bin(topic.as_bytes());
    body.push(p.len() as u8);
    body.extend(p);
    body.extend_from_slice(payload);
    packet(kind::PUBLISH << 4, &body)
}

fn suback(pid: u16, codes: &[u8]) -> Vec<u8> {
    let mut body = pid.to_be_bytes().to_vec();
    body.push(0);
    body.extend_from_slice(codes);
    packet(kind::SUBACK << 4, &body)
}

/// A packet sent: its type, its topic (or filters), its payload.
type Packet = (u8, String, String);

/// Why the link ended, in these tests.
type End = MqttError<core::convert::Infallible, core::convert::Infallible>;

/// What was sent, packet by packet: (type, topic or filters, payload).
fn decode(mut bytes: &[u8]) -> Vec<Packet> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (h, len) = packet::fixed_header(bytes).unwrap().unwrap();
        let (pkt, rest) = bytes.split_at(h + len);
        bytes = rest;
        let body = &pkt[h..];
        let kind = pkt[0] >> 4;
        let mut r = packet::Reader::new(body);
        let (topic, payload) = match kind {
            kind::PUBLISH => {
                let t = r.bin().unwrap();
                let props = r.properties().unwrap();
                assert_eq!(props.user("MCP-COMPONENT-TYPE"), Some(&b"mcp-server"[..]));
                assert_eq!(props.user("MCP-MQTT-CLIENT-ID"), Some(&b"dev"[..]));
                (
                    String::from_utf8(t.to_vec()).unwrap(),
                    String::from_utf8(r.rest().to_vec()).unwrap(),
                )
            }
            kind::SUBSCRIBE | kind::UNSUBSCRIBE => {
                r.u16().unwrap();
                r.properties().unwrap();
                let mut filters = Vec::new();
                while !r.rest().is_empty() {
                    filters.push(String::from_utf8(r.bin().unwrap().to_vec()).unwrap());
                    if kind == kind::SUBSCRIBE {
                        assert_eq!(r.u8().unwrap(), 0x04, "QoS 0 with No Local");
                    }
                }
                (filters.join(" "), String::new())
            }
            kind::CONNECT => {
                r.take(10).unwrap(); // protocol name, level, flags, keep-alive
                let props = r.properties().unwrap();
                let mut users = Vec::new();
                for name in ["MCP-COMPONENT-TYPE", "MCP-META"] {
                    if let Some(v) = props.user(name) {
                        users.push(std::format!("{name}={}", String::from_utf8_lossy(v)));
                    }
                }
                r.bin().unwrap(); // client id
                r.properties().unwrap(); // will properties
                let will = String::from_utf8(r.bin().unwrap().to_vec()).unwrap();
                (users.join(" "), will)
            }
            _ => (String::new(), String::new()),
        };
        out.push((kind, topic, payload));
    }
    out
}

fn run(script: Vec<Vec<u8>>) -> (Vec<Packet>, End) {
    run_with(&mut Mqtt::new(), script)
}

fn run_with(mqtt: &mut Mqtt<2>, script: Vec<Vec<u8>>) -> (Vec<Packet>, End) {
    run_device(Echo, mqtt, script)
}

fn run_device<D: Device>(
    device: D,
    mqtt: &mut Mqtt<2>,
    script: Vec<Vec<u8>>,
) -> (Vec<Packet>, End) {
    let mut server: Server<D> = Server::new(device, Config::new("echo", "1")).unwrap();
    let config = MqttConfig::new("dev", "lab/echo", "an echo");
    let (mut rx, mut tx) = ([0u8; 600], [0u8; 2048]);
    let mut reader = Script(script);
    let mut writer = Sent::default();
    let mut tick = || core::future::ready(());
    let ended = embassy_futures::block_on(serve_mqtt(
        &mut server,
        mqtt,
        &config,
        &mut reader,
        &mut writer,
        &mut rx,
        &mut tx,
        &mut tick,
    ));
    (decode(&writer.0), ended.unwrap_err())
}

const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

#[test]
fn connects_announces_and_serves() {
    let (sent, ended) = run(std::vec![
        connack(&[]),
        publish("$mcp-server/dev/lab/echo", Some("c1"), INIT),
        suback(1, &[0]),
        suback(2, &[0, 0, 0]),
        publish(
            "$mcp-rpc/c1/dev/lab/echo",
            None,
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo"}}"#
        ),
        publish("$mcp-rpc/c1/dev/lab/echo", None, b"{oops"),
        publish(
            "$mcp-rpc/c1/dev/lab/echo",
            None,
            br#"{"jsonrpc":"2.0","method":"notifications/disconnected"}"#
        ),
    ]);
    assert_eq!(ended, MqttError::Closed);
    assert_eq!(sent[0].0, kind::CONNECT);
    assert!(
        sent[0]
            .1
            .contains(r#"MCP-META={"serverName":"lab/echo","description":"an echo"}"#),
        "{}",
        sent[0].1
    );
    assert!(
        sent[0].1.contains("MCP-COMPONENT-TYPE=mcp-server"),
        "{}",
        sent[0].1
    );
    assert_eq!(
        sent[1],
        (
            kind::SUBSCRIBE,
            "$mcp-server/dev/lab/echo".into(),
            String::new()
        )
    );
    let (k, t, p) = &sent[2];
    assert_eq!(
        (*k, t.as_str()),
        (kind::PUBLISH, "$mcp-server/presence/dev/lab/echo")
    );
    assert!(p.starts_with(r#"{"jsonrpc":"2.0","method":"notifications/server/online","params":{"server_name":"lab/echo","description":"an echo","meta":{"tools":[{"name":"echo""#), "{p}");
    assert_eq!(
        sent[3].1,
        "$mcp-rpc/c1/dev/lab/echo $mcp-client/presence/c1 $mcp-client/capability/c1"
    );
    let rpc = "$mcp-rpc/c1/dev/lab/echo";
    assert_eq!(sent[4].1, rpc);
    assert!(sent[4].2.contains(r#""protocolVersion":"2025-06-18""#));
    assert_eq!(sent[5].1, rpc);
    assert!(
        sent[5].2.starts_with(
            r#"{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"hi"}]"#
        ),
        "{}",
        sent[5].2
    );
    assert!(
        sent[6]
            .2
            .starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700"#),
        "{}",
        sent[6].2
    );
    assert_eq!(sent[7].0, kind::UNSUBSCRIBE);
    assert_eq!(sent.len(), 8);
}

#[test]
fn adopts_the_suggested_name_and_ignores_a_control_message_without_client_id() {
    let mut mqtt: Mqtt<2> = Mqtt::new();
    // The broker suggests a name: this connection ends, the next takes it.
    let (sent, ended) = run_with(
        &mut mqtt,
        std::vec![connack(&[("MCP-SERVER-NAME", "site/a/echo")])],
    );
    assert_eq!(ended, MqttError::Renamed);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].2, "$mcp-server/presence/dev/lab/echo",
        "the will's topic"
    );
    let (sent, _) = run_with(
        &mut mqtt,
        std::vec![
            connack(&[("MCP-SERVER-NAME", "site/a/echo")]),
            publish("$mcp-server/dev/site/a/echo", None, INIT),
            publish("$mcp-server/dev/lab/echo", Some("c1"), INIT),
        ],
    );
    assert_eq!(
        sent[0].2, "$mcp-server/presence/dev/site/a/echo",
        "the will's topic"
    );
    assert_eq!(sent[1].1, "$mcp-server/dev/site/a/echo");
    assert_eq!(sent[2].1, "$mcp-server/presence/dev/site/a/echo");
    // Neither initialize is answered: no client id, then the old name.
    assert_eq!(sent.len(), 3);
    // The broker stops suggesting: back to the configured name, again by reconnecting.
    let (_, ended) = run_with(&mut mqtt, std::vec![connack(&[])]);
    assert_eq!(ended, MqttError::Renamed);
    let (sent, _) = run_with(&mut mqtt, std::vec![connack(&[])]);
    assert_eq!(sent[0].2, "$mcp-server/presence/dev/lab/echo");
    assert_eq!(sent[1].1, "$mcp-server/dev/lab/echo");
}

#[test]
fn oversized_payloads_are_answered_and_passed_over() {
    let big = std::vec![b'x'; 5000];
    let (sent, _) = run(std::vec![
        connack(&[]),
        publish("$mcp-server/dev/lab/echo", Some("a"), INIT),
        suback(2, &[0, 0, 0]),
        publish("$mcp-rpc/a/dev/lab/echo", None, &big),
        publish(
            "$mcp-rpc/a/dev/lab/echo",
            None,
            br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#
        ),
    ]);
    let rpc_a: Vec<_> = sent
        .iter()
        .filter(|s| s.0 == kind::PUBLISH && s.1 == "$mcp-rpc/a/dev/lab/echo")
        .collect();
    assert_eq!(rpc_a.len(), 3);
    assert!(
        rpc_a[1].2.contains(r#""id":null,"error":{"code":-32600"#),
        "{}",
        rpc_a[1].2
    );
    // It names the receive buffer it overflowed (the packet limit), as a line too
    // long names the line buffer (feature `error-data`).
    assert_eq!(
        rpc_a[1].2.ends_with(r#""data":{"limit":600}}}"#),
        cfg!(feature = "error-data"),
        "{}",
        rpc_a[1].2
    );
    assert_eq!(rpc_a[2].2, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
}

/// A script's opening: the broker accepts; clients a and b initialize, each
/// subscription acknowledged.
fn two_sessions() -> Vec<Vec<u8>> {
    let control = "$mcp-server/dev/lab/echo";
    std::vec![
        connack(&[]),
        publish(control, Some("a"), INIT),
        suback(2, &[0, 0, 0]),
        publish(control, Some("b"), INIT),
        suback(3, &[0, 0, 0]),
    ]
}

/// The answers published on `client`'s RPC topic, in order.
fn answers(sent: &[Packet], client: &str) -> Vec<String> {
    let rpc = std::format!("$mcp-rpc/{client}/dev/lab/echo");
    sent.iter()
        .filter(|s| s.0 == kind::PUBLISH && s.1 == rpc)
        .map(|s| s.2.clone())
        .collect()
}

/// Three clients open sessions on a device with room for two, none leaving (their
/// wills lost with a crashed broker, say): every one is served; the session idle
/// longest is evicted, not the oldest opened; the evicted client is still heard and
/// its requests served without a session; opening again evicts the next idlest; a
/// goodbye from an evicted client unsubscribes its topics. Nothing is refused.
#[test]
fn a_full_table_evicts_the_session_idle_longest() {
    let rpc = |c: &str| std::format!("$mcp-rpc/{c}/dev/lab/echo");
    let control = "$mcp-server/dev/lab/echo";
    let ping = |id: u32| std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    let mut mqtt: Mqtt<2> = Mqtt::new();
    let (sent, _) = run_with(
        &mut mqtt,
        [
            two_sessions(),
            std::vec![
                // a, opened first, was heard last: b is idle longest.
                publish(&rpc("a"), None, ping(2).as_bytes()),
                publish(control, Some("c"), INIT),
                suback(4, &[0, 0, 0]),
                // b, evicted, asks again: served without a session.
                publish(
                    &rpc("b"),
                    None,
                    br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}"#
                ),
                // b opens again: a (heard before c opened) is idle longest now.
                publish(control, Some("b"), INIT),
                suback(5, &[0, 0, 0]),
                publish(&rpc("a"), None, ping(4).as_bytes()),
                publish(
                    &rpc("a"),
                    None,
                    br#"{"jsonrpc":"2.0","method":"notifications/disconnected"}"#
                ),
            ],
        ]
        .concat(),
    );
    let init_ok = |s: &String| {
        s.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18""#)
    };
    let a = answers(&sent, "a");
    assert_eq!(a.len(), 3, "{a:?}");
    assert!(init_ok(&a[0]), "{}", a[0]);
    assert_eq!(a[1], r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert_eq!(a[2], r#"{"jsonrpc":"2.0","id":4,"result":{}}"#);
    let b = answers(&sent, "b");
    assert_eq!(b.len(), 3, "{b:?}");
    assert!(init_ok(&b[0]) && init_ok(&b[2]), "{b:?}");
    assert!(
        b[1].starts_with(
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]"#
        ),
        "{}",
        b[1]
    );
    let c = answers(&sent, "c");
    assert_eq!(c.len(), 1, "{c:?}");
    assert!(init_ok(&c[0]), "{}", c[0]);
    // Eviction unsubscribes nothing: only a's goodbye does, at the end.
    let unsubscribed: Vec<_> = sent.iter().filter(|s| s.0 == kind::UNSUBSCRIBE).collect();
    assert_eq!(unsubscribed.len(), 1);
    assert_eq!(
        sent.last().unwrap(),
        &(
            kind::UNSUBSCRIBE,
            "$mcp-rpc/a/dev/lab/echo $mcp-client/presence/a $mcp-client/capability/a".into(),
            String::new()
        )
    );
    assert_eq!(mqtt.sessions(), 2);
    assert!(mqtt.find(b"b").is_some() && mqtt.find(b"c").is_some());
}

static RESOURCES: [Resource<'static>; 1] = [Resource::new("mem://x", "x")];

/// One resource, changed again at every tick.
struct Changing;

impl Device for Changing {
    fn resource(&self, i: usize) -> Option<Resource<'static>> {
        RESOURCES.get(i).copied()
    }
    fn take_changes(&mut self) -> u32 {
        1
    }
}

/// Each session subscribes for itself: a's subscription is announced on the
/// capability topic at the next tick; b's unsubscribe (of a resource only a
/// subscribed to) leaves a's in place; a's goodbye ends its subscription; b's own
/// subscription is announced again. (With one set of subscriptions for every
/// session, b's unsubscribe silenced a.)
#[test]
fn each_session_has_its_own_subscriptions() {
    let rpc = |c: &str| std::format!("$mcp-rpc/{c}/dev/lab/echo");
    let capability = "$mcp-server/capability/dev/lab/echo";
    let req = |id: u32, m: &str| {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/{m}","params":{{"uri":"mem://x"}}}}"#
        )
    };
    let mut mqtt: Mqtt<2> = Mqtt::new();
    let (sent, _) = run_device(
        Changing,
        &mut mqtt,
        [
            two_sessions(),
            std::vec![
                tick(),
                publish(&rpc("a"), None, req(2, "subscribe").as_bytes()),
                tick(),
                publish(&rpc("b"), None, req(2, "unsubscribe").as_bytes()),
                tick(),
                publish(
                    &rpc("a"),
                    None,
                    br#"{"jsonrpc":"2.0","method":"notifications/disconnected"}"#
                ),
                tick(),
                publish(&rpc("b"), None, req(3, "subscribe").as_bytes()),
                tick(),
            ],
        ]
        .concat(),
    );
    // What was published after the openings, in order: a's or b's answer, or an
    // update on the capability topic.
    let updated = r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"mem://x"}}"#;
    let seen: Vec<String> = sent
        .iter()
        .filter(|s| s.0 == kind::PUBLISH)
        .filter_map(|(_, t, p)| match t.as_str() {
            t if t == capability && p == updated => Some("updated".into()),
            t if t == rpc("a") && p.contains(r#""id":2"#) => Some("a".into()),
            t if t == rpc("b") && !p.contains("protocolVersion") => Some("b".into()),
            t if t == capability => Some(p.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(seen, ["a", "updated", "b", "updated", "b", "updated"]);
}

/// A client evicted while its call is pending: the call goes on and is answered, once,
/// on its RPC topic.
#[test]
fn an_evicted_clients_pending_call_is_answered() {
    let control = "$mcp-server/dev/lab/echo";
    let mut mqtt: Mqtt<2> = Mqtt::new();
    let (sent, _) = run_with(
        &mut mqtt,
        std::vec![
            connack(&[]),
            publish(control, Some("a"), INIT),
            suback(2, &[0, 0, 0]),
            publish(
                "$mcp-rpc/a/dev/lab/echo",
                None,
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}"#
            ),
            publish(control, Some("b"), INIT),
            suback(3, &[0, 0, 0]),
            publish(control, Some("c"), INIT),
            suback(4, &[0, 0, 0]),
            tick(),
            tick(),
        ],
    );
    assert!(mqtt.find(b"a").is_none(), "a was evicted");
    let a = answers(&sent, "a");
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(
        a[1].starts_with(
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"slow done"}]"#
        ),
        "{}",
        a[1]
    );
    assert!(sent.iter().all(|s| s.0 != kind::UNSUBSCRIBE));
}

/// `Mqtt<0>`: no session can be had; an opening request is refused, not dropped.
#[test]
fn no_room_at_all_is_refused() {
    let mut server: Server<Echo> = Server::new(Echo, Config::new("echo", "1")).unwrap();
    let mut mqtt: Mqtt<0> = Mqtt::new();
    let config = MqttConfig::new("dev", "lab/echo", "an echo");
    let (mut rx, mut tx) = ([0u8; 600], [0u8; 2048]);
    let mut reader = Script(std::vec![
        connack(&[]),
        publish("$mcp-server/dev/lab/echo", Some("a"), INIT),
    ]);
    let mut writer = Sent::default();
    let mut tick = || core::future::ready(());
    let _ = embassy_futures::block_on(serve_mqtt(
        &mut server,
        &mut mqtt,
        &config,
        &mut reader,
        &mut writer,
        &mut rx,
        &mut tx,
        &mut tick,
    ));
    let a = answers(&decode(&writer.0), "a");
    assert_eq!(
        a,
        [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"too many MQTT client sessions"}}"#
        ]
    );
}

#[test]
fn initialize_waits_for_the_suback_and_a_refusal_is_an_error() {
    let rpc = "$mcp-rpc/c1/dev/lab/echo";
    let (sent, _) = run(std::vec![
        connack(&[]),
        publish("$mcp-server/dev/lab/echo", Some("c1"), INIT),
    ]);
    // Subscribed, not answered: no SUBACK came.
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[3].0, kind::SUBSCRIBE);
    let mut mqtt: Mqtt<2> = Mqtt::new();
    let (sent, _) = run_with(
        &mut mqtt,
        std::vec![
            connack(&[]),
            publish("$mcp-server/dev/lab/echo", Some("c1"), INIT),
            suback(2, &[0, 0x87, 0]),
            publish(rpc, None, br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
        ],
    );
    assert_eq!(sent[4].0, kind::UNSUBSCRIBE);
    assert_eq!(sent[5].1, rpc);
    assert_eq!(
        sent[5].2,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Failed to subscribe to client topics"}}"#
    );
    // The session is gone. A ping that still arrives on the RPC topic (granted, and
    // not yet unsubscribed at the broker) is served without one.
    assert_eq!(mqtt.sessions(), 0);
    assert_eq!(sent[6].2, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert_eq!(sent.len(), 7);
}

#[test]
fn listen_is_not_offered() {
    let rpc = "$mcp-rpc/c1/dev/lab/echo";
    let (sent, _) = run(std::vec![
        connack(&[]),
        publish("$mcp-server/dev/lab/echo", Some("c1"), INIT),
        suback(2, &[0, 0, 0]),
        publish(rpc, None, br#"{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{}}}"#),
    ]);
    let last = &sent.last().unwrap().2;
    assert!(
        last.starts_with(r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601"#),
        "{last}"
    );
}

#[test]
fn a_malformed_packet_ends_the_link() {
    let (_, ended) = run(std::vec![
        connack(&[]),
        std::vec![0x30, 0xff, 0xff, 0xff, 0xff, 0x01]
    ]);
    assert_eq!(ended, MqttError::Malformed);
    let (_, ended) = run(std::vec![packet(kind::CONNACK << 4, &[0, 0x87, 0])]);
    assert_eq!(ended, MqttError::Refused(0x87));
}

/// Hostile payloads on the RPC topic, served on a thread with a small stack (an
/// overflow aborts the test): nesting past `MAX_DEPTH`, long strings of escapes, many
/// members, invalid UTF-8; then a ping, which must be answered. The loop's future
/// (its read chunk among it) is on that stack too: 16 KiB optimised (the `stack`
/// stage's bound), 64 KiB unoptimised, where the nested futures are larger (40 KiB
/// overflows there: x86-64, 2026-12-05).
#[test]
fn hostile_payloads_on_a_small_stack() {
    const STACK: usize = if cfg!(debug_assertions) {
        64 * 1024
    } else {
        16 * 1024
    };
    let rpc = "$mcp-rpc/h/dev/lab/echo";
    let deep = std::format!("{}{}", "[".repeat(280), "]".repeat(280));
    let escapes = std::format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"echo","arguments":{{"s":"{}"}}}}}}"#,
        "\\u00e9\\n".repeat(40)
    );
    let members = std::format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{{}"z":0}}}}"#,
        (0..40)
            .map(|i| std::format!(r#""k{i}":[{{}}],"#))
            .collect::<String>()
    );
    let script = std::vec![
        connack(&[]),
        publish("$mcp-server/dev/lab/echo", Some("h"), INIT),
        suback(2, &[0, 0, 0]),
        publish(rpc, None, deep.as_bytes()),
        publish(rpc, None, escapes.as_bytes()),
        publish(rpc, None, members.as_bytes()),
        publish(
            rpc,
            None,
            b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"x\":\"\xff\"}"
        ),
        publish(
            rpc,
            None,
            br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#
        ),
    ];
    let sent = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || run(script).0)
        .unwrap()
        .join()
        .expect("served on a small stack");
    let answers: Vec<_> = sent
        .iter()
        .filter(|s| s.1 == rpc)
        .map(|s| s.2.clone())
        .collect();
    assert_eq!(answers.len(), 6, "{answers:?}");
    assert!(
        answers[1].starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700"#),
        "{}",
        answers[1]
    );
    assert!(
        answers[2].starts_with(r#"{"jsonrpc":"2.0","id":3,"result""#),
        "{}",
        answers[2]
    );
    assert!(
        answers[3].starts_with(r#"{"jsonrpc":"2.0","id":4,"result":{}}"#),
        "{}",
        answers[3]
    );
    assert!(answers[4].contains(r#""code":-32700"#), "{}", answers[4]);
    assert_eq!(answers[5], r#"{"jsonrpc":"2.0","id":"last","result":{}}"#);
}
