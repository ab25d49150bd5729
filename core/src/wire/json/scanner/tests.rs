extern crate std;

use super::*;
use std::string::{String, ToString};
use std::vec::Vec;

/// What nested picking files, computed the slow way: `get_each` on the first
/// `params`, then on its first `_meta`, and the prefix over that `_meta`'s names.
fn picked_by_walking(line: &[u8]) -> (Vec<Option<Vec<u8>>>, bool) {
    let top = parse(line).unwrap();
    let mut l0 = [None; 2];
    if top.kind() == Kind::Object {
        top.get_each(&["params", "id"], &mut l0);
    }
    let mut l1 = [None; 3];
    let mut l2 = [None; 2];
    let mut prefixed = false;
    if let Some(params) = l0[0].filter(|v| v.kind() == Kind::Object) {
        params.get_each(&["_meta", "name", "arguments"], &mut l1);
        if let Some(meta) = l1[0].filter(|v| v.kind() == Kind::Object) {
            meta.get_each(&["progressToken", "x/version"], &mut l2);
            prefixed = meta.members().any(|(k, _)| k.raw().starts_with(b"x/"));
        }
    }
    let all = l0.iter().chain(&l1).chain(&l2);
    (all.map(|v| v.map(|v| v.raw().to_vec())).collect(), prefixed)
}

fn picked_while_validating(line: &[u8]) -> (Vec<Option<Vec<u8>>>, bool) {
    let (mut l0, mut l1, mut l2) = ([None; 2], [None; 3], [None; 2]);
    let mut picks = Picks {
        levels: [
            Level::new(&["params", "id"], &mut l0, 0),
            Level::new(&["_meta", "name", "arguments"], &mut l1, 0),
            Level::last(&["progressToken", "x/version"], &mut l2),
        ],
        prefix: b"x/",
        prefixed: false,
        stop: Stop::NONE,
    };
    parse_picking(line, MAX_DEPTH, &mut picks).unwrap();
    let prefixed = picks.prefixed;
    let all = l0.iter().chain(&l1).chain(&l2);
    (all.map(|v| v.map(|v| v.raw().to_vec())).collect(), prefixed)
}

#[test]
fn nested_picks_match_walking() {
    let lines: [&[u8]; 14] = [
        br#"{"id":1,"params":{"name":"a","_meta":{"progressToken":7,"x/version":"v"}}}"#,
        br#"{"params":{"_meta":{"x/other":1}}}"#,
        br#"{"params":{"_meta":{"y/other":1,"progressToken":"t"}}}"#,
        // First wins at every level; later duplicates are not looked into.
        br#"{"params":{"name":"a"},"params":{"name":"b","arguments":{}}}"#,
        br#"{"params":{"_meta":{"progressToken":1},"_meta":{"progressToken":2,"x/v":0}}}"#,
        br#"{"params":{"name":1,"name":2,"_meta":{"x/version":[1,{"progressToken":3}]}}}"#,
        // Not objects: nothing inside is filed.
        br#"{"params":[{"name":"a"}],"id":2}"#,
        br#"{"params":{"_meta":[{"progressToken":1}]}}"#,
        br#"[{"params":{"name":"a"}}]"#,
        // Same names deeper or elsewhere are not ours.
        br#"{"x":{"params":{"name":"a"}},"params":{"arguments":{"name":"b","_meta":{}}}}"#,
        br#"{"params":{"arguments":{"_meta":{"progressToken":9}}},"id":{"params":1}}"#,
        // Escaped names are compared decoded; the prefix as written.
        br#"{"p\u0061rams":{"n\u0061me":"a","_meta":{"x\/version":"v","x/\u0076":1}}}"#,
        br#" { "params" : { "_meta" : { } , "name" : "a" } , "id" : 3 } "#,
        br#"{"params":{},"id":null}"#,
    ];
    for line in lines {
        assert_eq!(
            picked_while_validating(line),
            picked_by_walking(line),
            "{}",
            String::from_utf8_lossy(line)
        );
    }
}

fn ok(input: &[u8]) -> Value<'_> {
    match parse(input) {
        Ok(v) => v,
        Err(e) => panic!("{:?} rejected: {e:?}", String::from_utf8_lossy(input)),
    }
}

fn err(input: &[u8]) -> ScanError {
    match parse(input) {
        Ok(v) => panic!("{:?} accepted as {v:?}", String::from_utf8_lossy(input)),
        Err(e) => e,
    }
}

fn decode(s: Str<'_>) -> String {
    let mut buf = std::vec![0u8; s.raw().len()];
    String::from(s.unescape_into(&mut buf).unwrap())
}

fn string_of(input: &[u8]) -> String {
    decode(ok(input).as_str().unwrap())
}

#[test]
fn scalars_and_whitespace() {
    assert_eq!(ok(b"true").as_bool(), Some(true));
    assert_eq!(ok(b"false").as_bool(), Some(false));
    assert!(ok(b"null").is_null());
    assert_eq!(ok(b" \t\r\n1 \t\r\n").raw(), b"1");
    assert_eq!(ok(b"\"\"").kind(), Kind::String);
    assert_eq!(ok(b" [ ] ").raw(), b"[ ]");
    assert_eq!(ok(b"{ }").kind(), Kind::Object);
    assert_eq!(ok(b"[ 1 , { \"a\" : [ ] } ]").items().count(), 2);
}

#[test]
fn empty_and_trailing() {
    assert_eq!(err(b""), ScanError::Syntax);
    assert_eq!(err(b"   "), ScanError::Syntax);
    assert_eq!(err(b"1 2"), ScanError::Syntax);
    assert_eq!(err(b"{}{}"), ScanError::Syntax);
    assert_eq!(err(b"{} x"), ScanError::Syntax);
    assert_eq!(err(b"[1]]"), ScanError::Syntax);
    assert_eq!(err(b"truex"), ScanError::Syntax);
    assert_eq!(err(b"null\0"), ScanError::Syntax);
    assert_eq!(err(b"\xef\xbb\xbf{}"), ScanError::Syntax); // BOM
    assert_eq!(err(b"\x0b1"), ScanError::Syntax); // vertical tab is not whitespace
}

#[test]
fn literals() {
    for bad in [
        &b"tru"[..],
        b"t",
        b"nul",
        b"fals",
        b"True",
        b"NULL",
        b"nan",
        b"undefined",
    ] {
        assert_eq!(err(bad), ScanError::Syntax);
    }
}

#[test]
fn member_objects_flat_or_not() {
    // Objects of scalars, objects holding containers, and broken ones, as member
    // values of a top-level object (the loop that picks) and deeper.
    let v = ok(br#"{"a":{"s":"x","n":-1.5e3,"t":true,"f":false,"z":null,"i":10},"b":{ "c" : [1] , "d":{}},"e":{"f":{"g":1}}}"#);
    assert_eq!(v.get("b").unwrap().raw(), br#"{ "c" : [1] , "d":{}}"#);
    assert_eq!(v.get("e").unwrap().get("f").unwrap().raw(), br#"{"g":1}"#);
    for bad in [
        &br#"{"a":{"s":1,}}"#[..],
        br#"{"a":{"s":01}}"#,
        br#"{"a":{"s" 1}}"#,
        br#"{"a":{"s":1]}"#,
        br#"{"a":{"s":[1}}"#,
        br#"{"a":{"s":"x}}"#,
        br#"{"a":{"s":tru}}"#,
        br#"{"a":00}"#,
        br#"{"a":1.}"#,
    ] {
        assert_eq!(
            parse(bad).unwrap_err(),
            ScanError::Syntax,
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
    assert_eq!(
        parse(b"{\"a\":{\"s\":\"\xff\",\"t\":[}}").unwrap_err(),
        ScanError::InvalidUtf8
    );
    assert_eq!(
        parse_with_depth(br#"{"a":{"s":1}}"#, 1).unwrap_err(),
        ScanError::TooDeep
    );
    assert_eq!(
        parse_with_depth(br#"{"a":{}}"#, 1).unwrap_err(),
        ScanError::TooDeep
    );
    assert!(parse_with_depth(br#"{"a":{"s":1},"b":{}}"#, 2).is_ok());
    assert_eq!(
        parse_with_depth(br#"{"a":{"s":{}}}"#, 2).unwrap_err(),
        ScanError::TooDeep
    );
}

#[test]
fn structure_errors() {
    for bad in [
        &b"["[..],
        b"]",
        b"{",
        b"}",
        b"[1,]",
        b"[,1]",
        b"[1 2]",
        b"{\"a\"}",
        b"{\"a\":}",
        b"{\"a\" 1}",
        b"{\"a\":1,}",
        b"{,}",
        b"{1:2}",
        b"{a:1}",
        b"{'a':1}",
        b"[1}",
        b"{\"a\":1]",
        b"[\"a\":1]",
        b"\"abc",
        b"\"",
        b"[\"a]",
    ] {
        assert_eq!(
            err(bad),
            ScanError::Syntax,
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn numbers() {
    for good in [
        &b"0"[..],
        b"-0",
        b"0.5e-3",
        b"-0.0",
        b"123",
        b"-123.456E+78",
        b"1e5",
        b"1E-5",
        b"0e0",
        b"9999999999999999999999999999",
    ] {
        assert_eq!(ok(good).kind(), Kind::Number);
        assert_eq!(ok(good).raw(), good);
    }
    for bad in [
        &b"01"[..],
        b"-01",
        b"1.",
        b".5",
        b"+1",
        b"1e",
        b"1e+",
        b"1E-",
        b"-",
        b"-a",
        b"1.e3",
        b"0x10",
        b"1.5.2",
        b"--1",
        b"[01]",
        b"[1.]",
    ] {
        assert_eq!(
            err(bad),
            ScanError::Syntax,
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn every_escape() {
    assert_eq!(
        string_of(br#""\" \\ \/ \b \f \n \r \t""#),
        "\" \\ / \u{8} \u{c} \n \r \t"
    );
    assert_eq!(string_of(br#""\u0041\u00e9\u20AC\uFFFF""#), "Aé€\u{ffff}");
    assert_eq!(string_of(br#""\u0000""#), "\0");
    for bad in [
        &br#""\a""#[..],
        br#""\x41""#,
        br#""\u12""#,
        br#""\u12G4""#,
        br#""\U0041""#,
        br#""\""#,
        b"\"\\",
        br#""\'""#,
    ] {
        assert_eq!(
            err(bad),
            ScanError::Syntax,
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn surrogates() {
    // A valid pair decodes to one char.
    assert_eq!(string_of(br#""\ud83d\ude00""#), "😀");
    assert_eq!(string_of(br#""\uD800\uDC00""#), "\u{10000}");
    assert_eq!(string_of(br#""\uDBFF\uDFFF""#), "\u{10FFFF}");
    assert_eq!(ok(br#""\ud83d\ude00""#).as_str().unwrap().char_count(), 1);
    for bad in [
        &br#""\ud83d""#[..],  // lone high
        br#""\ude00""#,       // lone low
        br#""\ude00\ud83d""#, // reversed
        br#""\ud83d\ud83d""#, // high + high
        br#""\ud83dx""#,      // high + text
        br#""\ud83d\n""#,     // high + other escape
        br#""\ud83d\u0041""#, // high + non-surrogate
        br#""\ud83d\ude0""#,  // truncated low
    ] {
        assert_eq!(
            err(bad),
            ScanError::Syntax,
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn utf8() {
    assert_eq!(
        string_of("\"é€😀\u{10FFFF}\u{7f}\"".as_bytes()),
        "é€😀\u{10FFFF}\u{7f}"
    );
    for bad in [
        &b"\"\xc0\xaf\""[..],    // overlong '/'
        b"\"\xc1\xbf\"",         // overlong
        b"\"\xe0\x80\xaf\"",     // overlong 3-byte
        b"\"\xf0\x80\x80\xaf\"", // overlong 4-byte
        b"\"\xed\xa0\x80\"",     // U+D800 encoded
        b"\"\xed\xbf\xbf\"",     // U+DFFF encoded
        b"\"\xf4\x90\x80\x80\"", // > U+10FFFF
        b"\"\xf5\x80\x80\x80\"",
        b"\"\xff\"",
        b"\"\x80\"",         // lone continuation
        b"\"\xc3\"",         // truncated before quote
        b"\"\xe2\x82\"",     // truncated 3-byte
        b"\"\xf0\x9f\x98\"", // truncated 4-byte
        b"\"\xc3",           // truncated at end of input
        b"\"\xe2\x82",
        b"\"\xc3\x28\"", // bad continuation
        b"\xff",         // outside a string
        b"[1,\xff]",
        b"{} \xc3",
        b"[1,,\xff]", // syntax error first: still InvalidUtf8
        // Valid non-ASCII first, the bad bytes later (in a string or not).
        b"[\"\xc3\xa9\",\"\xff\"]",
        b"{\"\xc3\xa9\":1,\"a\":\"x\xc3\"}",
        b"[\"\xc3\xa9\"] \xff",
        b"[\"\xc3\xa9\",,\"\xff\"]",
        b"[[[[1]]]]\xff", // too deep (below) and not UTF-8
    ] {
        assert_eq!(err(bad), ScanError::InvalidUtf8, "{bad:?}");
    }
    assert_eq!(
        parse_with_depth(b"[[[[1]]]]\xff", 2).unwrap_err(),
        ScanError::InvalidUtf8
    );
    // Non-ASCII text anywhere in strings, keys included; errors after it.
    let v = ok(
        "{\"\u{e9}t\u{e9}\":[\"\u{1f600}\",\"a\u{e9}b\u{e9}\"],\"k\":\"\u{e9}\\n\u{e9}\"}"
            .as_bytes(),
    );
    assert_eq!(v.get("\u{e9}t\u{e9}").unwrap().items().count(), 2);
    assert_eq!(err("[\"\u{e9}\",]".as_bytes()), ScanError::Syntax);
    assert_eq!(err("[\"\u{e9}\"] x".as_bytes()), ScanError::Syntax);
    assert_eq!(
        parse_with_depth("[[\"\u{e9}\"]]".as_bytes(), 1).unwrap_err(),
        ScanError::TooDeep
    );
    // Valid UTF-8 outside a string is a syntax error.
    assert_eq!(err("é".as_bytes()), ScanError::Syntax);
}

#[test]
fn control_characters_in_strings() {
    for c in 0u8..0x20 {
        let input = [b'"', c, b'"'];
        assert_eq!(err(&input), ScanError::Syntax, "{c:#x}");
    }
    assert_eq!(string_of(b"\"\x7f\""), "\u{7f}");
}

fn nested(depth: usize) -> Vec<u8> {
    let mut v = std::vec![b'['; depth];
    v.extend(std::iter::repeat_n(b']', depth));
    v
}

#[test]
fn depth_limit() {
    assert!(parse(&nested(MAX_DEPTH)).is_ok());
    assert_eq!(
        parse(&nested(MAX_DEPTH + 1)).unwrap_err(),
        ScanError::TooDeep
    );
    let mut objects = Vec::new();
    for _ in 0..MAX_DEPTH {
        objects.extend_from_slice(b"{\"a\":");
    }
    objects.push(b'1');
    objects.extend(std::iter::repeat_n(b'}', MAX_DEPTH));
    assert!(parse(&objects).is_ok());
    // Mixed nesting at the limit, closing in the right order.
    let mixed = br#"[{"a":[{"b":[1]}]}]"#;
    assert!(parse_with_depth(mixed, 5).is_ok());
    assert_eq!(parse_with_depth(mixed, 4).unwrap_err(), ScanError::TooDeep);
    assert_eq!(parse_with_depth(b"[]", 0).unwrap_err(), ScanError::TooDeep);
    assert!(parse_with_depth(b"1", 0).is_ok());
    // Clamped to the bit stack.
    assert!(parse_with_depth(&nested(DEPTH_LIMIT), usize::MAX).is_ok());
    assert_eq!(
        parse_with_depth(&nested(DEPTH_LIMIT + 1), usize::MAX).unwrap_err(),
        ScanError::TooDeep
    );
    // Far too deep: rejected early, no recursion.
    assert_eq!(parse(&nested(100_000)).unwrap_err(), ScanError::TooDeep);
    assert_eq!(
        parse(&std::vec![b'['; 100_000]).unwrap_err(),
        ScanError::TooDeep
    );
    // Bit stack words: objects and arrays alternating across word boundaries.
    let mut alt = Vec::new();
    for d in 0..100 {
        alt.extend_from_slice(if d % 3 == 0 { b"{\"k\":" } else { b"[" });
    }
    alt.push(b'0');
    for d in (0..100).rev() {
        alt.push(if d % 3 == 0 { b'}' } else { b']' });
    }
    assert!(parse_with_depth(&alt, 100).is_ok());
    let last = alt.len() - 1;
    alt[last] = b']';
    assert_eq!(parse_with_depth(&alt, 100).unwrap_err(), ScanError::Syntax);
}

/// `get_past` answers as `get`, whichever value is known: a member's, a nested
/// one, one of another text, none.
#[test]
fn get_past_is_get() {
    let texts: [&[u8]; 4] = [
        br#"{"_meta":{"a":"}","cursor":1},"cursor":"2","x":[{}]}"#,
        br#"{ "cursor" : 3 , "_meta" : { "cursor" : 4 } }"#,
        br#"{"\u0063ursor":5,"_meta":[],"cursor":6}"#,
        br#"{}"#,
    ];
    let other = ok(br#"{"cursor":7}"#);
    for text in texts {
        let v = ok(text);
        let mut known: Vec<Option<Value<'_>>> = Vec::from([None, Some(other)]);
        for (_, m) in v.members() {
            known.push(Some(m));
            known.extend(m.members().map(|(_, n)| Some(n)));
        }
        for k in known {
            for key in ["cursor", "_meta", "x", "a", "y"] {
                let want = v.get(key).map(|v| v.raw());
                assert_eq!(v.get_past(key, k).map(|v| v.raw()), want, "{key} {k:?}");
            }
        }
    }
}

#[test]
fn navigation() {
    let v = ok(br#" { "a" : 1 , "b" : [ true , null , "x\"]" ] , "c":{"d":{}} , "a":2 } "#);
    assert_eq!(v.get("a").unwrap().raw(), b"1");
    let b = v.get("b").unwrap();
    assert_eq!(b.kind(), Kind::Array);
    let items: Vec<&[u8]> = b.items().map(|i| i.raw()).collect();
    assert_eq!(items, [&b"true"[..], b"null", br#""x\"]""#]);
    assert_eq!(v.get("c").unwrap().get("d").unwrap().raw(), b"{}");
    assert!(v.get("d").is_none());
    assert_eq!(v.members().count(), 4);
    let keys: Vec<String> = v.members().map(|(k, _)| decode(k)).collect();
    assert_eq!(keys, ["a", "b", "c", "a"]);
    // Not a container: empty iterators, no members.
    assert!(b.get("a").is_none());
    assert_eq!(b.members().count(), 0);
    assert_eq!(v.items().count(), 0);
    assert_eq!(ok(b"1").items().count(), 0);
    assert_eq!(ok(b"[]").items().count(), 0);
    assert_eq!(ok(b"[ ]").items().count(), 0);
    assert_eq!(ok(b"{ }").members().count(), 0);
    // Escaped key decoded for the comparison; first duplicate wins.
    let e = ok(br#"{"m\u00e9thod":1,"m\u00e9thod":2,"\"q\"":3}"#);
    assert_eq!(e.get("méthod").unwrap().raw(), b"1");
    assert_eq!(e.get("\"q\"").unwrap().raw(), b"3");
    // Strings containing brackets and escaped quotes inside nested values.
    let tricky = ok(br#"[{"a":"]}\\"},"\\",[["]"]],-1.5e3]"#);
    let items: Vec<&[u8]> = tricky.items().map(|i| i.raw()).collect();
    assert_eq!(
        items,
        [
            &br#"{"a":"]}\\"}"#[..],
            br#""\\""#,
            br#"[["]"]]"#,
            b"-1.5e3"
        ]
    );
    // Fused.
    let mut it = ok(b"[1]").items();
    assert!(it.next().is_some());
    assert!(it.next().is_none());
    assert!(it.next().is_none());
}

#[test]
fn kinds_and_accessors() {
    assert_eq!(ok(b"{}").kind(), Kind::Object);
    assert_eq!(ok(b"[]").kind(), Kind::Array);
    assert_eq!(ok(b"\"\"").kind(), Kind::String);
    assert_eq!(ok(b"-1").kind(), Kind::Number);
    assert_eq!(ok(b"true").kind(), Kind::Bool);
    assert_eq!(ok(b"null").kind(), Kind::Null);
    assert!(ok(b"1").as_str().is_none());
    assert!(ok(b"1").as_bool().is_none());
    assert!(!ok(b"0").is_null());
    assert_eq!(ok(b"\"1\"").as_i64(), None);
    assert_eq!(ok(b"\"1\"").as_f64(), None);
    assert_eq!(ok(b"true").as_u64(), None);
}

#[test]
fn integers() {
    assert_eq!(ok(b"0").as_i64(), Some(0));
    assert_eq!(ok(b"-0").as_i64(), Some(0));
    assert_eq!(ok(b"-0").as_u64(), Some(0));
    assert_eq!(ok(b"9223372036854775807").as_i64(), Some(i64::MAX));
    assert_eq!(ok(b"-9223372036854775808").as_i64(), Some(i64::MIN));
    assert_eq!(ok(b"9223372036854775808").as_i64(), None);
    assert_eq!(ok(b"-9223372036854775809").as_i64(), None);
    assert_eq!(ok(b"9223372036854775808").as_u64(), Some(1 << 63));
    assert_eq!(ok(b"18446744073709551615").as_u64(), Some(u64::MAX));
    assert_eq!(ok(b"18446744073709551616").as_u64(), None);
    assert_eq!(ok(b"99999999999999999999999").as_u64(), None);
    assert_eq!(ok(b"-1").as_u64(), None);
    assert_eq!(ok(b"1.0").as_i64(), None);
    assert_eq!(ok(b"1e3").as_u64(), None);
    assert_eq!(ok(b"1e3").as_f64(), Some(1000.0));
    assert_eq!(ok(b"-0.5").as_f64(), Some(-0.5));
    assert_eq!(ok(b"1e400").as_f64(), Some(f64::INFINITY));
    assert_eq!(ok(b"0.1").as_f64(), Some(0.1));
}

#[test]
fn integral() {
    for yes in [
        &b"5"[..],
        b"-3",
        b"5.0",
        b"1e3",
        b"2.50e1",
        b"0",
        b"-0.0",
        b"0.0e-7",
        b"100e-2",
        b"10E-1",
        b"1.5e1",
        b"0.5E+1",
        b"123456789012345678901234567890",
        b"1e99999999999999999999999",
    ] {
        assert!(ok(yes).is_integral(), "{:?}", String::from_utf8_lossy(yes));
    }
    for no in [
        &b"1.5"[..],
        b"0.1",
        b"1e-1",
        b"100e-3",
        b"2.55e1",
        b"0.05e1",
        b"1e-99999999999999999999999",
        b"\"5\"",
        b"true",
        b"[1]",
        b"null",
    ] {
        assert!(!ok(no).is_integral(), "{:?}", String::from_utf8_lossy(no));
    }
}

#[test]
fn plain_names_hold_nothing_to_escape() {
    assert!(plain_names(&[]));
    assert!(plain_names(&[
        "jsonrpc",
        "io.modelcontextprotocol/x",
        "é",
        ""
    ]));
    for bad in ["a\"b", "a\\b", "a\nb", "\u{1f}"] {
        assert!(!plain_names(&["ok", bad]), "{bad:?}");
    }
}

#[test]
fn same_bytes_is_eq() {
    let a: Vec<u8> = (0u8..48).map(|b| b.wrapping_mul(37) ^ 0x55).collect();
    for len in 0..=a.len() {
        let x = &a[..len];
        assert!(same_bytes(x, x));
        let mut y = x.to_vec();
        for at in 0..len {
            y[at] ^= 0x80;
            assert!(!same_bytes(x, &y), "{len} {at}");
            y[at] ^= 0x80;
        }
        assert!(!same_bytes(x, &a[..len.saturating_sub(1)]) || len == 0);
        assert!(!same_bytes(x, &a[1..]) || len == a.len() - 1);
    }
    let names = ["jsonrpc", "id", "method", "params", "result", "error"];
    let v = ok(br#"["params","id","res","_meta","error"]"#);
    let at: Vec<Option<usize>> = v
        .items()
        .map(|i| i.as_str().unwrap().position_in(&names))
        .collect();
    assert_eq!(at, [Some(3), Some(1), None, None, Some(5)]);
}

#[test]
fn eq_str_lengths_and_escapes() {
    let v = ok(br#"["a\"", "a\\", "ab", "\u0061b"]"#);
    let s: Vec<Str<'_>> = v.items().map(|i| i.as_str().unwrap()).collect();
    // Same length as the escaped text, but the escape decodes to less.
    assert!(!s[0].eq_str(r#"a\""#));
    assert!(s[0].eq_str("a\""));
    assert!(!s[1].eq_str(r"a\\"));
    assert!(s[1].eq_str(r"a\"));
    assert!(s[2].eq_str("ab") && !s[2].eq_str("a") && !s[2].eq_str("abc"));
    assert!(s[3].eq_str("ab") && !s[3].eq_str("\\u0061b"));
}

#[test]
fn navigation_skips_nested_values_with_escapes_and_whitespace() {
    let v = ok(br#" { "a" : [ 1 , { "}" : "]\"" } , "x\\" ] , "b\"" : -1.5e3 , "c" : true } "#);
    assert_eq!(
        v.get("a").unwrap().raw(),
        br#"[ 1 , { "}" : "]\"" } , "x\\" ]"#
    );
    assert_eq!(v.get("b\"").unwrap().raw(), b"-1.5e3");
    assert_eq!(v.get("c").unwrap().raw(), b"true");
    let items: Vec<&[u8]> = v.get("a").unwrap().items().map(|i| i.raw()).collect();
    assert_eq!(items, [&b"1"[..], br#"{ "}" : "]\"" }"#, br#""x\\""#]);
    let mut found = [None; 3];
    v.get_each(&["c", "a", "zz"], &mut found);
    assert_eq!(found[0].unwrap().raw(), b"true");
    assert!(found[1].is_some() && found[2].is_none());
    assert_eq!(
        Value::trusted(b" \n{\"k\":1}\t").get("k").unwrap().raw(),
        b"1"
    );
}

#[test]
fn strings() {
    let v = ok(br#""a\tb\u00e9c\ud83d\ude00""#);
    let s = v.as_str().unwrap();
    assert!(s.has_escapes());
    assert_eq!(s.as_plain(), None);
    assert!(s.eq_str("a\tbéc😀"));
    assert!(!s.eq_str("a\tbéc😀!"));
    assert!(!s.eq_str("a\tbéc"));
    assert!(!s.eq_str("a\\tbéc😀"));
    assert!(!s.eq_str(""));
    assert_eq!(s.decoded_len(), "a\tbéc😀".len());
    assert_eq!(s.char_count(), 6);
    let pieces: Vec<Piece<'_>> = s.pieces().collect();
    assert_eq!(
        pieces,
        [
            Piece::Text("a"),
            Piece::Char('\t'),
            Piece::Text("b"),
            Piece::Char('é'),
            Piece::Text("c"),
            Piece::Char('😀'),
        ]
    );
    // unescape_into: exact fit and one byte short.
    let n = s.decoded_len();
    let mut buf = std::vec![0u8; n];
    assert_eq!(s.unescape_into(&mut buf), Ok("a\tbéc😀"));
    assert_eq!(s.unescape_into(&mut buf[..n - 1]), Err(BufferTooSmall));
    assert_eq!(s.unescape_into(&mut []), Err(BufferTooSmall));

    let plain = ok("\"plain é\"".as_bytes());
    let p = plain.as_str().unwrap();
    assert!(!p.has_escapes());
    assert_eq!(p.as_plain(), Some("plain é"));
    assert_eq!(p.char_count(), 7);
    assert_eq!(p.decoded_len(), 8);
    assert!(p.eq_str("plain é"));
    assert_eq!(p.pieces().collect::<Vec<_>>(), [Piece::Text("plain é")]);

    let empty = ok(b"\"\"");
    let e = empty.as_str().unwrap();
    assert!(e.eq_str(""));
    assert!(!e.eq_str("a"));
    assert_eq!(e.unescape_into(&mut []), Ok(""));
    assert_eq!(e.pieces().count(), 0);
    assert_eq!(e.char_count(), 0);

    // Consecutive escapes, escape at both ends.
    let c = ok(br#""\\\"\n""#);
    assert_eq!(decode(c.as_str().unwrap()), "\\\"\n");
    assert_eq!(c.as_str().unwrap().pieces().count(), 3);
}

#[test]
fn debug_is_readable() {
    let v = ok(br#"{"a":1}"#);
    assert_eq!(std::format!("{v:?}"), r#"Value("{\"a\":1}")"#);
    assert_eq!(
        std::format!("{:?}", ok(b"\"x\"").as_str().unwrap()),
        r#"Str("x")"#
    );
}

// ---- properties ------------------------------------------------------------

use proptest::prelude::*;
use serde_json::Value as J;

fn arb_json() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(J::from),
        any::<u64>().prop_map(J::from),
        any::<f64>()
            .prop_filter_map("finite", serde_json::Number::from_f64)
            .prop_map(J::Number),
        any::<String>().prop_map(J::String),
        "[a-z\\\\\"\u{0}-\u{1f}\u{e9}\u{1f600}]{0,8}".prop_map(J::String),
    ];
    leaf.prop_recursive(12, 128, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(J::Array),
            proptest::collection::btree_map(any::<String>(), inner, 0..8)
                .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}

/// Test-only conversion to serde_json, exercising every accessor on the way.
fn to_serde(v: Value<'_>) -> J {
    match v.kind() {
        Kind::Null => J::Null,
        Kind::Bool => J::Bool(v.as_bool().unwrap()),
        Kind::Number => {
            if let Some(u) = v.as_u64() {
                J::from(u)
            } else if let Some(i) = v.as_i64() {
                J::from(i)
            } else {
                J::from(v.as_f64().unwrap())
            }
        }
        Kind::String => J::String(checked_decode(v.as_str().unwrap())),
        Kind::Array => J::Array(v.items().map(to_serde).collect()),
        Kind::Object => {
            let mut map = serde_json::Map::new();
            for (k, value) in v.members() {
                let key = checked_decode(k);
                assert_eq!(v.get(&key).unwrap().raw(), value.raw());
                map.insert(key, to_serde(value));
            }
            J::Object(map)
        }
    }
}

/// Decode with `unescape_into` and check every other string accessor against it.
fn checked_decode(s: Str<'_>) -> String {
    let decoded = decode(s);
    assert!(s.eq_str(&decoded));
    assert_eq!(s.decoded_len(), decoded.len());
    assert_eq!(s.char_count(), decoded.chars().count());
    let mut joined = String::new();
    for piece in s.pieces() {
        match piece {
            Piece::Text(t) => joined.push_str(t),
            Piece::Char(c) => joined.push(c),
        }
    }
    assert_eq!(joined, decoded);
    assert_eq!(s.as_plain().is_some(), !s.has_escapes());
    if let Some(p) = s.as_plain() {
        assert_eq!(p, decoded);
    }
    decoded
}

/// Agreement with serde_json on one input.
fn agree(bytes: &[u8]) {
    let ours = parse(bytes);
    if core::str::from_utf8(bytes).is_err() {
        assert_eq!(ours.unwrap_err(), ScanError::InvalidUtf8);
        return;
    }
    let theirs = serde_json::from_slice::<J>(bytes);
    match (&ours, &theirs) {
        (Err(ScanError::TooDeep), _) => {}
        (_, Err(e))
            if e.to_string().contains("number out of range")
                || e.to_string().contains("recursion limit") => {}
        (Ok(v), Ok(j)) => {
            // Equal up to float rounding differences (both parse the same text).
            let back = to_serde(*v);
            if !contains_float(j) {
                assert_eq!(&back, j);
            }
        }
        (Err(ScanError::Syntax), Err(_)) => {}
        _ => panic!(
            "{:?}: ours {ours:?}, serde_json {theirs:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

fn contains_float(j: &J) -> bool {
    match j {
        J::Number(n) => n.is_f64(),
        J::Array(a) => a.iter().any(contains_float),
        J::Object(o) => o.values().any(contains_float),
        _ => false,
    }
}

fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    let alphabet: Vec<u8> =
        b"{}[]\",:0123456789-+.eE \n\ttrufalsn\\/bu\x01\x7f\xc3\xa9\xed\xa0\x80".to_vec();
    proptest::collection::vec(proptest::sample::select(alphabet), 0..48)
}

proptest! {
    #[test]
    fn accepts_serde_json_output(j in arb_json()) {
        for text in [serde_json::to_string(&j).unwrap(), serde_json::to_string_pretty(&j).unwrap()] {
            let v = parse(text.as_bytes()).unwrap();
            prop_assert_eq!(to_serde(v), j.clone());
        }
    }

    #[test]
    fn arbitrary_bytes_agree(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        agree(&bytes);
    }

    #[test]
    fn jsonish_bytes_agree(bytes in jsonish()) {
        agree(&bytes);
    }

    #[test]
    fn mutated_json_agrees(
        j in arb_json(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        let mut bytes = serde_json::to_vec(&j).unwrap();
        for (at, byte, op) in edits {
            let i = at.index(bytes.len() + 1);
            match op {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => { bytes.remove(i); }
                _ if i < bytes.len() => bytes[i] = byte,
                _ => bytes.push(byte),
            }
        }
        agree(&bytes);
    }
}

// ---- the two forms ---------------------------------------------------------

/// The scanner's fast and plain forms run on the same inputs: the same answers.
mod forms_agree {
    use super::super::{fast, plain, validate};
    use super::*;

    /// What `parse_picking` answers through one form of the picking loop: the value
    /// (or error), what it filed at each level and whether a name had the prefix.
    /// Every configuration of the server's picks: top keys only, nested levels, none.
    fn picked(line: &[u8], depth: usize, fast_form: bool) -> std::string::String {
        let mut out = String::new();
        for nested in [0, 1, 2, 3] {
            let (mut l0, mut l1, mut l2) = ([None; 3], [None; 3], [None; 2]);
            let mut picks = match nested {
                0 => Picks::none(),
                1 => Picks {
                    levels: [
                        Level::last(&["jsonrpc", "id", "method"], &mut l0),
                        Level::none(),
                        Level::none(),
                    ],
                    prefix: &[],
                    prefixed: false,
                    stop: Stop::NONE,
                },
                _ => Picks {
                    levels: [
                        Level::new(&["params", "id", "method"], &mut l0, 0),
                        Level::new(&["_meta", "name", "arguments"], &mut l1, 0),
                        Level::last(&["progressToken", "x/version"], &mut l2),
                    ],
                    prefix: if nested == 2 { b"x/" } else { b"" },
                    prefixed: false,
                    stop: Stop::NONE,
                },
            };
            let got = match fast_form {
                true => validate::parse_by(line, depth, &mut picks, fast::value_end),
                false => validate::parse_by(line, depth, &mut picks, plain::value_end),
            };
            // Where a rejected line stopped being JSON: the same in both forms.
            let prefixed = (picks.prefixed, got.is_err().then_some(picks.stop.get()));
            let raw =
                |v: &Option<Value<'_>>| v.map(|v| String::from_utf8_lossy(v.raw()).into_owned());
            let filed: Vec<_> = l0.iter().chain(&l1).chain(&l2).map(raw).collect();
            out += &std::format!(
                "{:?} {filed:?} {prefixed:?}\n",
                got.map(|v| v.raw().to_vec())
            );
        }
        out
    }

    fn check(line: &[u8]) {
        for depth in [0, 1, 2, 3, MAX_DEPTH] {
            assert_eq!(
                picked(line, depth, true),
                picked(line, depth, false),
                "{} at depth {depth}",
                String::from_utf8_lossy(line)
            );
        }
        let Ok(v) = parse(line) else { return };
        check_navigation(v);
    }

    /// The navigation forms on every object in `v`: the value after a key, the end
    /// of a walk over members, a lookup past a known value.
    fn check_navigation(v: Value<'_>) {
        if v.kind() == Kind::Object {
            let mut rest = &v.raw()[1..];
            loop {
                // The fast form's early end only ever ends what has no member left.
                if fast::members_end(rest) {
                    assert!(Members { rest }.next().is_none());
                }
                assert!(!plain::members_end(rest));
                let i = navigate::skip_comma(rest, 0);
                if rest.get(i) != Some(&b'"') {
                    break;
                }
                let key_end = navigate::skip_string(rest, i + 1).unwrap();
                let at = fast::value_after_key(rest, key_end);
                assert_eq!(at, plain::value_after_key(rest, key_end));
                let (_, after) = navigate::split_value(rest, at.unwrap()).unwrap();
                rest = after;
            }
            let names: Vec<Str<'_>> = v.members().map(|(k, _)| k).collect();
            let mut keys: Vec<String> = names.iter().map(|k| decode(*k)).collect();
            keys.extend(["", "a", "zz", "\"", "\\"].map(String::from));
            let knowns = v.members().map(|(_, m)| Some(m)).chain([None, Some(v)]);
            for known in knowns.collect::<Vec<_>>() {
                for key in &keys {
                    assert_eq!(
                        fast::get_past(&v, key, known).map(|x| x.raw()),
                        plain::get_past(&v, key, known).map(|x| x.raw()),
                        "{v:?} {key:?}"
                    );
                }
            }
        }
        for (k, m) in v.members() {
            let raw = k.raw();
            for other in [raw, &raw[..raw.len().saturating_sub(1)], b"ab\\\"", b""] {
                assert_eq!(fast::same_bytes(raw, other), plain::same_bytes(raw, other));
                assert_eq!(
                    fast::same_unescaped(raw, other),
                    plain::same_unescaped(raw, other),
                    "{k:?} {other:?}"
                );
            }
            check_navigation(m);
        }
        for item in v.items() {
            check_navigation(item);
        }
    }

    /// Byte fixtures: the shapes of requests, and of the text the fast paths treat
    /// specially (ids as plain integers, `{}`, names matched in place, escapes).
    #[test]
    fn on_fixtures() {
        let lines: [&[u8]; 24] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_sensor","arguments":{"sensor":"t1"}}}"#,
            br#"{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":3,"x/version":"v","x/y":[1,{"a":2}]},"name":"e"}}"#,
            br#"{"id":1,"params":{"name":"a","_meta":{"progressToken":7,"x/version":"v"}}}"#,
            br#"{"params":{"name":"a"},"params":{"name":"b","arguments":{}}}"#,
            br#"{"p\u0061rams":{"n\u0061me":"a","_meta":{"x\/version":"v","x/\u0076":1}}}"#,
            br#" { "params" : { "_meta" : { } , "name" : "a" } , "id" : 3 } "#,
            br#"{"id":0,"id":01,"method":"m"}"#,
            br#"{"id":-0.5e+3,"id":12345678901234567890123}"#,
            br#"{"id":1.,"method":"m"}"#,
            br#"{"id":[1,2,{"a":[]}],"method":{"x":{"y":{"z":{}}}}}"#,
            br#"{"params":{"_meta":{"_meta":{"_meta":{}}}}}"#,
            br#"{"params":{"arguments":{"a":"\ud83d\ude00","b":"\u00e9t\u00e9"}}}"#,
            b"{\"params\":{\"name\":\"caf\xc3\xa9\"}}",
            b"{\"params\":{\"name\":\"caf\xe9\"}}",
            b"{\"id\":\"\x01\"}",
            br#"{"method":"a\"b","id":true,"jsonrpc":null}"#,
            br#"{"method" "m"}"#,
            br#"{"id":1,}"#,
            br#"{"id":{}}"#,
            br#"[{"params":{"name":"a"}}]"#,
            br#"{}"#,
            br#""#,
            br#"{"a":{"b":{"c":{"d":{"e":1}}}},"params":{"name":{"x":[[[]]]}}}"#,
        ];
        for line in lines {
            check(line);
        }
    }

    /// `same_unescaped` against its definition: every length to 40, a backslash or a
    /// difference at every position, both forms.
    #[test]
    fn same_unescaped_as_defined() {
        let check = |a: &[u8], b: &[u8]| {
            let want = a == b && !a.contains(&b'\\');
            assert_eq!(fast::same_unescaped(a, b), want, "{a:?} {b:?}");
            assert_eq!(plain::same_unescaped(a, b), want, "{a:?} {b:?}");
            assert_eq!(fast::same_bytes(a, b), a == b, "{a:?} {b:?}");
            assert_eq!(plain::same_bytes(a, b), a == b, "{a:?} {b:?}");
        };
        for len in 0..=40usize {
            let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            check(&base, &base);
            check(&base, &base[..len.saturating_sub(1)]);
            for at in 0..len {
                for b in [b'\\', b'A', 0x5D, 0xDC, 0x5B] {
                    let mut other = base.clone();
                    other[at] = b;
                    check(&other, &other);
                    check(&base, &other);
                    check(&other, &base);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn on_json(j in arb_json(), wrap in 0usize..4) {
            let text = serde_json::to_string(&j).unwrap();
            let line = match wrap {
                0 => text,
                1 => std::format!(r#"{{"id":1,"params":{text}}}"#),
                2 => std::format!(r#"{{"params":{{"_meta":{text},"name":"n"}},"id":2}}"#),
                _ => serde_json::to_string_pretty(&j).unwrap(),
            };
            check(line.as_bytes());
        }

        #[test]
        fn on_jsonish_bytes(bytes in jsonish()) {
            check(&bytes);
            let mut line = br#"{"params":{"_meta":"#.to_vec();
            line.extend_from_slice(&bytes);
            check(&line);
        }
    }
}

/// Where a rejected input stopped being JSON (`Picks::stop`, answered as a parse
/// error's `data.offset`), in both forms: the start of the token at fault, or the byte
/// where another was due.
#[test]
#[cfg(feature = "error-data")]
fn where_input_stops_being_json() {
    use super::{fast, plain, validate};
    let cases: [(&[u8], usize); 12] = [
        (b"{not json}", 1),
        (br#"{"a":1"#, 6),
        (br#"{"a":1} x"#, 8),
        (br#"{"a":1,}"#, 7),
        (br#"{"a" 1}"#, 1),
        (br#"{"a":tru}"#, 5),
        (br#"{"a":"\ud800"}"#, 5),
        (b"{\"a\":\"p\xffng\"}", 7),
        (b"[[[]]]", 2),
        (br#"[1 2]"#, 3),
        (b"", 0),
        (b"  ", 2),
    ];
    for (line, stop) in cases {
        for fast_form in [true, false] {
            let mut picks = Picks::none();
            let got = match fast_form {
                true => validate::parse_by(line, 2, &mut picks, fast::value_end),
                false => validate::parse_by(line, 2, &mut picks, plain::value_end),
            };
            assert!(got.is_err(), "{}", String::from_utf8_lossy(line));
            assert_eq!(
                picks.stop.get(),
                stop,
                "{} (fast: {fast_form})",
                String::from_utf8_lossy(line)
            );
        }
    }
}

/// Names echoed in error data: whole characters and escapes within the bound.
#[test]
#[cfg(feature = "error-data")]
fn bounded_strings_end_on_a_whole_character() {
    let s = |raw: &'static [u8]| Str { raw };
    let cut = |raw: &'static [u8], max| s(raw).bounded(max).raw();
    assert_eq!(cut(b"abc", 64), b"abc");
    assert_eq!(cut(b"abcdef", 4), b"abcd");
    // UTF-8: `\xc3\xa9` is one character.
    assert_eq!(cut(b"a\xc3\xa9b", 2), b"a");
    assert_eq!(cut(b"a\xc3\xa9b", 3), b"a\xc3\xa9");
    assert_eq!(cut(b"\xf0\x9f\x98\x80x", 3), b"");
    // Escapes: short, `\u`, and a surrogate pair, never cut.
    assert_eq!(cut(br#"a\"b"#, 2), b"a");
    assert_eq!(cut(br#"a\u00e9b"#, 6), b"a");
    assert_eq!(cut(br#"a\u00e9b"#, 7), br#"a\u00e9"#);
    assert_eq!(cut(br#"\ud83d\ude00b"#, 11), b"");
    assert_eq!(cut(br#"\ud83d\ude00b"#, 12), br#"\ud83d\ude00"#);
    assert_eq!(cut(br#"\uD7FFb"#, 6), br#"\uD7FF"#);
    // What comes back is still a string's valid content.
    for max in 0..16 {
        let raw = s(b"\\ud83d\\ude00\\u00e9\\n\xc3\xa9").bounded(max).raw();
        let json = [b"\"", raw, b"\""].concat();
        assert!(parse(&json).is_ok(), "{max}");
    }
}
