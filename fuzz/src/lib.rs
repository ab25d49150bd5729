//! Oracles shared by the emcp fuzz targets (`fuzz_targets/`).
//!
//! - [`message`]: what one output line is — every line a server writes must be a
//!   JSON-RPC 2.0 response (with an `id`, exactly one of `result`/`error`) or a
//!   notification (a `method`, no `id`), checked with `serde_json`, not with emcp.
//! - [`classify`]: what one input line is, decided independently of emcp's own
//!   `rpc::parse` (with `serde_json` and emcp's documented rules: first duplicate key
//!   wins, `"jsonrpc"` spelled `"2.0"` without escapes, ids of at most 64 bytes of
//!   JSON text, nesting at most 32 deep).
//! - [`Ledger`]: the exactly-once bookkeeping. Each request line is answered exactly
//!   once: by a response during its own handling, or later by a response from `poll`
//!   (a pending tool job), or — for `subscriptions/listen` — by its `acknowledged`
//!   notification (the stream is the answer). A `notifications/cancelled` naming a
//!   request the ledger still holds unanswered withdraws it: that request must never
//!   be answered (the specification forbids it). Notifications are never answered.
//! - [`Memo`]: the verdicts of [`message`] and [`classify`], kept by the bytes they
//!   read, for targets that check the same lines over and over.
//!
//! Violations panic with a message naming the invariant: libFuzzer records the input.
//!
//! Every target allocates with mimalloc, linked through this crate: an execution
//! builds a whole world (a relay and a mux, a server, their messages and buffers) and
//! drops it, and that churn is what mimalloc is made for, where glibc's malloc spends
//! its time sorting and merging the freed chunks. The code under test is the same
//! with either. Built for AddressSanitizer (the corpus replays of `scripts/fuzz.sh`)
//! the targets keep the system's allocator, which ASan watches.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

#[cfg(not(fuzz_asan))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Nesting limit of emcp's scanner for request lines (`emcp::wire::json::MAX_DEPTH`).
pub const MAX_DEPTH: usize = emcp::wire::json::MAX_DEPTH;

/// Longest request id, in bytes of JSON text (`emcp::wire::rpc::MAX_ID_LEN`).
pub const MAX_ID_LEN: usize = emcp::wire::rpc::MAX_ID_LEN;

/// An object's members in input order, duplicates kept, values as raw JSON text,
/// both borrowed from the text where it allows (a name with escapes is decoded).
pub struct Members<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some((Name(k), v)) = map.next_entry::<Name<'de>, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A member name, borrowed unless it has escapes.
struct Name<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

impl Members<'_> {
    /// The first member named `key` (emcp's rule for duplicate keys).
    pub fn first(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.get().trim())
    }
}

/// A JSON value read by `serde_json` as a [`Value`] would be — every check the same
/// (strings decoded, surrogates paired, numbers in `f64`'s range, its recursion
/// limit) — but kept as its nesting depth only: no allocation.
pub struct Depth(pub usize);

impl<'de> Deserialize<'de> for Depth {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DepthVisitor)
    }
}

struct DepthVisitor;

impl<'de> Visitor<'de> for DepthVisitor {
    type Value = Depth;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_str<E>(self, _: &str) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_unit<E>(self) -> Result<Depth, E> {
        Ok(Depth(0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Depth, A::Error> {
        let mut d = 0;
        while let Some(Depth(item)) = seq.next_element()? {
            d = d.max(item);
        }
        Ok(Depth(d + 1))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Depth, A::Error> {
        let mut d = 0;
        while let Some((Key, Depth(member))) = map.next_entry()? {
            d = d.max(member);
        }
        Ok(Depth(d + 1))
    }
}

/// A member name, decoded (and checked) as [`Value`]'s are, then dropped.
struct Key;

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, _: &str) -> Result<Key, E> {
                Ok(Key)
            }
        }
        d.deserialize_str(V)
    }
}

/// `serde_json::from_str` of JSON text, with numbers beyond `f64` read as `0`
/// ([`finite`]): the text is rewritten only when serde_json refuses such a number.
pub fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    match serde_json::from_str(text) {
        Err(e) if e.to_string().starts_with("number out of range") => {
            serde_json::from_str(&finite(text))
        }
        read => read,
    }
}

/// Nesting depth of a JSON value (`{}` and `[]` are 1, scalars 0).
pub fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// `text` with every number beyond `f64`'s range written `0`: serde_json refuses such
/// a number, which JSON allows and emcp takes (and echoes, e.g. a progress token), so
/// the oracles read their `Value`s from this; raw members keep the text as it was.
pub fn finite(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    let (mut in_string, mut escaped) = (false, false);
    while let Some(&c) = b.get(i) {
        i += 1;
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'-' | b'0'..=b'9' => {
                let start = i - 1;
                while b
                    .get(i)
                    .is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    i += 1;
                }
                if text[start..i].parse::<f64>().is_ok_and(f64::is_infinite) {
                    out.push_str(&text[copied..start]);
                    out.push('0');
                    copied = i;
                }
            }
            _ => {}
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Whether raw JSON text is an id emcp accepts: a string, or an integer literal (any
/// magnitude), at most [`MAX_ID_LEN`] bytes.
pub fn is_valid_id(raw: &str) -> bool {
    let string = raw.starts_with('"');
    let integer = !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit() || b == b'-');
    (string || integer) && raw.len() <= MAX_ID_LEN
}

/// One line a server wrote, as read by `serde_json`.
#[derive(Debug)]
pub enum Out {
    /// A response: the id's raw JSON text (`null` included).
    Response(String),
    /// A notification: its method and params.
    Notification(String, Value),
}

/// Output collected in memory, every byte taken (the targets' sink).
pub struct Collected(pub Vec<u8>);

impl emcp::wire::json::Sink for Collected {
    fn write(&mut self, bytes: &[u8]) -> Result<(), emcp::wire::json::SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// The member name serde_json's `raw_value` feature (which [`Members`] needs) reserves:
/// it reads an object holding it as a raw-value token, not as JSON, so valid JSON
/// with that name is refused. The oracles skip such input.
pub const RAW_VALUE_TOKEN: &[u8] = b"$serde_json::private::RawValue";

/// Whether serde_json may refuse valid JSON `bytes` ([`RAW_VALUE_TOKEN`]).
pub fn serde_refuses(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, RAW_VALUE_TOKEN).is_some()
}

/// Check one output line (without its newline) as a JSON-RPC 2.0 message.
///
/// # Panics
/// When the line is not one: that is the invariant being fuzzed.
pub fn message(line: &[u8]) -> Out {
    // Read once by serde_json (checked as a `Value` would be, kept as raw members),
    // once by emcp; members are read further only where a check needs them.
    let shown = || String::from_utf8_lossy(line);
    let text =
        std::str::from_utf8(line).unwrap_or_else(|_| panic!("output not UTF-8: {}", shown()));
    if let Err(e) = from_json::<Depth>(text) {
        panic!("output not JSON ({e}): {}", shown());
    }
    assert!(
        emcp::wire::json::parse(line).is_ok(),
        "emcp cannot read its own output: {}",
        shown()
    );
    let members: Members = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("output not a JSON object ({e}): {}", shown()));
    let keys: Vec<&str> = members.0.iter().map(|(k, _)| k.as_ref()).collect();
    let mut unique = keys.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        keys.len(),
        "duplicate keys in output: {}",
        shown()
    );
    assert_eq!(
        members.first("jsonrpc"),
        Some("\"2.0\""),
        "no jsonrpc 2.0: {}",
        shown()
    );
    // Member values are valid JSON (checked above): their kind is their first byte.
    if let Some(method) = members.first("method") {
        let method = serde_json::from_str::<String>(method)
            .unwrap_or_else(|_| panic!("method not a string: {}", shown()));
        assert!(
            members.first("id").is_none(),
            "server sent a request: {}",
            shown()
        );
        let raw = members.first("params");
        let params = raw.map_or(Value::Null, |p| from_json(p).expect("valid JSON"));
        assert!(
            params.is_object() || params.is_null() && raw.is_none(),
            "notification params not an object: {}",
            shown()
        );
        assert_eq!(keys.len(), 2 + usize::from(raw.is_some()), "{}", shown());
        return Out::Notification(method, params);
    }
    let id = members
        .first("id")
        .unwrap_or_else(|| panic!("neither response nor notification: {}", shown()));
    assert!(
        id == "null" || is_valid_id(id),
        "response id is not a request id: {}",
        shown()
    );
    match (members.first("result"), members.first("error")) {
        (Some(result), None) => {
            assert!(result.starts_with('{'), "result not an object: {}", shown())
        }
        (None, Some(error)) => {
            let error: Value = from_json(error).expect("valid JSON");
            let code = error.get("code").and_then(Value::as_i64);
            let message = error.get("message").and_then(Value::as_str);
            assert!(
                code.is_some() && message.is_some(),
                "bad error object: {}",
                shown()
            );
        }
        _ => panic!(
            "a response needs exactly one of result and error: {}",
            shown()
        ),
    }
    assert_eq!(keys.len(), 3, "extra members in a response: {}", shown());
    Out::Response(id.to_string())
}

/// Split a server's output into lines and check each ([`message`]).
///
/// # Panics
/// When the output does not end with a newline, or a line is not a message.
pub fn messages(out: &[u8]) -> Vec<Out> {
    lines(out).map(message).collect()
}

/// A server's output as lines, without their newlines.
///
/// # Panics
/// When the output does not end with a newline.
fn lines(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = match out.split_last() {
        None => None,
        Some((b'\n', body)) => Some(body),
        Some(_) => panic!("output ends mid-line: {}", String::from_utf8_lossy(out)),
    };
    body.into_iter().flat_map(|body| {
        let mut start = 0;
        // memchr: a loop over bytes here would be instrumented byte by byte.
        memchr::memchr_iter(b'\n', body)
            .chain([body.len()])
            .map(move |end| {
                let line = &body[start..end];
                start = end + 1;
                line
            })
    })
}

/// What pure checks said of the byte strings they read, by those bytes: [`message`]
/// and [`classify`] are functions of the bytes they are given (and constants), so a
/// line seen before gets the verdict it got then without being read again. A mutated
/// input repeats most of its parent's lines, and its output most of its parent's
/// output: a target checking every line of every run reads each distinct line once.
/// A line that fails its check panics before it is kept.
///
/// All its memory is taken by [`Memo::new`] and never grows (a full memo starts again
/// empty), so that a run that keeps new verdicts allocates no more than it frees:
/// libFuzzer takes a run with more mallocs than frees for a possible leak, runs it
/// again and has LeakSanitizer look (and stops looking after every run once that
/// happened a thousand times).
pub struct Memo {
    /// Entries one after the other: key length, value length (`u32` each), key, value.
    arena: Vec<u8>,
    /// Open addressing: (hash of the key, 1 + the entry's offset in `arena`), 0 empty.
    slots: Vec<(u64, usize)>,
    /// Entries kept.
    used: usize,
}

/// A verdict a [`Memo`] keeps, as bytes.
pub trait Verdict: Sized {
    /// Write it.
    fn keep(&self, to: &mut Vec<u8>);
    /// Read what [`Verdict::keep`] wrote.
    fn read(from: &[u8]) -> Self;
}

impl Memo {
    /// A memo of `bytes` of keys and verdicts and at most `entries` of them, all
    /// allocated now.
    pub fn new(bytes: usize, entries: usize) -> Memo {
        Memo {
            arena: Vec::with_capacity(bytes),
            slots: vec![(0, 0); (2 * entries).next_power_of_two()],
            used: 0,
        }
    }

    /// FxHash, a word at a time: instrumented code pays for every branch it takes.
    fn hash(key: &[u8]) -> u64 {
        let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
        let (words, rest) = key.as_chunks::<8>();
        let h = words
            .iter()
            .fold(key.len() as u64, |h, w| mix(h, u64::from_le_bytes(*w)));
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        mix(h, u64::from_le_bytes(last))
    }

    fn entry(&self, at: usize) -> (&[u8], &[u8]) {
        let len = |i: usize| {
            u32::from_le_bytes(self.arena[i..i + 4].try_into().expect("4 bytes")) as usize
        };
        let (k, v) = (len(at), len(at + 4));
        let key = &self.arena[at + 8..at + 8 + k];
        (key, &self.arena[at + 8 + k..at + 8 + k + v])
    }

    /// The slot of `key`: its entry's, or the empty one it would take.
    fn slot(&self, key: &[u8], hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.slots[i] {
                (_, 0) => return i,
                (h, at) if h == hash && self.entry(at - 1).0 == key => return i,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The verdict kept for `key`, else `check()`'s, kept.
    pub fn get<V: Verdict>(&mut self, key: &[u8], check: impl FnOnce() -> V) -> V {
        let hash = Memo::hash(key);
        let i = self.slot(key, hash);
        if let (_, at @ 1..) = self.slots[i] {
            return V::read(self.entry(at - 1).1);
        }
        let verdict = check();
        let mut value = Vec::new();
        verdict.keep(&mut value);
        let need = 8 + key.len() + value.len();
        if need > self.arena.capacity() || u32::try_from(key.len().max(value.len())).is_err() {
            return verdict;
        }
        let mut i = i;
        if self.arena.len() + need > self.arena.capacity() || 2 * (self.used + 1) > self.slots.len()
        {
            // Full: start again (nothing is freed or allocated).
            self.arena.clear();
            self.slots.fill((0, 0));
            self.used = 0;
            i = self.slot(key, hash);
        }
        self.slots[i] = (hash, self.arena.len() + 1);
        self.used += 1;
        for n in [key.len(), value.len()] {
            self.arena.extend_from_slice(&(n as u32).to_le_bytes());
        }
        self.arena.extend_from_slice(key);
        self.arena.extend_from_slice(&value);
        verdict
    }

    /// [`messages`], each line's [`message`] kept in this memo.
    ///
    /// # Panics
    /// As [`messages`].
    pub fn messages(&mut self, out: &[u8]) -> Vec<Out> {
        lines(out)
            .map(|line| self.get(line, || message(line)))
            .collect()
    }
}

/// Verdicts as bytes: a tag, then texts, each as its length (`u32`) and its bytes.
fn put_text(to: &mut Vec<u8>, text: &str) {
    to.extend_from_slice(&(text.len() as u32).to_le_bytes());
    to.extend_from_slice(text.as_bytes());
}

/// The next text [`put_text`] wrote.
fn take_text(from: &mut &[u8]) -> String {
    let (len, rest) = from.split_at(4);
    let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
    let (text, rest) = rest.split_at(len);
    *from = rest;
    String::from_utf8(text.to_vec()).expect("kept as text")
}

/// An optional text: a flag byte, then the text when there is one.
fn put_opt(to: &mut Vec<u8>, text: Option<&str>) {
    to.push(u8::from(text.is_some()));
    if let Some(t) = text {
        put_text(to, t);
    }
}

fn take_opt(from: &mut &[u8]) -> Option<String> {
    let (&flag, rest) = from.split_first().expect("a flag");
    *from = rest;
    (flag == 1).then(|| take_text(from))
}

impl Verdict for Out {
    fn keep(&self, to: &mut Vec<u8>) {
        match self {
            Out::Response(id) => {
                to.push(0);
                put_text(to, id);
            }
            Out::Notification(method, params) => {
                to.push(1);
                put_text(to, method);
                // serde_json writes a `Value` it reads back the same (float_roundtrip).
                put_text(to, &params.to_string());
            }
        }
    }

    fn read(from: &[u8]) -> Out {
        let (&tag, mut rest) = from.split_first().expect("a tag");
        match tag {
            0 => Out::Response(take_text(&mut rest)),
            _ => {
                let method = take_text(&mut rest);
                let params = serde_json::from_str(&take_text(&mut rest)).expect("kept as JSON");
                Out::Notification(method, params)
            }
        }
    }
}

/// Bytes as they are (an id's raw JSON, say).
impl Verdict for Vec<u8> {
    fn keep(&self, to: &mut Vec<u8>) {
        to.extend_from_slice(self);
    }

    fn read(from: &[u8]) -> Vec<u8> {
        from.to_vec()
    }
}

impl Verdict for Class {
    fn keep(&self, to: &mut Vec<u8>) {
        match self {
            Class::Blank => to.push(0),
            Class::TooLong => to.push(1),
            Class::Request { id, method } => {
                to.push(2);
                put_text(to, id);
                put_text(to, method);
            }
            Class::Notification { cancels } => {
                to.push(3);
                put_opt(to, cancels.as_deref());
            }
            Class::Other { id } => {
                to.push(4);
                put_opt(to, id.as_deref());
            }
        }
    }

    fn read(from: &[u8]) -> Class {
        let (&tag, mut rest) = from.split_first().expect("a tag");
        match tag {
            0 => Class::Blank,
            1 => Class::TooLong,
            2 => Class::Request {
                id: take_text(&mut rest),
                method: take_text(&mut rest),
            },
            3 => Class::Notification {
                cancels: take_opt(&mut rest),
            },
            _ => Class::Other {
                id: take_opt(&mut rest),
            },
        }
    }
}

/// What an input line is, by the oracle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// Nothing but spaces, tabs and `\r`: skipped by the framer, no output.
    Blank,
    /// Longer than the line buffer: one `-32600` error with id `null`.
    TooLong,
    /// A valid request with this id (raw JSON text) and method.
    Request { id: String, method: String },
    /// A valid notification; for `notifications/cancelled`, the `requestId` text.
    Notification { cancels: Option<String> },
    /// Anything else: at most one response, its id `null` or the line's own.
    Other { id: Option<String> },
}

/// Classify one framed line (without `\n`, trailing `\r` already removed) for a
/// server whose line buffer holds `line_buffer` bytes. `raw_len` is the line's
/// length before the `\r` was removed (the framer counts it).
pub fn classify(line: &[u8], raw_len: usize, line_buffer: usize) -> Class {
    let blank = |l: &[u8]| l.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
    if raw_len > line_buffer {
        return Class::TooLong;
    }
    if blank(line) {
        return Class::Blank;
    }
    let other = |members: Option<&Members<'_>>| Class::Other {
        id: members.and_then(|m| m.first("id")).map(str::to_string),
    };
    let Ok(text) = std::str::from_utf8(line) else {
        return other(None);
    };
    let Ok(Depth(depth)) = from_json::<Depth>(text) else {
        return other(None);
    };
    let Ok(members) = serde_json::from_str::<Members>(text) else {
        return other(None);
    };
    if depth > MAX_DEPTH || members.first("jsonrpc") != Some("\"2.0\"") {
        return other(Some(&members));
    }
    let Some(Ok(method)) = members.first("method").map(serde_json::from_str::<String>) else {
        return other(Some(&members));
    };
    // Valid JSON (the line is): an object when it starts as one.
    if members.first("params").is_some_and(|p| !p.starts_with('{')) {
        return other(Some(&members));
    }
    match members.first("id") {
        Some(id) if is_valid_id(id) => Class::Request {
            id: id.to_string(),
            method,
        },
        Some(_) => other(Some(&members)),
        None => {
            // The cancelled request's id, read from the line's own text (the first
            // `params` and the first `requestId` win, as in emcp).
            let cancels = if method == "notifications/cancelled" {
                members
                    .first("params")
                    .and_then(|raw| serde_json::from_str::<Members>(raw).ok())
                    .and_then(|p| p.first("requestId").map(str::to_string))
            } else {
                None
            };
            Class::Notification { cancels }
        }
    }
}

/// The exactly-once bookkeeping of one connection (see the crate docs).
#[derive(Default, Debug)]
pub struct Ledger {
    /// Requests not answered yet, by raw id text (ids may repeat).
    pending: HashMap<String, usize>,
    /// Responses seen, for the report.
    pub responses: usize,
}

impl Ledger {
    /// Account for the output of handling one line of class `class`.
    /// `still_pending(id)` is the server's own view (`Server::is_pending`), checked
    /// against the ledger's.
    ///
    /// # Panics
    /// On any violation.
    pub fn line(&mut self, class: &Class, out: &[Out], still_pending: &dyn Fn(&str) -> bool) {
        let responses: Vec<&String> = out
            .iter()
            .filter_map(|o| match o {
                Out::Response(id) => Some(id),
                Out::Notification(..) => None,
            })
            .collect();
        self.responses += responses.len();
        match class {
            Class::Blank => assert!(out.is_empty(), "output for a blank line: {out:?}"),
            Class::TooLong => assert_eq!(
                responses,
                [&"null".to_string()],
                "an overlong line gets one error with id null"
            ),
            Class::Notification { cancels } => {
                assert!(
                    responses.is_empty(),
                    "a notification was answered: {responses:?}"
                );
                if let Some(id) = cancels {
                    if let Some(n) = self.pending.get_mut(id).filter(|n| **n > 0) {
                        // A running request withdrawn: it must never be answered.
                        *n -= 1;
                    }
                }
            }
            Class::Other { id } => {
                assert!(
                    responses.len() <= 1,
                    "more than one response: {responses:?}"
                );
                if let Some(r) = responses.first() {
                    assert!(
                        r.as_str() == "null" || id.as_deref() == Some(r.as_str()),
                        "response {r} to a line with id {id:?}"
                    );
                }
            }
            Class::Request { id, method } => match responses.as_slice() {
                [r] => assert_eq!(*r, id, "response with another id"),
                [] => {
                    let acknowledged = method == "subscriptions/listen"
                        && out.iter().any(|o| match o {
                            Out::Notification(m, p) => {
                                m == "notifications/subscriptions/acknowledged"
                                    && p.pointer("/_meta/io.modelcontextprotocol~1subscriptionId")
                                        == serde_json::from_str::<Value>(id).ok().as_ref()
                            }
                            _ => false,
                        });
                    if !acknowledged {
                        assert!(
                            still_pending(id),
                            "request {id} ({method}) neither answered nor pending"
                        );
                        *self.pending.entry(id.clone()).or_default() += 1;
                    }
                }
                _ => panic!("request {id} answered {} times", responses.len()),
            },
        }
    }

    /// Account for output of `poll`: every response answers a pending request.
    ///
    /// # Panics
    /// On a response to nothing (a second answer, an answer to a cancelled request).
    pub fn poll(&mut self, out: &[Out]) {
        for o in out {
            if let Out::Response(id) = o {
                self.responses += 1;
                match self.pending.get_mut(id).filter(|n| **n > 0) {
                    Some(n) => *n -= 1,
                    None => {
                        panic!("poll answered {id}, which is not pending (cancelled or answered)")
                    }
                }
            }
        }
    }

    /// Whether any request is still unanswered.
    pub fn unanswered(&self) -> Vec<&String> {
        self.pending
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(id, _)| id)
            .collect()
    }
}

/// The input lines as a framer sees them: each `\n`-terminated segment, then the rest
/// (a last line without a newline, possibly empty). Returns `(line without \n, ended)`.
pub fn segments(data: &[u8]) -> Vec<(&[u8], bool)> {
    let mut out = Vec::with_capacity(1 + memchr::memchr_iter(b'\n', data).count());
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', data) {
        out.push((&data[start..i], true));
        start = i + 1;
    }
    out.push((&data[start..], false));
    out
}

/// A line with one trailing `\r` removed (the framer's CRLF rule).
pub fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Fuzzing knobs taken from the first bytes of the input (so a seed is `knobs` then
/// data); missing bytes are zero.
pub fn knobs<const K: usize>(data: &[u8]) -> ([u8; K], &[u8]) {
    let mut k = [0u8; K];
    let n = data.len().min(K);
    k[..n].copy_from_slice(&data[..n]);
    (k, &data[n..])
}
