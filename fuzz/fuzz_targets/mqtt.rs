//! The MQTT transport (`emcp::transport::mqtt::serve_mqtt`) with the Rust sensor
//! board, fed a broker's bytes in chunks: what a hostile broker, or hostile clients
//! through it, can send the device.
//!
//! Input: one knob byte (its low bit: the rest is raw broker bytes, or JSON payloads
//! separated by `\n`, each published on client `c`'s RPC topic; the rest: the chunk
//! seed), then the bytes. Before them the broker accepts the connection and client
//! `c` initializes (its SUBACK included). Invariants:
//! - the loop ends (end of input) without a panic, with `Closed` or `Malformed`;
//! - every byte sent is a whole MQTT packet of a kind a client sends;
//! - every PUBLISH payload on an RPC topic is one JSON-RPC 2.0 message
//!   (`emcp_fuzz::message`);
//! - the same bytes give the same packets whether they arrive at once or in chunks.
#![no_main]

use std::convert::Infallible;

use emcp::transport::mqtt::packet::{self, kind, Reader};
use emcp::transport::mqtt::{serve_mqtt, Mqtt, MqttConfig, MqttError};
use emcp::Server;
use emcp_fuzz::knobs;
use libfuzzer_sys::fuzz_target;
use sensor_board::{Board, CONFIG};

struct Script<'a> {
    bytes: &'a [u8],
    next: &'a mut dyn FnMut() -> usize,
}

impl embedded_io_async::ErrorType for Script<'_> {
    type Error = Infallible;
}

impl embedded_io_async::Read for Script<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let n = (self.next)().min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

struct Sent(Vec<u8>);

impl embedded_io_async::ErrorType for Sent {
    type Error = Infallible;
}

impl embedded_io_async::Write for Sent {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    async fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

fn packet(first: u8, body: &[u8]) -> Vec<u8> {
    let mut p = vec![first];
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

fn publish(topic: &str, client: Option<&str>, payload: &[u8]) -> Vec<u8> {
    let mut props = Vec::new();
    if let Some(c) = client {
        props.push(0x26);
        props.extend(bin(b"MCP-MQTT-CLIENT-ID"));
        props.extend(bin(c.as_bytes()));
    }
    let mut body = bin(topic.as_bytes());
    body.push(props.len() as u8);
    body.extend(props);
    body.extend_from_slice(payload);
    packet(kind::PUBLISH << 4, &body)
}

const RPC: &str = "$mcp-rpc/c/dev/lab/board";

fn run(input: &[u8], next: &mut dyn FnMut() -> usize) -> Vec<u8> {
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let mut mqtt: Mqtt<2> = Mqtt::new();
    let config = MqttConfig::new("dev", "lab/board", "fuzzed");
    let (mut rx, mut tx) = ([0u8; 1024], [0u8; 8192]);
    let mut reader = Script { bytes: input, next };
    let mut writer = Sent(Vec::new());
    let mut tick = || core::future::ready(());
    let ended = embassy_futures::block_on(serve_mqtt(
        &mut server,
        &mut mqtt,
        &config,
        &mut reader,
        &mut writer,
        &mut rx,
        &mut tx,
        &mut tick,
    ));
    match ended {
        Err(MqttError::Closed | MqttError::Malformed) => {}
        other => panic!("the link ended with {other:?}"),
    }
    writer.0
}

/// Check every packet sent; return nothing (panics on a violation).
fn check(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        let (h, len) = packet::fixed_header(bytes)
            .expect("sent a malformed length")
            .expect("sent half a fixed header");
        assert!(bytes.len() >= h + len, "sent half a packet");
        let (pkt, rest) = bytes.split_at(h + len);
        bytes = rest;
        let body = &pkt[h..];
        match pkt[0] >> 4 {
            kind::PUBLISH => {
                let p = packet::publish(pkt[0] & 0x0f, body).expect("sent a malformed PUBLISH");
                if p.topic.starts_with(b"$mcp-rpc/") {
                    emcp_fuzz::message(p.payload);
                }
            }
            kind::SUBSCRIBE | kind::UNSUBSCRIBE => {
                let mut r = Reader::new(body);
                r.u16().unwrap();
                r.properties().unwrap();
                assert!(!r.rest().is_empty(), "no filter");
            }
            kind::CONNECT | kind::PUBACK | kind::PUBREC | kind::PUBCOMP | kind::PINGREQ => {}
            k => panic!("sent packet type {k}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if emcp_fuzz::serde_refuses(data) {
        return; // the JSON oracle cannot read such output (emcp_fuzz::RAW_VALUE_TOKEN)
    }
    let (k, data) = knobs::<1>(data);
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}"#;
    let mut input = packet(kind::CONNACK << 4, &[0, 0, 0]);
    input.extend(publish("$mcp-server/dev/lab/board", Some("c"), init));
    input.extend(packet(kind::SUBACK << 4, &[0, 2, 0, 0, 0, 0]));
    if k[0] & 1 == 0 {
        input.extend_from_slice(data);
    } else {
        for payload in data.split(|b| *b == b'\n') {
            input.extend(publish(RPC, None, payload));
        }
    }
    let whole = run(&input, &mut || usize::MAX);
    check(&whole);
    let mut seed = u32::from(k[0] >> 1) | 0x100;
    let split = run(&input, &mut || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        1 + (seed % 64) as usize
    });
    assert_eq!(whole, split, "packets depend on how the bytes arrive");
});
