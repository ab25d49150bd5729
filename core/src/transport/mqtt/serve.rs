//! [`serve_mqtt`]: the connection to the broker, its packets, and the messages they
//! carry handed to the server.

use core::convert::Infallible;
use core::pin::pin;

use embassy_futures::select::{select, Either};
use embedded_io_async::{Read, Write};

use super::inbox::Inbox;
use super::packet::{self, kind, Connect, Publish};
use super::topic::{self, Topic};
use super::{ClientId, Held, Job, Mqtt, MqttConfig, MqttError, HEAD_LEN, MIN_RX_BUF, MIN_TX_BUF};
use crate::device::Device;
use crate::server::{Server, Session};
use crate::transport::asynch::Tick;
use crate::transport::serve::READ_CHUNK;
use crate::wire::error::DispatchError;
use crate::wire::framing::Frame;
use crate::wire::json::{JsonWriter, SliceSink};
use crate::wire::rpc::{self, Message};

/// Why a step ended the link: an [`MqttError`] without a read error (the steps do not
/// read), so that `?` turns it into the serve loop's error without naming its
/// reader's type.
struct Ended<W>(MqttError<Infallible, W>);

impl<R, W> From<Ended<W>> for MqttError<R, W> {
    fn from(e: Ended<W>) -> Self {
        match e.0 {
            MqttError::Read(never) => match never {},
            MqttError::Write(w) => MqttError::Write(w),
            MqttError::Closed => MqttError::Closed,
            MqttError::Refused(code) => MqttError::Refused(code),
            MqttError::Malformed => MqttError::Malformed,
            MqttError::Timeout => MqttError::Timeout,
            MqttError::Config => MqttError::Config,
            MqttError::Renamed => MqttError::Renamed,
        }
    }
}

const fn end<W>(e: MqttError<Infallible, W>) -> Ended<W> {
    Ended(e)
}

/// The transmit side: the writer, the transmit buffer in its two parts (packet heads,
/// messages), our id.
struct Out<'c, W> {
    writer: &'c mut W,
    head: &'c mut [u8],
    body: &'c mut [u8],
    sid: &'c [u8],
}

/// Serve the device on the broker at the other end of `reader`/`writer` (a fresh
/// connection) until the link ends, then return why; call again on a new
/// connection to reconnect (sessions are forgotten, the presence is published
/// again). `rx_buf` holds one received packet ([`MIN_RX_BUF`] at least: a longer
/// PUBLISH is answered -32600), `tx_buf` the packets sent ([`MIN_TX_BUF`] at least;
/// a response larger than its message part is answered -32603). At every `tick`
/// pending jobs take a step and change notifications go out; `config.tick_ms`
/// says how long a tick is.
///
/// # Errors
///
/// Always, when the link ends: [`MqttError`] says why.
#[allow(clippy::too_many_arguments)]
pub async fn serve_mqtt<
    D,
    R,
    W,
    T,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    config: &MqttConfig<'_>,
    reader: &mut R,
    writer: &mut W,
    rx_buf: &mut [u8],
    tx_buf: &mut [u8],
    tick: &mut T,
) -> Result<Infallible, MqttError<R::Error, W::Error>>
where
    D: Device,
    R: Read,
    W: Write,
    T: Tick,
{
    server.reset();
    if !mqtt.forget(config) || rx_buf.len() < MIN_RX_BUF || tx_buf.len() < MIN_TX_BUF {
        return Err(MqttError::Config);
    }
    let Some((head, body)) = tx_buf.split_at_mut_checked(HEAD_LEN) else {
        return Err(MqttError::Config);
    };
    let sid = config.server_id.as_bytes();
    let mut out = Out {
        writer,
        head,
        body,
        sid,
    };
    {
        // The name in use: the configured one, or the one the broker suggested
        // last time (its will must name the presence topic it publishes).
        let will = topic::presence(sid, &mqtt.name);
        // MCP-META: the name and description as JSON, written in the head part;
        // left out when it does not fit.
        let meta_len = {
            let mut sink = SliceSink::new(out.head);
            let mut w = JsonWriter::new(&mut sink);
            w.begin_object();
            w.key("serverName");
            w.str(mqtt.server_name());
            w.key("description");
            w.str(config.description);
            w.end_object();
            let ok = w.is_ok();
            if ok {
                sink.len()
            } else {
                0
            }
        };
        let meta = out
            .head
            .get(..meta_len)
            .and_then(|m| core::str::from_utf8(m).ok())
            .unwrap_or_default();
        let user = [(topic::COMPONENT_TYPE, topic::SERVER), (topic::META, meta)];
        let user = user
            .get(..if meta.is_empty() { 1 } else { 2 })
            .unwrap_or_default();
        let connect = Connect {
            client_id: config.server_id,
            keep_alive: config.keep_alive_s,
            user,
            will_topic: &will,
            username: config.username,
            password: config.password.map(|p| p.0),
        };
        let pkt = packet::connect(out.body, &connect).map_err(|_| MqttError::Config)?;
        send(out.writer, pkt).await?;
        flush(out.writer).await?;
    }
    // Keep-alive in ticks (0: none).
    let ka = u32::from(config.keep_alive_s)
        .saturating_mul(1000)
        .checked_div(config.tick_ms.max(1))
        .unwrap_or(0);
    let (mut rx_idle, mut tx_idle) = (0u32, 0u32);
    let mut inbox = Inbox::new();
    let mut chunk = [0u8; READ_CHUNK];
    // A packet longer than the receive buffer is kept only that far.
    let rx_limit = rx_buf.len();
    loop {
        let n = {
            let mut read = pin!(reader.read(&mut chunk));
            loop {
                match select(read.as_mut(), tick.tick()).await {
                    Either::First(r) => break r.map_err(MqttError::Read)?,
                    Either::Second(()) => {
                        rx_idle = rx_idle.saturating_add(1);
                        tx_idle = tx_idle.saturating_add(1);
                        if ka > 0 {
                            let limit = if mqtt.connected {
                                ka.saturating_mul(2)
                            } else {
                                ka
                            };
                            if rx_idle > limit {
                                return Err(MqttError::Timeout);
                            }
                            if mqtt.connected && tx_idle >= ka / 2 {
                                tx_idle = 0;
                                send(out.writer, &packet::PINGREQ).await?;
                                flush(out.writer).await?;
                            }
                        }
                        if mqtt.connected {
                            on_tick(server, mqtt, &mut out).await?;
                        }
                    }
                }
            }
        };
        if n == 0 {
            return Err(MqttError::Closed);
        }
        rx_idle = 0;
        let mut rest = chunk.get(..n).unwrap_or_default();
        while !rest.is_empty() {
            let (used, done) = inbox.push(rx_buf, rest).map_err(|_| MqttError::Malformed)?;
            rest = rest.get(used..).unwrap_or_default();
            if let Some(truncated) = done {
                let pkt = rx_buf.get(..inbox.len()).unwrap_or_default();
                let cut = truncated.then_some(rx_limit);
                on_packet(server, mqtt, config, &mut out, pkt, cut).await?;
                inbox.clear();
            }
        }
        flush(out.writer).await?;
    }
}

/// Leave the broker for good: empty the retained presence, then DISCONNECT (the
/// will is not sent). `tx_buf` as for [`serve_mqtt`].
///
/// # Errors
///
/// The writer's.
pub async fn leave<W: Write, const S: usize>(
    mqtt: &Mqtt<S>,
    config: &MqttConfig<'_>,
    writer: &mut W,
    tx_buf: &mut [u8],
) -> Result<(), MqttError<Infallible, W::Error>> {
    let name = mqtt.name.as_slice();
    let user: [(&str, &[u8]); 2] = [
        (topic::COMPONENT_TYPE, topic::SERVER.as_bytes()),
        (topic::CLIENT_ID, config.server_id.as_bytes()),
    ];
    let presence = topic::presence(config.server_id.as_bytes(), name);
    let head =
        packet::publish_head(tx_buf, &presence, true, &user, 0).map_err(|_| MqttError::Config)?;
    send(writer, head).await.map_err(|e| e.0)?;
    send(writer, &packet::DISCONNECT).await.map_err(|e| e.0)?;
    flush(writer).await.map_err(|e| e.0)
}

/// Write all of `bytes` (a writer answering `Ok(0)` is an error, not a panic).
async fn send<W: Write>(writer: &mut W, mut bytes: &[u8]) -> Result<(), Ended<W::Error>> {
    while !bytes.is_empty() {
        match writer.write(bytes).await {
            Ok(0) => return Err(end(MqttError::Write(None))),
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(e) => return Err(end(MqttError::Write(Some(e)))),
        }
    }
    Ok(())
}

async fn flush<W: Write>(writer: &mut W) -> Result<(), Ended<W::Error>> {
    writer
        .flush()
        .await
        .map_err(|e| end(MqttError::Write(Some(e))))
}

impl<W: Write> Out<'_, W> {
    /// Publish each line of `self.body[..len]` (a server's output, one message per
    /// line) as one message on `topic`.
    async fn publish_lines(
        &mut self,
        topic: &[&[u8]],
        retain: bool,
        len: usize,
    ) -> Result<(), Ended<W::Error>> {
        let Out {
            writer,
            head,
            body,
            sid,
        } = self;
        let written = body.get(..len).unwrap_or_default();
        let user: [(&str, &[u8]); 2] = [
            (topic::COMPONENT_TYPE, topic::SERVER.as_bytes()),
            (topic::CLIENT_ID, *sid),
        ];
        for line in written.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            // A head that does not fit (a topic over the limits) is not sent.
            let Ok(h) = packet::publish_head(head, topic, retain, &user, line.len()) else {
                continue;
            };
            send(&mut **writer, h).await?;
            send(&mut **writer, line).await?;
        }
        Ok(())
    }

    /// Send one packet built in the head part.
    async fn packet(
        &mut self,
        build: impl FnOnce(&mut [u8]) -> Result<&[u8], packet::Full>,
    ) -> Result<(), Ended<W::Error>> {
        match build(&mut *self.head) {
            Ok(p) => send(&mut *self.writer, p).await,
            Err(_) => Ok(()),
        }
    }
}

/// Continue the pending jobs one step each (their lines to their clients), then send
/// the change notifications of the resources any session subscribes to on the
/// capability topic.
async fn on_tick<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    out: &mut Out<'_, W>,
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    let mut i = 0;
    while let Some(job) = mqtt.jobs.get(i) {
        // A call of a client without a session (evicted from it, or a call on the
        // control topic) goes on in a fresh one: it is answered all the same.
        let c = mqtt.find(&job.client);
        let (pending, len) = {
            let mut sink = SliceSink::new(out.body);
            let client = c.and_then(|c| mqtt.clients.get_mut(c));
            let mut none = Session::new();
            let session = client.map_or(&mut none, |c| &mut c.session);
            server.swap_session(session);
            let pending = server.poll_job(&job.id, &mut sink);
            server.swap_session(session);
            (pending, sink.len())
        };
        let name = mqtt.name.as_slice();
        let rpc = topic::rpc(&job.client, out.sid, name);
        out.publish_lines(&rpc, false, len).await?;
        if pending {
            i += 1;
        } else {
            let _ = crate::state::subscription::swap_remove(&mut mqtt.jobs, i);
        }
    }
    let len = {
        let mut sink = SliceSink::new(out.body);
        // Every client hears the capability topic: a change is announced there once
        // while any session subscribes to its resource.
        let mut all = Session::subscribed_by(mqtt.clients.iter().map(|c| &c.session));
        server.swap_session(&mut all);
        server.poll_changes(None, &mut sink);
        server.swap_session(&mut all);
        sink.len()
    };
    if len > 0 {
        let capability = topic::capability(out.sid, &mqtt.name);
        out.publish_lines(&capability, false, len).await?;
        flush(out.writer).await?;
    }
    Ok(())
}

/// Handle one packet from the broker; `cut` is the receive buffer's size when the
/// packet was longer and kept only that far.
async fn on_packet<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    config: &MqttConfig<'_>,
    out: &mut Out<'_, W>,
    pkt: &[u8],
    cut: Option<usize>,
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    let truncated = cut.is_some();
    let first = pkt.first().copied().unwrap_or(0);
    let Ok(Some((head_len, _))) = packet::fixed_header(pkt) else {
        return Err(end(MqttError::Malformed));
    };
    let body = pkt.get(head_len..).unwrap_or_default();
    match first >> 4 {
        kind::CONNACK if !mqtt.connected && !truncated => {
            let (reason, props) = packet::connack(body).map_err(|_| end(MqttError::Malformed))?;
            if reason != 0 {
                return Err(end(MqttError::Refused(reason)));
            }
            // The name to use: the broker's suggestion, else the configured one. The
            // will names the presence topic, so a name other than the one connected
            // with means connecting again with it (`Renamed`).
            let wanted = props
                .user(topic::SERVER_NAME)
                .filter(|n| topic::valid_name(n))
                .unwrap_or(config.server_name.as_bytes());
            if wanted != mqtt.name.as_slice() {
                mqtt.suggested.clear();
                if wanted != config.server_name.as_bytes() {
                    let _ = mqtt.suggested.extend_from_slice(wanted);
                }
                return Err(end(MqttError::Renamed));
            }
            mqtt.connected = true;
            let pid = mqtt.packet_id();
            mqtt.control = Some(pid);
            let control = topic::control(out.sid, &mqtt.name);
            out.packet(|b| packet::subscribe(b, pid, &[&control]))
                .await?;
            online(server, mqtt, config, out).await
        }
        kind::PUBLISH if mqtt.connected => {
            let p = match packet::publish(first & 0x0f, body) {
                Ok(p) => p,
                // Its head did not fit the buffer: nothing can be said of it.
                Err(_) if truncated => return Ok(()),
                Err(_) => return Err(end(MqttError::Malformed)),
            };
            match p.qos {
                1 => {
                    send(
                        out.writer,
                        &packet::ack_packet(kind::PUBACK << 4, p.packet_id),
                    )
                    .await?
                }
                2 => {
                    send(
                        out.writer,
                        &packet::ack_packet(kind::PUBREC << 4, p.packet_id),
                    )
                    .await?
                }
                _ => {}
            }
            on_publish(server, mqtt, out, &p, cut).await
        }
        kind::PUBREL => {
            let mut r = packet::Reader::new(body);
            let id = r.u16().map_err(|_| end(MqttError::Malformed))?;
            send(out.writer, &packet::ack_packet(kind::PUBCOMP << 4, id)).await
        }
        kind::SUBACK => {
            let (pid, ok) = packet::ack(body).map_err(|_| end(MqttError::Malformed))?;
            if mqtt.control == Some(pid) {
                mqtt.control = None;
                return if ok {
                    Ok(())
                } else {
                    Err(end(MqttError::Malformed))
                };
            }
            if mqtt.held.as_ref().is_some_and(|h| h.pid == pid) {
                if let Some(i) = mqtt.subscribing.iter().position(|(p, _)| *p == pid) {
                    let _ = crate::state::subscription::swap_remove(&mut mqtt.subscribing, i);
                }
                if let Some(held) = mqtt.held.take() {
                    release(server, mqtt, out, &held, ok).await?;
                }
                return Ok(());
            }
            let Some(i) = mqtt.subscribing.iter().position(|(p, _)| *p == pid) else {
                return Ok(());
            };
            let Some((_, client)) =
                crate::state::subscription::swap_remove(&mut mqtt.subscribing, i)
            else {
                return Ok(());
            };
            if !ok {
                end_session(server, mqtt, out, &client).await?;
                let len = topic::DISCONNECTED.len();
                if let Some(dst) = out.body.get_mut(..len) {
                    dst.copy_from_slice(topic::DISCONNECTED);
                }
                let rpc = topic::rpc(&client, out.sid, &mqtt.name);
                out.publish_lines(&rpc, false, len).await?;
            }
            Ok(())
        }
        kind::DISCONNECT => Err(end(MqttError::Closed)),
        kind::UNSUBACK | kind::PINGRESP | kind::PUBACK | kind::PUBREC | kind::PUBCOMP => Ok(()),
        _ => Err(end(MqttError::Malformed)),
    }
}

/// Publish the retained online notification (with the tools in `meta`; without them
/// when they do not fit the buffer).
async fn online<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    config: &MqttConfig<'_>,
    out: &mut Out<'_, W>,
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    let name = mqtt.server_name();
    let mut len = 0;
    for tools in [true, false] {
        let mut sink = SliceSink::new(out.body);
        let mut w = JsonWriter::new(&mut sink);
        w.begin_object();
        w.key("jsonrpc");
        w.str("2.0");
        w.key("method");
        w.str("notifications/server/online");
        w.key("params");
        w.begin_object();
        w.key("server_name");
        w.str(name);
        w.key("description");
        w.str(config.description);
        w.key("meta");
        w.begin_object();
        if tools {
            w.key("tools");
            server.write_tools(&mut w);
        }
        w.end_object();
        w.end_object();
        w.end_object();
        let ok = w.is_ok();
        if ok {
            len = sink.len();
            break;
        }
    }
    let presence = topic::presence(out.sid, &mqtt.name);
    out.publish_lines(&presence, true, len).await
}

/// A PUBLISH on one of our topics (`cut` as for `on_packet`: a payload too long is
/// answered as a line too long, naming that limit).
async fn on_publish<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    out: &mut Out<'_, W>,
    p: &Publish<'_>,
    cut: Option<usize>,
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    let truncated = cut.is_some();
    let client: &[u8] = match topic::classify(p.topic, out.sid, &mqtt.name) {
        Topic::Control => {
            let Some(c) = p
                .properties
                .user(topic::CLIENT_ID)
                .filter(|c| topic::valid_id(c))
            else {
                return Ok(()); // the specification: ignored
            };
            c
        }
        // A client whose topics are ours: with a session, or evicted from one (its
        // messages are then served without a session, below).
        Topic::Rpc(c) => {
            mqtt.heard(c);
            if !truncated && is_disconnected(p.payload) {
                return end_session(server, mqtt, out, c).await;
            }
            c
        }
        Topic::ClientPresence(c) => return end_session(server, mqtt, out, c).await,
        Topic::ClientCapability(_) | Topic::Other => return Ok(()),
    };
    let control = matches!(
        topic::classify(p.topic, out.sid, &mqtt.name),
        Topic::Control
    );
    // The session this message is served in: a control message that opens one
    // (initialize, server/discover) starts it afresh, evicting the session idle
    // longest when all are taken; another control message, or a message of a client
    // without a session, is served in a fresh one that is not kept.
    let opens = control && !truncated && opens_session(p.payload);
    let mut busy = false;
    if opens {
        busy = !mqtt.open(client);
        if !busy {
            let pid = mqtt.packet_id();
            let mut id = ClientId::new();
            let _ = id.extend_from_slice(client);
            let _ = mqtt.subscribing.push((pid, id.clone()));
            let rpc = topic::rpc(client, out.sid, &mqtt.name);
            let presence = topic::client_presence(client);
            let capability = topic::client_capability(client);
            out.packet(|b| packet::subscribe(b, pid, &[&rpc, &presence, &capability]))
                .await?;
            // Answered once the SUBACK says the client's topics are ours (when the
            // request fits the hold and no other waits; otherwise at once).
            if mqtt.held.is_none() {
                if let Ok(payload) = heapless::Vec::from_slice(p.payload) {
                    mqtt.held = Some(Held {
                        pid,
                        client: id,
                        payload,
                    });
                    return Ok(());
                }
            }
        }
    }
    if busy || truncated {
        let len = {
            let mut sink = SliceSink::new(out.body);
            if busy {
                let id = match rpc::parse(p.payload) {
                    Ok(Message::Request(r)) => Some(r.id),
                    _ => None,
                };
                let error = DispatchError::Busy("too many MQTT client sessions");
                rpc::write_error(&mut sink, id, error.into(), None);
            } else {
                server.handle_frame_limit(Frame::TooLong, cut.unwrap_or(0), &mut sink);
            }
            sink.len()
        };
        let rpc = topic::rpc(client, out.sid, &mqtt.name);
        return out.publish_lines(&rpc, false, len).await;
    }
    // A control message that opens no session is served in a fresh one, not kept.
    answer(server, mqtt, out, client, p.payload, !control || opens).await
}

/// Serve one message of `client` in its session (`kept`; else in a fresh one that
/// is not kept) and publish what the server wrote on the client's RPC topic.
async fn answer<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    out: &mut Out<'_, W>,
    client: &[u8],
    payload: &[u8],
    kept: bool,
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    let len = {
        let mut sink = SliceSink::new(out.body);
        let mut fresh = Session::new();
        let slot = if kept { mqtt.find(client) } else { None };
        let session = match slot.and_then(|i| mqtt.clients.get_mut(i)) {
            Some(c) => &mut c.session,
            None => &mut fresh,
        };
        match unoffered(payload) {
            // Not offered over MQTT (its notifications would have no topic of its
            // own): answered as a server without it answers.
            Some(id) => {
                let error = DispatchError::MethodNotFound;
                rpc::write_error(&mut sink, Some(id), error.into(), None);
            }
            None => {
                server.swap_session(session);
                server.handle_in(payload, None, &mut sink);
                server.swap_session(session);
                follow_job(server, mqtt, client, payload, &mut sink);
            }
        }
        sink.len()
    };
    let rpc = topic::rpc(client, out.sid, &mqtt.name);
    out.publish_lines(&rpc, false, len).await
}

/// The SUBACK of a held opening request: serve it now, or, when a topic was refused,
/// answer it -32603 (`Failed to subscribe to client topics`) and end the session.
async fn release<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    out: &mut Out<'_, W>,
    held: &Held,
    ok: bool,
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    if ok {
        return answer(server, mqtt, out, &held.client, &held.payload, true).await;
    }
    end_session(server, mqtt, out, &held.client).await?;
    let len = {
        let mut sink = SliceSink::new(out.body);
        let id = match rpc::parse(&held.payload) {
            Ok(Message::Request(r)) => Some(r.id),
            _ => None,
        };
        let error = DispatchError::Internal("Failed to subscribe to client topics");
        rpc::write_error(&mut sink, id, error.into(), None);
        sink.len()
    };
    let rpc = topic::rpc(&held.client, out.sid, &mqtt.name);
    out.publish_lines(&rpc, false, len).await
}

/// A request left pending (a long tool call) is followed at every tick; when
/// [`super::MAX_JOBS`] are already followed it is cancelled and answered -32603.
fn follow_job<
    D,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    client: &[u8],
    payload: &[u8],
    sink: &mut SliceSink<'_>,
) where
    D: Device,
{
    let Ok(Message::Request(r)) = rpc::parse(payload) else {
        return;
    };
    if !server.is_pending(r.id.raw()) || mqtt.jobs.iter().any(|j| j.id.as_slice() == r.id.raw()) {
        return;
    }
    let mut c = ClientId::new();
    let _ = c.extend_from_slice(client);
    let job = Job {
        client: c,
        id: rpc::own(r.id),
    };
    if mqtt.jobs.push(job).is_err() {
        let _ = server.cancel(r.id.raw());
        let error = DispatchError::Busy("too many pending MQTT tool calls");
        rpc::write_error(sink, Some(r.id), error.into(), None);
    }
}

/// Whether a message opens a session: `initialize`, or `server/discover` (2026-07-28).
fn opens_session(payload: &[u8]) -> bool {
    match rpc::parse(payload) {
        Ok(Message::Request(r)) => {
            r.method.eq_str("initialize") || r.method.eq_str("server/discover")
        }
        _ => false,
    }
}

/// The id of a `subscriptions/listen` request: not offered over MQTT.
fn unoffered(payload: &[u8]) -> Option<rpc::Id<'_>> {
    match rpc::parse(payload) {
        Ok(Message::Request(r)) if r.method.eq_str("subscriptions/listen") => Some(r.id),
        _ => None,
    }
}

/// Whether a message is the client's `notifications/disconnected`.
fn is_disconnected(payload: &[u8]) -> bool {
    matches!(rpc::parse(payload), Ok(Message::Notification(n)) if n.method.eq_str("notifications/disconnected"))
}

/// End a client's session (its goodbye, its will, a refused SUBACK), or what is left
/// of one evicted: cancel its jobs, forget it, unsubscribe its topics.
async fn end_session<
    D,
    W,
    const S: usize,
    const L: usize,
    const J: usize,
    const WAIT: usize,
    const K: usize,
>(
    server: &mut Server<D, L, J, WAIT, K>,
    mqtt: &mut Mqtt<S>,
    out: &mut Out<'_, W>,
    client: &[u8],
) -> Result<(), Ended<W::Error>>
where
    D: Device,
    W: Write,
{
    let mut i = 0;
    while let Some(job) = mqtt.jobs.get(i) {
        if job.client.as_slice() == client {
            let _ = server.cancel(&job.id);
            let _ = crate::state::subscription::swap_remove(&mut mqtt.jobs, i);
        } else {
            i += 1;
        }
    }
    if let Some(i) = mqtt.find(client) {
        let _ = crate::state::subscription::swap_remove(&mut mqtt.clients, i);
    }
    let pid = mqtt.packet_id();
    let rpc = topic::rpc(client, out.sid, &mqtt.name);
    let presence = topic::client_presence(client);
    let capability = topic::client_capability(client);
    out.packet(|b| packet::unsubscribe(b, pid, &[&rpc, &presence, &capability]))
        .await
}
