//! One device by server name, as a [`Link`]: `open` connects to the broker with a
//! fresh client id, subscribes (the client's RPC topics, the name's capability and
//! presence topics) and waits for an instance online; the connection then carries
//! host lines to the device (`initialize` on the control topic, everything else on
//! the RPC topic) and the device's RPC and capability messages back as lines. It ends
//! when that instance's presence changes (empty: its will or shutdown; a new online
//! notification: it restarted and forgot the session), when the device sends
//! `notifications/disconnected`, or when the broker goes; the relay then answers what
//! was in flight and replays the host's session on the next instance.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::client::{self, Broker, Client, Incoming};
use super::topic::{self, Parsed};
use super::{new_client_id, one_line, LineWriter, DISCONNECTED};
use crate::link::{Connection, Link};
use crate::message::Message;

/// How long `open` waits for the subscriptions and an online instance.
const FIND: Duration = Duration::from_secs(3);

/// How long `open` waits for the answer to its opening `server/discover`.
const OPENING: Duration = Duration::from_millis(1500);

/// The id of the link's opening request.
const OPENING_ID: &str = "\"emcp-bridge/mqtt/open\"";

/// Longest line taken from the host side (the pump's bound).
const MAX_LINE: usize = crate::pump::MAX_LINE;

/// The device named `name` behind the broker at `broker`.
pub struct MqttDevice {
    broker: Broker,
    name: String,
    current: Option<(Arc<Client>, String)>,
}

impl MqttDevice {
    /// The device whose server name is `name` (exact), at `broker`.
    pub fn new(broker: Broker, name: String) -> Self {
        MqttDevice {
            broker,
            name,
            current: None,
        }
    }
}

impl Link for MqttDevice {
    fn open(&mut self) -> io::Result<Connection> {
        let id = new_client_id();
        let (client, rx) = client::connect(&self.broker, &id)?;
        let filters = [
            topic::rpc_filter(&id),
            topic::capability_filter(&self.name),
            topic::presence_filter(&self.name),
        ];
        let mut waiting = Vec::new();
        for f in &filters {
            waiting.push(client.subscribe(f)?);
        }
        let deadline = Instant::now() + FIND;
        let mut sid = None;
        while !waiting.is_empty() || sid.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = match rx.recv_timeout(left) {
                Ok(e) => e,
                Err(RecvTimeoutError::Timeout) => {
                    client.close();
                    let what = if waiting.is_empty() {
                        format!("no device named {} online", self.name)
                    } else {
                        "the broker did not acknowledge the subscriptions".to_string()
                    };
                    return Err(io::Error::new(io::ErrorKind::NotFound, what));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "broker gone"))
                }
            };
            match event {
                Incoming::SubAck { id, granted } => {
                    if !granted {
                        client.close();
                        return Err(io::Error::new(
                            io::ErrorKind::PermissionDenied,
                            "the broker refused a subscription",
                        ));
                    }
                    waiting.retain(|w| *w != id);
                }
                Incoming::Publish { topic, payload, .. } => {
                    if let Some(Parsed::Presence { sid: s, name }) = topic::parse(&topic) {
                        if name == self.name && online(&payload) {
                            sid = Some(s.to_string());
                        } else if name == self.name && sid.as_deref() == Some(s) {
                            sid = None; // went away while we looked
                        }
                    }
                }
                Incoming::Closed(why) => {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, why))
                }
            }
        }
        let sid = sid.unwrap_or_default();
        eprintln!("emcp-bridge: MQTT device {} is server {sid}", self.name);
        if !open_session(&client, &rx, &sid, &self.name) {
            eprintln!(
                "emcp-bridge: MQTT device {} did not answer server/discover: its RPC topic opens with the host's initialize",
                self.name
            );
        }
        self.current = Some((Arc::clone(&client), sid.clone()));
        Ok(Connection {
            reader: Box::new(Lines {
                rx,
                sid: sid.clone(),
                name: self.name.clone(),
                client_id: id,
                pending: Vec::new(),
                at: 0,
            }),
            writer: {
                let name = self.name.clone();
                Box::new(LineWriter::new(MAX_LINE, move |line: &[u8]| {
                    send_line(&client, &sid, &name, line)
                }))
            },
        })
    }

    fn close(&mut self) {
        if let Some((client, sid)) = self.current.take() {
            let _ = client.publish(
                &topic::rpc(&client.id, &sid, &self.name),
                DISCONNECTED.as_bytes(),
            );
            client.close();
        }
    }

    fn describe(&self) -> String {
        format!("MQTT device {} at {}", self.name, self.broker)
    }
}

/// Opens the client's RPC topics on the device before any host line: over MQTT only a
/// request on the control topic does (the device subscribes the client's topics, then
/// answers), and a host may start with anything — a 2026-07-28 request, a ping, a
/// malformed line — that would otherwise go to a topic nobody hears. emcp devices
/// take `server/discover` as that opening (it sets no era: a later `initialize`
/// starts a session as usual); a device that ignores it (the specification's
/// servers open only on `initialize`) is left to the host's own `initialize`. True
/// when the device answered; other messages meanwhile are dropped (none can be
/// for this client yet).
fn open_session(client: &Client, rx: &Receiver<Incoming>, sid: &str, name: &str) -> bool {
    let opening = format!(
        r#"{{"jsonrpc":"2.0","id":{OPENING_ID},"method":"server/discover","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    if client
        .publish(&topic::control(sid, name), opening.as_bytes())
        .is_err()
    {
        return false;
    }
    let deadline = Instant::now() + OPENING;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(Incoming::Publish { topic, payload, .. }) = rx.recv_timeout(left) else {
            return false;
        };
        if let Some(Parsed::Rpc { sid: s, .. }) = topic::parse(&topic) {
            if s == sid
                && Message::parse(&payload).is_some_and(|m| m.id.as_deref() == Some(OPENING_ID))
            {
                return true;
            }
        }
    }
}

/// An online notification (anything but an empty retained message).
pub fn online(payload: &[u8]) -> bool {
    !payload.is_empty()
        && Message::parse(payload).is_some_and(|m| m.method() == "notifications/server/online")
}

/// The device's messages as lines; end of stream when it is gone.
struct Lines {
    rx: Receiver<Incoming>,
    sid: String,
    name: String,
    client_id: String,
    pending: Vec<u8>,
    at: usize,
}

impl Read for Lines {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.pending.len() {
            let Ok(event) = self.rx.recv() else {
                return Ok(0);
            };
            let (topic, payload) = match event {
                Incoming::Publish { topic, payload, .. } => (topic, payload),
                Incoming::Closed(why) => {
                    eprintln!("emcp-bridge: {why}");
                    return Ok(0);
                }
                Incoming::SubAck { .. } => continue,
            };
            match topic::parse(&topic) {
                Some(Parsed::Presence { sid, name }) if sid == self.sid && name == self.name => {
                    let why = if payload.is_empty() {
                        "went offline"
                    } else {
                        "restarted"
                    };
                    eprintln!(
                        "emcp-bridge: MQTT device {} ({}) {why}",
                        self.name, self.sid
                    );
                    return Ok(0);
                }
                Some(Parsed::Rpc { client, sid, .. })
                    if client == self.client_id && sid == self.sid =>
                {
                    if Message::parse(&payload)
                        .is_some_and(|m| m.method() == "notifications/disconnected")
                    {
                        eprintln!("emcp-bridge: MQTT device {} dropped the session", self.name);
                        return Ok(0);
                    }
                }
                Some(Parsed::Capability { sid, .. }) if sid == self.sid => {}
                _ => continue,
            }
            self.pending = one_line(&payload);
            self.at = 0;
        }
        let rest = self.pending.get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// Publishes one host line: `initialize` on the control topic, the rest on the RPC
/// topic.
fn send_line(client: &Client, sid: &str, name: &str, line: &[u8]) -> io::Result<()> {
    let is_initialize = Message::parse(line).is_some_and(|m| m.method() == "initialize");
    let topic = if is_initialize {
        topic::control(sid, name)
    } else {
        topic::rpc(&client.id, sid, name)
    };
    client.publish(&topic, line)
}
