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
//!
//! **One check per line.** A [`Message`] keeps the line it was read from once the
//! scanner accepted it, with where its `id` and `params` are: its parameters
//! ([`Message::param`], [`Message::meta`]) and its swaps ([`Message::with_id`],
//! [`Message::with_value`]) read that copy again without checking it again
//! ([`Value::trusted`]).

use std::borrow::Cow;
use std::ops::Range;

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
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// Read by the core's rules ([`Message::from_host`]), not [`Message::parse`]'s.
    host: bool,
    /// The line it was read from (empty for [`Message::rejected`]).
    line: Vec<u8>,
    /// Where its values are, when the scanner accepted the line.
    read: Option<Read>,
}

/// Where in a [`Message`]'s line, which the scanner accepted, the values the message
/// reads again are.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Read {
    /// The values of the root's members named `id` (every one), when the read walked
    /// the root's members (else found when needed).
    ids: Option<Ids>,
    /// The value of `params` (the first so named), as in [`Message::params`].
    params: Option<Range<usize>>,
}

impl Read {
    /// In `line`, accepted by the scanner: `params` (a value of it, or none) and the
    /// values of its `id` members when known.
    fn new(line: &[u8], ids: Option<Ids>, params: Option<Value<'_>>) -> Read {
        Read {
            ids,
            params: params.and_then(|p| span(line, p)),
        }
    }

    /// `params` in `line`, read again without a check.
    fn params<'a>(&self, line: &'a [u8]) -> Option<Value<'a>> {
        Some(Value::trusted(line.get(self.params.clone()?)?))
    }
}

/// Where the values of members of one name are: nearly always one (no allocation).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ids {
    One(Range<usize>),
    Many(Vec<Range<usize>>),
}

impl Ids {
    /// One more, after those.
    fn push(ids: &mut Option<Ids>, span: Range<usize>) {
        *ids = Some(match ids.take() {
            None => Ids::One(span),
            Some(Ids::One(first)) => Ids::Many(vec![first, span]),
            Some(Ids::Many(mut all)) => {
                all.push(span);
                Ids::Many(all)
            }
        });
    }

    fn as_slice(&self) -> &[Range<usize>] {
        match self {
            Ids::One(one) => std::slice::from_ref(one),
            Ids::Many(all) => all,
        }
    }
}

/// Where `value`, a value read from `line`, is in it.
fn span(line: &[u8], value: Value<'_>) -> Option<Range<usize>> {
    let start = (value.raw().as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    Some(start..start + value.raw().len())
}

/// The values of the root's members named `id` in `line` (JSON), when `first`, the
/// value of the first, is provably the only one: the line has no escape, so any name
/// that reads `id` is spelled `"id"`, and those four bytes are there once. (Else the
/// root's members are walked when the ids are needed.)
fn only_id(line: &[u8], first: rpc::Id<'_>) -> Option<Ids> {
    // Found by their `d`, a rare letter (a word at a time).
    let mut keys = memchr::memchr_iter(b'd', line)
        .filter(|&d| matches!(line.get(d.wrapping_sub(2)..d + 2), Some(br#""id""#)));
    let once = keys.nth(1).is_none();
    let plain = memchr::memchr(b'\\', line).is_none();
    let start = (first.raw().as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    (once && plain).then(|| Ids::One(start..start + first.raw().len()))
}

/// Where the values of `object`'s members named `key` (every one, however its name is
/// escaped) are in `line`, which `object` was read from.
fn spans(line: &[u8], object: Value<'_>, key: &str) -> Option<Vec<Range<usize>>> {
    object
        .members()
        .filter(|(k, _)| k.eq_str(key))
        .map(|(_, v)| span(line, v))
        .collect()
}

/// `line` with the values at each group's spans replaced by its JSON text, as one
/// line ([`one_line`]); `None` when the first group has none. The spans are apart
/// (each group's in order).
fn splice(line: &[u8], groups: &[(&[Range<usize>], &str)]) -> Option<Vec<u8>> {
    if groups.first().is_none_or(|(spans, _)| spans.is_empty()) {
        return None;
    }
    let extra: usize = groups.iter().map(|(s, text)| s.len() * text.len()).sum();
    let mut out = Vec::with_capacity(line.len() + extra);
    let mut at = 0;
    let mut put = |span: &Range<usize>, text: &str| {
        out.extend_from_slice(line.get(at..span.start)?);
        out.extend_from_slice(text.as_bytes());
        at = span.end;
        Some(())
    };
    match groups {
        [(spans, text)] => {
            for span in *spans {
                put(span, text)?;
            }
        }
        _ => {
            let mut all: Vec<(&Range<usize>, &str)> = groups
                .iter()
                .flat_map(|(spans, text)| spans.iter().map(move |s| (s, *text)))
                .collect();
            all.sort_unstable_by_key(|(s, _)| s.start);
            for (span, text) in all {
                put(span, text)?;
            }
        }
    }
    out.extend_from_slice(line.get(at..)?);
    Some(into_one_line(out))
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
        // Every `id` member is kept too, for `with_id`.
        let mut found = [None; 5];
        let mut ids = None;
        for (key, value) in root.members() {
            // A name without escapes (nearly all) is compared as it is.
            let plain = key.as_plain();
            let is = |name: &&str| plain.map_or_else(|| key.eq_str(name), |k| k == *name);
            if let Some(i) = MEMBERS.iter().position(is) {
                if i == 0 {
                    Ids::push(&mut ids, span(line, value)?);
                }
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
            host: false,
            line: line.to_vec(),
            // With no `id` member: none (not "not known").
            read: Some(Read::new(
                line,
                Some(ids.unwrap_or(Ids::Many(Vec::new()))),
                params,
            )),
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
            host: true,
            line: line.to_vec(),
            // Accepted by the scanner (within the core's depth, below the bridge's).
            read: Some(Read::new(line, id.and_then(|id| only_id(line, id)), params)),
        };
        match rpc::parse(line) {
            Ok(rpc::Message::Request(r)) => {
                message(Kind::Request, Some(r.id), Some(r.method), r.params)
            }
            Ok(rpc::Message::Notification(n)) => {
                message(Kind::Notification, None, Some(n.method), n.params)
            }
            // A valid response is valid JSON within the core's depth: `parse` reads it.
            Ok(rpc::Message::Response) => match Message::parse(line) {
                Some(m) => Message { host: true, ..m },
                None => Message {
                    read: None,
                    ..message(Kind::Other, None, None, None)
                },
            },
            // Not JSON: nothing to read again.
            Err(rpc::Rejected {
                id: None,
                error: error @ RequestError::Parse(_),
            }) => Message {
                host: true,
                line: line.to_vec(),
                ..Message::rejected(error)
            },
            Err(rpc::Rejected { id: None, error }) => Message {
                rejected: Some(error),
                ..message(Kind::Other, None, None, None)
            },
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
            host: true,
            line: Vec::new(),
            read: None,
        }
    }

    /// The line it was read from (empty for [`Message::rejected`]).
    pub fn line(&self) -> &[u8] {
        &self.line
    }

    /// [`Message::line`], owned.
    pub fn into_line(self) -> Vec<u8> {
        self.line
    }

    /// Read by [`Message::from_host`]'s rules (the core's), not [`Message::parse`]'s.
    pub fn is_from_host(&self) -> bool {
        self.host
    }

    /// The message of [`one_line`] of its line: itself when the line has no break.
    pub fn into_one_line(self) -> Message {
        match memchr::memchr2(b'\n', b'\r', &self.line) {
            None => self,
            Some(_) => self.read_again(one_line(&self.line)),
        }
    }

    /// The method, or "".
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }

    /// A parameter (`params.<key>`) of the line read, as JSON text.
    pub fn param(&self, key: &str) -> Option<String> {
        let params = self.read.as_ref()?.params(&self.line)?;
        params.get(key).map(|m| text(m.raw()))
    }

    /// `params._meta.<key>` of the line read, as JSON text.
    pub fn meta(&self, key: &str) -> Option<String> {
        let params = self.read.as_ref()?.params(&self.line)?;
        params.get("_meta")?.get(key).map(|m| text(m.raw()))
    }

    /// The line read, as [`with_id`] makes it: with the value of every root member
    /// named `id` replaced by the JSON text `id`, as one line. `None` when it has
    /// none, or the message was not read from JSON.
    ///
    /// ```
    /// use emcp_bridge::message::Message;
    /// let m = Message::parse(br#"{"id":1,"i\u0064":2,"result":{}}"#).unwrap();
    /// assert_eq!(m.with_id("3").unwrap(), br#"{"id":3,"i\u0064":3,"result":{}}"#);
    /// ```
    pub fn with_id(&self, id: &str) -> Option<Vec<u8>> {
        let read = self.read.as_ref()?;
        splice(&self.line, &[(&*read.ids(&self.line)?, id)])
    }

    /// The line read, as [`with_value`] makes it: the value at `path` replaced by the
    /// JSON text `value`, as one line. `None` when nothing is at `path`, or the
    /// message was not read from JSON.
    ///
    /// ```
    /// use emcp_bridge::message::Message;
    /// let line = br#"{"method":"notifications/cancelled","params":{"requestId":"a"}}"#;
    /// let m = Message::parse(line).unwrap();
    /// assert_eq!(
    ///     m.with_value(&["params", "requestId"], "17").unwrap(),
    ///     br#"{"method":"notifications/cancelled","params":{"requestId":17}}"#
    /// );
    /// ```
    pub fn with_value(&self, path: &[&str], value: &str) -> Option<Vec<u8>> {
        if path == ["id"] {
            return self.with_id(value);
        }
        let read = self.read.as_ref()?;
        splice(&self.line, &[(&read.at(&self.line, path)?, value)])
    }

    /// [`Message::with_id`], then [`with_value`] at `path` on the line that makes
    /// when something is there: one splice when `id` and `value` are JSON scalars
    /// (the second finds in the first's line what it would find in this one). `None`
    /// when [`Message::with_id`] is.
    pub(crate) fn with_id_then_value(
        &self,
        id: &str,
        path: &[&str],
        value: &str,
    ) -> Option<Vec<u8>> {
        let scalar = |t: &str| json::parse_with_depth(t.as_bytes(), 0).is_ok();
        let read = self.read.as_ref()?;
        if path.first() == Some(&"id") || !scalar(id) || !scalar(value) {
            let line = self.with_id(id)?;
            return Some(with_value(&line, path, value).unwrap_or(line));
        }
        let at = read.at(&self.line, path).unwrap_or_default();
        splice(&self.line, &[(&*read.ids(&self.line)?, id), (&at, value)])
    }

    /// The message of the line [`Message::with_id`] makes.
    ///
    /// ```
    /// use emcp_bridge::message::Message;
    /// let m = Message::parse(br#"{"id":1,"result":{"n":2}}"#).unwrap();
    /// let swapped = m.swap_id(r#""a""#).unwrap();
    /// assert_eq!(swapped.line(), br#"{"id":"a","result":{"n":2}}"#);
    /// assert_eq!(swapped.id.as_deref(), Some(r#""a""#));
    /// ```
    pub fn swap_id(&self, id: &str) -> Option<Message> {
        let read = self.read.as_ref()?;
        self.swapped(Some(id), &[(&*read.ids(&self.line)?, id)])
    }

    /// The message of the line [`Message::with_value`] makes.
    pub fn swap_value(&self, path: &[&str], value: &str) -> Option<Message> {
        match path.first() {
            Some(&"id") if path.len() == 1 => self.swap_id(value),
            // Inside an id: the id's text changes with it.
            Some(&"id") => Some(self.read_again(self.with_value(path, value)?)),
            _ => {
                let read = self.read.as_ref()?;
                self.swapped(None, &[(&read.at(&self.line, path)?, value)])
            }
        }
    }

    /// The message of the line [`Message::with_id_then_value`] makes.
    pub(crate) fn swap_id_then_value(
        &self,
        id: &str,
        path: &[&str],
        value: &str,
    ) -> Option<Message> {
        let scalar = |t: &str| json::parse_with_depth(t.as_bytes(), 0).is_ok();
        let read = self.read.as_ref()?;
        if path.first() == Some(&"id") || !scalar(id) || !scalar(value) {
            return Some(self.read_again(self.with_id_then_value(id, path, value)?));
        }
        let at = read.at(&self.line, path).unwrap_or_default();
        self.swapped(Some(id), &[(&*read.ids(&self.line)?, id), (&at, value)])
    }

    /// The message of `line`, read by the rules this one was read by.
    fn read_again(&self, line: Vec<u8>) -> Message {
        match self.host {
            true => Message::from_host(&line),
            false => Message::parse_owned(line),
        }
    }

    /// [`Message::parse`] of `line`, kept as [`Kind::Other`] when not JSON.
    fn parse_owned(line: Vec<u8>) -> Message {
        Message::parse(&line).unwrap_or(Message {
            kind: Kind::Other,
            id: None,
            method: None,
            params: None,
            is_error: false,
            rejected: None,
            host: false,
            line,
            read: None,
        })
    }

    /// The message of [`error_line`] with the error `tail` ([`error_tail`]), as
    /// [`Message::parse`] reads it, made without reading it when `id` is a JSON
    /// scalar (not `null`) as it is: its one id member comes right after the
    /// envelope's start. Else read.
    ///
    /// ```
    /// use emcp_bridge::message::{error_tail, Kind, Message};
    /// let m = Message::error("7", &error_tail(-32001, "timed out"));
    /// assert_eq!((&m.kind, m.id.as_deref(), m.is_error), (&Kind::Response, Some("7"), true));
    /// assert_eq!(m.with_id("8").unwrap(), br#"{"jsonrpc":"2.0","id":8,"error":{"code":-32001,"message":"timed out"}}"#);
    /// ```
    pub fn error(id: &str, tail: &str) -> Message {
        let line = [ERROR_START, id, tail].concat().into_bytes();
        if scalar(id).is_none_or(|v| v.is_null()) {
            return Message::parse_owned(line);
        }
        let start = ERROR_START.len();
        Message {
            kind: Kind::Response,
            id: Some(id.to_owned()),
            method: None,
            params: None,
            is_error: true,
            rejected: None,
            host: false,
            read: Some(Read {
                ids: Some(Ids::One(start..start + id.len())),
                params: None,
            }),
            line,
        }
    }

    /// The message of the line `splice` makes of this one with `groups`, `id` the
    /// text put in its ids when the first group is its ids. Its spans are this one's,
    /// moved by what each swap before them added or took away; its `id` is `id` and
    /// its `params` the new line's. That is what reading the new line finds when each
    /// swap puts a JSON scalar where a value was: the line stays JSON, no deeper, with
    /// the same members in the same order, and the same kind while its id stays one
    /// its rules take. Read again when that cannot be said: a host line the core
    /// rejects (an id it refused may be swapped for one it takes), an id it would
    /// refuse or `null`, an id swapped on a message without one, a value not a scalar.
    fn swapped(&self, id: Option<&str>, groups: &[(&[Range<usize>], &str)]) -> Option<Message> {
        let line = splice(&self.line, groups)?;
        let read = self.read.as_ref()?;
        // Scalars: the line's depth cannot grow.
        let ids_kept = id.is_none_or(|id| {
            let id = scalar(id).filter(|v| !v.is_null() && self.id.is_some());
            // The core reads a host line's id (`Id::from_value`).
            id.is_some_and(|v| !self.host || rpc::Id::from_value(v).is_ok())
        });
        let scalars = groups.iter().all(|(_, text)| scalar(text).is_some());
        if self.rejected.is_some() || !ids_kept || !scalars {
            return Some(self.read_again(line));
        }
        let moved = |r: &Range<usize>| Some(moved(groups, r.start)?..moved(groups, r.end)?);
        let ids = match &read.ids {
            None => None,
            Some(Ids::One(r)) => Some(Ids::One(moved(r)?)),
            Some(Ids::Many(all)) => Some(Ids::Many(all.iter().map(moved).collect::<Option<_>>()?)),
        };
        let params = match &read.params {
            Some(r) => Some(moved(r)?),
            None => None,
        };
        Some(Message {
            kind: self.kind.clone(),
            id: id.map_or_else(|| self.id.clone(), |id| Some(id.to_owned())),
            method: self.method.clone(),
            params: params.as_ref().and_then(|r| line.get(r.clone())).map(text),
            is_error: self.is_error,
            rejected: None,
            host: self.host,
            read: Some(Read { ids, params }),
            line,
        })
    }
}

/// `t` when it is a JSON scalar as it is (no space around).
fn scalar(t: &str) -> Option<Value<'_>> {
    let v = json::parse_with_depth(t.as_bytes(), 0).ok()?;
    (v.raw() == t.as_bytes()).then_some(v)
}

/// Where offset `at` of a line is after `splice` put each group's text in its spans
/// (`at` not inside one): moved by what each span that ends by `at` added or took away.
fn moved(groups: &[(&[Range<usize>], &str)], at: usize) -> Option<usize> {
    let (mut added, mut removed) = (0, 0);
    for (spans, text) in groups {
        for span in spans.iter().filter(|s| s.end <= at) {
            added += text.len();
            removed += span.len();
        }
    }
    (at + added).checked_sub(removed)
}

impl Read {
    /// The values of the root's members named `id`.
    fn ids(&self, line: &[u8]) -> Option<Cow<'_, [Range<usize>]>> {
        Some(match &self.ids {
            Some(ids) => Cow::Borrowed(ids.as_slice()),
            None => Cow::Owned(spans(line, Value::trusted(line), "id")?),
        })
    }

    /// The values at `path` (as [`with_value`] finds them).
    fn at(&self, line: &[u8], path: &[&str]) -> Option<Vec<Range<usize>>> {
        let (last, outer) = path.split_last()?;
        let mut object = Value::trusted(line);
        for key in outer {
            object = object.get(key)?;
        }
        spans(line, object, last)
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
    splice(line, &[(&spans(line, object, last)?, value)])
}

/// A JSON message (an HTTP body) as one line: its line breaks, whitespace outside
/// strings, become spaces (JSON strings cannot hold one raw).
pub fn one_line(json: &[u8]) -> Vec<u8> {
    into_one_line(json.to_vec())
}

/// [`one_line`] in place.
fn into_one_line(mut json: Vec<u8>) -> Vec<u8> {
    // Most lines have no break: found a word at a time, not compared byte by byte.
    if memchr::memchr2(b'\n', b'\r', &json).is_some() {
        for b in json.iter_mut().filter(|b| matches!(b, b'\n' | b'\r')) {
            *b = b' ';
        }
    }
    json
}

/// `text` as a JSON string, as `serde_json` writes it: as it is between quotes when
/// nothing in it needs an escape (the bridge's own messages and method names).
fn quoted(text: &str) -> String {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        return serde_json::Value::from(text).to_string();
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    out.push_str(text);
    out.push('"');
    out
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
    [ERROR_START, id, &error_tail(code, message)]
        .concat()
        .into_bytes()
}

/// What follows the id in [`error_line`]: the error member, and the end. The relay
/// makes its faults' once, and joins each answer from it and the id.
///
/// ```
/// use emcp_bridge::message::error_tail;
/// assert_eq!(error_tail(-32001, "timed out"), r#","error":{"code":-32001,"message":"timed out"}}"#);
/// ```
pub fn error_tail(code: i64, message: &str) -> String {
    format!(
        r#","error":{{"code":{code},"message":{}}}}}"#,
        quoted(message)
    )
}

/// What [`error_line`] writes before the id.
const ERROR_START: &str = r#"{"jsonrpc":"2.0","id":"#;

/// A request with a new id and the original's method and `params` text (replays).
pub fn request_line(id: &str, method: &str, params: Option<&str>) -> Vec<u8> {
    let method = quoted(method);
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
    let message = quoted(message);
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
    let reason = quoted(reason);
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
    fn quoted_is_serde_jsons_string() {
        for text in [
            "timed out",
            "",
            "a \"b\"",
            "back\\slash",
            "tab\there",
            "é \u{7f}",
            "\u{1}",
        ] {
            assert_eq!(quoted(text), serde_json::Value::from(text).to_string());
        }
    }

    /// The swaps of a message read its kept line as the free functions read the line.
    #[test]
    fn swaps_of_a_message_are_those_of_its_line() {
        let lines: [&[u8]; 9] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#,
            b"{\"id\" : 7,\r\n \"method\":\"x\", \"params\" : {\"_meta\":{\"progressToken\":1,\"progressToken\":2}}}",
            br#"{"id":1,"i\u0064":2,"method":"m","params":{"_meta":{"progress\u0054oken":3}}}"#,
            br#"{"jsonrpc":"2.0","id":"id","method":"ping","params":{"x":"\"id\""}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{}},"params":{"_meta":{"progressToken":1}}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":7,"params":{"_meta":{"progressToken":1}}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","requestId":4}}"#,
            br#"{"jsonrpc":"2.0","id":"x","result":{"id":1}}"#,
            br#"[{"id":1}]"#,
        ];
        let token = ["params", "_meta", "progressToken"];
        let paths: [&[&str]; 4] = [&["id"], &token, &["params", "requestId"], &["result", "id"]];
        for line in lines {
            for m in [Message::from_host(line), Message::parse(line).unwrap()] {
                let read = m.read.is_some();
                assert_eq!(m.with_id("\"b\""), with_id(line, "\"b\"").filter(|_| read));
                for path in paths {
                    let free = with_value(line, path, "9").filter(|_| read);
                    assert_eq!(m.with_value(path, "9"), free, "{path:?}");
                    for value in ["\"t\"", "[1]"] {
                        let both = with_id(line, "5")
                            .filter(|_| read)
                            .map(|l| with_value(&l, path, value).unwrap_or(l));
                        assert_eq!(m.with_id_then_value("5", path, value), both, "{path:?}");
                    }
                }
            }
        }
    }

    /// What reading a message's line finds, its ids found when not known.
    fn as_read(m: &Message) -> (Message, Option<Vec<Range<usize>>>) {
        let ids = m
            .read
            .as_ref()
            .and_then(|r| Some(r.ids(&m.line)?.into_owned()));
        let mut m = m.clone();
        if let Some(r) = &mut m.read {
            r.ids = None;
        }
        (m, ids)
    }

    /// A swapped message is what reading its line by the same rules finds.
    #[test]
    fn swapped_messages_are_their_lines_read() {
        let lines: [&[u8]; 16] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\" : 7,\r\n \"method\":\"x\", \"params\" : {\"_meta\":{\"progressToken\":1,\"progressToken\":[2,{}]}}}",
            br#"{"jsonrpc":"2.0","id":1,"i\u0064":2,"method":"m","params":{"_meta":{"progress\u0054oken":3}}}"#,
            br#"{"jsonrpc":"2.0","id":"id","method":"ping","params":{"x":"\"id\""}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{}},"params":{"_meta":{"progressToken":1}}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":7,"params":{"_meta":{"progressToken":1}}}"#,
            br#"{"jsonrpc":"2.0","id":1.5e3,"method":"ping","params":[]}"#,
            br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","requestId":4}}"#,
            br#"{"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"emcp-bridge/h/12345"}}}"#,
            br#"{"jsonrpc":"2.0","id":"x","result":{"id":1}}"#,
            br#"{"params":{"progressToken":{"a":[1,2,3]}},"id":"long-id-longer-than-the-new","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":{"a":1},"result":{}}"#,
            br#"{"id":1,"method":"x","params":{"_meta":{"progressToken":1}},"id":2}"#,
            br#"[{"id":1}]"#,
        ];
        let token = ["params", "_meta", "progressToken"];
        let sub = ["params", "_meta", "io.modelcontextprotocol/subscriptionId"];
        let paths: [&[&str]; 7] = [
            &["id"],
            &token,
            &sub,
            &["params", "requestId"],
            &["params", "progressToken"],
            &["result", "id"],
            &["id", "a"],
        ];
        let values = [r#""emcp-bridge/h/1""#, "5", "[1]", "null", r#""t\u0041""#];
        let mut derived = 0;
        for line in lines {
            let host = Message::from_host(line);
            for m in [
                host.clone(),
                Message::parse(line).unwrap(),
                host.into_one_line(),
            ] {
                let check = |swapped: Option<Message>, what: &str| {
                    let Some(s) = swapped else { return false };
                    let again = s.read_again(s.line.clone());
                    assert_eq!(as_read(&s), as_read(&again), "{what} of {}", text(line));
                    true
                };
                for id in values {
                    let swapped = m.swap_id(id);
                    assert_eq!(
                        swapped.as_ref().map(Message::line),
                        m.with_id(id).as_deref()
                    );
                    derived += usize::from(check(swapped, id));
                    for path in paths {
                        let swapped = m.swap_value(path, id);
                        let line = m.with_value(path, id);
                        assert_eq!(swapped.as_ref().map(Message::line), line.as_deref());
                        derived += usize::from(check(swapped, &format!("{path:?} {id}")));
                        for value in values {
                            let swapped = m.swap_id_then_value(id, path, value);
                            let line = m.with_id_then_value(id, path, value);
                            assert_eq!(swapped.as_ref().map(Message::line), line.as_deref());
                            check(swapped, &format!("{id} then {path:?} {value}"));
                        }
                    }
                }
            }
        }
        assert!(derived > 300, "{derived} swaps checked");
    }

    /// An error message made without reading is what reading its line finds.
    #[test]
    fn error_messages_are_their_lines_read() {
        let ids = [
            "1",
            "-0",
            r#""emcp-bridge/h/1""#,
            r#""a\"b\u0041""#,
            "null",
            "[1]",
            " 2",
            "{",
        ];
        for id in ids {
            for text in ["timed out", "a \"quoted\" \\ text", "é\u{1}"] {
                let m = Message::error(id, &error_tail(-32001, text));
                let line = error_line(id, -32001, text);
                assert_eq!(m, Message::parse_owned(line), "{id} {text}");
            }
        }
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
