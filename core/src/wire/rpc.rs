//! JSON-RPC 2.0: the request view and the response envelope.
//!
//! [`parse`] checks one framed line against JSON-RPC 2.0 and borrows `id`, `method` and
//! `params` from it. Ids are kept as their raw JSON text and echoed back **byte for
//! byte** (`9007199254740993` comes back unchanged, `"a\u0062"` too).
//!
//! ```
//! use emcp::wire::rpc::{parse, Message};
//! let msg = parse(br#"{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}"#).unwrap();
//! match msg {
//!     Message::Request(r) => {
//!         assert_eq!(r.id.raw(), b"9007199254740993");
//!         assert!(r.method.eq_str("ping"));
//!     }
//!     _ => unreachable!(),
//! }
//! ```

use crate::wire::error::{RequestError, RpcError};
use crate::wire::json::scanner::{Level, Picks, Stop};
use crate::wire::json::writer::member_key;
use crate::wire::json::{self, Kind, Str, Value};
use crate::wire::json::{JsonWriter, Sink};

/// Longest request id accepted, in bytes of its JSON text (quotes included).
///
/// Ids are stored for requests that outlive one call (pending tool jobs, listen
/// subscriptions), so they are bounded; a longer id is an Invalid Request (-32600).
pub const MAX_ID_LEN: usize = 64;

/// A request id: the raw JSON text of a string or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Id<'a>(&'a [u8]);

impl<'a> Id<'a> {
    /// The id's JSON text, exactly as received.
    pub fn raw(&self) -> &'a [u8] {
        self.0
    }

    /// Wrap raw JSON text already known to be a valid id (e.g. from an [`OwnedId`]).
    pub(crate) fn from_raw(raw: &'a [u8]) -> Self {
        Id(raw)
    }

    /// Check a JSON value as a request id.
    pub fn from_value(v: Value<'a>) -> Result<Self, RequestError> {
        let ok = match v.kind() {
            Kind::String => true,
            Kind::Number => v.raw().iter().all(|b| b.is_ascii_digit() || *b == b'-'),
            _ => false,
        };
        if !ok {
            return Err(RequestError::Id);
        }
        if v.raw().len() > MAX_ID_LEN {
            return Err(RequestError::IdTooLong);
        }
        Ok(Id(v.raw()))
    }
}

/// An id copied out of its line, for requests that outlive the call.
pub type OwnedId = heapless::Vec<u8, MAX_ID_LEN>;

/// Copy an id (always fits: ids are bounded by [`MAX_ID_LEN`]).
pub fn own(id: Id<'_>) -> OwnedId {
    let mut v = OwnedId::new();
    // Cannot fail: Id::from_value bounds the length.
    let _ = v.extend_from_slice(id.raw());
    v
}

/// A request or notification borrowed from its line.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The id (requests only).
    pub id: Id<'a>,
    /// The method name.
    pub method: Str<'a>,
    /// `params`, an object when present.
    pub params: Option<Value<'a>>,
}

/// A notification borrowed from its line.
#[derive(Clone, Copy, Debug)]
pub struct Notification<'a> {
    /// The method name.
    pub method: Str<'a>,
    /// `params` when present (any JSON type: malformed notifications are ignored later).
    pub params: Option<Value<'a>>,
}

/// One parsed message.
#[derive(Clone, Copy, Debug)]
pub enum Message<'a> {
    /// Has an id: must be answered exactly once.
    Request(Request<'a>),
    /// No id: never answered.
    Notification(Notification<'a>),
    /// A response from the client (to a server request); nothing to answer.
    Response,
}

/// A rejected message: the error and, when it could be read, the id to answer with.
#[derive(Clone, Copy, Debug)]
pub struct Rejected<'a> {
    /// The id, when the message had a valid one; `null` is answered otherwise.
    pub id: Option<Id<'a>>,
    /// What is wrong.
    pub error: RequestError,
}

/// The message of the JSON-RPC error answered for it (its [`RequestError`]'s).
impl core::fmt::Display for Rejected<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.error, f)
    }
}

impl core::error::Error for Rejected<'_> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        core::error::Error::source(&self.error)
    }
}

/// The members of a message [`parse`] looks at: four it reads, then the two that make
/// a message without `method` a response.
const MEMBERS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
const _: () = assert!(json::scanner::plain_names(&MEMBERS));

/// Parse and check one line as a JSON-RPC 2.0 message.
pub fn parse(line: &[u8]) -> Result<Message<'_>, Rejected<'_>> {
    parse_picks(line, Level::none(), Level::none(), &[]).0
}

/// Index of `params` in [`MEMBERS`].
const PARAMS: usize = 3;

/// [`parse`] that also files, during the same validation pass, the members of
/// `params` named by `params` and those of the object in it that `params` opens named
/// by `inner`; true with it when a member name of that object starts with `prefix`,
/// and, when the line is not JSON, the offset of the byte where it stopped being JSON.
pub(crate) fn parse_picks<'a>(
    line: &'a [u8],
    params: Level<'_, 'a>,
    inner: Level<'_, 'a>,
    prefix: &[u8],
) -> (Result<Message<'a>, Rejected<'a>>, bool, usize) {
    // `jsonrpc`, `id`, `method`, `params`, `result`, `error`: the members read, in
    // [`MEMBERS`] order, filed while the line is validated (no second walk).
    let mut slots: [Option<Value<'_>>; 6] = [None; 6];
    let mut picks = Picks {
        levels: [Level::new(&MEMBERS, &mut slots, PARAMS), params, inner],
        prefix,
        prefixed: false,
        stop: Stop::NONE,
    };
    let root = json::scanner::parse_picking(line, json::MAX_DEPTH, &mut picks);
    let (prefixed, stop) = (picks.prefixed, picks.stop.get());
    let message = match root {
        Ok(root) => message(root, slots),
        Err(e) => Err(Rejected {
            id: None,
            error: RequestError::Parse(e),
        }),
    };
    (message, prefixed, stop)
}

/// The message `root` is, given its members named by [`MEMBERS`].
fn message<'a>(
    root: Value<'a>,
    slots: [Option<Value<'a>>; 6],
) -> Result<Message<'a>, Rejected<'a>> {
    let reject = |id, error| Rejected { id, error };
    match root.kind() {
        Kind::Object => {}
        Kind::Array => return Err(reject(None, RequestError::Batch)),
        _ => return Err(reject(None, RequestError::NotObject)),
    }
    let [jsonrpc, id, method, params, result, error] = slots;
    let is_response = result.is_some() || error.is_some();
    let id = match id {
        None => None,
        Some(v) => match Id::from_value(v) {
            Ok(id) => Some(id),
            Err(e) => return Err(reject(None, e)),
        },
    };
    // The string "2.0", spelled without escapes (its raw text has its quotes).
    let version_ok = jsonrpc.is_some_and(|v| v.raw() == br#""2.0""#);
    if !version_ok {
        return Err(reject(id, RequestError::Version));
    }
    let method = match method {
        Some(m) => match m.as_str() {
            Some(s) => s,
            None => return Err(reject(id, RequestError::Method)),
        },
        None if is_response && id.is_some() => return Ok(Message::Response),
        None => return Err(reject(id, RequestError::Method)),
    };
    match id {
        Some(id) => {
            if params.is_some_and(|p| p.kind() != Kind::Object) {
                return Err(reject(Some(id), RequestError::Params));
            }
            Ok(Message::Request(Request { id, method, params }))
        }
        None => Ok(Message::Notification(Notification { method, params })),
    }
}

/// Start a success response: `{"jsonrpc":"2.0","id":<id>,"result":` then an open object.
/// The caller writes the members and calls [`end_response`].
pub fn begin_result(w: &mut JsonWriter<'_>, id: Id<'_>) {
    begin_message(w, ID, id.raw(), b",\"result\":{");
}

/// A message's opening up to its id: every response, and a request of the server's own.
pub(crate) const ID: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";

/// Start a message: `head` (`{"jsonrpc":"2.0",` and the member before `text`) and
/// `text` as they are, then `tail`, which opens an object (and may hold its first
/// members).
pub(crate) fn begin_message(w: &mut JsonWriter<'_>, head: &[u8], text: &[u8], tail: &[u8]) {
    w.raw(head);
    w.raw(text);
    w.begin_object_raw(tail);
}

/// Close the result object, the envelope, and the line.
pub fn end_response(w: &mut JsonWriter<'_>) {
    w.end(b"}}\n");
}

/// Start a notification: `{"jsonrpc":"2.0","method":"notifications/<name>","params":`
/// then an open object. Close with [`end_response`]. Every MCP notification the server
/// sends is in the `notifications/` namespace; the prefix is written here, so that
/// the image holds it once rather than in every method name.
pub fn begin_notification(w: &mut JsonWriter<'_>, name: &str) {
    begin_message(
        w,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/",
        name.as_bytes(),
        b"\",\"params\":{",
    );
}

/// Write a complete error response line. `data` writes the `data` member's value when
/// given.
pub fn write_error(
    sink: &mut dyn Sink,
    id: Option<Id<'_>>,
    error: RpcError,
    data: Option<&dyn Fn(&mut JsonWriter<'_>)>,
) {
    let mut w = JsonWriter::new(sink);
    let id = id.map_or(b"null".as_slice(), |id| id.raw());
    begin_message(&mut w, ID, id, b",\"error\":{");
    w.key_raw(member_key!("code"));
    w.i64(i64::from(error.code()));
    w.key_raw(member_key!("message"));
    let (prefix, rest) = error.message();
    w.string_begin();
    w.string_part(prefix);
    w.string_part(rest);
    w.string_end();
    if let Some(data) = data {
        w.key_raw(member_key!("data"));
        data(&mut w);
    }
    end_response(&mut w);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::wire::error::DispatchError;
    use crate::wire::json::ScanError;
    use std::vec::Vec;

    fn err(line: &str) -> (Option<Vec<u8>>, RequestError) {
        match parse(line.as_bytes()) {
            Err(r) => (r.id.map(|i| i.raw().to_vec()), r.error),
            Ok(m) => panic!("accepted {line}: {m:?}"),
        }
    }

    #[test]
    fn requests_and_notifications() {
        let Ok(Message::Request(r)) =
            parse(br#"{"method":"tools/list","params":{},"id":"a\"b","jsonrpc":"2.0"}"#)
        else {
            panic!()
        };
        assert_eq!(r.id.raw(), br#""a\"b""#);
        assert!(r.method.eq_str("tools/list"));
        assert!(r.params.is_some());
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Message::Notification(_))
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Ok(Message::Response)
        ));
        let Ok(Message::Request(r)) =
            parse(br#"{"jsonrpc":"2.0","id":-9007199254740993,"method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!(r.id.raw(), b"-9007199254740993");
    }

    #[test]
    fn names_matched_in_place_need_their_closing_quote() {
        // A name that starts a longer key is not that name; the longer key is skipped.
        let Ok(Message::Request(r)) =
            parse(br#"{"idx":5,"jsonrpc":"2.0","id":2,"methods":"a","method":"m"}"#)
        else {
            panic!()
        };
        assert_eq!(r.id.raw(), b"2");
        assert!(r.method.eq_str("m"));
        // A name cut off by the end of the line, or by a control character.
        assert_eq!(err(r#"{"id"#).1, RequestError::Parse(ScanError::Syntax));
        assert_eq!(
            err("{\"i\nd\":1}").1,
            RequestError::Parse(ScanError::Syntax)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"uri":"\x"}}"#).1,
            RequestError::Parse(ScanError::Syntax)
        );
    }

    #[test]
    fn escaped_member_names() {
        let Ok(Message::Request(r)) =
            parse(br#"{"json\u0072pc":"2.0","\u0069d":1,"\u006dethod":"ping","id":2}"#)
        else {
            panic!()
        };
        assert_eq!(r.id.raw(), b"1");
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":3,"r\u0065sult":{}}"#),
            Ok(Message::Response)
        ));
        // A long escaped key is simply not one of ours.
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":3,"\u006dethod_with_a_long_name":"x"}"#),
            (Some(b"3".to_vec()), RequestError::Method)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2\u002e0","id":3,"method":"x"}"#),
            (Some(b"3".to_vec()), RequestError::Version)
        );
    }

    #[test]
    fn rejections() {
        assert_eq!(err("{"), (None, RequestError::Parse(ScanError::Syntax)));
        assert_eq!(err("[]"), (None, RequestError::Batch));
        assert_eq!(
            err("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]").1,
            RequestError::Batch
        );
        assert_eq!(err("42"), (None, RequestError::NotObject));
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (None, RequestError::Id)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (None, RequestError::Id)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#),
            (None, RequestError::Id)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            (None, RequestError::Id)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#),
            (Some(b"7".to_vec()), RequestError::Version)
        );
        assert_eq!(
            err(r#"{"id":7,"method":"ping"}"#),
            (Some(b"7".to_vec()), RequestError::Version)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":7,"method":5}"#),
            (Some(b"7".to_vec()), RequestError::Method)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":7}"#),
            (Some(b"7".to_vec()), RequestError::Method)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","method":5}"#),
            (None, RequestError::Method)
        );
        assert_eq!(
            err(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":[1]}"#),
            (Some(b"7".to_vec()), RequestError::Params)
        );
        let long = std::format!(
            r#"{{"jsonrpc":"2.0","id":"{}","method":"x"}}"#,
            "a".repeat(63)
        );
        assert_eq!(err(&long), (None, RequestError::IdTooLong));
        let ok = std::format!(
            r#"{{"jsonrpc":"2.0","id":"{}","method":"x"}}"#,
            "a".repeat(62)
        );
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn error_line() {
        let mut buf = heapless::Vec::<u8, 256>::new();
        write_error(
            &mut buf,
            Some(Id(b"\"x\"")),
            DispatchError::MethodNotFound.into(),
            None,
        );
        assert_eq!(
            &buf[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n"
        );
        buf.clear();
        write_error(
            &mut buf,
            None,
            RequestError::Batch.into(),
            Some(&|w: &mut JsonWriter<'_>| w.str_lit("d")),
        );
        assert_eq!(
            &buf[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: batches are not supported\",\"data\":\"d\"}}\n"
        );
    }
}
