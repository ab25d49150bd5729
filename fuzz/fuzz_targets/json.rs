//! The JSON scanner, string decoding and writer (`emcp::wire::json`) against `serde_json` and
//! `core`'s number parsing.
//!
//! Scanner, on the input bytes:
//! - not UTF-8 ⇔ `ScanError::InvalidUtf8`;
//! - otherwise `parse_with_depth(.., DEPTH_LIMIT)` accepts exactly what `serde_json`
//!   accepts (except where `serde_json` gives up: numbers beyond `f64`, its recursion
//!   limit), and `parse` additionally refuses nesting over `MAX_DEPTH` (`TooDeep`);
//! - an accepted value reads back as `serde_json`'s: the same kinds, items, members
//!   (the first of duplicate keys is what `get` finds; `serde_json` keeps the last),
//!   integers exact, floats equal to `core`'s `f64::from_str` of the literal (exact up
//!   to 19 significant digits, within one unit in the last place beyond, as documented);
//! - every string accessor agrees with the decoded string: `unescape_into` (and
//!   `BufferTooSmall` one byte short), `decoded_len`, `eq_str`, `char_count`,
//!   `pieces`, `as_plain`.
//!
//! Schema plans: an accepted object, as a tool's input schema, compiled into a
//! `schema::Plan` answers every one of a few argument objects (and itself as arguments)
//! exactly as `schema::validate` does.
//!
//! Writer, with the input as (lossy) UTF-8 text: strings written whole, in parts,
//! by character and through `fmt`, as a key, base64 of the bytes, and integers and a
//! float from the bytes — `serde_json` and `parse` read back exactly what was written
//! (strings decoded once: the string accessors are the scanner's part, above).
#![no_main]

use emcp::wire::json::{
    parse, parse_with_depth, JsonWriter, Kind, Piece, ScanError, Sink, SinkError, Str, Value,
    DEPTH_LIMIT, MAX_DEPTH,
};
use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use serde_json::Value as J;

fuzz_target!(|data: &[u8]| {
    scanner(data);
    writer(data);
});

fn scanner(data: &[u8]) {
    let deep = parse_with_depth(data, DEPTH_LIMIT);
    let ours = parse(data);
    if std::str::from_utf8(data).is_err() {
        assert_eq!(deep.unwrap_err(), ScanError::InvalidUtf8);
        assert_eq!(ours.unwrap_err(), ScanError::InvalidUtf8);
        return;
    }
    let theirs = serde_json::from_slice::<J>(data);
    // serde_json's own limits, and the member name its `raw_value` feature reserves.
    let raw_value_token = emcp_fuzz::serde_refuses(data);
    let gave_up = |e: &serde_json::Error| {
        let e = e.to_string();
        e.contains("number out of range") || e.contains("recursion limit") || raw_value_token
    };
    match (&deep, &theirs) {
        (Err(ScanError::TooDeep), _) => {}
        (_, Err(e)) if gave_up(e) => {}
        (Ok(v), Ok(j)) => {
            same(*v, j, Strings::Every);
            plan(*v, data);
            let d = emcp_fuzz::depth(j);
            match &ours {
                Ok(o) => {
                    assert!(d <= MAX_DEPTH, "parse accepted depth {d}");
                    assert_eq!(o.raw(), v.raw());
                }
                Err(e) => assert!(
                    d > MAX_DEPTH && *e == ScanError::TooDeep,
                    "parse refused depth {d}: {e:?}"
                ),
            }
        }
        (Err(ScanError::Syntax), Err(_)) => assert!(ours.is_err()),
        _ => panic!(
            "{:?}: ours {deep:?}, serde_json {theirs:?}",
            String::from_utf8_lossy(data)
        ),
    }
}

/// An object `v` (the whole input `data`) as an input schema: its compiled plan answers
/// as the walk over its text.
fn plan(v: Value<'_>, data: &[u8]) {
    if v.kind() != Kind::Object {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let compiled = emcp::model::schema::Plan::compile(text);
    const ARGS: [&str; 6] = [
        "{}",
        r#"{"a":1}"#,
        r#"{"a":"x","b":true,"c":[1]}"#,
        r#"{"a":null,"a":2}"#,
        r#"{"\u0061":1.5e1,"ab":"é"}"#,
        r#"{"b":-1,"c":"abcdef","d":{}}"#,
    ];
    let args = ARGS
        .iter()
        .map(|a| parse(a.as_bytes()).expect("valid arguments"));
    for a in args.map(Some).chain([None, Some(v)]) {
        let ours = format!("{:?}", compiled.validate(a));
        let walked = format!("{:?}", emcp::model::schema::validate(v, a));
        assert_eq!(ours, walked, "schema {text:?}, arguments {a:?}");
    }
}

/// How [`same`] compares strings.
#[derive(Clone, Copy)]
enum Strings {
    /// Through every string accessor ([`string`]): the scanner's invariants.
    Every,
    /// Decoded once: the writer's (what was written reads back exactly).
    Decoded,
}

/// `v` (ours) reads back as `j` (serde_json's), through every accessor (strings as
/// `strings` says).
fn same(v: Value<'_>, j: &J, strings: Strings) {
    match j {
        J::Null => assert!(v.kind() == Kind::Null && v.is_null()),
        J::Bool(b) => assert_eq!(v.as_bool(), Some(*b)),
        J::Number(n) => number(v, n),
        J::String(s) => {
            assert_eq!(v.kind(), Kind::String);
            let v = v.as_str().expect("a string");
            match strings {
                Strings::Every => string(v, s),
                Strings::Decoded => assert_eq!(decode(v), *s),
            }
        }
        J::Array(items) => {
            assert_eq!(v.kind(), Kind::Array);
            let ours: Vec<Value<'_>> = v.items().collect();
            assert_eq!(ours.len(), items.len(), "item count of {v:?}");
            for (o, t) in ours.into_iter().zip(items) {
                same(o, t, strings);
            }
        }
        J::Object(map) => {
            assert_eq!(v.kind(), Kind::Object);
            // serde_json keeps the last of duplicate keys; `get` finds the first.
            let members: Vec<(String, Value<'_>)> =
                v.members().map(|(k, x)| (decode(k), x)).collect();
            // Each name's first and last member, found in one pass.
            let mut ends: HashMap<&str, (usize, usize)> = HashMap::new();
            for (n, (key, _)) in members.iter().enumerate() {
                ends.entry(key).or_insert((n, n)).1 = n;
            }
            for (key, &(first, last)) in &ends {
                let found = v.get(key).map(|x| x.raw());
                let value = members[first].1;
                assert_eq!(found, Some(value.raw()), "get({key:?}) is not the first");
                let theirs = map.get(*key).expect("a member serde_json lacks");
                same(members[last].1, theirs, strings);
            }
            assert_eq!(ends.len(), map.len(), "member count of {v:?}");
        }
    }
}

fn number(v: Value<'_>, n: &serde_json::Number) {
    assert_eq!(v.kind(), Kind::Number);
    let text = std::str::from_utf8(v.raw()).expect("UTF-8");
    let integer = !text.contains(['.', 'e', 'E']);
    if integer {
        assert_eq!(v.as_i64(), text.parse::<i64>().ok(), "as_i64 of {text}");
        let u = text.parse::<u64>().ok().or((text == "-0").then_some(0));
        assert_eq!(v.as_u64(), u, "as_u64 of {text}");
        assert!(v.is_integral());
    } else {
        assert_eq!(v.as_i64(), None);
        assert_eq!(v.as_u64(), None);
    }
    if let Some(i) = n.as_i64() {
        assert!(v.as_i64() == Some(i) || v.as_u64() == u64::try_from(i).ok());
    } else if let Some(u) = n.as_u64() {
        assert_eq!(v.as_u64(), Some(u));
    }
    let exact: f64 = text.parse().expect("core parses a JSON number");
    let ours = v.as_f64().expect("as_f64 of a number");
    if significant_digits(text) <= 19 {
        assert!(
            ours == exact || ours.is_nan() && exact.is_nan(),
            "as_f64({text}) = {ours:e}, core says {exact:e}"
        );
        assert_eq!(
            ours.is_sign_negative(),
            exact.is_sign_negative(),
            "sign of {text}"
        );
    } else {
        let ulps = ours.to_bits().abs_diff(exact.to_bits());
        assert!(ulps <= 1, "as_f64({text}) = {ours:e}, core says {exact:e}");
    }
}

/// Digits from the first to the last non-zero digit of the literal's mantissa.
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let first = digits.iter().position(|&d| d != b'0');
    let last = digits.iter().rposition(|&d| d != b'0');
    match (first, last) {
        (Some(f), Some(l)) => l - f + 1,
        _ => 0,
    }
}

fn decode(s: Str<'_>) -> String {
    let mut buf = vec![0u8; s.decoded_len()];
    s.unescape_into(&mut buf)
        .expect("decoded_len is enough")
        .to_string()
}

/// Every string accessor of `s` agrees with serde_json's decoding `want`.
fn string(s: Str<'_>, want: &str) {
    assert_eq!(s.decoded_len(), want.len());
    let mut buf = vec![0u8; want.len()];
    assert_eq!(s.unescape_into(&mut buf), Ok(want));
    if !want.is_empty() {
        let mut short = vec![0u8; want.len() - 1];
        assert!(s.unescape_into(&mut short).is_err(), "fits one byte short");
    }
    assert!(s.eq_str(want));
    assert!(!s.eq_str(&format!("{want}x")));
    if let Some((i, _)) = want.char_indices().last() {
        assert!(!s.eq_str(&want[..i]));
    }
    assert_eq!(s.char_count(), want.chars().count());
    let mut joined = String::new();
    for p in s.pieces() {
        match p {
            Piece::Text(t) => joined.push_str(t),
            Piece::Char(c) => joined.push(c),
        }
    }
    assert_eq!(joined, want);
    assert_eq!(s.as_plain().is_some(), !s.has_escapes());
    if let Some(p) = s.as_plain() {
        assert_eq!(p, want);
    }
}

struct VecSink(Vec<u8>);

impl Sink for VecSink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

fn writer(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let split = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    let (a, b) = text.split_at(split);
    let c = b.chars().next().unwrap_or('\u{1}');
    let mut word = [0u8; 8];
    for (w, d) in word.iter_mut().zip(data.iter().rev()) {
        *w = *d;
    }
    let u = u64::from_le_bytes(word);
    let i = u as i64;
    let f = f64::from_bits(u);

    let mut sink = VecSink(Vec::new());
    let mut w = JsonWriter::new(&mut sink);
    w.begin_array();
    w.str(&text);
    w.string_begin();
    w.string_part(a);
    w.string_char(c);
    w.string_part_fmt(format_args!("{b}"));
    w.string_end();
    w.string_fmt(format_args!("{text}{c}"));
    w.base64(data);
    w.i64(i);
    w.u64(u);
    if f.is_finite() {
        w.f64(f);
    } else {
        w.null();
    }
    w.begin_object();
    w.key(&text);
    w.bool(true);
    w.end_object();
    w.end_array();
    assert_eq!(w.finish(), Ok(()));
    let out = sink.0;
    if emcp_fuzz::serde_refuses(&out) {
        return; // the oracle cannot read it (emcp_fuzz::RAW_VALUE_TOKEN)
    }

    let shown = String::from_utf8_lossy(&out);
    let j: J =
        serde_json::from_slice(&out).unwrap_or_else(|e| panic!("writer output {shown}: {e}"));
    let ours = parse(&out).unwrap_or_else(|e| panic!("writer output {shown}: {e:?}"));
    same(ours, &j, Strings::Decoded);
    // A float may be written as an integer literal (`0` for 0.0): compare by value.
    let float = match (f.is_finite(), j.get(6).and_then(J::as_f64)) {
        (true, Some(read)) if read == f => j[6].clone(),
        (true, _) => serde_json::json!(f),
        (false, _) => J::Null,
    };
    let mut object = serde_json::Map::new();
    object.insert(text.to_string(), J::Bool(true));
    let expect = serde_json::json!([
        text,
        format!("{a}{c}{b}"),
        format!("{text}{c}"),
        base64(data),
        i,
        u,
        float,
        object,
    ]);
    assert_eq!(j, expect, "writer output {shown}");
    if f.is_finite() {
        let back = ours.items().nth(6).and_then(|v| v.as_f64());
        assert_eq!(
            back.map(f64::to_bits),
            Some(f.to_bits()),
            "f64 {f:e} read back"
        );
    }
}

/// Standard base64 with padding, written plainly.
fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let mut g = [0u8; 3];
        g[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from(g[0]) << 16 | u32::from(g[1]) << 8 | u32::from(g[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
