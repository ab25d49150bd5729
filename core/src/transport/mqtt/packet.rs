//! The MQTT 5 packets an MCP server needs, encoded into and decoded from caller
//! buffers: CONNECT (with its will and user properties), CONNACK, SUBSCRIBE, SUBACK,
//! UNSUBSCRIBE, UNSUBACK, PUBLISH (QoS 0 out; QoS 0, 1 and 2 in), PUBACK, PUBREC,
//! PUBREL, PUBCOMP, PINGREQ, PINGRESP and DISCONNECT (OASIS MQTT 5.0, chapters 2
//! and 3).
//!
//! Decoding never panics and never reads past its slice: every length is checked
//! against what is there ([`Reader`]); a malformed packet is a [`Malformed`] error.
//! Encoding writes into a [`Writer`] over a fixed slice and reports running out of
//! room as [`Full`], having written a partial packet the caller drops.

/// A packet that does not follow MQTT 5 (the connection is closed: the broker has
/// broken the protocol, and nothing after it can be framed with confidence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Malformed;

impl core::fmt::Display for Malformed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the packet does not follow MQTT 5")
    }
}

impl core::error::Error for Malformed {}

/// No room left in the output buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Full;

impl core::fmt::Display for Full {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("no room left in the output buffer")
    }
}

impl core::error::Error for Full {}

/// Largest remaining length MQTT can express (four bytes of variable byte integer).
pub const MAX_REMAINING: usize = 268_435_455;

/// Control packet types (the fixed header's high nibble).
pub mod kind {
    /// CONNECT.
    pub const CONNECT: u8 = 1;
    /// CONNACK.
    pub const CONNACK: u8 = 2;
    /// PUBLISH.
    pub const PUBLISH: u8 = 3;
    /// PUBACK.
    pub const PUBACK: u8 = 4;
    /// PUBREC.
    pub const PUBREC: u8 = 5;
    /// PUBREL.
    pub const PUBREL: u8 = 6;
    /// PUBCOMP.
    pub const PUBCOMP: u8 = 7;
    /// SUBSCRIBE.
    pub const SUBSCRIBE: u8 = 8;
    /// SUBACK.
    pub const SUBACK: u8 = 9;
    /// UNSUBSCRIBE.
    pub const UNSUBSCRIBE: u8 = 10;
    /// UNSUBACK.
    pub const UNSUBACK: u8 = 11;
    /// PINGREQ.
    pub const PINGREQ: u8 = 12;
    /// PINGRESP.
    pub const PINGRESP: u8 = 13;
    /// DISCONNECT.
    pub const DISCONNECT: u8 = 14;
}

/// Property identifiers used here.
mod prop {
    pub const SESSION_EXPIRY: u8 = 0x11;
    pub const ASSIGNED_CLIENT_ID: u8 = 0x12;
    pub const USER: u8 = 0x26;
}

/// Where a fixed header ends, from the first bytes of a packet: `Ok(Some((header
/// length, remaining length)))`, `Ok(None)` when more bytes are needed, `Err` for a
/// variable byte integer longer than four bytes.
pub fn fixed_header(bytes: &[u8]) -> Result<Option<(usize, usize)>, Malformed> {
    let mut value = 0usize;
    for i in 0..4 {
        let Some(&b) = bytes.get(1 + i) else {
            return Ok(None);
        };
        value |= usize::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(Some((2 + i, value)));
        }
    }
    Err(Malformed)
}

/// A bounds-checked cursor over a received packet's body.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Read `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }
    /// What is left unread.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes
    }
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        let (head, tail) = self.bytes.split_at_checked(n).ok_or(Malformed)?;
        self.bytes = tail;
        Ok(head)
    }
    /// One byte.
    pub fn u8(&mut self) -> Result<u8, Malformed> {
        self.take(1)?.first().copied().ok_or(Malformed)
    }
    /// A two-byte integer.
    pub fn u16(&mut self) -> Result<u16, Malformed> {
        let b = self.take(2)?;
        match b {
            [hi, lo] => Ok(u16::from_be_bytes([*hi, *lo])),
            _ => Err(Malformed),
        }
    }
    /// A variable byte integer.
    pub fn varint(&mut self) -> Result<usize, Malformed> {
        let mut value = 0usize;
        for i in 0..4 {
            let b = self.u8()?;
            value |= usize::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Malformed)
    }
    /// Binary data or a UTF-8 string as bytes (two-byte length, then the bytes).
    pub fn bin(&mut self) -> Result<&'a [u8], Malformed> {
        let n = self.u16()?;
        self.take(usize::from(n))
    }
    /// A property block (variable byte integer length, then the properties).
    pub fn properties(&mut self) -> Result<Properties<'a>, Malformed> {
        let n = self.varint()?;
        Ok(Properties {
            bytes: self.take(n)?,
        })
    }
}

/// A property block, walked by [`Properties::user`] and [`Properties::string`].
#[derive(Clone, Copy)]
pub struct Properties<'a> {
    bytes: &'a [u8],
}

impl<'a> Properties<'a> {
    /// No properties.
    pub const EMPTY: Properties<'static> = Properties { bytes: &[] };

    /// Walk every property, calling `f(id, value)` with the value's bytes (a string
    /// pair's as `name` then `value`: `f` is called with id 0x26 and the pair's encoded
    /// bytes). `Err` when a property is truncated or unknown (then its length cannot be
    /// known).
    fn walk(&self, f: &mut dyn FnMut(u8, &'a [u8]) -> bool) -> Result<(), Malformed> {
        let mut r = Reader::new(self.bytes);
        while !r.rest().is_empty() {
            let id = r.u8()?;
            let start = r.rest();
            match id {
                // Byte.
                0x01 | 0x17 | 0x19 | 0x24 | 0x25 | 0x28 | 0x29 | 0x2a => {
                    r.take(1)?;
                }
                // Two-byte integer.
                0x13 | 0x21 | 0x22 | 0x23 => {
                    r.take(2)?;
                }
                // Four-byte integer.
                0x02 | 0x11 | 0x18 | 0x27 => {
                    r.take(4)?;
                }
                // Variable byte integer.
                0x0b => {
                    r.varint()?;
                }
                // UTF-8 string or binary data.
                0x03 | 0x08 | 0x09 | 0x12 | 0x15 | 0x16 | 0x1a | 0x1c | 0x1f => {
                    r.bin()?;
                }
                // String pair.
                prop::USER => {
                    r.bin()?;
                    r.bin()?;
                }
                _ => return Err(Malformed),
            }
            let used = start.len().saturating_sub(r.rest().len());
            if f(id, start.get(..used).unwrap_or_default()) {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Check that every property can be walked.
    pub fn check(&self) -> Result<(), Malformed> {
        self.walk(&mut |_, _| false)
    }

    /// The value of the first user property named `name`.
    pub fn user(&self, name: &str) -> Option<&'a [u8]> {
        let mut found = None;
        let _ = self.walk(&mut |id, v| {
            if id != prop::USER {
                return false;
            }
            let mut r = Reader::new(v);
            match (r.bin(), r.bin()) {
                (Ok(k), Ok(value)) if k == name.as_bytes() => {
                    found = Some(value);
                    true
                }
                _ => false,
            }
        });
        found
    }

    /// The value of the first string property `id` (such as the assigned client id).
    pub fn string(&self, id: u8) -> Option<&'a [u8]> {
        let mut found = None;
        let _ = self.walk(&mut |i, v| {
            if i != id {
                return false;
            }
            found = Reader::new(v).bin().ok();
            true
        });
        found
    }

    /// The assigned client identifier of a CONNACK.
    pub fn assigned_client_id(&self) -> Option<&'a [u8]> {
        self.string(prop::ASSIGNED_CLIENT_ID)
    }
}

/// A received PUBLISH.
#[derive(Clone, Copy)]
pub struct Publish<'a> {
    /// QoS 0, 1 or 2.
    pub qos: u8,
    /// Packet identifier (QoS 1 and 2).
    pub packet_id: u16,
    /// The topic name's bytes (not yet checked as UTF-8).
    pub topic: &'a [u8],
    /// Its properties.
    pub properties: Properties<'a>,
    /// The payload (truncated when the packet did not fit the receive buffer).
    pub payload: &'a [u8],
}

/// Decode a PUBLISH body (`flags` the fixed header's low nibble). A packet cut short
/// by the receive buffer (`truncated`) yields what fitted of the payload, as long as
/// its topic and properties fitted.
pub fn publish(flags: u8, body: &[u8]) -> Result<Publish<'_>, Malformed> {
    let qos = (flags >> 1) & 3;
    if qos == 3 {
        return Err(Malformed);
    }
    let mut r = Reader::new(body);
    let topic = r.bin()?;
    let packet_id = if qos > 0 { r.u16()? } else { 0 };
    let properties = r.properties()?;
    properties.check()?;
    Ok(Publish {
        qos,
        packet_id,
        topic,
        properties,
        payload: r.rest(),
    })
}

/// A received CONNACK: the reason code and properties.
pub fn connack(body: &[u8]) -> Result<(u8, Properties<'_>), Malformed> {
    let mut r = Reader::new(body);
    let _session_present = r.u8()?;
    let reason = r.u8()?;
    // A refusal may come without properties.
    if r.rest().is_empty() {
        return Ok((reason, Properties::EMPTY));
    }
    let properties = r.properties()?;
    properties.check()?;
    Ok((reason, properties))
}

/// A received SUBACK or UNSUBACK: the packet identifier and whether every filter
/// succeeded (reason codes below 0x80).
pub fn ack(body: &[u8]) -> Result<(u16, bool), Malformed> {
    let mut r = Reader::new(body);
    let id = r.u16()?;
    let _ = r.properties()?;
    let codes = r.rest();
    Ok((id, !codes.is_empty() && codes.iter().all(|c| *c < 0x80)))
}

/// Writes one packet into a fixed slice: the body first, at [`HEADROOM`], then the
/// fixed header in front of it ([`Writer::finish`]).
pub struct Writer<'b> {
    buf: &'b mut [u8],
    len: usize,
    full: bool,
}

/// Bytes kept in front of a packet's body for its fixed header (one type byte, four of
/// remaining length).
pub const HEADROOM: usize = 5;

impl<'b> Writer<'b> {
    /// A writer over `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        let full = buf.len() < HEADROOM;
        Self {
            buf,
            len: HEADROOM,
            full,
        }
    }
    /// Append bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        // `checked_add`, not `saturating_add`: the range is then exactly `b`'s length,
        // which the compiler sees, so the copy has no length check to fail.
        let end = self.len.checked_add(b.len());
        match end.and_then(|end| self.buf.get_mut(self.len..end).map(|dst| (dst, end))) {
            Some((dst, end)) if !self.full => {
                dst.copy_from_slice(b);
                self.len = end;
            }
            _ => self.full = true,
        }
    }
    /// A byte.
    pub fn u8(&mut self, b: u8) {
        self.bytes(&[b]);
    }
    /// A two-byte integer.
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_be_bytes());
    }
    /// A variable byte integer.
    pub fn varint(&mut self, v: usize) {
        let mut tmp = [0u8; 4];
        let n = varint(v, &mut tmp);
        self.bytes(tmp.get(..n).unwrap_or_default());
    }
    /// A UTF-8 string or binary data (two-byte length first); longer than 65,535
    /// bytes is `Full`.
    pub fn bin(&mut self, s: &[u8]) {
        match u16::try_from(s.len()) {
            Ok(n) => {
                self.u16(n);
                self.bytes(s);
            }
            Err(_) => self.full = true,
        }
    }
    /// A UTF-8 string given as parts written one after the other (a topic).
    pub fn bin_parts(&mut self, parts: &[&[u8]]) {
        let n = parts.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
        match u16::try_from(n) {
            Ok(n) => {
                self.u16(n);
                for p in parts {
                    self.bytes(p);
                }
            }
            Err(_) => self.full = true,
        }
    }
    /// Bytes of body written so far.
    pub fn body_len(&self) -> usize {
        self.len.saturating_sub(HEADROOM)
    }
    /// Put the fixed header (`first` byte, then the remaining length) in front of the
    /// body and return the whole packet.
    pub fn finish(self, first: u8) -> Result<&'b [u8], Full> {
        self.finish_before(first, 0)
    }

    /// [`Writer::finish`] for a packet whose last `extra` bytes the caller sends
    /// after the returned ones (a payload written elsewhere): the remaining length
    /// counts them.
    pub fn finish_before(self, first: u8, extra: usize) -> Result<&'b [u8], Full> {
        if self.full {
            return Err(Full);
        }
        let body = self.len.saturating_sub(HEADROOM).saturating_add(extra);
        if body > MAX_REMAINING {
            return Err(Full);
        }
        let mut tmp = [0u8; 4];
        let n = varint(body, &mut tmp);
        let start = HEADROOM.saturating_sub(n + 1);
        let head = self.buf.get_mut(start..HEADROOM).ok_or(Full)?;
        if let Some((t, rest)) = head.split_first_mut() {
            *t = first;
            // Both sides cut to `n`: lengths the compiler sees are equal.
            let (dst, src) = (rest.get_mut(..n).ok_or(Full)?, tmp.get(..n).ok_or(Full)?);
            dst.copy_from_slice(src);
        }
        let len = self.len;
        let buf: &'b [u8] = self.buf;
        buf.get(start..len).ok_or(Full)
    }
}

/// Encode `v` as a variable byte integer into `out`; returns its length (1 to 4; a
/// value above [`MAX_REMAINING`] is cut to its low 28 bits, callers check first).
fn varint(mut v: usize, out: &mut [u8; 4]) -> usize {
    let mut n = 0;
    for slot in out.iter_mut() {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        n += 1;
        if v == 0 {
            *slot = b;
            break;
        }
        *slot = b | 0x80;
    }
    n
}

/// Write a user property.
pub fn user_property(w: &mut Writer<'_>, name: &str, value: &[u8]) {
    w.u8(prop::USER);
    w.bin(name.as_bytes());
    w.bin(value);
}

/// Length of a user property as [`user_property`] writes it.
pub fn user_property_len(name: &str, value: &[u8]) -> usize {
    5usize
        .saturating_add(name.len())
        .saturating_add(value.len())
}

/// What a CONNECT says.
pub struct Connect<'a> {
    /// The client identifier.
    pub client_id: &'a str,
    /// Keep-alive in seconds.
    pub keep_alive: u16,
    /// User properties of the CONNECT.
    pub user: &'a [(&'a str, &'a str)],
    /// The will's topic, as parts (its payload is empty, retained, QoS 0).
    pub will_topic: &'a [&'a [u8]],
    /// The user name, for a broker that asks for one.
    pub username: Option<&'a str>,
    /// The password (binary data in MQTT 5).
    pub password: Option<&'a [u8]>,
}

/// Encode a CONNECT: MQTT 5, clean start, session expiry 0, the will retained and
/// empty; the user name and password when given.
pub fn connect<'b>(buf: &'b mut [u8], c: &Connect<'_>) -> Result<&'b [u8], Full> {
    let mut w = Writer::new(buf);
    w.bin(b"MQTT");
    w.u8(5);
    // Clean start (0x02), will (0x04), will QoS 0, will retain (0x20); a user name
    // (0x80) and a password (0x40) follow the will when given.
    let login = match (c.username, c.password) {
        (Some(_), Some(_)) => 0x80 | 0x40,
        (Some(_), None) => 0x80,
        (None, Some(_)) => 0x40,
        (None, None) => 0,
    };
    w.u8(0x02 | 0x04 | 0x20 | login);
    w.u16(c.keep_alive);
    let props = c.user.iter().fold(5usize, |n, (k, v)| {
        n.saturating_add(user_property_len(k, v.as_bytes()))
    });
    w.varint(props);
    w.u8(prop::SESSION_EXPIRY);
    w.bytes(&0u32.to_be_bytes());
    for (k, v) in c.user {
        user_property(&mut w, k, v.as_bytes());
    }
    w.bin(c.client_id.as_bytes());
    w.varint(0); // will properties
    w.bin_parts(c.will_topic);
    w.bin(b""); // will payload: empty
    if let Some(name) = c.username {
        w.bin(name.as_bytes());
    }
    if let Some(password) = c.password {
        w.bin(password);
    }
    w.finish(kind::CONNECT << 4)
}

/// Encode a SUBSCRIBE of `filters` (each given as parts), each at QoS 0 with No Local.
pub fn subscribe<'b>(buf: &'b mut [u8], id: u16, filters: &[&[&[u8]]]) -> Result<&'b [u8], Full> {
    let mut w = Writer::new(buf);
    w.u16(id);
    w.varint(0);
    for f in filters {
        w.bin_parts(f);
        w.u8(0x04); // QoS 0, No Local, retain as published, send retained
    }
    w.finish((kind::SUBSCRIBE << 4) | 0x02)
}

/// Encode an UNSUBSCRIBE of `filters` (each given as parts).
pub fn unsubscribe<'b>(buf: &'b mut [u8], id: u16, filters: &[&[&[u8]]]) -> Result<&'b [u8], Full> {
    let mut w = Writer::new(buf);
    w.u16(id);
    w.varint(0);
    for f in filters {
        w.bin_parts(f);
    }
    w.finish((kind::UNSUBSCRIBE << 4) | 0x02)
}

/// Encode the header of a QoS 0 PUBLISH whose payload of `payload_len` bytes the
/// caller sends right after it: topic, then the user properties.
pub fn publish_head<'b>(
    buf: &'b mut [u8],
    topic: &[&[u8]],
    retain: bool,
    user: &[(&str, &[u8])],
    payload_len: usize,
) -> Result<&'b [u8], Full> {
    let props = user.iter().fold(0usize, |n, (k, v)| {
        n.saturating_add(user_property_len(k, v))
    });
    let mut w = Writer::new(buf);
    w.bin_parts(topic);
    w.varint(props);
    for (k, v) in user {
        user_property(&mut w, k, v);
    }
    // The payload is not in the buffer: counted in the remaining length only.
    w.finish_before((kind::PUBLISH << 4) | u8::from(retain), payload_len)
}

/// A two-byte acknowledgement (PUBACK, PUBREC, PUBREL, PUBCOMP) of packet `id`.
pub fn ack_packet(first: u8, id: u16) -> [u8; 4] {
    let [hi, lo] = id.to_be_bytes();
    [first, 2, hi, lo]
}

/// PINGREQ.
pub const PINGREQ: [u8; 2] = [kind::PINGREQ << 4, 0];

/// DISCONNECT, normal disconnection.
pub const DISCONNECT: [u8; 2] = [kind::DISCONNECT << 4, 0];

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// A PUBLISH body as a broker sends it: topic, (packet id), properties, payload.
    fn publish_body(topic: &[u8], id: Option<u16>, props: &[u8], payload: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend((topic.len() as u16).to_be_bytes());
        b.extend(topic);
        if let Some(id) = id {
            b.extend(id.to_be_bytes());
        }
        b.push(props.len() as u8);
        b.extend(props);
        b.extend(payload);
        b
    }

    fn user(k: &str, v: &str) -> Vec<u8> {
        let mut p = std::vec![0x26];
        p.extend((k.len() as u16).to_be_bytes());
        p.extend(k.as_bytes());
        p.extend((v.len() as u16).to_be_bytes());
        p.extend(v.as_bytes());
        p
    }

    #[test]
    fn publish_with_user_properties() {
        let mut props = std::vec![0x01, 1]; // payload format indicator
        props.extend(user("MCP-COMPONENT-TYPE", "mcp-client"));
        props.extend(user("MCP-MQTT-CLIENT-ID", "c1"));
        let body = publish_body(b"$mcp-server/d/x/y", Some(7), &props, b"{}");
        let p = publish(0b0010, &body).unwrap();
        assert_eq!(p.qos, 1);
        assert_eq!(p.packet_id, 7);
        assert_eq!(p.topic, b"$mcp-server/d/x/y");
        assert_eq!(p.properties.user("MCP-MQTT-CLIENT-ID"), Some(&b"c1"[..]));
        assert_eq!(p.properties.user("nope"), None);
        assert_eq!(p.payload, b"{}");
    }

    #[test]
    fn malformed_publishes_are_errors_not_panics() {
        let props = user("MCP-MQTT-CLIENT-ID", "c1");
        let body = publish_body(b"t", None, &props, b"x");
        // Every truncation, and QoS 3.
        for n in 0..body.len() - 1 {
            let _ = publish(0, &body[..n]);
        }
        assert!(publish(0b0110, &body).is_err());
        // An unknown property id.
        let body = publish_body(b"t", None, &[0x7f, 0, 0], b"");
        assert_eq!(publish(0, &body).err(), Some(Malformed));
        // Every byte changed to every value: never a panic.
        let body = publish_body(b"$mcp-rpc/c/d/n", None, &props, b"{\"a\":1}");
        for i in 0..body.len() {
            for v in [0u8, 1, 0x26, 0x7f, 0x80, 0xff] {
                let mut b = body.clone();
                b[i] = v;
                if let Ok(p) = publish(0, &b) {
                    let _ = p.properties.user("MCP-MQTT-CLIENT-ID");
                }
                let _ = connack(&b);
                let _ = ack(&b);
            }
        }
    }

    #[test]
    fn connect_bytes() {
        let mut buf = [0u8; 128];
        let will: [&[u8]; 2] = [b"$p/", b"d"];
        let c = Connect {
            client_id: "d",
            keep_alive: 30,
            user: &[("K", "v")],
            will_topic: &will,
            username: None,
            password: None,
        };
        let p = connect(&mut buf, &c).unwrap();
        let expect: &[u8] = &[
            0x10, 35, // CONNECT, remaining length
            0, 4, b'M', b'Q', b'T', b'T', 5, 0x26, 0, 30, // protocol, flags, keep-alive
            12, 0x11, 0, 0, 0, 0, 0x26, 0, 1, b'K', 0, 1, b'v', // properties
            0, 1, b'd', // client id
            0,    // will properties
            0, 4, b'$', b'p', b'/', b'd', // will topic
            0, 0, // will payload
        ];
        assert_eq!(p, expect);
        let mut small = [0u8; 20];
        assert_eq!(connect(&mut small, &c), Err(Full));
        // With a user name and password: both flags, both strings after the will.
        let login = Connect {
            username: Some("u"),
            password: Some(b"pw"),
            ..c
        };
        let p = connect(&mut buf, &login).unwrap();
        assert_eq!((p[1], p[9]), (35 + 3 + 4, 0x26 | 0x80 | 0x40));
        assert_eq!(&p[37..], &[0, 1, b'u', 0, 2, b'p', b'w']);
        let name_only = Connect {
            password: None,
            ..login
        };
        let p = connect(&mut buf, &name_only).unwrap();
        assert_eq!((p[9], &p[37..]), (0x26 | 0x80, &[0, 1, b'u'][..]));
    }

    #[test]
    fn publish_head_counts_the_payload() {
        let mut buf = [0u8; 64];
        let topic: [&[u8]; 2] = [b"a/", b"b"];
        let h = publish_head(&mut buf, &topic, true, &[("K", b"v")], 200).unwrap();
        // 2 + 3 topic, 1 + 7 properties, 200 payload = 213: two bytes of length.
        assert_eq!(&h[..3], &[0x31, 213 & 0x7f | 0x80, 1]);
        assert_eq!(&h[3..8], &[0, 3, b'a', b'/', b'b']);
        assert_eq!(h.len(), 3 + 13);
    }

    #[test]
    fn acks_and_connack() {
        assert_eq!(ack(&[0, 9, 0, 0, 1, 2]), Ok((9, true)));
        assert_eq!(ack(&[0, 9, 0, 0x80]), Ok((9, false)));
        assert_eq!(ack(&[0, 9, 0]), Ok((9, false)));
        let mut props = Vec::new();
        props.extend(user("MCP-SERVER-NAME", "a/b"));
        let mut body = std::vec![0, 0, props.len() as u8];
        body.extend(&props);
        let (reason, p) = connack(&body).unwrap();
        assert_eq!(reason, 0);
        assert_eq!(p.user("MCP-SERVER-NAME"), Some(&b"a/b"[..]));
        assert_eq!(connack(&[0, 0x87]).map(|(r, _)| r), Ok(0x87));
        assert_eq!(fixed_header(&[0x30]), Ok(None));
        assert_eq!(fixed_header(&[0x30, 0x80, 0x01]), Ok(Some((3, 128))));
        assert_eq!(
            fixed_header(&[0x30, 0xff, 0xff, 0xff, 0xff]),
            Err(Malformed)
        );
    }
}
