//! Many HTTP requests onto one device session: each request gets a bridge id
//! (`"emcp-bridge/h/N"`) on its way to the relay, so that ids of different clients
//! cannot collide, and every line for it comes back to its connection with the
//! client's id restored. Its `progressToken`, chosen by its client as freely as its
//! id, is swapped for the same bridge id, so that clients' tokens cannot collide
//! either. Only these values are swapped ([`message::with_value`]): the rest of each
//! line passes byte for byte.
//!
//! Lines are routed to open requests by id (responses, and a listen stream's
//! `_meta` subscription id, each restored to the client's), by `progressToken`
//! (progress, its token restored to the client's), and otherwise (log messages,
//! requests from the device) to the oldest open request, or else to the
//! initialize-era session's GET stream. Legacy resource updates go to the GET stream.
//!
//! A client's `notifications/cancelled` names its own id, and a notification's POST
//! says nothing of which client sent it: it cancels the one open request with that
//! id, and none when several clients have one open under it.

use std::io;
use std::sync::mpsc::Sender;

use crate::message::{self, Kind, Message};
use crate::pump::HostSide;

/// What the device is sent for a client's request `msg` (read from its body): the
/// body with the bridge id `bridge` in place of its id and of its `progressToken`, as
/// one line, read (as the relay reads a host line); the rest of the client's bytes
/// kept. A request without an id member (one the core rejects before reading it) is
/// built anew from its method and `params`.
///
/// ```
/// use emcp_bridge::http::mux::for_device;
/// use emcp_bridge::message::Message;
/// let body = br#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"_meta":{"progressToken":0}}}"#;
/// let msg = Message::from_host(body);
/// assert_eq!(
///     for_device(&msg, r#""emcp-bridge/h/1""#).line(),
///     br#"{"jsonrpc":"2.0","id":"emcp-bridge/h/1","method":"tools/call","params":{"_meta":{"progressToken":"emcp-bridge/h/1"}}}"#
/// );
/// ```
pub fn for_device(msg: &Message, bridge: &str) -> Message {
    let token = ["params", "_meta", "progressToken"];
    let progress = msg.meta("progressToken").is_some();
    let sent = match progress {
        true => msg.swap_id_then_value(bridge, &token, bridge),
        false => msg.swap_id(bridge),
    };
    sent.unwrap_or_else(|| {
        let line = message::request_line(bridge, msg.method(), msg.params.as_deref());
        let line = match progress {
            true => message::with_value(&line, &token, bridge).unwrap_or(line),
            false => line,
        };
        Message::from_host(&line)
    })
}

/// What reaches a connection.
#[derive(Debug)]
pub enum Delivery {
    /// A line for the client; more follow.
    Line(Vec<u8>),
    /// The response: the last line of a request's stream.
    Last(Vec<u8>),
}

/// Events from connection threads.
#[derive(Debug)]
pub enum HttpEvent {
    /// A request: its line, the client's raw id, where its lines go, and the session
    /// it belongs to (initialize era).
    Request {
        /// The request, looked at.
        message: Message,
        /// What the device is sent ([`for_device`]).
        sent: Message,
        /// Its bridge id ([`Mux::bridge_id`]).
        bridge: String,
        /// Where this request's lines go.
        reply: Sender<Delivery>,
    },
    /// A notification or a response from a client, as one line
    /// ([`Message::into_one_line`]): passed to the device (a
    /// `notifications/cancelled` names the client's id: it is mapped).
    Forward(Message),
    /// The initialize-era session's GET stream opened.
    SessionStream(Sender<Delivery>),
    /// A request's connection closed before its response (a listen stream ended):
    /// its bridge id.
    Closed(String),
}

struct Route {
    /// The bridge id (JSON text), also the progress token the device sees.
    bridge: String,
    /// The client's id, as it wrote it.
    client: String,
    /// The client's progress token, as it wrote it.
    progress: Option<String>,
    listen: bool,
    reply: Sender<Delivery>,
}

/// The HTTP host side of the pump.
#[derive(Default)]
pub struct Mux {
    routes: Vec<Route>,
    session: Option<Sender<Delivery>>,
}

impl Mux {
    /// No requests yet.
    pub fn new() -> Self {
        Mux::default()
    }

    /// The `n`-th bridge id (connections number their requests from one shared
    /// counter).
    pub fn bridge_id(n: u64) -> String {
        format!("\"emcp-bridge/h/{n}\"")
    }

    fn send_session(&mut self, line: Vec<u8>) {
        if let Some(s) = &self.session {
            if s.send(Delivery::Line(line)).is_err() {
                self.session = None;
            }
        }
    }
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Whether two ids are the same text, compared from the end: bridge ids share their
/// start (`"emcp-bridge/h/`) and differ in their last digits, so a route that is not
/// the one sought is told at its first byte or two.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().rev().eq(b.bytes().rev())
}

impl HostSide for Mux {
    type Event = HttpEvent;

    fn deliver(&mut self, line: Vec<u8>) -> io::Result<()> {
        match Message::parse(&line) {
            Some(msg) => self.deliver_message(msg),
            None => Ok(()),
        }
    }

    fn deliver_message(&mut self, msg: Message) -> io::Result<()> {
        let by_id = |routes: &[Route], id: &str| routes.iter().position(|r| same(&r.bridge, id));
        // Where the line names its request, and so the client's value to put there.
        let mut swap: Option<&[&str]> = None;
        let target = match msg.kind {
            Kind::Response => {
                swap = Some(&["id"]);
                msg.id.as_deref().and_then(|id| by_id(&self.routes, id))
            }
            Kind::Notification => {
                if let Some(sub) = msg.meta(SUBSCRIPTION_ID) {
                    swap = Some(&["params", "_meta", SUBSCRIPTION_ID]);
                    by_id(&self.routes, &sub)
                } else if let Some(token) = msg.param("progressToken") {
                    swap = Some(&["params", "progressToken"]);
                    by_id(&self.routes, &token).filter(|&i| self.routes[i].progress.is_some())
                } else if msg.method().starts_with("notifications/resources/")
                    || msg.method().ends_with("/list_changed")
                {
                    None // session-wide: the GET stream
                } else {
                    self.routes.iter().position(|r| !r.listen)
                }
            }
            Kind::Request => self.routes.iter().position(|r| !r.listen),
            Kind::Other => None,
        };
        let Some(i) = target else {
            self.send_session(msg.into_line());
            return Ok(());
        };
        let route = &self.routes[i];
        let line = match swap {
            Some(path) => {
                let client = match path.last() {
                    Some(&"progressToken") => route.progress.as_deref().unwrap_or_default(),
                    _ => route.client.as_str(),
                };
                // Read above from this line: the member is there.
                msg.with_value(path, client)
                    .unwrap_or_else(|| msg.line().to_vec())
            }
            None => msg.line().to_vec(),
        };
        let last = msg.kind == Kind::Response;
        let sent = route.reply.send(if last {
            Delivery::Last(line)
        } else {
            Delivery::Line(line)
        });
        if last || sent.is_err() {
            self.routes.remove(i);
        }
        Ok(())
    }

    fn event(&mut self, event: HttpEvent) -> Vec<Message> {
        match event {
            HttpEvent::Request {
                message,
                sent,
                bridge,
                reply,
            } => {
                self.routes.push(Route {
                    bridge,
                    client: message.id.clone().unwrap_or_default(),
                    progress: message.meta("progressToken"),
                    listen: message.method() == "subscriptions/listen",
                    reply,
                });
                vec![sent]
            }
            HttpEvent::Forward(message) => {
                if message.method() == "notifications/cancelled" {
                    let Some(client) = message.param("requestId") else {
                        return vec![message];
                    };
                    // Which client sent it is not known: with two requests open under
                    // that id, cancelling either could stop another client's request
                    // (which would then get no answer), so neither is.
                    let mut open = self
                        .routes
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.client == client);
                    let (Some((r, _)), None) = (open.next(), open.next()) else {
                        return Vec::new();
                    };
                    let route = self.routes.remove(r);
                    let line = message::cancel_line(&route.bridge, "cancelled by the client");
                    return vec![Message::from_host(&line)];
                }
                vec![message]
            }
            HttpEvent::SessionStream(reply) => {
                self.session = Some(reply);
                Vec::new()
            }
            HttpEvent::Closed(bridge) => {
                match self.routes.iter().position(|r| same(&r.bridge, &bridge)) {
                    Some(i) => {
                        self.routes.remove(i);
                        let line = message::cancel_line(&bridge, "stream closed");
                        vec![Message::from_host(&line)]
                    }
                    None => Vec::new(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn request(mux: &mut Mux, line: &str) -> (Vec<u8>, mpsc::Receiver<Delivery>) {
        let (tx, rx) = mpsc::channel();
        let message = Message::from_host(line.as_bytes());
        let n = mux.routes.len() as u64 + 1;
        let bridge = Mux::bridge_id(n);
        let mut out = mux.event(HttpEvent::Request {
            message,
            sent: for_device(&Message::from_host(line.as_bytes()), &bridge),
            bridge,
            reply: tx,
        });
        (out.remove(0).into_line(), rx)
    }

    #[test]
    fn clients_with_the_same_id_get_their_own_answers() {
        let mut mux = Mux::new();
        let (a, ra) = request(
            &mut mux,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[1, 2]}}"#,
        );
        let (b, rb) = request(&mut mux, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(
            a, br#"{"jsonrpc":"2.0","id":"emcp-bridge/h/1","method":"ping","params":{"x":[1, 2]}}"#,
            "the client's bytes but the id"
        );
        let a = Message::parse(&a).unwrap();
        let b = Message::parse(&b).unwrap();
        assert_ne!(a.id, b.id);
        let answer = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"n":1}}}}"#);
        mux.deliver(answer(b.id.as_deref().unwrap()).into_bytes())
            .unwrap();
        mux.deliver(answer(a.id.as_deref().unwrap()).into_bytes())
            .unwrap();
        for rx in [ra, rb] {
            match rx.try_recv().unwrap() {
                Delivery::Last(l) => assert_eq!(l, answer("1").into_bytes()),
                other => panic!("{other:?}"),
            }
        }
        assert!(mux.routes.is_empty());
    }

    #[test]
    fn notifications_follow_their_request_or_the_session() {
        let mut mux = Mux::new();
        let (session, rs) = mpsc::channel();
        mux.event(HttpEvent::SessionStream(session));
        let (l, rl) = request(
            &mut mux,
            r#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{}}"#,
        );
        let listen = Message::parse(&l).unwrap().id.unwrap();
        let (c, rc) = request(
            &mut mux,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#,
        );
        let call = Message::parse(&c).unwrap();
        assert_eq!(
            call.meta("progressToken"),
            call.id,
            "the token is the bridge id"
        );
        let ack = format!(
            r#"{{"method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{listen}}}}}}}"#
        );
        mux.deliver(ack.into_bytes()).unwrap();
        match rl.try_recv().unwrap() {
            Delivery::Line(l) => assert!(String::from_utf8(l)
                .unwrap()
                .contains(r#"subscriptionId":"L""#)),
            other => panic!("{other:?}"),
        }
        let token = call.id.unwrap();
        mux.deliver(
            format!(
                r#"{{"method":"notifications/progress","params":{{"progressToken":{token}}}}}"#
            )
            .into_bytes(),
        )
        .unwrap();
        mux.deliver(br#"{"method":"notifications/message","params":{"level":"info"}}"#.to_vec())
            .unwrap();
        let lines: Vec<Delivery> = rc.try_iter().collect();
        assert_eq!(lines.len(), 2);
        match &lines[0] {
            Delivery::Line(l) => assert_eq!(
                l,
                br#"{"method":"notifications/progress","params":{"progressToken":"p"}}"#
            ),
            other => panic!("{other:?}"),
        }
        mux.deliver(
            br#"{"method":"notifications/resources/updated","params":{"uri":"led://state"}}"#
                .to_vec(),
        )
        .unwrap();
        assert_eq!(rs.try_iter().count(), 1);
    }

    #[test]
    fn clients_with_the_same_progress_token_get_their_own_progress() {
        let mut mux = Mux::new();
        let call = r#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"_meta":{"progressToken":0}}}"#;
        let (a, ra) = request(&mut mux, call);
        let (b, rb) = request(&mut mux, call);
        let token = |l: &[u8]| Message::parse(l).unwrap().meta("progressToken").unwrap();
        assert_ne!(token(&a), token(&b));
        let progress = |t: &str, n: u8| {
            format!(
                r#"{{"method":"notifications/progress","params":{{"progressToken":{t},"progress":{n}}}}}"#
            )
        };
        mux.deliver(progress(&token(&a), 1).into_bytes()).unwrap();
        mux.deliver(progress(&token(&b), 2).into_bytes()).unwrap();
        for (rx, n) in [(ra, 1), (rb, 2)] {
            match rx.try_recv().unwrap() {
                Delivery::Line(l) => assert_eq!(l, progress("0", n).into_bytes()),
                other => panic!("{other:?}"),
            }
            assert!(rx.try_recv().is_err());
        }
    }

    #[test]
    fn a_cancel_for_an_id_two_clients_have_open_cancels_neither() {
        let mut mux = Mux::new();
        let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#;
        let (_, _ra) = request(&mut mux, call);
        let (_, _rb) = request(&mut mux, call);
        let cancel = message::cancel_line("5", "x");
        let out = mux.event(HttpEvent::Forward(Message::from_host(&cancel)));
        assert!(out.is_empty());
        assert_eq!(mux.routes.len(), 2);
    }

    #[test]
    fn a_cancel_names_the_bridge_id() {
        let mut mux = Mux::new();
        let (l, _r) = request(
            &mut mux,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#,
        );
        let bridge = Message::parse(&l).unwrap().id.unwrap();
        let cancel = message::cancel_line("5", "x");
        let out = mux.event(HttpEvent::Forward(Message::from_host(&cancel)));
        assert_eq!(out[0].param("requestId"), Some(bridge));
        assert!(mux.routes.is_empty());
    }
}
