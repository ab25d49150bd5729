//! mDNS and DNS-SD: how a client on the LAN finds the device.
//!
//! The device answers multicast DNS (RFC 6762) on `224.0.0.251:5353` for
//!
//! - `NAME.local`: an `A` record, the address the stack holds *now* (read on every
//!   answer, so a new DHCP lease is answered at once);
//! - `_mcp._tcp.local`: a `PTR` to the instance `NAME._mcp._tcp.local`, whose `SRV`
//!   names `NAME.local` and the HTTP port, and whose `TXT` carries
//!   `path=/mcp` (where MCP's Streamable HTTP is served) and
//!   `protocols=2026-07-28,2025-11-25,…` (the revisions emcp speaks, newest first,
//!   from [`emcp::wire::version`]) (DNS-SD, RFC 6763);
//! - `_services._dns-sd._udp.local`: a `PTR` to `_mcp._tcp.local` (service type
//!   enumeration: `avahi-browse -a`, `dns-sd -B _services._dns-sd._udp`).
//!
//! A question is answered with the records of its name and type (or all of its
//! name's, for `ANY`), each once; the additional section adds what the answers point
//! at (RFC 6763 §12): the instance's `SRV`, `TXT` and `A` for the service's `PTR`, the
//! `A` for an `SRV`; so one round trip resolves the service. Queries sent from a
//! port other than 5353 (one-shot "legacy" resolvers) are answered to the sender
//! with their id and questions echoed; queries sent to the device's own address are
//! answered to the sender; all other answers go to the group. Every record is
//! announced twice, one second apart, when the stack gets an address and whenever
//! it changes. IP TTL 255 on everything sent (RFC 6762 §11).
//!
//! # Built on
//!
//! [`edge_mdns`] (no `io` feature) supplies the records ([`edge_mdns::host`]'s
//! `Host`, `Service`) and the `domain` crate underneath it parses and builds the
//! messages: its parser is bounds-checked (compression pointers must point
//! backwards and are limited per name; a malformed message is an error, never a
//! panic) and its builder refuses to write past the buffer. edge-mdns itself panics
//! only on a label over 63 bytes, which [`Responder::new`] refuses, so no answer
//! panics, whatever arrives (the unit tests feed it truncations, compression loops,
//! every byte of a query changed and random datagrams). Which records answer
//! which question is [`Responder::answer`]'s, sans-IO: edge-mdns's own handler
//! (`HostAnswersMdnsHandler`) ignores the question's type and adds every `SRV`,
//! `TXT` and `A` to every answer, which doubled the answers and the buffers they
//! need. The I/O loop is this module's too, over an `embassy_net` UDP socket, rather
//! than `edge_mdns::io::Mdns` with `edge-nal-embassy`: that loop returns on the
//! first send error (no address yet, an answer larger than its buffer) and takes
//! its sockets from a pool of its own beside the stack's; here a message that
//! cannot be answered is dropped and the next one served, and the socket is one of
//! the stack's ([`SOCKETS`]).
//!
//! # Limits and non-features
//!
//! - A query over [`QUERY`] bytes is dropped by the stack; an answer that would
//!   not fit [`ANSWER`] bytes (a one-shot query with many questions) is not sent.
//! - No probing for name conflicts (RFC 6762 §8.1): the name is the configured one;
//!   two devices configured alike answer alike.
//! - Memory: the task's future holds the socket's rings and the answer buffer
//!   ([`QUERY`] + 2 × [`ANSWER`] bytes, about 2.6 KiB on a Cortex-M3); the code is
//!   about 14 KiB of flash (most of it `domain`'s parser and builder).
//! - No known-answer suppression and no goodbye (TTL 0) records; IPv4 only.
//! - The revisions listed are those of emcp's default build (both eras).
use core::net::{Ipv4Addr, Ipv6Addr};

use edge_mdns::domain::base::iana::{Opcode, Rcode};
use edge_mdns::domain::base::Ttl;
use edge_mdns::domain::base::{Message, MessageBuilder, Rtype, ToName};
use edge_mdns::host::{Host, Service, ServiceAnswers};
use edge_mdns::{set_header, Buf, HostAnswer, HostAnswers, MdnsError, MdnsRequest, DNS_SD_OWNER};
use embassy_executor::Spawner;
use embassy_futures::select::{select, Either};
use embassy_net::udp::{PacketMetadata, UdpSocket};
use embassy_net::{IpAddress, IpEndpoint, Stack};
use embassy_time::{Duration, Instant, Timer};
use emcp::wire::version::{LEGACY, STATELESS};

use crate::fmt::{log_info, log_warn};
use crate::{Config, StartError};

/// The mDNS port.
pub const PORT: u16 = 5353;
/// The IPv4 mDNS group.
pub const GROUP: Ipv4Addr = Ipv4Addr::new(224, 0, 0, 251);
/// The largest query read, in bytes: the socket's receive ring holds one (a larger
/// one is dropped by the stack).
pub const QUERY: usize = 1024;
/// The largest answer sent, in bytes: the announcement, every record at once, is
/// 281 + 5 × the name's length (596 for the longest name); a one-shot query's
/// answer also echoes its questions.
pub const ANSWER: usize = 640;
/// The service type advertised, as its two labels.
pub const SERVICE: &str = "_mcp";
/// The service's protocol label.
pub const PROTOCOL: &str = "_tcp";
/// The HTTP path MCP is served at (TXT `path`).
pub const PATH: &str = "/mcp";
/// How long a resolver may cache the records (RFC 6762 §10: 120 s for records that
/// name a host or its address).
const TTL_SECS: u32 = 120;
/// Announcements per address, one second apart (RFC 6762 §8.3: at least two).
const ANNOUNCEMENTS: u8 = 2;

/// Every revision emcp speaks, newest first, comma-separated: TXT `protocols`.
pub const PROTOCOLS: &str = match core::str::from_utf8(&PROTOCOL_BYTES) {
    Ok(text) => text,
    Err(_) => panic!("revision strings are ASCII"),
};

/// The TXT record's keys and values.
pub const TXT: &[(&str, &str)] = &[("path", PATH), ("protocols", PROTOCOLS)];

/// A revision string's length (`YYYY-MM-DD`).
const REVISION_LEN: usize = 10;
const REVISIONS: usize = STATELESS.len() + LEGACY.len();
const PROTOCOL_BYTES: [u8; REVISIONS * (REVISION_LEN + 1) - 1] = {
    let mut out = [b','; REVISIONS * (REVISION_LEN + 1) - 1];
    let mut i = 0;
    while i < REVISIONS {
        let version = if i < STATELESS.len() {
            STATELESS[i]
        } else {
            LEGACY[i - STATELESS.len()]
        };
        let text = version.as_str().as_bytes();
        assert!(text.len() == REVISION_LEN);
        let mut j = 0;
        while j < REVISION_LEN {
            out[i * (REVISION_LEN + 1) + j] = text[j];
            j += 1;
        }
        i += 1;
    }
    out
};

/// The records of one device: its name, its HTTP port and the address it holds.
/// Sans-IO: [`Responder::answer`] turns a datagram into the datagram to send back.
#[derive(Clone, Copy, Debug)]
pub struct Responder {
    name: &'static str,
    port: u16,
}

impl Responder {
    /// The records of `NAME.local` serving MCP's HTTP on `port`; `None` unless `name`
    /// is a host name label (RFC 1123: 1 to 63 letters, digits and hyphens).
    pub const fn new(name: &'static str, port: u16) -> Option<Self> {
        if is_host_label(name.as_bytes()) {
            Some(Responder { name, port })
        } else {
            None
        }
    }

    /// The answer to `query`, a datagram from port `source_port`, written into
    /// `out`: its length, `Ok(0)` when there is nothing to answer (not a query, no
    /// question about our names), an error when `query` is malformed or the answer
    /// would not fit `out`. `address`: the stack's address, if it has one (without
    /// one the host name is not answered, the service still is).
    pub fn answer(
        &self,
        address: Option<Ipv4Addr>,
        query: &[u8],
        source_port: u16,
        out: &mut [u8],
    ) -> Result<usize, MdnsError> {
        let request = MdnsRequest::Request {
            legacy: source_port != PORT,
            multicast: true,
            data: query,
        };
        self.handle(address, request, out)
    }

    /// Every record, unsolicited (an announcement), written into `out`: its
    /// length, or an error when it would not fit.
    pub fn announcement(&self, address: Ipv4Addr, out: &mut [u8]) -> Result<usize, MdnsError> {
        self.handle(Some(address), MdnsRequest::None, out)
    }

    fn handle(
        &self,
        address: Option<Ipv4Addr>,
        request: MdnsRequest<'_>,
        out: &mut [u8],
    ) -> Result<usize, MdnsError> {
        let records = Records {
            responder: *self,
            address: address.unwrap_or(Ipv4Addr::UNSPECIFIED),
        };
        let mut message = MessageBuilder::from_target(Buf(out, 0))?;
        let MdnsRequest::Request { legacy, data, .. } = request else {
            set_header(&mut message, 0, true);
            let mut answers = message.answer();
            records.visit(|record| answers.push(record).map_err(MdnsError::from))?;
            return Ok(answers.finish().1);
        };
        let query = Message::from_octets(data)?;
        let header = query.header();
        if header.qr() || header.opcode() != Opcode::QUERY || header.rcode() != Rcode::NOERROR {
            return Ok(0);
        }
        // A one-shot query gets its id and questions back (RFC 6762 §6.7).
        set_header(&mut message, if legacy { header.id() } else { 0 }, true);
        let mut questions = message.question();
        if legacy {
            for question in query.question() {
                questions.push(question?)?;
            }
        }
        let mut answers = questions.answer();
        let mut sent = Sent::default();
        for question in query.question() {
            let question = question?;
            let asked = |record: &HostAnswer| {
                question.qname().name_eq(record.owner())
                    && (question.qtype() == Rtype::ANY || question.qtype() == record.rtype())
            };
            records.visit(|record| {
                if asked(&record) && !sent.has(&record) {
                    answers.push(&record)?;
                    sent.add(&record);
                }
                Ok::<_, MdnsError>(())
            })?;
        }
        if sent == Sent::default() {
            return Ok(0);
        }
        // What the answers point at, unless answered already (RFC 6763 §12): the
        // instance's SRV and TXT and the address for the service's PTR, the address
        // for an SRV.
        let wanted = sent.wanted();
        let mut additional = answers.additional();
        records.visit(|record| {
            if wanted.has(&record) && !sent.has(&record) {
                additional.push(&record)?;
            }
            Ok::<_, MdnsError>(())
        })?;
        Ok(additional.finish().1)
    }
}

/// Which of a device's records a message carries (each owner and type once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sent {
    /// `_mcp._tcp.local PTR` (the service's instance).
    service: bool,
    /// `_services._dns-sd._udp.local PTR` (the enumeration).
    enumeration: bool,
    srv: bool,
    txt: bool,
    a: bool,
}

impl Sent {
    fn slot(&mut self, record: &HostAnswer) -> Option<&mut bool> {
        match record.rtype() {
            Rtype::PTR if record.owner().name_eq(&DNS_SD_OWNER) => Some(&mut self.enumeration),
            Rtype::PTR => Some(&mut self.service),
            Rtype::SRV => Some(&mut self.srv),
            Rtype::TXT => Some(&mut self.txt),
            Rtype::A => Some(&mut self.a),
            _ => None,
        }
    }

    fn has(&self, record: &HostAnswer) -> bool {
        let mut copy = *self;
        copy.slot(record).is_some_and(|sent| *sent)
    }

    fn add(&mut self, record: &HostAnswer) {
        if let Some(sent) = self.slot(record) {
            *sent = true;
        }
    }

    /// The records these answers point at.
    fn wanted(&self) -> Sent {
        Sent {
            srv: self.service,
            txt: self.service,
            a: self.service || self.srv,
            ..Sent::default()
        }
    }
}

/// Whether `name` is one host name label: 1 to 63 letters, digits and hyphens (a
/// longer label cannot be written on the wire).
pub const fn is_host_label(name: &[u8]) -> bool {
    if name.is_empty() || name.len() > 63 {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        if !(name[i].is_ascii_alphanumeric() || name[i] == b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// A [`Responder`]'s records for one address.
struct Records {
    responder: Responder,
    address: Ipv4Addr,
}

impl HostAnswers for Records {
    fn visit<F, E>(&self, f: F) -> Result<(), E>
    where
        F: FnMut(HostAnswer) -> Result<(), E>,
        E: From<MdnsError>,
    {
        let host = Host {
            hostname: self.responder.name,
            // Unspecified: no A record.
            ipv4: self.address,
            ipv6: Ipv6Addr::UNSPECIFIED,
            ttl: Ttl::from_secs(TTL_SECS),
        };
        let service = Service {
            name: self.responder.name,
            priority: 0,
            weight: 0,
            service: SERVICE,
            protocol: PROTOCOL,
            port: self.responder.port,
            service_subtypes: &[],
            txt_kvs: TXT,
        };
        ServiceAnswers::new(&host, &service).visit(f)
    }
}

/// The UDP sockets the responder takes from the stack (counted in
/// [`crate::SOCKETS`]).
pub const SOCKETS: usize = 1;

/// Spawn the responder for `config.name` on `spawner`; none when the name is empty.
pub(crate) fn spawn(
    spawner: Spawner,
    stack: Stack<'static>,
    config: &'static Config,
) -> Result<(), StartError> {
    if config.name.is_empty() {
        return Ok(());
    }
    crate::spawn(spawner, task(stack, config.name, config.port), "mdns")
}

/// Answer mDNS for `NAME.local` and DNS-SD for `_mcp._tcp` on `stack`, forever
/// (the service's HTTP port: `port`). Takes one UDP socket of the stack
/// ([`SOCKETS`]) and joins the group `224.0.0.251`. A malformed query, or one whose
/// answer would not fit, is dropped without a word (a hostile network would
/// otherwise fill the log).
#[embassy_executor::task]
pub async fn task(stack: Stack<'static>, name: &'static str, port: u16) -> ! {
    run(stack, name, port).await
}

/// The responder's loop: [`task`]'s body.
pub async fn run(stack: Stack<'static>, name: &'static str, port: u16) -> ! {
    let Some(responder) = Responder::new(name, port) else {
        log_warn!("mdns: {} is not a host name: not answering", name);
        park().await
    };
    let mut rx_meta = [PacketMetadata::EMPTY; 4];
    let mut rx = [0; QUERY];
    let mut tx_meta = [PacketMetadata::EMPTY; 2];
    let mut tx = [0; ANSWER];
    let mut out = [0; ANSWER];
    let mut socket = UdpSocket::new(stack, &mut rx_meta, &mut rx, &mut tx_meta, &mut tx);
    socket.set_hop_limit(Some(255));
    if socket.bind(PORT).is_err() {
        log_warn!("mdns: port {} taken: not answering", PORT);
        park().await
    }
    if stack.join_multicast_group(GROUP).is_err() {
        // One-shot queries sent to the device's own address are still answered.
        log_warn!("mdns: the group 224.0.0.251 not joined (the stack's group table is full)");
    }
    log_info!(
        "mdns: answering for {}.local and {}._mcp._tcp.local",
        name,
        name
    );
    let group = IpEndpoint::new(IpAddress::Ipv4(GROUP), PORT);

    let mut announced = None;
    let mut announcements = 0u8;
    let mut next = Instant::now();
    loop {
        let address = stack.config_v4().map(|c| c.address.address());
        if address != announced {
            announced = address;
            announcements = if address.is_some() { ANNOUNCEMENTS } else { 0 };
            next = Instant::now();
        }
        if let (Some(address), true) = (address, announcements > 0 && Instant::now() >= next) {
            if let Ok(len) = responder.announcement(address, &mut out) {
                send(&mut socket, out.get(..len), group).await;
            }
            announcements -= 1;
            next = Instant::now() + Duration::from_secs(1);
        }
        // Wake for the next announcement, or in a second to look at the address.
        let wait = Timer::at(if announcements > 0 {
            next
        } else {
            Instant::now() + Duration::from_secs(1)
        });
        let received = socket.recv_from_with(|query, meta| {
            // To the sender: a one-shot query, or one sent to the device's address.
            let to_us = matches!(meta.local_address, Some(IpAddress::Ipv4(a)) if a != GROUP);
            let reply_to = if to_us || meta.endpoint.port != PORT {
                meta.endpoint
            } else {
                group
            };
            let answer = responder.answer(address, query, meta.endpoint.port, &mut out);
            (answer.unwrap_or(0), reply_to)
        });
        let result = select(received, wait).await;
        if let Either::First((len, to)) = result {
            send(&mut socket, out.get(..len), to).await;
        }
    }
}

/// Wait forever (the responder cannot run).
async fn park() -> ! {
    match core::future::pending::<core::convert::Infallible>().await {}
}

/// Send `message` to `to`, unless it is empty. A failure (no route yet) is not
/// retried: the next query or announcement brings the next message.
async fn send(socket: &mut UdpSocket<'_>, message: Option<&[u8]>, to: IpEndpoint) {
    if let Some(message) = message.filter(|m| !m.is_empty()) {
        let _ = socket.send_to(message, to).await;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::format;
    use std::string::String;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    use edge_mdns::domain::base::{Message, ParsedName};
    use edge_mdns::domain::rdata::AllRecordData;

    use super::*;

    const NAME: &str = "valve";
    const ADDRESS: Ipv4Addr = Ipv4Addr::new(192, 168, 7, 50);

    /// A query with id `id` and one question per `(name, type)`; `unicast`: the QU bit.
    fn query(id: u16, questions: &[(&str, u16)], unicast: bool) -> Vec<u8> {
        let mut q = Vec::new();
        q.extend_from_slice(&id.to_be_bytes());
        q.extend_from_slice(&[0, 0]);
        q.extend_from_slice(&(questions.len() as u16).to_be_bytes());
        q.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        for (name, rtype) in questions {
            for label in name.split('.') {
                q.push(label.len() as u8);
                q.extend_from_slice(label.as_bytes());
            }
            q.push(0);
            q.extend_from_slice(&rtype.to_be_bytes());
            q.extend_from_slice(&(if unicast { 0x8001u16 } else { 1 }).to_be_bytes());
        }
        q
    }

    /// The id, then the answer and additional records of `message`, one line each.
    fn records(message: &[u8]) -> (u16, Vec<String>, Vec<String>) {
        let message = Message::from_octets(message).expect("a message");
        let lines = |section: edge_mdns::domain::base::RecordSection<'_, &[u8]>| {
            section
                .limit_to::<AllRecordData<&[u8], ParsedName<&[u8]>>>()
                .map(|r| format!("{}", r.expect("a record")))
                .collect::<Vec<_>>()
        };
        (
            message.header().id(),
            lines(message.answer().expect("answers")),
            lines(message.additional().expect("additional")),
        )
    }

    fn responder() -> Responder {
        Responder::new(NAME, 80).expect("a host name")
    }

    #[test]
    fn names() {
        assert!(Responder::new("valve-2", 80).is_some());
        let long = "a".repeat(64);
        for bad in ["", "a.b", "caf\u{e9}", "a_b", "a b", long.as_str()] {
            assert!(!is_host_label(bad.as_bytes()), "{bad:?}");
        }
        assert!(is_host_label(&long.as_bytes()[1..]));
    }

    fn answer(address: Option<Ipv4Addr>, query: &[u8], source_port: u16) -> Option<Vec<u8>> {
        let mut out = [0; ANSWER];
        let len = responder()
            .answer(address, query, source_port, &mut out)
            .expect("answered");
        (len > 0).then(|| out[..len].to_vec())
    }

    const A: &str = "valve.local. 120 IN A 192.168.7.50";
    // (domain prints an SRV target without its final dot.)
    const SRV: &str = "valve._mcp._tcp.local. 120 IN SRV 0 0 80 valve.local";
    const TXT_LINE: &str = "valve._mcp._tcp.local. 120 IN TXT \"path=/mcp\" \
        \"protocols=2026-07-28,2025-11-25,2025-06-18,2025-03-26,2024-11-05\"";
    const PTR: &str = "_mcp._tcp.local. 120 IN PTR valve._mcp._tcp.local.";
    const ENUM: &str = "_services._dns-sd._udp.local. 120 IN PTR _mcp._tcp.local.";

    #[test]
    fn protocols_newest_first() {
        assert_eq!(
            PROTOCOLS,
            "2026-07-28,2025-11-25,2025-06-18,2025-03-26,2024-11-05"
        );
    }

    #[test]
    fn browse_resolves_in_one_answer() {
        let reply = answer(
            Some(ADDRESS),
            &query(7, &[("_mcp._tcp.local", 12)], false),
            PORT,
        );
        let (id, answers, additional) = records(&reply.expect("a reply"));
        assert_eq!(id, 0, "a multicast answer carries id 0");
        assert_eq!(answers, [PTR]);
        assert_eq!(additional, [A, SRV, TXT_LINE]);
    }

    #[test]
    fn host_name_is_the_current_address() {
        let q = query(0, &[("VALVE.local", 1)], true);
        let (_, answers, additional) = records(&answer(Some(ADDRESS), &q, PORT).expect("a reply"));
        assert_eq!(answers, [A]);
        assert!(additional.is_empty(), "{additional:?}");
        let moved = Ipv4Addr::new(10, 1, 2, 3);
        let (_, answers, _) = records(&answer(Some(moved), &q, PORT).expect("a reply"));
        assert_eq!(answers, ["valve.local. 120 IN A 10.1.2.3"]);
        assert_eq!(answer(None, &q, PORT), None, "no address: no A record");
        let aaaa = query(0, &[("valve.local", 28)], false);
        assert_eq!(answer(Some(ADDRESS), &aaaa, PORT), None, "no IPv6 address");
    }

    #[test]
    fn instance_and_enumeration() {
        let q = query(0, &[("valve._mcp._tcp.local", 33)], false);
        let (_, answers, additional) = records(&answer(Some(ADDRESS), &q, PORT).expect("a reply"));
        assert_eq!(
            (answers, additional),
            (vec![SRV.to_string()], vec![A.to_string()])
        );
        let q = query(
            0,
            &[("valve._mcp._tcp.local", 33), ("valve._mcp._tcp.local", 16)],
            false,
        );
        let (_, answers, additional) = records(&answer(Some(ADDRESS), &q, PORT).expect("a reply"));
        assert_eq!(
            (answers, additional),
            (
                vec![SRV.to_string(), TXT_LINE.to_string()],
                vec![A.to_string()]
            )
        );
        let q = query(
            0,
            &[("valve._mcp._tcp.local", 255), ("valve.local", 1)],
            false,
        );
        let (_, answers, additional) = records(&answer(Some(ADDRESS), &q, PORT).expect("a reply"));
        assert_eq!(answers, [SRV, TXT_LINE, A], "ANY, each record once");
        assert!(additional.is_empty(), "{additional:?}");
        let q = query(0, &[("_services._dns-sd._udp.local", 12)], false);
        let (_, answers, additional) = records(&answer(Some(ADDRESS), &q, PORT).expect("a reply"));
        assert_eq!(answers, [ENUM]);
        assert!(additional.is_empty(), "{additional:?}");
    }

    #[test]
    fn legacy_query_echoes_id_and_question() {
        let q = query(0x1234, &[("valve.local", 1)], false);
        let reply = answer(Some(ADDRESS), &q, 40000).expect("a reply");
        let message = Message::from_octets(reply.as_slice()).expect("a message");
        assert_eq!(message.header().id(), 0x1234);
        assert_eq!(message.header_counts().qdcount(), 1);
        let (_, answers, _) = records(&reply);
        assert_eq!(answers, [A]);
    }

    #[test]
    fn other_names_and_responses_are_not_answered() {
        let q = query(0, &[("other.local", 1), ("_http._tcp.local", 12)], false);
        assert_eq!(answer(Some(ADDRESS), &q, PORT), None);
        let mut response = query(0, &[("valve.local", 1)], false);
        response[2] |= 0x80;
        assert_eq!(answer(Some(ADDRESS), &response, PORT), None);
    }

    #[test]
    fn announcement_carries_every_record() {
        let mut out = [0; ANSWER];
        let len = responder().announcement(ADDRESS, &mut out).expect("built");
        let (_, answers, _) = records(&out[..len]);
        for record in [A, SRV, TXT_LINE, PTR, ENUM] {
            assert!(
                answers.iter().any(|r| r == record),
                "{record} in {answers:?}"
            );
        }
        assert!(len < 400, "{len} bytes");
    }

    /// A query whose answer cannot fit is refused, not truncated or overrun: a
    /// one-shot query's questions are echoed, 60 of them fill more than `ANSWER`.
    #[test]
    fn answer_larger_than_out_is_an_error() {
        let q = query(0, &[("_mcp._tcp.local", 12); 60], false);
        let mut out = [0; ANSWER];
        let result = responder().answer(Some(ADDRESS), &q, 40000, &mut out);
        assert_eq!(result, Err(MdnsError::ShortBuf));
        let len = responder().answer(Some(ADDRESS), &q, PORT, &mut out);
        assert!(
            len.is_ok_and(|len| len < 300),
            "asked 60 times, answered once: {len:?}"
        );
        let mut small = [0; 40];
        let q = query(0, &[("_mcp._tcp.local", 12)], false);
        let result = responder().answer(Some(ADDRESS), &q, PORT, &mut small);
        assert_eq!(result, Err(MdnsError::ShortBuf));
    }

    /// Every answer to `packet`, from both kinds of source port, is an error, nothing,
    /// or a message that fits `out` and parses: never a panic.
    fn survives(packet: &[u8]) {
        for source_port in [PORT, 40000] {
            let mut out = [0; ANSWER];
            let responder = responder();
            if let Ok(len) = responder.answer(Some(ADDRESS), packet, source_port, &mut out) {
                assert!(len <= ANSWER);
                if len > 0 {
                    assert!(Message::from_octets(&out[..len]).is_ok());
                }
            }
        }
    }

    #[test]
    fn hostile_names() {
        let header = |qdcount: u16| {
            let mut h = std::vec![0, 0, 0, 0];
            h.extend_from_slice(&qdcount.to_be_bytes());
            h.extend_from_slice(&[0; 6]);
            h
        };
        let cases: Vec<Vec<u8>> = std::vec![
            // A name that is a pointer to itself.
            [header(1), std::vec![0xc0, 12, 0, 1, 0, 1]].concat(),
            // Two pointers to each other.
            [
                header(2),
                std::vec![0xc0, 18, 0, 1, 0, 1, 0xc0, 12, 0, 1, 0, 1]
            ]
            .concat(),
            // A pointer forward, past the end.
            [header(1), std::vec![0xc0, 0xff, 0, 1, 0, 1]].concat(),
            // A label longer than the message.
            [header(1), std::vec![63, b'a', b'b']].concat(),
            // The reserved label types 0x40 and 0x80.
            [header(1), std::vec![0x40, 0, 0, 1, 0, 1]].concat(),
            [header(1), std::vec![0x80, 0, 0, 1, 0, 1]].concat(),
            // More questions claimed than sent.
            [
                header(u16::MAX),
                query(0, &[("valve.local", 1)], false)[12..].to_vec()
            ]
            .concat(),
            // A name of 128 one-byte labels, then a chain of 200 pointers back.
            {
                let mut p = header(1);
                for _ in 0..128 {
                    p.extend_from_slice(&[1, b'x']);
                }
                p.push(0);
                p.extend_from_slice(&[0, 1, 0, 1]);
                p
            },
            {
                let mut p = header(200);
                p.extend_from_slice(&[5, b'v', b'a', b'l', b'v', b'e', 0, 0, 1, 0, 1]);
                for i in 0..199u16 {
                    let at = 12 + if i == 0 { 0 } else { 11 + (i - 1) * 6 };
                    p.extend_from_slice(&(0xc000 | at).to_be_bytes());
                    p.extend_from_slice(&[0, 1, 0, 1]);
                }
                p
            },
            // Nothing; a header alone; an empty question.
            Vec::new(),
            header(0),
            [header(1), std::vec![0]].concat(),
        ];
        for case in &cases {
            survives(case);
        }
    }

    /// Every prefix of a valid query, and every single-byte change of it.
    #[test]
    fn truncated_and_mutated_queries() {
        let q = query(
            9,
            &[
                ("_mcp._tcp.local", 12),
                ("valve.local", 1),
                ("valve._mcp._tcp.local", 255),
            ],
            true,
        );
        for len in 0..=q.len() {
            survives(&q[..len]);
        }
        for at in 0..q.len() {
            for value in [0x00, 0x01, 0x3f, 0x40, 0x80, 0xc0, 0xc1, 0xff] {
                let mut m = q.clone();
                m[at] = value;
                survives(&m);
            }
        }
    }

    /// Random datagrams, some with a valid header (xorshift, fixed seed: the same run
    /// every time).
    #[test]
    fn random_datagrams() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let len = (next() % 600) as usize;
            let mut p: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 2 == 0 && p.len() >= 12 {
                // A query's flags and a small question count, so the names are parsed.
                p[2] = 0;
                p[3] = 0;
                p[4] = 0;
                p[5] = (next() % 8) as u8;
            }
            survives(&p);
        }
    }
}
