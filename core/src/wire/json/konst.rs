//! JSON validation at compile time: [`is_object`], a `const fn` that accepts exactly
//! the texts [`parse`](super::parse) accepts as an object, so that a descriptor's
//! schema is checked when the firmware is built (`emcp::tool!`) rather than when the
//! server starts.
//!
//! The runtime scanner is not `const` (it reads several bytes at a time on hosts and
//! fills caller-visible structures); this is the same grammar written for const
//! evaluation: byte by byte, iterative, with the nesting kept as a bit stack. A
//! proptest holds the two to the same answers.

use super::MAX_DEPTH;

const _: () = assert!(MAX_DEPTH <= 64, "the bit stack below is a u64");

/// Whether `text` is one JSON object (RFC 8259, nesting at most [`MAX_DEPTH`]
/// deep, whitespace around it allowed): what [`parse`](super::parse) accepts with
/// [`Kind::Object`](super::Kind::Object).
///
/// ```
/// use emcp::wire::json::is_object;
///
/// const OK: bool = is_object(r#"{"type":"object","properties":{"a":{"type":"number"}}}"#);
/// assert!(OK);
/// assert!(!is_object(r#"{"type":"object",}"#));
/// assert!(!is_object("[1]"));
/// ```
pub const fn is_object(text: &str) -> bool {
    let s = text.as_bytes();
    let start = ws(s, 0);
    if byte(s, start) != b'{' {
        return false;
    }
    match value_end(s, start) {
        Some(end) => ws(s, end) == s.len(),
        None => false,
    }
}

/// The byte at `i`, or 0 past the end (0 is never valid where a byte is tested).
/// (A slice pattern rather than indexing: no panic path, and usable in `const`.)
pub(crate) const fn byte(s: &[u8], i: usize) -> u8 {
    match s.split_at_checked(i) {
        Some((_, [b, ..])) => *b,
        _ => 0,
    }
}

/// The index of the first byte at or after `i` that is not JSON whitespace.
pub(crate) const fn ws(s: &[u8], mut i: usize) -> usize {
    while matches!(byte(s, i), b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Where the value starting at `i` ends, or `None` when it is not valid JSON.
const fn value_end(s: &[u8], mut i: usize) -> Option<usize> {
    // One bit per open container, innermost lowest: 1 an object, 0 an array.
    let mut stack: u64 = 0;
    let mut depth = 0;
    loop {
        // A value starts at `i`.
        i = ws(s, i);
        let mut open = false;
        match byte(s, i) {
            b'{' | b'[' => {
                let object = byte(s, i) == b'{';
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
                stack = (stack << 1) | object as u64;
                i = ws(s, i + 1);
                if byte(s, i) == if object { b'}' } else { b']' } {
                    stack >>= 1;
                    depth -= 1;
                    i += 1;
                } else if object {
                    match key_end(s, i) {
                        Some(end) => i = end,
                        None => return None,
                    }
                    open = true;
                } else {
                    open = true;
                }
            }
            b'"' => match string_end(s, i) {
                Some(end) => i = end,
                None => return None,
            },
            b't' => match literal_end(s, i, b"true") {
                Some(end) => i = end,
                None => return None,
            },
            b'f' => match literal_end(s, i, b"false") {
                Some(end) => i = end,
                None => return None,
            },
            b'n' => match literal_end(s, i, b"null") {
                Some(end) => i = end,
                None => return None,
            },
            b'-' | b'0'..=b'9' => match number_end(s, i) {
                Some(end) => i = end,
                None => return None,
            },
            _ => return None,
        }
        if open {
            continue; // the container's first value comes next
        }
        // A value ended at `i`: close containers until one continues.
        loop {
            if depth == 0 {
                return Some(i);
            }
            i = ws(s, i);
            let object = stack & 1 == 1;
            match byte(s, i) {
                b',' => {
                    i += 1;
                    if object {
                        match key_end(s, ws(s, i)) {
                            Some(end) => i = end,
                            None => return None,
                        }
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            i += 1;
            stack >>= 1;
            depth -= 1;
        }
    }
}

/// A member's key and its colon, starting at `i`: where its value starts.
const fn key_end(s: &[u8], i: usize) -> Option<usize> {
    if byte(s, i) != b'"' {
        return None;
    }
    match string_end(s, i) {
        Some(end) => {
            let colon = ws(s, end);
            if byte(s, colon) == b':' {
                Some(colon + 1)
            } else {
                None
            }
        }
        None => None,
    }
}

const fn literal_end(s: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    let mut k = 0;
    while k < word.len() {
        if byte(s, i + k) != byte(word, k) {
            return None;
        }
        k += 1;
    }
    Some(i + word.len())
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
const fn number_end(s: &[u8], mut i: usize) -> Option<usize> {
    if byte(s, i) == b'-' {
        i += 1;
    }
    match byte(s, i) {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits_end(s, i),
        _ => return None,
    }
    if byte(s, i) == b'.' {
        if !byte(s, i + 1).is_ascii_digit() {
            return None;
        }
        i = digits_end(s, i + 1);
    }
    if matches!(byte(s, i), b'e' | b'E') {
        i += 1;
        if matches!(byte(s, i), b'+' | b'-') {
            i += 1;
        }
        if !byte(s, i).is_ascii_digit() {
            return None;
        }
        i = digits_end(s, i);
    }
    Some(i)
}

const fn digits_end(s: &[u8], mut i: usize) -> usize {
    while byte(s, i).is_ascii_digit() {
        i += 1;
    }
    i
}

/// The string starting at the quote at `i`: where it ends (after its closing quote).
/// No raw control characters; every escape, `\u` surrogates in pairs. (The text is a
/// `str`: its UTF-8 is valid already.)
const fn string_end(s: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        let b = byte(s, i);
        if i >= s.len() || b < 0x20 {
            return None;
        }
        match b {
            b'"' => return Some(i + 1),
            b'\\' => match byte(s, i + 1) {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let Some(unit) = hex4(s, i + 2) else {
                        return None;
                    };
                    i += 6;
                    if matches!(unit, 0xDC00..=0xDFFF) {
                        return None; // a low surrogate first
                    }
                    if matches!(unit, 0xD800..=0xDBFF) {
                        if byte(s, i) != b'\\' || byte(s, i + 1) != b'u' {
                            return None;
                        }
                        match hex4(s, i + 2) {
                            Some(0xDC00..=0xDFFF) => i += 6,
                            _ => return None,
                        }
                    }
                }
                _ => return None,
            },
            _ => i += 1,
        }
    }
}

/// The four hex digits at `i`, as a number.
const fn hex4(s: &[u8], i: usize) -> Option<u16> {
    let mut v: u16 = 0;
    let mut k = 0;
    while k < 4 {
        let d = match byte(s, i + k) {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | d as u16;
        k += 1;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::is_object;
    use crate::wire::json::{parse, Kind};
    use proptest::prelude::*;
    use std::format;
    use std::string::String;
    use std::vec;

    fn runtime(text: &str) -> bool {
        parse(text.as_bytes()).is_ok_and(|v| v.kind() == Kind::Object)
    }

    fn nested(depth: usize) -> String {
        format!(
            "{}1{}",
            "{\"a\":[".repeat(depth / 2),
            "]}".repeat(depth / 2)
        )
    }

    #[test]
    fn fixtures_agree_with_the_scanner() {
        let texts = [
            "{}",
            " {} ",
            "{\"a\":1}",
            "{\"a\":1,}",
            "{,}",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\" : [1, 2.5e-3, -0, true, false, null, \"x\", {}, []]}",
            "{\"a\":[1,]}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":.5}",
            "{\"a\":1e}",
            "{\"a\":-}",
            "{\"a\":\"\\u00e9\\ud83d\\ude00\\n\\/\"}",
            "{\"a\":\"\\ud83d\"}",
            "{\"a\":\"\\ude00\"}",
            "{\"a\":\"\\ud83d\\u0041\"}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\t\"}",
            "{\"é\":\"ü\"}",
            "{} {}",
            "{}x",
            "[]",
            "1",
            "\"{}\"",
            "",
            "{",
            "{\"a\":[}",
            "{\"a\":{]}",
            "{\"a\":tru}",
            "{\"a\":nul}",
        ];
        for t in texts {
            assert_eq!(is_object(t), runtime(t), "{t:?}");
        }
        for depth in [30, 31, 32, 33, 34, 64, 66, 200] {
            let t = nested(depth);
            assert_eq!(is_object(&t), runtime(&t), "depth {depth}");
        }
    }

    /// JSON-ish text: the grammar's tokens in any order, so that both valid and
    /// nearly valid objects come up often.
    fn jsonish() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("{"),
            Just("}"),
            Just("["),
            Just("]"),
            Just(","),
            Just(":"),
            Just("\"k\""),
            Just("\"\\u00e9\""),
            Just("\"\\ud83d\\ude00\""),
            Just("\"\\ud83d\""),
            Just("\"\\q\""),
            Just("1"),
            Just("-0.5e+3"),
            Just("01"),
            Just("true"),
            Just("null"),
            Just(" "),
            Just("\n"),
        ];
        prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
    }

    proptest! {
        #[test]
        fn agrees_with_the_scanner(text in jsonish()) {
            prop_assert_eq!(is_object(&text), runtime(&text), "{:?}", text);
        }

        #[test]
        fn agrees_on_object_shapes(body in jsonish()) {
            let text = format!("{{\"k\":{body}}}");
            prop_assert_eq!(is_object(&text), runtime(&text), "{:?}", text);
        }

        #[test]
        fn agrees_on_any_text(text in "\\PC{0,24}") {
            prop_assert_eq!(is_object(&text), runtime(&text), "{:?}", text);
        }
    }
}
