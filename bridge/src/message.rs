//! One JSON-RPC line, looked at lightly: its kind, the raw text of its id, its method
//! and the few parameters the relay follows. Lines are never re-serialised: the relay
//! forwards the bytes it received; only lines the bridge writes itself (its errors,
//! replayed requests, cancellations) are built here.

use serde::Deserialize;
use serde_json::value::RawValue;

/// What a line is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A request: `id` and `method`.
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A response: `id` and `result` or `error`, no `method`.
    Response,
    /// Valid JSON that is none of these (a batch array, `id` without anything else).
    Other,
}

/// The parts of a line the relay needs.
#[derive(Clone, Debug)]
pub struct Message {
    /// Request, notification, response, or other JSON.
    pub kind: Kind,
    /// The id's JSON text exactly as in the line (`7`, `"abc"`), for requests and
    /// responses; `None` when absent or `null`.
    pub id: Option<String>,
    /// The method, for requests and notifications.
    pub method: Option<String>,
    /// `params`, as JSON text.
    pub params: Option<String>,
    /// A response carries `error`.
    pub is_error: bool,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

impl Message {
    /// Look at one line (without its newline). `None`: not a JSON object (a batch
    /// array is `Some` with [`Kind::Other`]; anything not JSON is `None`).
    ///
    /// ```
    /// use emcp_bridge::message::{Kind, Message};
    /// let m = Message::parse(br#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#).unwrap();
    /// assert_eq!((m.kind, m.id.as_deref()), (Kind::Request, Some(r#""a-1""#)));
    /// assert!(Message::parse(b"boot: v1.2").is_none());
    /// ```
    pub fn parse(line: &[u8]) -> Option<Message> {
        match serde_json::from_slice::<Envelope<'_>>(line) {
            Ok(e) => {
                let id = e.id.map(|r| r.get().to_owned()).filter(|t| t != "null");
                let kind = match (&id, &e.method, e.result.is_some() || e.error.is_some()) {
                    (Some(_), Some(_), _) => Kind::Request,
                    (None, Some(_), _) => Kind::Notification,
                    (_, None, true) => Kind::Response,
                    _ => Kind::Other,
                };
                Some(Message {
                    kind,
                    id,
                    method: e.method,
                    params: e.params.map(|p| p.get().to_owned()),
                    is_error: e.error.is_some(),
                })
            }
            // A batch, or another JSON value: forwarded, not followed.
            Err(_) if serde_json::from_slice::<&RawValue>(line).is_ok() => Some(Message {
                kind: Kind::Other,
                id: None,
                method: None,
                params: None,
                is_error: false,
            }),
            Err(_) => None,
        }
    }

    /// The method, or "".
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }

    /// A string parameter (`params.<key>`), as JSON text.
    pub fn param(&self, key: &str) -> Option<String> {
        let params: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(self.params.as_deref()?).ok()?;
        params.get(key).map(|v| v.to_string())
    }

    /// `params._meta.<key>`, as JSON text.
    pub fn meta(&self, key: &str) -> Option<String> {
        let params: serde_json::Value = serde_json::from_str(self.params.as_deref()?).ok()?;
        params.get("_meta")?.get(key).map(|v| v.to_string())
    }
}

/// A JSON-RPC error response with the given raw id text.
///
/// ```
/// use emcp_bridge::message::error_line;
/// assert_eq!(
///     error_line("7", -32001, "timed out"),
///     br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"timed out"}}"#
/// );
/// ```
pub fn error_line(id: &str, code: i64, message: &str) -> Vec<u8> {
    let message = serde_json::Value::from(message).to_string();
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#)
        .into_bytes()
}

/// A request with a new id and the original's method and `params` text (replays).
pub fn request_line(id: &str, method: &str, params: Option<&str>) -> Vec<u8> {
    let method = serde_json::Value::from(method).to_string();
    match params {
        Some(p) => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method},"params":{p}}}"#),
        None => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method}}}"#),
    }
    .into_bytes()
}

/// `notifications/cancelled` for the request with this raw id.
pub fn cancel_line(id: &str, reason: &str) -> Vec<u8> {
    let reason = serde_json::Value::from(reason).to_string();
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":{reason}}}}}"#
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_raw_ids() {
        let m = Message::parse(
            br#"{"jsonrpc":"2.0","id": 12 ,"method":"tools/call","params":{"name":"x"}}"#,
        )
        .unwrap();
        assert_eq!(m.kind, Kind::Request);
        assert_eq!(m.id.as_deref(), Some("12"));
        assert_eq!(m.param("name").as_deref(), Some(r#""x""#));
        let m = Message::parse(br#"{"jsonrpc":"2.0","id":"a\u0041","result":{}}"#).unwrap();
        assert_eq!(
            (m.kind, m.id.as_deref()),
            (Kind::Response, Some(r#""a\u0041""#))
        );
        let m = Message::parse(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#).unwrap();
        assert_eq!((m.kind, m.id, m.is_error), (Kind::Response, None, true));
        let m = Message::parse(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t"}}"#).unwrap();
        assert_eq!(m.kind, Kind::Notification);
        assert_eq!(Message::parse(b"[1,2]").unwrap().kind, Kind::Other);
        assert!(Message::parse(b"{not json").is_none());
        let m = Message::parse(br#"{"id":1,"method":"x","params":{"_meta":{"progressToken":5}}}"#)
            .unwrap();
        assert_eq!(m.meta("progressToken").as_deref(), Some("5"));
    }

    #[test]
    fn built_lines_parse() {
        let l = request_line(r#""r/1""#, "initialize", Some(r#"{"a":1}"#));
        let m = Message::parse(&l).unwrap();
        assert_eq!(
            (m.kind, m.params.as_deref()),
            (Kind::Request, Some(r#"{"a":1}"#))
        );
        let m = Message::parse(&cancel_line("3", "timeout")).unwrap();
        assert_eq!(m.param("requestId").as_deref(), Some("3"));
        let m = Message::parse(&error_line(r#""x""#, -32000, "a \"b\"")).unwrap();
        assert!(m.is_error);
    }
}
