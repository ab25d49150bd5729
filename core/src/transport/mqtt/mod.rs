//! MCP over MQTT 5 (cargo feature `mqtt`): the device as an MCP server on a broker,
//! as EMQX's "MCP over MQTT" specifies it, over one `embedded-io-async` connection
//! to the broker (an `embassy-net` TCP socket, a `std` TCP stream).
//!
//! [`serve_mqtt`] connects (CONNECT: client id = the server id, clean start, session
//! expiry 0, `MCP-COMPONENT-TYPE: mcp-server`, `MCP-META` with its `serverName` and
//! `description`, a will that empties the retained presence), adopts the server name
//! the broker suggests in its CONNACK (`MCP-SERVER-NAME`: a name other than the one
//! it connected with ends that connection with [`MqttError::Renamed`], and the next
//! connects under it, so that its will names the right presence topic), subscribes
//! to its control topic, publishes its retained online notification, then serves
//! until the link ends. Call it again on a new
//! connection to reconnect: every client session is forgotten and the presence
//! published again (the specification's rule after any reconnect).
//!
//! | topic | what the device does |
//! |---|---|
//! | `$mcp-server/presence/{id}/{name}` | publishes, retained: `notifications/server/online` with `server_name`, `description` and `meta.tools` (the device's tools as `tools/list` lists them: EMQX's MCP bridge reads them from there); its will empties it |
//! | `$mcp-server/{id}/{name}` (control) | takes `initialize` (and `server/discover`) with the sender's client id from the `MCP-MQTT-CLIENT-ID` user property; a message without it is ignored, as the specification says |
//! | `$mcp-rpc/{client}/{id}/{name}` | subscribed (No Local) when that client's session opens; every request, response and notification of the session; answers go back on it |
//! | `$mcp-client/presence/{client}` | subscribed with the session: the client's `notifications/disconnected` (or its will) ends the session |
//! | `$mcp-client/capability/{client}` | subscribed with the session (`roots/list_changed`: nothing to do) |
//! | `$mcp-server/capability/{id}/{name}` | publishes change notifications (`notifications/resources/updated`) |
//!
//! Every PUBLISH carries `MCP-COMPONENT-TYPE: mcp-server` and `MCP-MQTT-CLIENT-ID`
//! (the server id). QoS 0 out; in, QoS 0, 1 and 2 are acknowledged (the device
//! subscribes at QoS 0, so a broker sends none above it).
//!
//! **Sessions.** At most `S` clients at once ([`Mqtt<S>`](Mqtt)), each with its own
//! [`Session`]: its own era, negotiated version, log level and input capabilities,
//! swapped into the one [`Server`](crate::Server) for that client's messages. An
//! `initialize` (or `server/discover`) from a client with a session starts it afresh.
//! Resource subscriptions are the server's, shared: their notifications go to the
//! capability topic, where every client hears them. A long tool call (a pending job) is
//! continued at every tick and its progress and answer go to its client's RPC topic; at
//! most [`MAX_JOBS`] at once are followed (one more is answered -32603 and cancelled).
//!
//! **Eviction.** A session ends with its client's `notifications/disconnected` or will;
//! a client whose will is lost (its broker crashed, a bridge partitioned) never sends
//! either. So when all `S` are taken, a new client's opening request evicts the session
//! idle longest (by a count of client messages, no clock: the client heard from least
//! recently, on its RPC topic or by its opening) and is served (only a `Mqtt<0>`
//! answers -32603 `too many MQTT client sessions`). Eviction forgets only the
//! [`Session`]: nothing is sent, the client's topics stay subscribed and its pending
//! calls go on to their answers. An evicted client still there is served as a client
//! without a session is: each message in a fresh [`Session`] not kept (correct answers;
//! its log level and input capabilities are forgotten), until it opens again (and
//! evicts the next) or leaves (its topics are then unsubscribed). A gone client's three
//! subscriptions stay on the broker until the device reconnects.
//!
//! **The 2026-07-28 era over MQTT.** The specification is stateful (`initialize` on
//! the control topic opens the RPC topics); 2026-07-28 has no `initialize`. A
//! 2026-07-28 client opens its session the same way with its first request,
//! `server/discover` on the control topic (with `MCP-MQTT-CLIENT-ID`): the device
//! subscribes its topics and answers on its RPC topic as for `initialize`. From
//! then on each of its requests carries its `_meta` and is served statelessly, one
//! by one, on the RPC topic; the session is only the topics (its presence and
//! `notifications/disconnected` end it). `subscriptions/listen` is not offered over
//! MQTT (-32601): change notifications already reach every client on the capability
//! topic.
//!
//! **Hostile payloads.** A PUBLISH longer than the receive buffer is kept up to the
//! buffer's end and answered with -32600 (`line too long`, id `null`, the buffer's
//! size in `data.limit` with feature `error-data`) on the sender's RPC topic; malformed JSON, invalid UTF-8 and anything else the server
//! refuses get its usual error, and the next message is served. A malformed MQTT
//! packet from the broker ends the link ([`MqttError::Malformed`]): reconnect.
//!
//! **`initialize` after the SUBACK.** The opening request is held (up to
//! [`MAX_HELD`] bytes, one at a time) until the broker's SUBACK for the client's
//! topics, then served, so that the client's next request finds the device
//! subscribed; a SUBACK that refuses a topic answers it -32603 (`Failed to
//! subscribe to client topics`) and ends the session. A longer opening request, or
//! one that comes while another is held, is answered right after the SUBSCRIBE (a
//! broker handles one connection's packets in order, as Mosquitto and EMQX do).
//!
//! **Logging in.** [`MqttConfig::login`] puts a user name and password in the
//! CONNECT, for a broker that admits known clients only.
//!
//! **Not done (yet).** No TLS (the connection is the caller's: a TLS stream is
//! another `Read + Write`).

mod inbox;
pub mod packet;
mod serve;
#[cfg(test)]
mod tests;
pub mod topic;

pub use serve::{leave, serve_mqtt};

use crate::server::Session;
use crate::wire::rpc::OwnedId;

/// Pending tool jobs the transport follows at once (each continued at every tick).
pub const MAX_JOBS: usize = 4;

/// Bytes of the transmit buffer kept for the head of each PUBLISH (fixed header,
/// topic, user properties); the rest holds the messages written.
pub const HEAD_LEN: usize = 400;

/// Smallest transmit buffer [`serve_mqtt`] takes: [`HEAD_LEN`] and 256 bytes of
/// messages (CONNECT is written there too).
pub const MIN_TX_BUF: usize = HEAD_LEN + 256;

/// Smallest receive buffer: the head of any PUBLISH must fit it (topic and
/// properties), or the message is dropped unanswered.
pub const MIN_RX_BUF: usize = 512;

/// How the device appears on the broker.
#[derive(Clone, Copy, Debug)]
pub struct MqttConfig<'a> {
    /// The server id: the MQTT client id, unique on the broker, without `/`, `+`,
    /// `#`, at most [`topic::MAX_CLIENT_ID`] bytes.
    pub server_id: &'a str,
    /// The server name, hierarchical (`type/sub/name`, at least one `/`, no `+`,
    /// `#`), at most [`topic::MAX_SERVER_NAME`] bytes. The broker may suggest another
    /// (adopted).
    pub server_name: &'a str,
    /// The online notification's `description`.
    pub description: &'a str,
    /// MQTT keep-alive in seconds (default 30): a PINGREQ every half of it; no byte
    /// from the broker for twice it ends the link ([`MqttError::Timeout`]). 0: none.
    pub keep_alive_s: u16,
    /// The length of one [`Tick`](crate::transport::asynch::Tick) in milliseconds
    /// (default 10), to count the keep-alive in ticks.
    pub tick_ms: u32,
    /// The user name the CONNECT carries (default none), for a broker that admits
    /// known clients only (Mosquitto with `allow_anonymous false` and a
    /// `password_file`); a wrong one ends the link with [`MqttError::Refused`] (0x86
    /// bad user name or password, 0x87 not authorized).
    pub username: Option<&'a str>,
    /// The password the CONNECT carries (default none).
    pub password: Option<Password<'a>>,
}

/// A broker password: MQTT 5 binary data, left out of `Debug` output.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Password<'a>(pub &'a [u8]);

impl core::fmt::Debug for Password<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Password(..)")
    }
}

impl<'a> MqttConfig<'a> {
    /// A configuration with the defaults above.
    pub const fn new(server_id: &'a str, server_name: &'a str, description: &'a str) -> Self {
        Self {
            server_id,
            server_name,
            description,
            keep_alive_s: 30,
            tick_ms: 10,
            username: None,
            password: None,
        }
    }

    /// The same configuration, logging in with `username` and `password`.
    ///
    /// ```
    /// use emcp::transport::mqtt::MqttConfig;
    /// let config = MqttConfig::new("bed-3", "greenhouse/bed-3", "soil sensors")
    ///     .login("bed-3", b"not-a-real-secret");
    /// assert_eq!(config.username, Some("bed-3"));
    /// assert!(!format!("{config:?}").contains("not-a-real-secret"));
    /// ```
    pub const fn login(self, username: &'a str, password: &'a [u8]) -> Self {
        Self {
            username: Some(username),
            password: Some(Password(password)),
            ..self
        }
    }
}

/// Why [`serve_mqtt`] returned: the link is over, reconnect (after a pause).
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MqttError<R, W> {
    /// The reader failed.
    Read(R),
    /// The writer failed (`None`: it accepted no byte).
    Write(Option<W>),
    /// The broker closed the connection (end of input, or its DISCONNECT).
    Closed,
    /// The broker refused the CONNECT with this reason code.
    Refused(u8),
    /// The broker sent a packet that is not MQTT 5, or refused the control topic's
    /// subscription.
    Malformed,
    /// Nothing from the broker for twice the keep-alive (or no CONNACK within it).
    Timeout,
    /// The broker suggested a server name other than the one connected with (or
    /// stopped suggesting one): connect again at once, and the will and presence
    /// take that name.
    Renamed,
    /// The configuration cannot be served: an invalid server id or name, or buffers
    /// under [`MIN_TX_BUF`] / [`MIN_RX_BUF`].
    Config,
}

/// Why the link is over; the reader's or writer's own error is the
/// [`source`](core::error::Error::source).
impl<R, W> core::fmt::Display for MqttError<R, W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MqttError::Read(_) => f.write_str("reading from the broker failed"),
            MqttError::Write(Some(_)) => f.write_str("writing to the broker failed"),
            MqttError::Write(None) => f.write_str("the broker's connection accepted no byte"),
            MqttError::Closed => f.write_str("the broker closed the connection"),
            MqttError::Refused(code) => {
                write!(
                    f,
                    "the broker refused the connection (reason code {code:#04x}"
                )?;
                if let Some(why) = crate::wire::mqtt::refusal_reason(*code) {
                    write!(f, ": {why}")?;
                }
                f.write_str(")")
            }
            MqttError::Malformed => f.write_str(
                "the broker sent a packet that is not MQTT 5, or refused the control topic",
            ),
            MqttError::Timeout => f.write_str("nothing from the broker for twice the keep-alive"),
            MqttError::Renamed => f.write_str("the broker suggested another server name"),
            MqttError::Config => f.write_str(
                "the configuration cannot be served: an invalid server id or name, or buffers \
                 under MIN_TX_BUF / MIN_RX_BUF",
            ),
        }
    }
}

impl<R, W> core::error::Error for MqttError<R, W>
where
    R: core::error::Error + 'static,
    W: core::error::Error + 'static,
{
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            MqttError::Read(e) => Some(e),
            MqttError::Write(Some(e)) => Some(e),
            _ => None,
        }
    }
}

/// A client id, copied.
type ClientId = heapless::Vec<u8, { topic::MAX_CLIENT_ID }>;

/// One client's session.
#[derive(Debug)]
struct Client {
    id: ClientId,
    session: Session,
    /// [`Mqtt::clock`] when the client was last heard (its opening request, or a
    /// message on its RPC topic): the session idle longest is evicted first.
    active: u32,
}

/// Longest opening request (`initialize`, `server/discover`) held until the SUBACK
/// of its client's topics; a longer one is answered at once, after the SUBSCRIBE.
pub const MAX_HELD: usize = 512;

/// An opening request waiting for the SUBACK of its client's topics.
#[derive(Debug)]
struct Held {
    pid: u16,
    client: ClientId,
    payload: heapless::Vec<u8, MAX_HELD>,
}

/// A pending job and its client.
#[derive(Debug)]
struct Job {
    client: ClientId,
    id: OwnedId,
}

/// What the transport keeps between messages and across reconnects: up to `S` client
/// sessions, the jobs it follows, the server name in use. Put it beside the
/// [`Server`](crate::Server) and pass both to every [`serve_mqtt`].
#[derive(Debug)]
pub struct Mqtt<const S: usize = 4> {
    clients: heapless::Vec<Client, S>,
    jobs: heapless::Vec<Job, MAX_JOBS>,
    /// SUBSCRIBEs of client topics awaiting their SUBACK: packet id and client.
    subscribing: heapless::Vec<(u16, ClientId), S>,
    /// The control topic's SUBSCRIBE packet id, until its SUBACK.
    control: Option<u16>,
    /// The opening request waiting for its client's SUBACK (one at a time).
    held: Option<Held>,
    /// The server name in use (configured, or suggested by the broker).
    name: heapless::Vec<u8, { topic::MAX_SERVER_NAME }>,
    /// The name the broker suggested (empty: none), kept across reconnects: the
    /// next CONNECT's will names its presence topic.
    suggested: heapless::Vec<u8, { topic::MAX_SERVER_NAME }>,
    next_packet: u16,
    connected: bool,
    /// Messages heard from clients (wrapping): the clock of [`Client::active`].
    clock: u32,
}

impl<const S: usize> Default for Mqtt<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const S: usize> Mqtt<S> {
    /// No sessions.
    pub const fn new() -> Self {
        Self {
            clients: heapless::Vec::new(),
            jobs: heapless::Vec::new(),
            subscribing: heapless::Vec::new(),
            control: None,
            held: None,
            name: heapless::Vec::new(),
            suggested: heapless::Vec::new(),
            next_packet: 1,
            connected: false,
            clock: 0,
        }
    }

    /// The server name in use: the configured one, or the broker's suggestion once
    /// connected.
    pub fn server_name(&self) -> &str {
        core::str::from_utf8(&self.name).unwrap_or_default()
    }

    /// Client sessions open.
    pub fn sessions(&self) -> usize {
        self.clients.len()
    }

    /// Whether the broker accepted the connection (its CONNACK came).
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// Forget everything of the last connection; take the configured name.
    fn forget(&mut self, config: &MqttConfig<'_>) -> bool {
        self.clients.clear();
        self.jobs.clear();
        self.subscribing.clear();
        self.control = None;
        self.held = None;
        self.connected = false;
        self.name.clear();
        let name = match self.suggested.is_empty() {
            true => config.server_name.as_bytes(),
            false => self.suggested.as_slice(),
        };
        let _ = self.name.extend_from_slice(name);
        topic::valid_id(config.server_id.as_bytes())
            && topic::valid_name(config.server_name.as_bytes())
            && self.name.as_slice() == name
    }

    /// The next packet identifier (never 0).
    fn packet_id(&mut self) -> u16 {
        let id = self.next_packet;
        self.next_packet = self.next_packet.checked_add(1).unwrap_or(1);
        id
    }

    fn find(&self, client: &[u8]) -> Option<usize> {
        self.clients.iter().position(|c| c.id.as_slice() == client)
    }

    /// A message from `client`: the clock advances, and its session (if it has one)
    /// was active now. Returns the clock's new reading.
    fn heard(&mut self, client: &[u8]) -> u32 {
        self.clock = self.clock.wrapping_add(1);
        let now = self.clock;
        if let Some(c) = self.clients.iter_mut().find(|c| c.id.as_slice() == client) {
            c.active = now;
        }
        now
    }

    /// Open `client`'s session, or start its session afresh. When all `S` are taken,
    /// the session idle longest is evicted to make room: only its [`Session`] is
    /// forgotten (its topics stay subscribed, its pending calls go on), so the
    /// evicted client, if still there, is served as a client without a session.
    /// False only when there is no room at all (`S` = 0).
    fn open(&mut self, client: &[u8]) -> bool {
        let now = self.heard(client);
        if let Some(c) = self.clients.iter_mut().find(|c| c.id.as_slice() == client) {
            c.session = Session::new();
            return true;
        }
        if self.clients.is_full() {
            // Idle time as a wrapping difference: right across the clock's wrap.
            let idlest = self
                .clients
                .iter()
                .enumerate()
                .max_by_key(|(_, c)| now.wrapping_sub(c.active))
                .map(|(i, _)| i);
            if let Some(i) = idlest {
                let _ = crate::state::subscription::swap_remove(&mut self.clients, i);
            }
        }
        let mut id = ClientId::new();
        let _ = id.extend_from_slice(client);
        self.clients
            .push(Client {
                id,
                session: Session::new(),
                active: now,
            })
            .is_ok()
    }
}
