extern crate std;

use super::base64::BASE64;
use super::number::div_rem_10;
use super::*;
use std::string::String;
use std::vec::Vec;

/// Run `f` on a writer over a roomy buffer; return the output (asserting no error).
/// Also the other modules' tests' writer.
pub(crate) fn out(f: impl FnOnce(&mut JsonWriter<'_>)) -> String {
    let mut buf = [0u8; 4096];
    let mut sink = SliceSink::new(&mut buf);
    let mut w = JsonWriter::new(&mut sink);
    f(&mut w);
    assert_eq!(w.finish(), Ok(()));
    String::from_utf8(sink.written().to_vec()).unwrap()
}

fn str_out(s: &str) -> String {
    out(|w| w.str(s))
}

#[test]
fn commas() {
    assert_eq!(
        out(|w| {
            w.begin_object();
            w.key("a");
            w.u64(1);
            w.key("b");
            w.begin_array();
            w.begin_array();
            w.end_array();
            w.begin_object();
            w.end_object();
            w.str("x");
            w.bool(false);
            w.null();
            w.i64(-2);
            w.f64(0.5);
            w.raw_value(b"{\"r\":1}");
            w.base64(b"hi");
            w.end_array();
            w.key("c");
            w.begin_object();
            w.key("d");
            w.bool(true);
            w.end_object();
            w.key("e");
            w.string_begin();
            w.string_part("p");
            w.string_char('q');
            w.string_end();
            w.end_object();
        }),
        r#"{"a":1,"b":[[],{},"x",false,null,-2,0.5,{"r":1},"aGk="],"c":{"d":true},"e":"pq"}"#
    );
    // Top level: never a comma.
    assert_eq!(
        out(|w| {
            w.u64(1);
            w.u64(2);
            w.begin_array();
            w.end_array();
            w.str("s");
        }),
        r#"12[]"s""#
    );
    // Nested empty containers at the start of arrays and objects.
    assert_eq!(
        out(|w| {
            w.begin_array();
            w.begin_object();
            w.key("k");
            w.begin_array();
            w.end_array();
            w.end_object();
            w.u64(3);
            w.end_array();
        }),
        r#"[{"k":[]},3]"#
    );
}

/// Every length around the one-write limit, with a character to escape at every
/// position (the first and last bytes of the content included), escapes as
/// serde_json does — as a value and as a key; between ASCII letters, DEL and
/// non-ASCII bytes (which the word search must not take for escapes).
#[test]
fn escapes_at_every_position_of_short_strings() {
    for (fill, len) in ["a", "\u{7f}", "\u{e9}"]
        .into_iter()
        .flat_map(|f| (0..=40).map(move |l| (f, l)))
    {
        // `len` bytes: whole fill characters, then ASCII letters.
        let plain = fill.repeat(len / fill.len()) + &"a".repeat(len % fill.len());
        assert_eq!(str_out(&plain), serde_json::to_string(&plain).unwrap());
        for (at, c) in plain.char_indices() {
            for special in ['"', '\\', '\n', '\u{1f}', '\u{0}'] {
                let mut s = plain.clone();
                s.replace_range(at..at + c.len_utf8(), special.encode_utf8(&mut [0; 4]));
                let want = serde_json::to_string(&s).unwrap();
                assert_eq!(str_out(&s), want, "{s:?}");
                assert_eq!(out(|w| w.key(&s)), want + ":", "{s:?}");
            }
        }
    }
}

#[test]
fn escapes() {
    assert_eq!(str_out(""), r#""""#);
    assert_eq!(str_out("plain"), r#""plain""#);
    assert_eq!(str_out("\"\\"), r#""\"\\""#);
    assert_eq!(str_out("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
    assert_eq!(str_out("/é😀\u{7f}"), "\"/é😀\u{7f}\"");
    for c in 0u8..0x20 {
        let s = String::from(char::from(c));
        let expected = match c {
            b'\n' => String::from(r#""\n""#),
            b'\r' => String::from(r#""\r""#),
            b'\t' => String::from(r#""\t""#),
            0x08 => String::from(r#""\b""#),
            0x0C => String::from(r#""\f""#),
            _ => std::format!("\"\\u{c:04x}\""),
        };
        assert_eq!(str_out(&s), expected);
        assert_eq!(
            serde_json::from_str::<String>(&str_out(&s)).unwrap(),
            s,
            "{c:#x}"
        );
    }
    assert_eq!(str_out("\u{1f}"), r#""\u001f""#);
    assert_eq!(str_out("a\u{0}b\u{1b}c"), r#""a\u0000b\u001bc""#);
    assert_eq!(out(|w| w.key("k\"\n")), r#""k\"\n":"#);
    assert_eq!(out(|w| w.string_char('\n')), "\\n");
    assert_eq!(
        out(|w| w.string_fmt(format_args!("{}\n{:?}", 1, "q"))),
        r#""1\n\"q\"""#
    );
}

#[test]
fn long_and_short_strings() {
    // Around the one-write limit, with and without a comma, with and without
    // escapes.
    for len in [0, 1, 59, 60, 61, 62, 200] {
        let plain: String = "x".repeat(len);
        let escaped = plain.clone() + "\n";
        let text = out(|w| {
            w.begin_array();
            w.str(&plain);
            w.str(&escaped);
            w.begin_object();
            w.key(&plain);
            w.str(&plain);
            w.key(&escaped);
            w.null();
            w.end_object();
            w.end_array();
        });
        let expected =
            std::format!(r#"["{plain}","{plain}\n",{{"{plain}":"{plain}","{plain}\n":null}}]"#);
        assert_eq!(text, expected);
    }
}

#[test]
fn string_parts_and_end_any() {
    let v = crate_parse(br#"["a\"b\u00e9"]"#);
    let s = v.items().next().unwrap().as_str().unwrap();
    assert_eq!(
        out(|w| {
            w.begin_array();
            w.string_begin();
            w.string_part("x\n");
            w.string_part_fmt(format_args!("{}{}", 4, '"'));
            w.string_str(s);
            w.string_char('\u{1}');
            w.string_end_any();
            w.base64_begin();
            w.base64_part(b"fo");
            w.string_end_any();
            w.string_end_any(); // nothing open: nothing written
            w.base64_begin();
            w.string_end_any();
            w.string_fmt(format_args!("{}", 1));
            w.string_end_any();
            w.end_array();
        }),
        r#"["x\n4\"a\"b\u00e9\u0001","Zm8=","","1"]"#
    );
}

#[test]
fn str_raw_copies_verbatim() {
    let v = crate_parse(br#"["a\nb\u00e9\"", "plain"]"#);
    let items: Vec<_> = v.items().collect();
    assert_eq!(
        out(|w| {
            w.begin_array();
            w.str_raw(items[0].as_str().unwrap());
            w.str_raw(items[1].as_str().unwrap());
            w.end_array();
        }),
        r#"["a\nb\u00e9\"","plain"]"#
    );
}

fn crate_parse(input: &[u8]) -> super::super::scanner::Value<'_> {
    super::super::scanner::parse(input).unwrap()
}

#[test]
fn integers() {
    let cases: [(i64, &str); 9] = [
        (0, "0"),
        (7, "7"),
        (-7, "-7"),
        (10, "10"),
        (99, "99"),
        (100, "100"),
        (-4294967296, "-4294967296"),
        (i64::MAX, "9223372036854775807"),
        (i64::MIN, "-9223372036854775808"),
    ];
    for (v, s) in cases {
        assert_eq!(out(|w| w.i64(v)), s);
    }
    for v in [
        0u64,
        9,
        10,
        11,
        99,
        100,
        101,
        4294967295,
        4294967296,
        1 << 53,
        u64::MAX,
    ] {
        assert_eq!(out(|w| w.u64(v)), std::format!("{v}"));
    }
    assert_eq!(out(|w| w.u64(u64::MAX)), "18446744073709551615");
    // As strings (pagination cursors), with commas.
    assert_eq!(
        out(|w| {
            w.begin_array();
            w.u64_str(0);
            w.u64_str(40);
            w.u64_str(u64::MAX);
            w.end_array();
        }),
        r#"["0","40","18446744073709551615"]"#
    );
    // Above 2^32, where the 16-bit steps of the division matter.
    for v in [
        1u64 << 32,
        10_000_000_000,
        10_000_000_001,
        42_949_672_960_009,
        1 << 63,
    ] {
        assert_eq!(out(|w| w.u64(v)), std::format!("{v}"));
        assert_eq!(div_rem_10(v), (v / 10, (v % 10) as u8));
    }
    // Every power of ten and its neighbours.
    let mut p = 1u64;
    loop {
        for v in [p - 1, p, p + 1] {
            assert_eq!(out(|w| w.u64(v)), std::format!("{v}"));
            if let Ok(i) = i64::try_from(v) {
                assert_eq!(out(|w| w.i64(-i)), std::format!("{}", -i));
            }
        }
        match p.checked_mul(10) {
            Some(n) => p = n,
            None => break,
        }
    }
    assert_eq!(
        out(|w| {
            w.begin_array();
            w.i64(i64::MIN);
            w.u64(u64::MAX);
            w.end_array();
        }),
        "[-9223372036854775808,18446744073709551615]"
    );
}

#[test]
fn floats() {
    let cases: [(f64, &str); 16] = [
        (21.5, "21.5"),
        (40.0, "40"),
        (1013.2, "1013.2"),
        (0.1, "0.1"),
        (1e300, "1e300"),
        (-0.0, "-0"),
        (0.0, "0"),
        (f64::NAN, "null"),
        (f64::INFINITY, "null"),
        (f64::NEG_INFINITY, "null"),
        (1e21, "1e21"),
        (1e20, "100000000000000000000"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),
        (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        (-f64::MAX, "-1.7976931348623157e308"),
    ];
    for (v, s) in cases {
        assert_eq!(out(|w| w.f64(v)), s, "{v:?}");
    }
    assert_eq!(out(|w| w.f64(5e-324)), "5e-324");
    // Round trip through the scanner (serde_json's default float parsing is not
    // exact, so it is no oracle here).
    for v in [
        0.1,
        1.0 / 3.0,
        123456.789e-12,
        9.999999999999999e20,
        6.02214076e23,
    ] {
        let text = out(|w| w.f64(v));
        assert_eq!(crate_parse(text.as_bytes()).as_f64(), Some(v));
    }
    assert_eq!(
        out(|w| {
            w.begin_array();
            w.f64(f64::NAN);
            w.f64(1.0);
            w.end_array();
        }),
        "[null,1]"
    );
}

// RFC 4648 section 10.
const VECTORS: [(&[u8], &str); 7] = [
    (b"", ""),
    (b"f", "Zg=="),
    (b"fo", "Zm8="),
    (b"foo", "Zm9v"),
    (b"foob", "Zm9vYg=="),
    (b"fooba", "Zm9vYmE="),
    (b"foobar", "Zm9vYmFy"),
];

fn b64_split(data: &[u8], cuts: &[usize]) -> String {
    out(|w| {
        w.base64_begin();
        let mut from = 0;
        for &cut in cuts {
            w.base64_part(&data[from..cut]);
            from = cut;
        }
        w.base64_part(&data[from..]);
        w.base64_end();
    })
}

#[test]
fn base64_vectors_any_split() {
    for (data, enc) in VECTORS {
        let expected = std::format!("\"{enc}\"");
        assert_eq!(out(|w| w.base64(data)), expected);
        for i in 0..=data.len() {
            for j in i..=data.len() {
                assert_eq!(b64_split(data, &[i, j]), expected, "{data:?} at {i},{j}");
            }
        }
        // One byte at a time.
        let cuts: Vec<usize> = (0..=data.len()).collect();
        assert_eq!(b64_split(data, &cuts), expected);
    }
    // Every byte value, many groups long.
    let all: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let enc = out(|w| w.base64(&all));
    assert_eq!(decode_b64(&enc[1..enc.len() - 1]), all);
    for cut in [1, 2, 3, 95, 96, 97, 500, 999] {
        assert_eq!(b64_split(&all, &[cut]), enc);
    }
}

/// Test-only decoder.
fn decode_b64(s: &str) -> Vec<u8> {
    let val = |c: u8| BASE64.iter().position(|&x| x == c).unwrap() as u32;
    let mut outv = Vec::new();
    let bytes = s.as_bytes();
    assert_eq!(bytes.len() % 4, 0);
    for q in bytes.chunks(4) {
        let pad = q.iter().filter(|&&c| c == b'=').count();
        let mut n = 0u32;
        for &c in q {
            n = n << 6 | if c == b'=' { 0 } else { val(c) };
        }
        let group = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        outv.extend_from_slice(&group[..3 - pad]);
    }
    outv
}

#[test]
fn copy_small_and_medium_copy_every_length() {
    let from: Vec<u8> = (0..=255u8).map(|b| b.wrapping_mul(37)).collect();
    for n in 0..=from.len() {
        for copy in [copy_small, copy_medium] {
            let mut to = std::vec![0xAAu8; n];
            copy(&mut to, &from[..n]);
            assert_eq!(to, &from[..n], "length {n}");
        }
    }
    // Different lengths: nothing copied.
    for copy in [copy_small, copy_medium] {
        let mut to = [0u8; 3];
        copy(&mut to, b"ab");
        assert_eq!(to, [0; 3]);
        let mut to = [0u8; 200];
        copy(&mut to, &from[..100]);
        assert_eq!(to, [0; 200]);
    }
}

/// A short string written at once is the same text as written piece by piece,
/// at every length around the limit, with and without escapes and a comma.
#[test]
fn joined_strings_match_their_pieces() {
    let text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\"\n\u{e9}";
    for len in 0..=text.len() {
        let Some(content) = text.get(..len) else {
            continue;
        };
        for (key, verbatim) in [(false, false), (true, false), (false, true)] {
            if verbatim && needs_escape(content) {
                continue;
            }
            let write = |whole: bool| {
                let mut v: heapless::Vec<u8, 256> = heapless::Vec::new();
                let mut w = JsonWriter::new(&mut v);
                w.begin_array();
                for _ in 0..2 {
                    if whole {
                        w.put_string(content.as_bytes(), key, verbatim);
                    } else {
                        w.put_parts(content.as_bytes(), key, verbatim);
                    }
                    w.after_value();
                }
                assert!(w.is_ok());
                v
            };
            assert_eq!(write(true), write(false), "{content:?} {key:?}");
        }
    }
}

#[test]
fn sticky_errors() {
    let mut buf = [0u8; 8];
    let mut sink = SliceSink::new(&mut buf);
    let mut w = JsonWriter::new(&mut sink);
    w.begin_array();
    w.str("abc");
    assert!(w.is_ok());
    w.str("defgh"); // does not fit
    assert_eq!(w.error(), Some(SinkError::Full));
    w.u64(1);
    w.end_array();
    assert!(!w.is_ok());
    assert_eq!(w.finish(), Err(SinkError::Full));
    // Nothing after the error; what went before it stays whole (a short string
    // is one write on 64-bit targets, `,"` + content + `"` elsewhere).
    let want: &[u8] = if cfg!(emcp_fast) {
        b"[\"abc\""
    } else {
        b"[\"abc\",\""
    };
    assert_eq!(sink.written(), want);

    // Each overflow point of a small document.
    let full = out(doc);
    for cap in 0..full.len() {
        let mut buf = std::vec![0u8; cap];
        let mut sink = SliceSink::new(&mut buf);
        let mut w = JsonWriter::new(&mut sink);
        doc(&mut w);
        assert_eq!(w.finish(), Err(SinkError::Full), "cap {cap}");
        let written = sink.written();
        assert!(full.as_bytes().starts_with(written));
    }
}

fn doc(w: &mut JsonWriter<'_>) {
    w.begin_object();
    w.key("k");
    w.str("v\n");
    w.key("n");
    w.i64(-12);
    w.key("b");
    w.base64(b"abcd");
    w.key("f");
    w.f64(1.5);
    w.key("s");
    w.string_fmt(format_args!("{}", 42));
    w.end_object();
}

struct FailingIo;
impl embedded_io::ErrorType for FailingIo {
    type Error = embedded_io::ErrorKind;
}
impl embedded_io::Write for FailingIo {
    fn write(&mut self, _: &[u8]) -> Result<usize, Self::Error> {
        Err(embedded_io::ErrorKind::Other)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Accepts at most 3 bytes per call, then (optionally) nothing at all.
struct Trickle(Vec<u8>, bool);
impl embedded_io::ErrorType for Trickle {
    type Error = embedded_io::ErrorKind;
}
impl embedded_io::Write for Trickle {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        if self.1 {
            return Ok(0);
        }
        let n = buf.len().min(3);
        self.0.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[test]
fn sinks() {
    let mut v: heapless::Vec<u8, 8> = heapless::Vec::new();
    assert_eq!(v.write(b"12345"), Ok(()));
    assert_eq!(v.write(b"6789"), Err(SinkError::Full));
    assert_eq!(&v[..], b"12345");
    let view: &mut heapless::vec::VecView<u8> = &mut v;
    assert_eq!(view.write(b"678"), Ok(()));
    assert_eq!(view.write(b"9"), Err(SinkError::Full));

    let mut io = IoSink::new(Trickle(Vec::new(), false));
    let mut w = JsonWriter::new(&mut io);
    doc(&mut w);
    assert!(w.is_ok());
    assert_eq!(io.writer().0, out(doc).into_bytes());
    assert!(io.take_error().is_none());

    let mut stuck = IoSink::new(Trickle(Vec::new(), true));
    assert_eq!(stuck.write(b""), Ok(()));
    assert_eq!(stuck.write(b"x"), Err(SinkError::Io));
    assert_eq!(
        stuck.write(b""),
        Err(SinkError::Io),
        "the first error is sticky"
    );
    assert_eq!(stuck.take_error(), Some(None));
    let mut failing = IoSink::new(FailingIo);
    let mut w = JsonWriter::new(&mut failing);
    w.null();
    assert_eq!(w.finish(), Err(SinkError::Io));
    assert_eq!(
        failing.take_error(),
        Some(Some(embedded_io::ErrorKind::Other))
    );

    let mut buf = [0u8; 8];
    let mut s = SliceSink::new(&mut buf);
    assert_eq!(s.write(b"abc"), Ok(()));
    s.mark();
    assert_eq!(s.write(b"def"), Ok(()));
    assert_eq!(s.write(b"ghi"), Err(SinkError::Full));
    assert!(s.rollback());
    assert_eq!(s.written(), b"abc");
    assert_eq!(s.remaining(), 5);
    s.consume(2);
    assert_eq!(s.written(), b"c");
    s.consume(9);
    assert!(s.is_empty());

    let mut buf = [0u8; 4];
    let mut s = SliceSink::new(&mut buf);
    assert!(s.is_empty());
    assert_eq!(s.write(b"ab"), Ok(()));
    assert_eq!(s.len(), 2);
    assert_eq!(s.write(b"cde"), Err(SinkError::Full));
    assert_eq!(s.write(b"cd"), Ok(()));
    assert_eq!(s.written(), b"abcd");
    assert_eq!(s.write(b""), Ok(()));
    s.clear();
    assert!(s.is_empty());
    assert_eq!(s.written(), b"");
    let mut none = SliceSink::new(&mut []);
    assert_eq!(none.write(b""), Ok(()));
    assert_eq!(none.write(b"x"), Err(SinkError::Full));
}

/// A slice sink that keeps what it is told of ([`Sink::failed`]).
struct Watch<'b>(SliceSink<'b>, Vec<SinkError>);

impl Sink for Watch<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.write(bytes)
    }
    fn failed(&mut self, error: SinkError) {
        self.1.push(error);
    }
}

/// A sink is told of the write it refused, once: the writer writes nothing after.
#[test]
fn a_refusing_sink_is_told() {
    let mut buf = [0u8; 4];
    let mut sink = Watch(SliceSink::new(&mut buf), Vec::new());
    let mut w = JsonWriter::new(&mut sink);
    w.begin_array();
    w.u64(1);
    assert!(w.is_ok());
    w.str("too long");
    w.u64(2);
    assert_eq!(w.finish(), Err(SinkError::Full));
    assert_eq!(sink.1, [SinkError::Full]);
    // What fitted of the refused string (its pieces are written whole on 64-bit
    // targets, one by one elsewhere), and nothing after it.
    let written = sink.0.written();
    assert!(written.starts_with(b"[1"), "{written:?}");
    assert!(b"[1,\"too long\"".starts_with(written), "{written:?}");
}

/// Nesting too deep fails as a full sink would, and the sink is told (a guard
/// then takes the line back instead of leaving it cut).
#[test]
fn depth_overflow_tells_the_sink() {
    let mut buf = [0u8; 256];
    let mut sink = Watch(SliceSink::new(&mut buf), Vec::new());
    let mut w = JsonWriter::new(&mut sink);
    for _ in 0..=WRITER_MAX_DEPTH {
        w.begin_object();
        w.key("k");
    }
    w.u64(1);
    assert_eq!(w.finish(), Err(SinkError::Full));
    assert_eq!(sink.1, [SinkError::Full]);
}

#[test]
fn depth_overflow_is_an_error() {
    let mut buf = [0u8; 256];
    let mut sink = SliceSink::new(&mut buf);
    let mut w = JsonWriter::new(&mut sink);
    for _ in 0..WRITER_MAX_DEPTH {
        w.begin_array();
    }
    assert!(w.is_ok());
    for _ in 0..WRITER_MAX_DEPTH {
        w.end_array();
    }
    assert!(w.is_ok());
    for _ in 0..WRITER_MAX_DEPTH + 1 {
        w.begin_object();
    }
    assert_eq!(w.finish(), Err(SinkError::Full));
    for _ in 0..100 {
        w.end_object();
    }
    // Commas at every level up to the maximum.
    let text = out(|w| {
        for _ in 0..WRITER_MAX_DEPTH {
            w.begin_array();
            w.u64(1);
        }
        for _ in 0..WRITER_MAX_DEPTH {
            w.end_array();
        }
    });
    let expected = "[1,".repeat(WRITER_MAX_DEPTH - 1) + "[1" + &"]".repeat(WRITER_MAX_DEPTH);
    assert_eq!(text, expected);
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
}

#[test]
fn unbalanced_end_does_not_panic() {
    assert_eq!(
        out(|w| {
            w.end_object();
            w.end_array();
            w.u64(1);
            w.u64(2);
        }),
        "}]12"
    );
}

use proptest::prelude::*;

/// What core::fmt prints for a finite float under the writer's rule.
fn core_form(v: f64) -> String {
    let m = v.abs();
    if m != 0.0 && !(1e-6..1e21).contains(&m) {
        std::format!("{v:e}")
    } else {
        std::format!("{v}")
    }
}

proptest! {
    #[test]
    fn strings_round_trip(s in any::<String>()) {
        let text = str_out(&s);
        prop_assert!(!text.contains('\n'));
        prop_assert_eq!(serde_json::from_str::<String>(&text).unwrap(), s.clone());
        let v = crate_parse(text.as_bytes());
        let mut buf = std::vec![0u8; s.len()];
        prop_assert_eq!(v.as_str().unwrap().unescape_into(&mut buf).unwrap(), s.as_str());
        // Keys and fmt strings escape the same way.
        let key = out(|w| w.key(&s));
        prop_assert_eq!(&key[..key.len() - 1], text.as_str());
        prop_assert_eq!(out(|w| w.string_fmt(format_args!("{s}"))), text);
    }

    #[test]
    fn control_heavy_strings_round_trip(s in "[\u{0}-\u{20}\"\\\\a\u{7f}\u{e9}]{0,40}") {
        let text = str_out(&s);
        prop_assert!(!text.contains('\n'));
        prop_assert_eq!(serde_json::from_str::<String>(&text).unwrap(), s);
    }

    #[test]
    fn base64_any_split(
        data in proptest::collection::vec(any::<u8>(), 0..300),
        mut cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let one_shot = out(|w| w.base64(&data));
        let mut cuts: Vec<usize> = cuts.drain(..).map(|c| c.index(data.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(b64_split(&data, &cuts), one_shot.clone());
        prop_assert_eq!(decode_b64(&one_shot[1..one_shot.len() - 1]), data);
    }

    #[test]
    fn integers_match_core_fmt(v in any::<i64>(), u in any::<u64>()) {
        prop_assert_eq!(out(|w| w.i64(v)), std::format!("{v}"));
        prop_assert_eq!(out(|w| w.u64(u)), std::format!("{u}"));
    }

    #[test]
    fn decimal_floats_match_core(i in -(1i64 << 53)..(1i64 << 53), e in 0u32..9) {
        let v = i as f64 / 10f64.powi(e as i32);
        prop_assert_eq!(out(|w| w.f64(-v)), core_form(-v));
        prop_assert_eq!(out(|w| w.f64(v)), core_form(v));
    }

    #[test]
    fn small_decimals_match_core(i in -10_000_000i64..10_000_000, e in 0u32..10) {
        let v = i as f64 / 10f64.powi(e as i32);
        prop_assert_eq!(out(|w| w.f64(v)), core_form(v));
        let w = i as f64 * 1e-3 + 0.1;
        prop_assert_eq!(out(|wr| wr.f64(w)), core_form(w));
    }

    #[test]
    fn floats_round_trip(v in any::<f64>()) {
        let text = out(|w| w.f64(v));
        if v.is_finite() {
            prop_assert_eq!(text.parse::<f64>().unwrap(), v);
            prop_assert_eq!(&text, &core_form(v));
            prop_assert!(crate_parse(text.as_bytes()).kind() == super::super::scanner::Kind::Number);
        } else {
            prop_assert_eq!(text, "null");
        }
    }
}

// ---- the two forms ---------------------------------------------------------

/// The writer's fast and plain forms on the same calls: the same bytes.
mod forms_agree {
    use super::super::{fast, plain};
    use super::*;

    /// Strings of every kind the forms tell apart: empty, at and around the
    /// lengths where the fast form changes its copy (3, 4, 8, 16, 32), with a byte
    /// to escape at the start, middle or end, non-ASCII text.
    fn fixtures() -> Vec<Vec<u8>> {
        let mut all: Vec<Vec<u8>> = Vec::new();
        for len in 0..=40usize {
            let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            all.push(base.clone());
            for at in [0, len / 2, len.saturating_sub(1)] {
                for b in [b'"', b'\\', b'\n', 0x01, 0x1f, 0x7f] {
                    if at < len {
                        let mut s = base.clone();
                        s[at] = b;
                        all.push(s);
                    }
                }
            }
        }
        all.push("h\u{e9}llo w\u{f6}rld \u{1f600}".as_bytes().to_vec());
        all.push(
            "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}"
                .as_bytes()
                .to_vec(),
        );
        all
    }

    /// What each form writes for `s` as a value, a key, a verbatim value (when
    /// nothing needs escaping), and a raw value, first in its array or object and
    /// after another member.
    fn written(s: &[u8], fast_form: bool) -> String {
        let put_string = |w: &mut JsonWriter<'_>, key, verbatim| match fast_form {
            true => fast::put_string(w, s, key, verbatim),
            false => plain::put_string(w, s, key, verbatim),
        };
        let key = |w: &mut JsonWriter<'_>| match fast_form {
            true => fast::key(w, s),
            false => plain::key(w, s),
        };
        let value_comma = |w: &mut JsonWriter<'_>| match fast_form {
            true => fast::value_comma(w),
            false => plain::value_comma(w),
        };
        let verbatim = !needs_escape(core::str::from_utf8(s).unwrap());
        out(|w| {
            w.begin_array();
            for _ in 0..2 {
                put_string(w, false, false);
                w.after_value();
                if verbatim {
                    put_string(w, false, true);
                    w.after_value();
                }
            }
            w.begin_object();
            for _ in 0..2 {
                key(w);
                w.comma = false;
                w.null();
                put_string(w, true, false);
                w.comma = false;
                w.u64(1);
            }
            w.end_object();
            for _ in 0..2 {
                value_comma(w);
                w.put(b"7");
                w.after_value();
            }
            w.end_array();
        })
    }

    #[test]
    fn strings_on_fixtures() {
        for s in fixtures() {
            assert_eq!(written(&s, true), written(&s, false), "{s:?}");
        }
    }

    /// A key the crate spells as a literal: `,"key":` whole, or the name alone.
    #[test]
    fn literal_keys() {
        let both = |fast_form: bool| {
            out(|w| {
                w.begin_object();
                for _ in 0..2 {
                    match fast_form {
                        true => fast::key_raw(w, fast::member_key!("inputSchema")),
                        false => plain::key_raw(w, plain::member_key!("inputSchema")),
                    }
                    w.u64(1);
                }
                w.end_object();
            })
        };
        assert_eq!(both(true), both(false));
        assert_eq!(both(true), r#"{"inputSchema":1,"inputSchema":1}"#);
    }

    proptest! {
        #[test]
        fn strings_agree(s in "\\PC{0,48}|[a-z\"\\\\\n\u{1}\u{e9}]{0,40}") {
            prop_assert_eq!(written(s.as_bytes(), true), written(s.as_bytes(), false));
        }
    }
}
