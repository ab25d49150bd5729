//! The few MQTT 5 packets the gateway uses, encoded and decoded without I/O: CONNECT
//! (user properties, a will), CONNACK, SUBSCRIBE (No Local) and SUBACK, PUBLISH at
//! QoS 0 with user properties, PINGREQ/PINGRESP and DISCONNECT. Every length read
//! from the wire is checked before it is used; no input panics.

use std::io::{self, Read};

/// User properties: (name, value) pairs.
pub type Props = Vec<(String, String)>;

/// A CONNECT's will: published by the broker when the connection dies.
#[derive(Clone, Debug)]
pub struct Will {
    /// Where the will goes.
    pub topic: String,
    /// What it says.
    pub payload: Vec<u8>,
    /// Published retained.
    pub retain: bool,
}

/// A packet from the broker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packet {
    /// CONNACK: its reason code (0: accepted) and user properties.
    ConnAck { reason: u8, props: Props },
    /// SUBACK: the packet id and one reason code per filter (0..=2: granted QoS).
    SubAck { id: u16, reasons: Vec<u8> },
    /// PUBLISH (QoS 0 as subscribed; a higher QoS's packet id is read and skipped).
    Publish {
        topic: String,
        payload: Vec<u8>,
        retain: bool,
        props: Props,
    },
    /// PINGRESP.
    PingResp,
    /// DISCONNECT from the broker, with its reason code.
    Disconnect(u8),
    /// A packet over the reader's bound, skipped; its type.
    TooLarge(u8),
    /// Anything else (UNSUBACK, PUBACK...), by type.
    Other(u8),
}

/// Appends MQTT's variable byte integer (`n` < 2^28).
fn var_int(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let mut byte = (n % 128) as u8;
        n /= 128;
        if n > 0 {
            byte |= 0x80;
        }
        out.push(byte);
        if n == 0 {
            return;
        }
    }
}

/// Appends a two-byte-length string or binary (longer input is cut at 65535 bytes:
/// the gateway never makes one).
fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len().min(usize::from(u16::MAX));
    out.extend_from_slice(&(n as u16).to_be_bytes());
    out.extend_from_slice(bytes.get(..n).unwrap_or_default());
}

/// Appends a property block of user properties (id 0x26) after `extra` raw properties.
fn properties(out: &mut Vec<u8>, extra: &[u8], props: &[(String, String)]) {
    let mut block = extra.to_vec();
    for (name, value) in props {
        block.push(0x26);
        field(&mut block, name.as_bytes());
        field(&mut block, value.as_bytes());
    }
    var_int(out, block.len());
    out.extend_from_slice(&block);
}

/// A whole packet: the fixed header `first`, the remaining length, `body`.
fn packet(first: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![first];
    var_int(&mut out, body.len());
    out.extend_from_slice(body);
    out
}

/// CONNECT: MQTT 5, clean start, session expiry 0 (absent), `keep_alive` seconds;
/// a user name and password after the will when `login` gives them.
pub fn connect(
    client_id: &str,
    keep_alive: u16,
    props: &[(String, String)],
    will: Option<&Will>,
    login: Option<(&str, &[u8])>,
) -> Vec<u8> {
    let mut body = Vec::new();
    field(&mut body, b"MQTT");
    body.push(5);
    let mut flags = 0x02; // clean start
    if let Some(w) = will {
        flags |= 0x04; // will, QoS 0
        if w.retain {
            flags |= 0x20;
        }
    }
    if login.is_some() {
        flags |= 0x80 | 0x40; // user name, password
    }
    body.push(flags);
    body.extend_from_slice(&keep_alive.to_be_bytes());
    properties(&mut body, &[], props);
    field(&mut body, client_id.as_bytes());
    if let Some(w) = will {
        properties(&mut body, &[], &[]);
        field(&mut body, w.topic.as_bytes());
        field(&mut body, &w.payload);
    }
    if let Some((user, password)) = login {
        field(&mut body, user.as_bytes());
        field(&mut body, password);
    }
    packet(0x10, &body)
}

/// SUBSCRIBE one filter at QoS 0, with No Local when `no_local`.
pub fn subscribe(id: u16, filter: &str, no_local: bool) -> Vec<u8> {
    let mut body = id.to_be_bytes().to_vec();
    properties(&mut body, &[], &[]);
    field(&mut body, filter.as_bytes());
    body.push(if no_local { 0x04 } else { 0x00 });
    packet(0x82, &body)
}

/// PUBLISH at QoS 0.
pub fn publish(topic: &str, payload: &[u8], retain: bool, props: &[(String, String)]) -> Vec<u8> {
    let mut body = Vec::new();
    field(&mut body, topic.as_bytes());
    properties(&mut body, &[], props);
    body.extend_from_slice(payload);
    packet(if retain { 0x31 } else { 0x30 }, &body)
}

/// PINGREQ.
pub fn ping() -> Vec<u8> {
    vec![0xC0, 0]
}

/// DISCONNECT, normal (the will is not sent).
pub fn disconnect() -> Vec<u8> {
    vec![0xE0, 0]
}

/// A cursor over a packet body; every read checks its bounds.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn byte(&mut self) -> Option<u8> {
        self.take(1).and_then(|b| b.first().copied())
    }
    fn u16(&mut self) -> Option<u16> {
        let b = self.take(2)?;
        Some(u16::from_be_bytes([*b.first()?, *b.get(1)?]))
    }
    fn var_int(&mut self) -> Option<usize> {
        let mut n = 0usize;
        for shift in 0..4 {
            let b = self.byte()?;
            n |= usize::from(b & 0x7F) << (7 * shift);
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }
    fn field(&mut self) -> Option<&'a [u8]> {
        let n = self.u16()?;
        self.take(usize::from(n))
    }
    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.field()?.to_vec()).ok()
    }
    /// A property block: its user properties (others skipped by their known sizes).
    fn properties(&mut self) -> Option<Props> {
        let n = self.var_int()?;
        let mut block = Cursor(self.take(n)?);
        let mut props = Vec::new();
        while !block.0.is_empty() {
            let id = block.var_int()?;
            match id {
                0x26 => {
                    let name = block.string()?;
                    let value = block.string()?;
                    props.push((name, value));
                }
                // byte-sized
                0x01 | 0x17 | 0x19 | 0x24 | 0x25 | 0x28 | 0x29 | 0x2A => {
                    block.take(1)?;
                }
                // two-byte integers
                0x13 | 0x21 | 0x22 | 0x23 => {
                    block.take(2)?;
                }
                // four-byte integers
                0x02 | 0x11 | 0x18 | 0x27 => {
                    block.take(4)?;
                }
                0x0B => {
                    block.var_int()?;
                }
                // strings and binary data
                0x03 | 0x08 | 0x09 | 0x12 | 0x15 | 0x16 | 0x1A | 0x1C | 0x1F => {
                    block.field()?;
                }
                _ => return None,
            }
        }
        Some(props)
    }
}

/// Decodes one packet from its first byte and body; `None`: malformed.
pub fn decode(first: u8, body: &[u8]) -> Option<Packet> {
    let mut c = Cursor(body);
    let kind = first >> 4;
    Some(match kind {
        2 => {
            let _flags = c.byte()?;
            let reason = c.byte()?;
            let props = if c.0.is_empty() {
                Vec::new()
            } else {
                c.properties()?
            };
            Packet::ConnAck { reason, props }
        }
        9 => {
            let id = c.u16()?;
            c.properties()?;
            Packet::SubAck {
                id,
                reasons: c.0.to_vec(),
            }
        }
        3 => {
            let qos = (first >> 1) & 3;
            let topic = c.string()?;
            if qos > 0 {
                c.u16()?;
            }
            let props = c.properties()?;
            Packet::Publish {
                topic,
                payload: c.0.to_vec(),
                retain: first & 1 == 1,
                props,
            }
        }
        13 => Packet::PingResp,
        14 => Packet::Disconnect(c.byte().unwrap_or(0)),
        other => Packet::Other(other),
    })
}

/// Reads one packet. A body over `max` bytes is read and dropped
/// ([`Packet::TooLarge`]); a malformed one is an error of kind `InvalidData` (the
/// connection cannot be trusted after it).
///
/// # Errors
///
/// The stream ended or failed, or the packet was malformed.
pub fn read_packet(r: &mut impl Read, max: usize) -> io::Result<Packet> {
    let mut first = [0u8; 1];
    r.read_exact(&mut first)?;
    let mut len = 0usize;
    let mut done = false;
    for shift in 0..4 {
        let mut b = [0u8; 1];
        r.read_exact(&mut b)?;
        len |= usize::from(b[0] & 0x7F) << (7 * shift);
        if b[0] & 0x80 == 0 {
            done = true;
            break;
        }
    }
    if !done {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "MQTT: bad remaining length",
        ));
    }
    if len > max {
        let skipped = io::copy(&mut r.take(len as u64), &mut io::sink())?;
        if skipped < len as u64 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "MQTT: stream ended inside a packet",
            ));
        }
        return Ok(Packet::TooLarge(first[0] >> 4));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    decode(first[0], &body)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "MQTT: malformed packet"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(bytes: &[u8]) -> Packet {
        read_packet(&mut &bytes[..], 1 << 20).unwrap()
    }

    #[test]
    fn publish_round_trips_with_user_properties() {
        let props = vec![("MCP-COMPONENT-TYPE".to_string(), "mcp-client".to_string())];
        let bytes = publish("$mcp-rpc/c/s/a/b", b"{}", true, &props);
        assert_eq!(
            roundtrip(&bytes),
            Packet::Publish {
                topic: "$mcp-rpc/c/s/a/b".into(),
                payload: b"{}".to_vec(),
                retain: true,
                props
            }
        );
    }

    #[test]
    fn connect_bytes() {
        let will = Will {
            topic: "t".into(),
            payload: b"x".to_vec(),
            retain: false,
        };
        let bytes = connect("id", 10, &[("k".into(), "v".into())], Some(&will), None);
        assert_eq!(
            bytes,
            [
                0x10, 29, 0, 4, b'M', b'Q', b'T', b'T', 5, 0x06, 0, 10, 7, 0x26, 0, 1, b'k', 0, 1,
                b'v', 0, 2, b'i', b'd', 0, 0, 1, b't', 0, 1, b'x'
            ]
        );
        let login = connect("id", 10, &[], Some(&will), Some(("u", b"pw")));
        assert_eq!((login[1], login[9]), (29 - 7 + 7, 0x06 | 0xc0));
        assert!(login.ends_with(&[0, 1, b'u', 0, 2, b'p', b'w']));
    }

    #[test]
    fn connack_with_properties_and_long_lengths() {
        // CONNACK, session present 0, reason 0, properties: receive maximum, user property.
        let body = [0, 0, 10, 0x21, 0, 10, 0x26, 0, 1, b'a', 0, 1, b'b'];
        let mut bytes = vec![0x20, body.len() as u8];
        bytes.extend_from_slice(&body);
        assert_eq!(
            roundtrip(&bytes),
            Packet::ConnAck {
                reason: 0,
                props: vec![("a".into(), "b".into())]
            }
        );
        let big = publish("t", &vec![b'x'; 300], false, &[]);
        assert_eq!(big[1] & 0x80, 0x80, "two-byte remaining length");
        assert!(matches!(roundtrip(&big), Packet::Publish { payload, .. } if payload.len() == 300));
    }

    #[test]
    fn hostile_packets_are_errors_not_panics() {
        for bytes in [
            &[0x30u8, 0xFF, 0xFF, 0xFF, 0xFF][..], // five-byte length
            &[0x30, 3, 0, 9, b'a'],                // topic longer than the packet
            &[0x30, 4, 0, 1, b'a', 9],             // property block longer than the packet
            &[0x30, 5, 0, 1, b'a', 1, 0x7F],       // unknown property
            &[0x20, 1, 0],                         // CONNACK cut short
            &[0x30],                               // no length
        ] {
            assert!(read_packet(&mut &bytes[..], 1 << 20).is_err(), "{bytes:?}");
        }
    }

    #[test]
    fn oversized_packet_is_skipped_and_the_next_read() {
        let mut bytes = publish("t", &[b'x'; 100], false, &[]);
        bytes.extend_from_slice(&[0xD0, 0]);
        let mut r = &bytes[..];
        assert_eq!(read_packet(&mut r, 50).unwrap(), Packet::TooLarge(3));
        assert_eq!(read_packet(&mut r, 50).unwrap(), Packet::PingResp);
        let cut = publish("t", &[b'x'; 100], false, &[]);
        let err = read_packet(&mut &cut[..60], 50).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn random_and_mutated_packets_never_panic() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let props = [("MCP-MQTT-CLIENT-ID".to_string(), "c".to_string())];
        let seed = publish(
            "$mcp-rpc/c/s/a/b",
            br#"{"jsonrpc":"2.0","id":1}"#,
            false,
            &props,
        );
        for _ in 0..20_000 {
            let mut bytes = if next() % 2 == 0 {
                seed.clone()
            } else {
                let len = (next() % 64) as usize;
                (0..len).map(|_| next() as u8).collect()
            };
            for _ in 0..(next() % 4) {
                if !bytes.is_empty() {
                    let at = (next() as usize) % bytes.len();
                    bytes[at] = next() as u8;
                }
            }
            let mut r = &bytes[..];
            while !r.is_empty() && read_packet(&mut r, 1 << 10).is_ok() {}
        }
    }

    #[test]
    fn subscribe_sets_no_local() {
        assert_eq!(
            subscribe(7, "a/#", true),
            [0x82, 9, 0, 7, 0, 0, 3, b'a', b'/', b'#', 4]
        );
    }
}
