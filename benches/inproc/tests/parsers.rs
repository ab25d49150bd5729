//! The parsers `instr --parse` compares must agree on what is JSON, or their counts
//! would not measure the same work: every request line the benchmarks and the
//! transcripts send, hand-picked edge cases, and every truncation and many
//! single-byte changes of the `read_sensor` lines. The reference verdict is emcp's
//! scanner with serde_json's depth limit; `json::parse` (emcp's default limit, 32)
//! is held to it wherever the nesting is within that limit.

use emcp_bench::minimal;
use emcp_bench::parsers::Parser;
use emcp_bench::{Era, Message};

/// Each parser's verdict on `input`; panics naming the input when they differ.
fn agree(input: &[u8]) -> bool {
    let emcp = emcp::wire::json::parse_with_depth(input, emcp::wire::json::DEPTH_LIMIT).is_ok();
    let within_default = nesting(input) <= emcp::wire::json::MAX_DEPTH;
    let rest: Vec<(Parser, bool)> = Parser::ALL
        .into_iter()
        .filter(|&p| p != Parser::Emcp || within_default)
        .map(|p| (p, p.validate(input)))
        .collect();
    for (p, verdict) in &rest {
        // serde_json does not decode the escapes of a string it ignores, and ignores
        // values without a depth limit.
        if *p == Parser::SerdeJson
            && *verdict
            && (surrogate_escape(input) || nesting(input) > minimal::MAX_DEPTH as usize)
        {
            continue;
        }
        assert_eq!(
            *verdict,
            emcp,
            "{} says {verdict}, emcp {emcp}: {:?}",
            p.name(),
            String::from_utf8_lossy(input)
        );
    }
    emcp
}

/// Whether `input` has a `\u` escape of a surrogate (`\uD800` to `\uDFFF`).
fn surrogate_escape(input: &[u8]) -> bool {
    input.windows(4).any(|w| {
        w[..3].eq_ignore_ascii_case(b"\\ud")
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}

/// The deepest nesting of brackets outside strings in `input`.
fn nesting(input: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in input {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            (false, _, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[test]
fn request_lines_are_json_to_every_parser() {
    let mut lines = 0;
    for era in Era::ALL {
        for m in Message::ALL {
            assert!(agree(&m.request(era)), "{} {}", m.name(), era.name());
            lines += 1;
        }
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/transcripts");
    for entry in std::fs::read_dir(dir).expect("tests/transcripts") {
        let text = std::fs::read(entry.expect("entry").path()).expect("transcript");
        for line in text.split(|&b| b == b'\n') {
            // What the client sends and what the server answers; both are lines a
            // parser may meet (the bad-input transcript's are not all JSON).
            if let Some(json) = line.strip_prefix(b"> ").or(line.strip_prefix(b"< ")) {
                agree(json);
                lines += 1;
            }
        }
    }
    assert!(lines > 100, "only {lines} lines");
}

#[test]
fn edge_cases() {
    let valid: &[&[u8]] = &[
        b"0",
        b"-0",
        b"-0.5e-3",
        b"1E+9",
        b" \t\r\n[] ",
        b"{}",
        b"[[],{},[{}]]",
        br#"{"a":{"b":[1,true,false,null,"x"]}}"#,
        br#""\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00""#,
        "\"é ✓ 😀\"".as_bytes(),
        br#"{"":""}"#,
        br#"[1,2,3]"#,
        b"\"abcdefghijklmnopqrstuvwxyz0123456789\"",
    ];
    let invalid: &[&[u8]] = &[
        b"",
        b" ",
        b"01",
        b"1.",
        b".5",
        b"-",
        b"1e",
        b"+1",
        b"[1,]",
        b"[,1]",
        b"{,}",
        b"{\"a\"}",
        b"{\"a\":}",
        b"{\"a\" 1}",
        b"{\"a\":1,}",
        b"{1:1}",
        b"[}",
        b"{]",
        b"[1] [2]",
        b"tru",
        b"nul",
        b"falsey",
        b"\"\\x\"",
        b"\"\\u12\"",
        b"\"\\uD800\"",
        b"\"\\uDC00\"",
        b"\"\\uD800\\u0041\"",
        b"\"a\x01b\"",
        b"\"\xff\"",
        b"\"\xc3\"",
        b"\"\xed\xa0\x80\"",
        b"\"unterminated",
        b"[\"abcdefghijklmnopqrstuvwxyz",
    ];
    for v in valid {
        assert!(agree(v), "{:?}", String::from_utf8_lossy(v));
    }
    for v in invalid {
        assert!(!agree(v), "{:?}", String::from_utf8_lossy(v));
    }
}

#[test]
fn depth_limit() {
    let nested = |n: usize| [vec![b'['; n], vec![b']'; n]].concat();
    assert!(minimal::validate(&nested(minimal::MAX_DEPTH as usize)));
    assert!(!minimal::validate(&nested(minimal::MAX_DEPTH as usize + 1)));
    // emcp at the same limit draws the line in the same place.
    assert!(emcp::wire::json::parse_with_depth(&nested(128), 128).is_ok());
    assert!(emcp::wire::json::parse_with_depth(&nested(129), 128).is_err());
}

#[test]
fn every_truncation_and_byte_change_of_read_sensor() {
    const BYTES: &[u8] = b"\"\\{}[],: 0-.eEu\x01\x7f\x80\xc3\xff";
    let (mut accepted, mut refused) = (0, 0);
    for era in Era::ALL {
        let line = Message::ReadSensor.request(era);
        for end in 0..line.len() {
            match agree(&line[..end]) {
                true => accepted += 1,
                false => refused += 1,
            }
        }
        for at in 0..line.len() {
            for &b in BYTES {
                let mut changed = line.clone();
                changed[at] = b;
                match agree(&changed) {
                    true => accepted += 1,
                    false => refused += 1,
                }
            }
        }
    }
    // Both kinds occur (a change inside a string often keeps the line JSON).
    assert!(accepted > 1000 && refused > 1000, "{accepted} / {refused}");
}
