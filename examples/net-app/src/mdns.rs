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
//! # Why a responder of our own
//!
//! The messages are read and written by [`wire`], a few hundred lines with no
//! panic path: every read is bounds-checked, a name follows at most 16 compression
//! pointers, each pointing before itself, and every write checks its room. The
//! responder crate that fits the versions here, `edge-mdns` 0.8 (over the `domain`
//! crate; it builds with embassy-net 0.9 and without alloc), was tried first and
//! left for three reasons: linked into the image, `domain`'s builder and
//! `edge-mdns`' visitors put calls that can reach a panic into this crate's own
//! functions once inlined (5 call sites, where the application's own code has
//! none, which CI checks on the boards' images), besides 20 in `domain` and
//! `edge-mdns`; its handler ignores the question's type and adds every `SRV`,
//! `TXT` and `A` to every answer (246 bytes for one `A` question, about 40 here),
//! which doubled the buffers an image that is short of RAM must give it; and its
//! I/O loop (`edge_mdns::io`, with `edge-nal-embassy`) returns on the first send
//! error and takes its sockets from a pool of its own beside the stack's. Here a
//! sans-IO [`Responder`] turns a datagram into the datagram to send back, and a
//! small loop over one of the stack's UDP sockets ([`SOCKETS`]) drops what it
//! cannot answer and goes on.
//!
//! # Limits and non-features
//!
//! - A query over [`QUERY`] bytes is dropped by the stack; an answer that would
//!   not fit [`ANSWER`] bytes (a one-shot query with many questions) is not sent.
//! - No probing for name conflicts (RFC 6762 §8.1): the name is the configured one;
//!   two devices configured alike answer alike.
//! - Memory: the task's future holds the socket's rings and the answer buffer
//!   ([`QUERY`] + 2 × [`ANSWER`] bytes).
//! - No known-answer suppression and no goodbye (TTL 0) records; IPv4 only.
//! - The revisions listed are those of emcp's default build (both eras).
// No panic path of its own: what a hostile network sends must not stop the device.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use core::net::Ipv4Addr;

use embassy_executor::Spawner;
use embassy_futures::select::{select, Either};
use embassy_net::udp::{PacketMetadata, UdpSocket};
use embassy_net::{IpAddress, IpEndpoint, Stack};
use embassy_time::{Duration, Instant, Timer};
use emcp::wire::version::{LEGACY, STATELESS};

use crate::fmt::{log_info, log_warn};
use crate::{Config, StartError};

mod wire;

pub use wire::Error;
use wire::{Header, Name, Writer, HEADER};

/// The mDNS port.
pub const PORT: u16 = 5353;
/// The IPv4 mDNS group.
pub const GROUP: Ipv4Addr = Ipv4Addr::new(224, 0, 0, 251);
/// The largest query read, in bytes (DNS's classic limit): the socket's receive
/// ring holds one; a larger one (a long known-answer list) is dropped by the
/// stack.
pub const QUERY: usize = 512;
/// The largest answer sent, in bytes: the announcement, every record at once, is
/// 203 + 2 × the name's length (329 for the longest name); a one-shot query's
/// answer also echoes its questions.
pub const ANSWER: usize = 384;
/// The service type advertised (`_mcp._tcp`): its first label.
pub const SERVICE: &str = "_mcp";
/// The service type's protocol label.
pub const PROTOCOL: &str = "_tcp";
/// The HTTP path MCP is served at (TXT `path`).
pub const PATH: &str = "/mcp";
/// How long a resolver may cache the records (RFC 6762 §10: 120 s for records that
/// name a host or its address).
const TTL_SECS: u32 = 120;
/// Announcements per address, one second apart (RFC 6762 §8.3: at least two).
const ANNOUNCEMENTS: u8 = 2;

/// Every revision emcp speaks, newest first, comma-separated: TXT `protocols`.
#[allow(clippy::panic)] // evaluated at compile time
pub const PROTOCOLS: &str = match core::str::from_utf8(&PROTOCOL_BYTES) {
    Ok(text) => text,
    Err(_) => panic!("revision strings are ASCII"),
};

/// The TXT record's keys and values.
pub const TXT: &[(&str, &str)] = &[("path", PATH), ("protocols", PROTOCOLS)];

/// A revision string's length (`YYYY-MM-DD`).
const REVISION_LEN: usize = 10;
const REVISIONS: usize = STATELESS.len() + LEGACY.len();
#[allow(clippy::indexing_slicing)] // evaluated at compile time
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
    ///
    /// A question is answered with the records of its name and type (all of its
    /// name's for `ANY`), each once; the additional section adds what the answers
    /// point at, unless answered (RFC 6763 §12). A query from a port other than 5353
    /// (a one-shot resolver, RFC 6762 §6.7) gets its id and questions back, and no
    /// cache-flush bits. At most [`MAX_QUESTIONS`] questions are read.
    pub fn answer(
        &self,
        address: Option<Ipv4Addr>,
        query: &[u8],
        source_port: u16,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let header = Header::read(query).ok_or(Error::Malformed)?;
        if !header.is_query() {
            return Ok(0);
        }
        let questions = usize::from(header.questions).min(MAX_QUESTIONS);
        let mut asked = Set::NONE;
        let mut at = HEADER;
        for _ in 0..questions {
            let (name, end) = Name::read(query, at).ok_or(Error::Malformed)?;
            let qtype = wire::u16_at(query, end).ok_or(Error::Malformed)?;
            wire::u16_at(query, end.saturating_add(2)).ok_or(Error::Malformed)?;
            at = end.saturating_add(4);
            asked = asked.with(self.asked(&name, qtype));
        }
        if address.is_none() {
            asked = asked.without(Set::A);
        }
        if asked == Set::NONE {
            return Ok(0);
        }
        let mut additional = asked.wanted().without(asked);
        if address.is_none() {
            additional = additional.without(Set::A);
        }
        let legacy = source_port != PORT;
        let mut w = Writer::new(out);
        let echoed = if legacy { questions } else { 0 };
        header_of(&mut w, if legacy { header.id } else { 0 }, echoed)?;
        if legacy {
            let mut at = HEADER;
            for _ in 0..questions {
                let (name, end) = Name::read(query, at).ok_or(Error::Malformed)?;
                w.put(name.wire())?;
                w.put(&[0])?;
                w.put(
                    query
                        .get(end..end.saturating_add(4))
                        .ok_or(Error::Malformed)?,
                )?;
                at = end.saturating_add(4);
            }
        }
        let mut names = Names::default();
        let answers = self.records(&mut w, &mut names, asked, address, !legacy)?;
        let more = self.records(&mut w, &mut names, additional, address, !legacy)?;
        w.set_u16(6, answers)?;
        w.set_u16(10, more)?;
        Ok(w.finish())
    }

    /// Every record, unsolicited (an announcement), written into `out`: its
    /// length, or an error when it would not fit.
    pub fn announcement(&self, address: Ipv4Addr, out: &mut [u8]) -> Result<usize, Error> {
        let mut w = Writer::new(out);
        header_of(&mut w, 0, 0)?;
        let count = self.records(&mut w, &mut Names::default(), Set::ALL, Some(address), true)?;
        w.set_u16(6, count)?;
        Ok(w.finish())
    }

    /// The records of ours question `name`, `qtype` asks for.
    fn asked(&self, name: &Name, qtype: u16) -> Set {
        let any = qtype == wire::TYPE_ANY;
        let mut asked = Set::NONE;
        if name.is(&[self.name, LOCAL]) && (any || qtype == wire::TYPE_A) {
            asked = asked.with(Set::A);
        }
        if name.is(&[self.name, SERVICE, PROTOCOL, LOCAL]) {
            if any || qtype == wire::TYPE_SRV {
                asked = asked.with(Set::SRV);
            }
            if any || qtype == wire::TYPE_TXT {
                asked = asked.with(Set::TXT);
            }
        }
        if any || qtype == wire::TYPE_PTR {
            if name.is(&[SERVICE, PROTOCOL, LOCAL]) {
                asked = asked.with(Set::SERVICE);
            }
            if name.is(&ENUMERATION) {
                asked = asked.with(Set::ENUMERATION);
            }
        }
        asked
    }

    /// Write the records in `set` (the `A` record only with an `address`); how many.
    /// `flush`: set the cache-flush bit on the records only this device has.
    fn records(
        &self,
        w: &mut Writer<'_>,
        names: &mut Names,
        set: Set,
        address: Option<Ipv4Addr>,
        flush: bool,
    ) -> Result<u16, Error> {
        let mut count = 0;
        let unique = if flush { wire::CACHE_FLUSH } else { 0 };
        if set.has(Set::SERVICE) {
            self.record(w, names, Owner::Service, wire::TYPE_PTR, 0, |w, names| {
                self.name(w, names, Owner::Instance)
            })?;
            count += 1;
        }
        if set.has(Set::ENUMERATION) {
            self.record(
                w,
                names,
                Owner::Enumeration,
                wire::TYPE_PTR,
                0,
                |w, names| self.name(w, names, Owner::Service),
            )?;
            count += 1;
        }
        if set.has(Set::SRV) {
            self.record(
                w,
                names,
                Owner::Instance,
                wire::TYPE_SRV,
                unique,
                |w, names| {
                    w.u16(0)?; // priority
                    w.u16(0)?; // weight
                    w.u16(self.port)?;
                    self.name(w, names, Owner::Host)
                },
            )?;
            count += 1;
        }
        if set.has(Set::TXT) {
            self.record(w, names, Owner::Instance, wire::TYPE_TXT, unique, |w, _| {
                for (key, value) in TXT {
                    let len = key.len().saturating_add(1).saturating_add(value.len());
                    w.put(&[u8::try_from(len).map_err(|_| Error::Full)?])?;
                    w.put(key.as_bytes())?;
                    w.put(b"=")?;
                    w.put(value.as_bytes())?;
                }
                Ok(())
            })?;
            count += 1;
        }
        if let (true, Some(address)) = (set.has(Set::A), address) {
            self.record(w, names, Owner::Host, wire::TYPE_A, unique, |w, _| {
                w.put(&address.octets())
            })?;
            count += 1;
        }
        Ok(count)
    }

    /// One record: its owner, type, class (IN, with `class_bits`), TTL and the data
    /// `data` writes.
    fn record(
        &self,
        w: &mut Writer<'_>,
        names: &mut Names,
        owner: Owner,
        rtype: u16,
        class_bits: u16,
        data: impl FnOnce(&mut Writer<'_>, &mut Names) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.name(w, names, owner)?;
        w.u16(rtype)?;
        w.u16(wire::CLASS_IN | class_bits)?;
        w.u32(TTL_SECS)?;
        let length_at = w.len();
        w.u16(0)?;
        data(w, names)?;
        let length = w.len().saturating_sub(length_at.saturating_add(2));
        w.set_u16(length_at, u16::try_from(length).map_err(|_| Error::Full)?)
    }

    /// One of our names, compressed against those written before in this message
    /// (RFC 1035 §4.1.4): `NAME._mcp._tcp.local` is `NAME` and a pointer to
    /// `_mcp._tcp.local`, which points at `local`.
    fn name(&self, w: &mut Writer<'_>, names: &mut Names, owner: Owner) -> Result<(), Error> {
        let (written, prefix, suffix): (&mut Option<usize>, &[&str], Option<Owner>) = match owner {
            Owner::Host => (&mut names.host, &[self.name], Some(Owner::Local)),
            Owner::Instance => (&mut names.instance, &[self.name], Some(Owner::Service)),
            Owner::Service => (&mut names.service, &[SERVICE, PROTOCOL], Some(Owner::Local)),
            Owner::Enumeration => (
                &mut names.enumeration,
                &ENUMERATION_PREFIX,
                Some(Owner::Local),
            ),
            Owner::Local => (&mut names.local, &[LOCAL], None),
        };
        if let Some(at) = *written {
            return w.pointer(at);
        }
        *written = Some(w.len());
        for label in prefix {
            w.label(label)?;
        }
        match suffix {
            Some(suffix) => self.name(w, names, suffix),
            None => w.put(&[0]),
        }
    }
}

/// The questions of one query read and answered (a query may carry more; they are
/// not read).
pub const MAX_QUESTIONS: usize = 16;

/// The top label of every name answered.
const LOCAL: &str = "local";
/// The service type enumeration's name (RFC 6763 §9), and all of it but `local`.
const ENUMERATION: [&str; 4] = ["_services", "_dns-sd", "_udp", LOCAL];
const ENUMERATION_PREFIX: [&str; 3] = ["_services", "_dns-sd", "_udp"];

/// An answer's header: `id`, the answer flags, `questions` echoed; the record
/// counts are written once known.
fn header_of(w: &mut Writer<'_>, id: u16, questions: usize) -> Result<(), Error> {
    w.u16(id)?;
    w.u16(wire::FLAGS_ANSWER)?;
    w.u16(u16::try_from(questions).map_err(|_| Error::Full)?)?;
    w.u16(0)?; // answers
    w.u16(0)?; // authority
    w.u16(0) // additional
}

/// The names a message can hold, for compression.
#[derive(Clone, Copy, Debug)]
enum Owner {
    /// `NAME.local`
    Host,
    /// `NAME._mcp._tcp.local`
    Instance,
    /// `_mcp._tcp.local`
    Service,
    /// `_services._dns-sd._udp.local`
    Enumeration,
    /// `local`
    Local,
}

/// Where each name was first written in a message.
#[derive(Clone, Copy, Debug, Default)]
struct Names {
    host: Option<usize>,
    instance: Option<usize>,
    service: Option<usize>,
    enumeration: Option<usize>,
    local: Option<usize>,
}

/// A set of the device's records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Set(u8);

impl Set {
    const NONE: Set = Set(0);
    /// `_mcp._tcp.local PTR NAME._mcp._tcp.local`
    const SERVICE: Set = Set(1);
    /// `_services._dns-sd._udp.local PTR _mcp._tcp.local`
    const ENUMERATION: Set = Set(2);
    /// `NAME._mcp._tcp.local SRV 0 0 PORT NAME.local`
    const SRV: Set = Set(4);
    /// `NAME._mcp._tcp.local TXT path=/mcp protocols=…`
    const TXT: Set = Set(8);
    /// `NAME.local A ADDRESS`
    const A: Set = Set(16);
    const ALL: Set = Set(31);

    fn has(self, other: Set) -> bool {
        self.0 & other.0 == other.0
    }

    fn with(self, other: Set) -> Set {
        Set(self.0 | other.0)
    }

    fn without(self, other: Set) -> Set {
        Set(self.0 & !other.0)
    }

    /// What these records point at: the instance's SRV, TXT and the address for
    /// the service's PTR, the address for an SRV.
    fn wanted(self) -> Set {
        let mut wanted = Set::NONE;
        if self.has(Set::SERVICE) {
            wanted = wanted.with(Set::SRV).with(Set::TXT).with(Set::A);
        }
        if self.has(Set::SRV) {
            wanted = wanted.with(Set::A);
        }
        wanted
    }
}

/// Whether `name` is one host name label: 1 to 63 letters, digits and hyphens (a
/// longer label cannot be written on the wire).
pub const fn is_host_label(name: &[u8]) -> bool {
    if name.is_empty() || name.len() > 63 {
        return false;
    }
    let mut rest = name;
    while let [byte, tail @ ..] = rest {
        if !(byte.is_ascii_alphanumeric() || *byte == b'-') {
            return false;
        }
        rest = tail;
    }
    true
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

    let mut announcer = Announcer::new();
    loop {
        let address = stack.config_v4().map(|c| c.address.address());
        let now = Instant::now();
        if let Some(address) = announcer.due(address, now) {
            if let Ok(len) = responder.announcement(address, &mut out) {
                send(&mut socket, out.get(..len), group).await;
            }
        }
        let wait = Timer::at(announcer.wake(now));
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

/// When to announce: [`ANNOUNCEMENTS`] times, a second apart, whenever the stack's
/// address becomes a new one. Sans-IO: the loop tells it the address and the time.
#[derive(Clone, Copy, Debug)]
struct Announcer {
    /// The address announced last (or being announced), if any.
    address: Option<Ipv4Addr>,
    /// Announcements still to send for it.
    left: u8,
    /// When the next one is due.
    next: Instant,
}

impl Announcer {
    const fn new() -> Self {
        Announcer {
            address: None,
            left: 0,
            next: Instant::from_ticks(0),
        }
    }

    /// The address to announce at `now`, if an announcement is due; `address`: the
    /// stack's.
    fn due(&mut self, address: Option<Ipv4Addr>, now: Instant) -> Option<Ipv4Addr> {
        if address != self.address {
            self.address = address;
            self.left = if address.is_some() { ANNOUNCEMENTS } else { 0 };
            self.next = now;
        }
        let address = address.filter(|_| self.left > 0 && now >= self.next)?;
        self.left -= 1;
        self.next = later(now, ANNOUNCE_GAP);
        Some(address)
    }

    /// When to look again: at the next announcement, else in [`ANNOUNCE_GAP`] (the
    /// address is read that often).
    fn wake(&self, now: Instant) -> Instant {
        if self.left > 0 {
            self.next
        } else {
            later(now, ANNOUNCE_GAP)
        }
    }
}

/// The time between announcements, and between two looks at the address.
const ANNOUNCE_GAP: Duration = Duration::from_secs(1);

/// `now + by`, or the end of time (no overflow check that could panic).
fn later(now: Instant, by: Duration) -> Instant {
    now.checked_add(by).unwrap_or(Instant::MAX)
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
#[allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    extern crate std;

    use std::format;
    use std::string::String;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    use domain::base::{Message, ParsedName, RecordSection};
    use domain::rdata::AllRecordData;

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

    /// The id, then the answer and additional records of `message`, one line each
    /// (`flush` after a record with the cache-flush bit).
    fn records(message: &[u8]) -> (u16, Vec<String>, Vec<String>) {
        let message = Message::from_octets(message).expect("a message");
        let lines = |section: RecordSection<'_, &[u8]>| {
            section
                .limit_to::<AllRecordData<&[u8], ParsedName<&[u8]>>>()
                .map(|r| {
                    let r = r.expect("a record");
                    let class = r.class().to_int();
                    let flush = if class & 0x8000 != 0 { " flush" } else { "" };
                    assert_eq!(class & 0x7fff, 1, "class IN");
                    format!(
                        "{} {} {} {}{flush}",
                        r.owner(),
                        r.ttl().as_secs(),
                        r.rtype(),
                        r.data()
                    )
                })
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

    // (domain prints an owner name and an SRV target without their final dot.)
    const A: &str = "valve.local 120 A 192.168.7.50 flush";
    const SRV: &str = "valve._mcp._tcp.local 120 SRV 0 0 80 valve.local flush";
    const TXT_LINE: &str = "valve._mcp._tcp.local 120 TXT \"path=/mcp\" \
        \"protocols=2026-07-28,2025-11-25,2025-06-18,2025-03-26,2024-11-05\" flush";
    const PTR: &str = "_mcp._tcp.local 120 PTR valve._mcp._tcp.local.";
    const ENUM: &str = "_services._dns-sd._udp.local 120 PTR _mcp._tcp.local.";

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
        assert_eq!(additional, [SRV, TXT_LINE, A]);
    }

    #[test]
    fn host_name_is_the_current_address() {
        let q = query(0, &[("VALVE.local", 1)], true);
        let (_, answers, additional) = records(&answer(Some(ADDRESS), &q, PORT).expect("a reply"));
        assert_eq!(answers, [A]);
        assert!(additional.is_empty(), "{additional:?}");
        let moved = Ipv4Addr::new(10, 1, 2, 3);
        let (_, answers, _) = records(&answer(Some(moved), &q, PORT).expect("a reply"));
        assert_eq!(answers, ["valve.local 120 A 10.1.2.3 flush"]);
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
        let (_, answers, additional) = records(&reply);
        assert_eq!(
            answers,
            ["valve.local 120 A 192.168.7.50"],
            "no cache-flush bit"
        );
        assert!(additional.is_empty(), "{additional:?}");
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

    /// At most `MAX_QUESTIONS` questions are read (and echoed to a one-shot query);
    /// an answer that cannot fit is refused, not truncated or overrun.
    #[test]
    fn many_questions_and_small_buffers() {
        let q = query(5, &[("_mcp._tcp.local", 12); 60], false);
        let mut out = [0; 1024];
        let len = responder()
            .answer(Some(ADDRESS), &q, 40000, &mut out)
            .expect("answered");
        let reply = out[..len].to_vec();
        let result = responder().answer(Some(ADDRESS), &q, 40000, &mut [0; ANSWER]);
        assert_eq!(
            result,
            Err(Error::Full),
            "16 questions echoed do not fit ANSWER"
        );
        let message = Message::from_octets(reply.as_slice()).expect("a message");
        assert_eq!(
            usize::from(message.header_counts().qdcount()),
            MAX_QUESTIONS
        );
        let (_, answers, additional) = records(&reply);
        assert_eq!(
            (answers.len(), additional.len()),
            (1, 3),
            "asked 60 times, answered once"
        );
        for size in [0, 11, 12, 40, 100, 150] {
            let mut small = std::vec![0; size];
            let result = responder().answer(Some(ADDRESS), &q, PORT, &mut small);
            assert_eq!(result, Err(Error::Full), "{size} bytes");
            let result = responder().announcement(ADDRESS, &mut small);
            assert_eq!(result, Err(Error::Full), "{size} bytes");
        }
    }

    /// The longest name still fits: its announcement is within `ANSWER`.
    #[test]
    fn longest_name_fits() {
        let name: &'static str = std::boxed::Box::leak("n".repeat(63).into_boxed_str());
        let responder = Responder::new(name, 80).expect("a host name");
        let mut out = [0; ANSWER];
        let len = responder.announcement(ADDRESS, &mut out).expect("fits");
        let (_, answers, _) = records(&out[..len]);
        assert_eq!(answers.len(), 5);
        // Browsing and resolving at once, to the group; the address alone, one-shot.
        let instance = std::format!("{name}._mcp._tcp.local");
        let q = query(1, &[("_mcp._tcp.local", 12), (&instance, 255)], false);
        let len = responder.answer(Some(ADDRESS), &q, PORT, &mut out);
        assert!(len.is_ok_and(|n| n > 0), "{len:?}");
        let host = std::format!("{name}.local");
        let q = query(1, &[(&host, 1)], false);
        let len = responder.answer(Some(ADDRESS), &q, 40000, &mut out);
        assert!(len.is_ok_and(|n| n > 0), "{len:?}");
    }

    #[test]
    fn announced_twice_per_new_address() {
        let at = |ms| Instant::from_millis(ms);
        let b = Ipv4Addr::new(10, 0, 0, 9);
        let mut a = Announcer::new();
        assert_eq!(a.due(None, at(0)), None, "no address: nothing");
        assert_eq!(a.wake(at(0)), at(1000));
        assert_eq!(a.due(Some(ADDRESS), at(1000)), Some(ADDRESS), "at once");
        assert_eq!(a.wake(at(1000)), at(2000));
        assert_eq!(a.due(Some(ADDRESS), at(1500)), None);
        assert_eq!(
            a.due(Some(ADDRESS), at(2000)),
            Some(ADDRESS),
            "a second later"
        );
        assert_eq!(a.due(Some(ADDRESS), at(9000)), None, "twice only");
        assert_eq!(a.due(Some(b), at(9100)), Some(b), "a new lease: again");
        assert_eq!(a.due(None, at(9200)), None);
        assert_eq!(a.due(Some(b), at(9300)), Some(b), "lost and back: again");
        assert_eq!(a.due(Some(b), Instant::MAX), Some(b));
        assert_eq!(a.wake(Instant::MAX), Instant::MAX, "no overflow");
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
                    // Well-formed to another parser, every record of it.
                    let (_, answers, _) = records(&out[..len]);
                    assert!(!answers.is_empty());
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
