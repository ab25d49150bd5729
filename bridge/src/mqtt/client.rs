//! One MQTT 5 connection to the broker, as an MCP-over-MQTT client: CONNECT with
//! `MCP-COMPONENT-TYPE: mcp-client` and the client's will, a reader thread turning
//! packets into [`Incoming`] events on a bounded channel, a keep-alive thread, and
//! QoS 0 publishes carrying the two user properties every MCP-over-MQTT PUBLISH has.

use std::io::{self, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use super::wire::{self, Packet, Will};
use super::{topic, DISCONNECTED};

/// Keep-alive announced to the broker, in seconds; a PINGREQ goes every half of it.
pub const KEEP_ALIVE: u16 = 10;

/// Largest packet read from the broker (a device's response or list); a larger one is
/// dropped and noted.
pub const MAX_PACKET: usize = 1 << 20;

/// Events queued between the reader thread and the consumer; when full, the reader
/// waits (and TCP pushes back on the broker).
pub const QUEUE: usize = 1024;

/// How long to wait for the broker to accept a connection or a write.
const IO_TIMEOUT: Duration = Duration::from_secs(5);

/// What the broker sent.
#[derive(Debug)]
pub enum Incoming {
    /// A PUBLISH: topic, payload, the sender's `MCP-MQTT-CLIENT-ID` if it gave one.
    Publish {
        topic: String,
        payload: Vec<u8>,
        sender: Option<String>,
    },
    /// A SUBACK: whether every filter was granted.
    SubAck { id: u16, granted: bool },
    /// The connection ended (why).
    Closed(String),
}

/// Where the broker is, and how to log in to it.
#[derive(Clone)]
pub struct Broker {
    /// HOST:PORT.
    pub addr: String,
    /// A user name and password, for a broker that admits known clients only
    /// (Mosquitto with `allow_anonymous false` and a `password_file`).
    pub login: Option<(String, Vec<u8>)>,
}

impl Broker {
    /// The broker at `addr` (HOST:PORT), without a login.
    pub fn new(addr: String) -> Self {
        Broker { addr, login: None }
    }
}

/// The address alone: the password is never shown.
impl std::fmt::Display for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.addr)
    }
}

/// What a CONNACK's refusal means, for the two a login meets: `": "` and the reason.
fn refusal(reason: u8) -> String {
    emcp::wire::mqtt::refusal_reason(reason).map_or_else(String::new, |why| format!(": {why}"))
}

/// A connected client. Dropping it closes the connection without DISCONNECT (the
/// broker then sends the will).
pub struct Client {
    stream: Mutex<TcpStream>,
    /// This client's id (`mcp-client-id`).
    pub id: String,
    /// `MCP-SERVER-NAME-FILTERS` from CONNACK, when the broker sent it.
    pub name_filters: Option<Vec<String>>,
    next_packet: AtomicU16,
    closed: Arc<AtomicBool>,
}

/// Connects to `broker` as client `id`, with the client's will
/// (`notifications/disconnected` on `$mcp-client/presence/{id}`) and its login.
///
/// # Errors
///
/// The broker could not be reached, or refused the connection (its reason code).
pub fn connect(broker: &Broker, id: &str) -> io::Result<(Arc<Client>, Receiver<Incoming>)> {
    let login = broker
        .login
        .as_ref()
        .map(|(u, p)| (u.as_str(), p.as_slice()));
    let broker = broker.addr.as_str();
    let addrs: Vec<_> = broker.to_socket_addrs()?.collect();
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{broker}: no address"));
    let mut stream = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, IO_TIMEOUT) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e,
        }
    }
    let mut stream = stream.ok_or(last)?;
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    let will = Will {
        topic: topic::client_presence(id),
        payload: DISCONNECTED.as_bytes().to_vec(),
        retain: false,
    };
    let props = vec![("MCP-COMPONENT-TYPE".to_string(), "mcp-client".to_string())];
    stream.write_all(&wire::connect(id, KEEP_ALIVE, &props, Some(&will), login))?;
    let name_filters = match wire::read_packet(&mut stream, MAX_PACKET)? {
        Packet::ConnAck { reason: 0, props } => props
            .iter()
            .find(|(k, _)| k == "MCP-SERVER-NAME-FILTERS")
            .and_then(|(_, v)| serde_json::from_str::<Vec<String>>(v).ok()),
        Packet::ConnAck { reason, .. } => {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionRefused,
                format!(
                    "{broker} refused the connection (reason {reason:#04x}{})",
                    refusal(reason)
                ),
            ))
        }
        other => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{broker} answered CONNECT with {other:?}"),
            ))
        }
    };
    // The broker answers a PINGREQ every KEEP_ALIVE/2: silence for twice KEEP_ALIVE
    // means it is gone.
    stream.set_read_timeout(Some(Duration::from_secs(2 * u64::from(KEEP_ALIVE))))?;
    let reader = stream.try_clone()?;
    let closed = Arc::new(AtomicBool::new(false));
    let client = Arc::new(Client {
        stream: Mutex::new(stream),
        id: id.to_string(),
        name_filters,
        next_packet: AtomicU16::new(1),
        closed: Arc::clone(&closed),
    });
    let (tx, rx) = mpsc::sync_channel(QUEUE);
    thread::spawn(move || read_loop(reader, &tx));
    let pinger = Arc::downgrade(&client);
    thread::spawn(move || loop {
        thread::sleep(Duration::from_secs(u64::from(KEEP_ALIVE / 2)));
        match pinger.upgrade() {
            Some(c) if !c.closed.load(Ordering::Acquire) => {
                if c.send(&wire::ping()).is_err() {
                    return;
                }
            }
            _ => return,
        }
    });
    Ok((client, rx))
}

fn read_loop(mut stream: TcpStream, tx: &SyncSender<Incoming>) {
    let why = loop {
        let event = match wire::read_packet(&mut stream, MAX_PACKET) {
            Ok(Packet::Publish {
                topic,
                payload,
                props,
                ..
            }) => Incoming::Publish {
                topic,
                payload,
                sender: props
                    .into_iter()
                    .find(|(k, _)| k == "MCP-MQTT-CLIENT-ID")
                    .map(|(_, v)| v),
            },
            Ok(Packet::SubAck { id, reasons }) => Incoming::SubAck {
                id,
                granted: reasons.iter().all(|r| *r < 0x80),
            },
            Ok(Packet::Disconnect(reason)) => {
                break format!("the broker disconnected (reason {reason:#04x})")
            }
            Ok(Packet::TooLarge(kind)) => {
                eprintln!(
                    "emcp-bridge: an MQTT packet (type {kind}) over {MAX_PACKET} bytes was dropped"
                );
                continue;
            }
            Ok(_) => continue,
            Err(e) => break format!("broker connection lost: {e}"),
        };
        if tx.send(event).is_err() {
            return;
        }
    };
    let _ = stream.shutdown(Shutdown::Both);
    let _ = tx.send(Incoming::Closed(why));
}

impl Client {
    fn send(&self, bytes: &[u8]) -> io::Result<()> {
        let mut s = self.stream.lock().unwrap_or_else(|p| p.into_inner());
        s.write_all(bytes)
    }

    /// Publishes `payload` at QoS 0 with `MCP-COMPONENT-TYPE` and `MCP-MQTT-CLIENT-ID`.
    ///
    /// # Errors
    ///
    /// The connection failed.
    pub fn publish(&self, topic: &str, payload: &[u8]) -> io::Result<()> {
        let props = [
            ("MCP-COMPONENT-TYPE".to_string(), "mcp-client".to_string()),
            ("MCP-MQTT-CLIENT-ID".to_string(), self.id.clone()),
        ];
        self.send(&wire::publish(topic, payload, false, &props))
    }

    /// Subscribes to `filter` (No Local); returns the packet id its SUBACK will carry.
    ///
    /// # Errors
    ///
    /// The connection failed.
    pub fn subscribe(&self, filter: &str) -> io::Result<u16> {
        let id = self.next_packet.fetch_add(1, Ordering::Relaxed).max(1);
        self.send(&wire::subscribe(id, filter, true))?;
        Ok(id)
    }

    /// Says goodbye (`notifications/disconnected` on the client's presence topic,
    /// then DISCONNECT) and closes the connection.
    pub fn close(&self) {
        if !self.closed.swap(true, Ordering::AcqRel) {
            let _ = self.publish(&topic::client_presence(&self.id), DISCONNECTED.as_bytes());
            let _ = self.send(&wire::disconnect());
        }
        let s = self.stream.lock().unwrap_or_else(|p| p.into_inner());
        let _ = s.shutdown(Shutdown::Both);
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        let s = self.stream.lock().unwrap_or_else(|p| p.into_inner());
        let _ = s.shutdown(Shutdown::Both);
    }
}
