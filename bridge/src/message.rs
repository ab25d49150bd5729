//! One JSON-RPC line, looked at lightly: its kind, the raw text of its id, its method
//! and the few parameters the relay follows. Lines are never re-serialised: the relay
//! forwards the bytes it received but for the ids it swaps — a request's id for the
//! bridge's own on its way to the device and back in its answer ([`with_id`]), the
//! ids a cancellation or a listen stream's notifications name ([`with_value`]); only
//! lines the bridge writes itself (its errors, replayed requests, cancellations) are
//! built here.
//!
//! **Whose rules.** A host line is classified by the core's own JSON-RPC check
//! ([`emcp::wire::rpc::parse`], [`Message::from_host`]), so the bridge counts as a
//! request exactly what the device behind it answers as one: a request the core
//! rejects but answers with its id (`"method":7`, no `jsonrpc`, `params` not an
//! object) is a request here too. Device lines and the bridge's own lines are read
//! by [`Message::parse`]. Both read JSON with the core's scanner: iterative, nesting
//! bounded (32 levels for host lines, as the core; [`json::DEPTH_LIMIT`] for device
//! lines), no recursion on any input.

use emcp::wire::error::RequestError;
use emcp::wire::error::RpcError;
use emcp::wire::json::{self, Str, Value};
use emcp::wire::rpc;

/// What a line is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A request: `id` and `method`. From the host: anything the core answers with
    /// its id (see [`Message::rejected`]).
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A response: `id` and `result` or `error`, no `method`.
    Response,
    /// None of these (a batch array, `id` without anything else); from the host: a
    /// line the core answers with id `null`.
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
    /// A host line the core rejects: why (the core answers it with this error, with
    /// the line's id when it could read one, else `null`).
    pub rejected: Option<RequestError>,
}

/// A value's JSON text (valid UTF-8: the scanner checked the whole line).
fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

/// A JSON string's value, escapes decoded.
fn string(s: Str<'_>) -> String {
    if let Some(plain) = s.as_plain() {
        return plain.to_owned();
    }
    // Decoded text is never longer than its escaped form.
    let mut buf = vec![0u8; s.raw().len()];
    s.unescape_into(&mut buf)
        .map(str::to_owned)
        .unwrap_or_default()
}

/// The members [`Message::parse`] reads, in the order it files them.
const MEMBERS: [&str; 5] = ["id", "method", "params", "result", "error"];

/// A member of the JSON object `object` (JSON text), as JSON text.
fn member(object: &str, key: &str) -> Option<String> {
    let v = json::parse_with_depth(object.as_bytes(), json::DEPTH_LIMIT).ok()?;
    v.get(key).map(|m| text(m.raw()))
}

impl Message {
    /// Look at one line (without its newline) from the device, or one the bridge
    /// built. `None`: not JSON (boot noise), or nested deeper than
    /// [`json::DEPTH_LIMIT`]. A batch array is `Some` with [`Kind::Other`].
    ///
    /// ```
    /// use emcp_bridge::message::{Kind, Message};
    /// let m = Message::parse(br#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#).unwrap();
    /// assert_eq!((m.kind, m.id.as_deref()), (Kind::Request, Some(r#""a-1""#)));
    /// assert!(Message::parse(b"boot: v1.2").is_none());
    /// ```
    pub fn parse(line: &[u8]) -> Option<Message> {
        let root = json::parse_with_depth(line, json::DEPTH_LIMIT).ok()?;
        // One walk over the members (none unless an object), the first of each name
        // kept, as `Value::get` finds it: a line is read once, not once per member.
        let mut found = [None; 5];
        for (key, value) in root.members() {
            // A name without escapes (nearly all) is compared as it is.
            let plain = key.as_plain();
            let is = |name: &&str| plain.map_or_else(|| key.eq_str(name), |k| k == *name);
            if let Some(i) = MEMBERS.iter().position(is) {
                found[i].get_or_insert(value);
            }
        }
        let [id, method_member, params, result, error] = found;
        let id = id.map(|v| text(v.raw())).filter(|t| t != "null");
        let method = method_member.and_then(|m| m.as_str()).map(string);
        let is_error = error.is_some();
        let kind = match (&id, &method, result.is_some() || is_error) {
            (Some(_), Some(_), _) => Kind::Request,
            (None, Some(_), _) => Kind::Notification,
            // A `method` that is not a string makes no response either.
            (_, None, true) if method_member.is_none() => Kind::Response,
            _ => Kind::Other,
        };
        Some(Message {
            kind,
            id,
            method,
            params: params.map(|p| text(p.raw())),
            is_error,
            rejected: None,
        })
    }

    /// Look at one line (without its newline) from the host, by the core's rules
    /// ([`rpc::parse`]): a request is what the core answers with its id.
    ///
    /// ```
    /// use emcp_bridge::message::{Kind, Message};
    /// let m = Message::from_host(br#"{"jsonrpc":"2.0","id":2,"method":7}"#);
    /// assert_eq!((m.kind, m.id.as_deref()), (Kind::Request, Some("2")));
    /// assert!(m.rejected.is_some());
    /// let m = Message::from_host(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
    /// assert_eq!((m.kind, m.id), (Kind::Other, None));
    /// ```
    pub fn from_host(line: &[u8]) -> Message {
        let message = |kind,
                       id: Option<rpc::Id<'_>>,
                       method: Option<Str<'_>>,
                       params: Option<Value<'_>>| Message {
            kind,
            id: id.map(|id| text(id.raw())),
            method: method.map(string),
            params: params.map(|p| text(p.raw())),
            is_error: false,
            rejected: None,
        };
        match rpc::parse(line) {
            Ok(rpc::Message::Request(r)) => {
                message(Kind::Request, Some(r.id), Some(r.method), r.params)
            }
            Ok(rpc::Message::Notification(n)) => {
                message(Kind::Notification, None, Some(n.method), n.params)
            }
            // A valid response is valid JSON within the core's depth: `parse` reads it.
            Ok(rpc::Message::Response) => {
                Message::parse(line).unwrap_or_else(|| message(Kind::Other, None, None, None))
            }
            Err(rpc::Rejected { id: None, error }) => Message::rejected(error),
            Err(rpc::Rejected { id, error }) => Message {
                rejected: Some(error),
                ..message(Kind::Request, id, None, None)
            },
        }
    }

    /// A host line the core rejects without reading its id (answered with id `null`).
    pub fn rejected(error: RequestError) -> Message {
        Message {
            kind: Kind::Other,
            id: None,
            method: None,
            params: None,
            is_error: false,
            rejected: Some(error),
        }
    }

    /// The method, or "".
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }

    /// A parameter (`params.<key>`), as JSON text.
    pub fn param(&self, key: &str) -> Option<String> {
        member(self.params.as_deref()?, key)
    }

    /// `params._meta.<key>`, as JSON text.
    pub fn meta(&self, key: &str) -> Option<String> {
        let params = self.params.as_deref()?.as_bytes();
        let params = json::parse_with_depth(params, json::DEPTH_LIMIT).ok()?;
        params.get("_meta")?.get(key).map(|m| text(m.raw()))
    }
}

/// The value of a JSON string given as JSON text (`"a\u0062"` → `ab`); `None` when
/// the text is not a string.
///
/// ```
/// assert_eq!(emcp_bridge::message::string_value(r#""a\u0062""#).as_deref(), Some("ab"));
/// assert_eq!(emcp_bridge::message::string_value("7"), None);
/// ```
pub fn string_value(json_text: &str) -> Option<String> {
    let v = json::parse_with_depth(json_text.as_bytes(), json::DEPTH_LIMIT).ok()?;
    v.as_str().map(string)
}

/// `line` (a JSON object) with the value of its `id` member — of every member so
/// named, however its name is escaped, so that a reader taking the first and one
/// taking the last see the same — replaced by the JSON text `id`, and its line
/// breaks by spaces (outside strings they are whitespace; JSON strings cannot hold
/// one raw): one device line. The rest of the line is kept byte for byte. `None`
/// when `line` is not such an object.
///
/// ```
/// use emcp_bridge::message::with_id;
/// assert_eq!(
///     with_id(b"{\"id\" : 7,\r\n \"method\":7}", "\"b/1\"").unwrap(),
///     b"{\"id\" : \"b/1\",   \"method\":7}"
/// );
/// assert_eq!(with_id(br#"{"id":1,"i\u0064":2}"#, "3").unwrap(), br#"{"id":3,"i\u0064":3}"#);
/// ```
pub fn with_id(line: &[u8], id: &str) -> Option<Vec<u8>> {
    with_value(line, &["id"], id)
}

/// `line` (a JSON object) with the value at `path` (member names from the root; the
/// last names every member so named in its object, the others the first) replaced
/// by the JSON text `value`, the rest kept byte for byte, line breaks as spaces
/// ([`one_line`]). `None` when `line` is not JSON or nothing is at `path`.
///
/// ```
/// use emcp_bridge::message::with_value;
/// let line = br#"{"method":"notifications/cancelled","params":{"requestId":"a","reason":"x"}}"#;
/// assert_eq!(
///     with_value(line, &["params", "requestId"], "17").unwrap(),
///     br#"{"method":"notifications/cancelled","params":{"requestId":17,"reason":"x"}}"#
/// );
/// assert!(with_value(line, &["params", "progressToken"], "1").is_none());
/// ```
pub fn with_value(line: &[u8], path: &[&str], value: &str) -> Option<Vec<u8>> {
    let (last, outer) = path.split_last()?;
    let mut object = json::parse_with_depth(line, json::DEPTH_LIMIT).ok()?;
    for key in outer {
        object = object.get(key)?;
    }
    let base = line.as_ptr() as usize;
    let mut spans = Vec::new();
    for (key, v) in object.members() {
        if key.eq_str(last) {
            let start = (v.raw().as_ptr() as usize).checked_sub(base)?;
            spans.push((start, start + v.raw().len()));
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(line.len() + spans.len() * value.len());
    let mut at = 0;
    for (start, end) in spans {
        out.extend_from_slice(line.get(at..start)?);
        out.extend_from_slice(value.as_bytes());
        at = end;
    }
    out.extend_from_slice(line.get(at..)?);
    Some(one_line(&out))
}

/// A JSON message (an HTTP body) as one line: its line breaks, whitespace outside
/// strings, become spaces (JSON strings cannot hold one raw).
pub fn one_line(json: &[u8]) -> Vec<u8> {
    json.iter()
        .map(|&b| if matches!(b, b'\n' | b'\r') { b' ' } else { b })
        .collect()
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

/// An error line as [`error_line`] writes it, with `data`.
///
/// ```
/// use emcp_bridge::message::error_line_data;
/// assert_eq!(
///     error_line_data("7", -32601, "Method not found", &serde_json::json!({"method": "x"})),
///     br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found","data":{"method":"x"}}}"#
/// );
/// ```
pub fn error_line_data(id: &str, code: i64, message: &str, data: &serde_json::Value) -> Vec<u8> {
    let message = serde_json::Value::from(message).to_string();
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message},"data":{data}}}}}"#
    )
    .into_bytes()
}

/// The core's answer to a line longer than its line buffer of `limit` bytes (id
/// `null`), as the core writes it (with `error-data`: the limit in `data`).
///
/// ```
/// assert_eq!(
///     emcp_bridge::message::too_long_line(4096),
///     br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: line too long","data":{"limit":4096}}}"#
/// );
/// ```
pub fn too_long_line(limit: usize) -> Vec<u8> {
    let e = RpcError::from(RequestError::TooLong);
    let (prefix, rest) = e.message();
    error_line_data(
        "null",
        e.code().into(),
        &format!("{prefix}{rest}"),
        &serde_json::json!({ "limit": limit }),
    )
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
        let m = Message::parse(br#"{"id":1,"result":{},"method":7}"#).unwrap();
        assert_eq!(m.kind, Kind::Other);
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
