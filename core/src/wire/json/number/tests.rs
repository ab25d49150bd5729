extern crate std;

use super::*;
use proptest::prelude::*;
use std::format;
use std::string::{String, ToString};

fn ours(s: &str) -> f64 {
    to_f64(s.as_bytes()).unwrap_or_else(|| panic!("{s:?} not a number"))
}

fn core_parse(s: &str) -> f64 {
    s.parse().unwrap()
}

/// Same value and sign (`-0` is not `0`; NaN never occurs).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

#[track_caller]
fn exact(s: &str) {
    let (a, b) = (ours(s), core_parse(s));
    assert!(same(a, b), "{s}: ours {a:e}, core {b:e}");
}

#[test]
fn device_values_and_edges() {
    for s in [
        "0",
        "-0",
        "0.0",
        "-0.000e-7",
        "0e999999999999999999999999",
        "21.5",
        "-12.5",
        "1e2",
        "1E+2",
        "1013.2",
        "0.1",
        "0.3",
        "100",
        "-90",
        "1e23",
        "9007199254740993",
        "9007199254740995",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1e308",
        "1e309",
        "-1e400",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "2.2250738585072014e-308",
        "4.9406564584124654e-324",
        "5e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "7.4109846876186981e-324",
        "1e-400",
        "-1e-400",
        "8.98846567431158e307",
        "123456789012345678",
        "1234567890123456789",
        "9999999999999999999",
        "0.0000000000000000000000000000001",
        "1e-342",
        "9999999999999999999e-343",
        "1e-324",
        "3e-324",
        "9999999999999999999e289",
        "1797693134862315708145274237317043567981e269",
    ] {
        exact(s);
    }
    assert_eq!(ours("1e400"), f64::INFINITY);
    assert_eq!(ours("2.5e-1"), 0.25);
    assert!(same(ours("-1e-400"), -0.0));
    for bad in [
        "", "-", "1.", ".5", "1e", "1e+", "01x", "1.5.2", "+1", "1e5x", "a",
    ] {
        assert_eq!(to_f64(bad.as_bytes()), None, "{bad:?}");
    }
}

#[test]
fn long_literals() {
    // More than 19 significant digits: exact here, as these are far from halfway.
    for s in [
        "3.14159265358979323846264338327950288",
        "123456789012345678901234567890",
        "0.1000000000000000000000000000001",
        "2.22507385850720113605740979670913197593481954635164564e-308",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
    ] {
        exact(s);
    }
    // 2^53 + 1 (halfway between two doubles) with a tail: the tail decides, and
    // is seen as "something more" from the 20th digit on.
    exact("9007199254740993.0000000000000000001");
    exact("9007199254740993.0000000000000000000");
    // The documented exception: 2^66 + 2^13 = 73786976294838214656 is halfway
    // between 2^66 and 2^66 + 2^14. One above it is read as
    // 7378697629483821465 · 10 plus "a little more", below halfway: 2^66, where
    // core gives the next double up.
    let above_halfway = "73786976294838214657";
    assert_eq!(ours(above_halfway), 2f64.powi(66));
    assert_eq!(core_parse(above_halfway), 2f64.powi(66) + 16384.0);
}

#[test]
fn scaled_integers() {
    let cases: [(&str, u32, Option<i64>); 20] = [
        ("45", 1, Some(450)),
        ("-12.5", 1, Some(-125)),
        ("12.56", 1, Some(125)),
        ("-12.56", 1, Some(-125)),
        ("-0.05", 1, Some(0)),
        ("0.000", 3, Some(0)),
        ("-0", 0, Some(0)),
        ("1e2", 0, Some(100)),
        ("2.50e1", 0, Some(25)),
        ("1e-400", 1, Some(0)),
        ("1e400", 0, None),
        ("0e999999", 0, Some(0)),
        ("9223372036854775807", 0, Some(i64::MAX)),
        ("9223372036854775808", 0, None),
        ("-9223372036854775808.9", 0, Some(i64::MIN)),
        ("-9223372036854775809", 0, None),
        ("9.2233720368547758079e18", 0, Some(i64::MAX)),
        ("1e-999990", 1_000_000, Some(10_000_000_000)),
        ("1e-999999990", 1_000_000_000, None), // beyond MAX_SCALE
        ("1.5x", 0, None),
    ];
    for (raw, scale, want) in cases {
        assert_eq!(
            to_i64_scaled(raw.as_bytes(), scale),
            want,
            "{raw} at {scale}"
        );
    }
}

#[test]
fn scanner_literals() {
    for (s, want) in [
        ("0", Some(1)),
        ("-0.5e+3,", Some(7)),
        ("10]", Some(2)),
        ("01", None),
        ("-01", None),
        ("00.5", None),
        ("0x", Some(1)),
        ("1.", None),
        ("-", None),
    ] {
        assert_eq!(literal_len(s.as_bytes()), want, "{s}");
    }
}

#[test]
fn comparison() {
    use Ordering::*;
    let cases: &[(&str, &str, Ordering)] = &[
        ("1", "1.0", Equal),
        ("1", "1e0", Equal),
        ("100", "1e2", Equal),
        ("0.5", "5e-1", Equal),
        ("-0", "0", Equal),
        ("0.000", "-0e9", Equal),
        ("100.00000000000000001", "100", Greater),
        ("99.999999999999999999", "100", Less),
        ("-100.00000000000000001", "-100", Less),
        ("1.25", "1.2500000", Equal),
        ("12.5", "1.25e1", Equal),
        ("-1", "0", Less),
        ("0", "-1e-300", Greater),
        ("1e-300", "0", Greater),
        ("2", "10", Less),
        ("0.09", "0.1", Less),
        ("001", "1", Equal),
        ("1e9223372036854775807", "1e100", Greater),
        ("1e-99999999999999999999999", "0", Greater),
        // Exact up to exponents of 999999999; saturated beyond.
        ("1e999999999", "1e999999998", Greater),
        ("1e-999999999", "1e-999999998", Less),
        ("10e999999999", "1e1000000000", Equal),
        ("1e1000000000", "1e99999999999", Equal),
        ("-5", "-40", Greater),
    ];
    for &(a, b, want) in cases {
        assert_eq!(
            compare(a.as_bytes(), b.as_bytes()),
            Some(want),
            "{a} vs {b}"
        );
        assert_eq!(
            compare(b.as_bytes(), a.as_bytes()),
            Some(want.reverse()),
            "{b} vs {a}"
        );
    }
    assert_eq!(compare(b"1", b"x"), None);
    assert_eq!(compare(b"\"1\"", b"1"), None);
}

fn formatted(v: f64) -> String {
    let mut buf = [0u8; F64_MAX_LEN];
    let len = format_f64(v, &mut buf);
    String::from_utf8(buf[..len].to_vec()).unwrap()
}

/// What core prints: `Display` in [1e-6, 1e21) and for zero, `LowerExp` outside.
fn core_form(v: f64) -> String {
    let m = v.abs();
    if m != 0.0 && !(1e-6..1e21).contains(&m) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

#[test]
fn format_layout() {
    for (v, s) in [
        (21.5, "21.5"),
        (40.0, "40"),
        (1013.2, "1013.2"),
        (0.1, "0.1"),
        (1e300, "1e300"),
        (-0.0, "-0"),
        (0.0, "0"),
        (1e21, "1e21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (1e-6, "0.000001"),
        (-1.2345e-6, "-0.0000012345"),
        (1.5e-7, "1.5e-7"),
        (1e-7, "1e-7"),
        (5e-324, "5e-324"),
        (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        (-f64::MAX, "-1.7976931348623157e308"),
        (9.999999999999999e20, "999999999999999900000"),
        (0.3, "0.3"),
        (1.0 / 3.0, "0.3333333333333333"),
        (123.456, "123.456"),
        (1e15, "1000000000000000"),
        (1e16, "10000000000000000"),
        (12345678.9e-20, "1.23456789e-13"),
        // Exactly halfway between two shortest forms: the one further from zero.
        (641923986122272.0 + 0.25, "641923986122272.3"),
        (-83541688089698.0 - 0.125, "-83541688089698.13"),
        (76659450195769.0 + 0.625, "76659450195769.63"),
    ] {
        assert_eq!(formatted(v), s, "{v:e}");
        assert_eq!(formatted(v), core_form(v), "{v:e}");
    }
    // Cut off, not overrun, in a short buffer.
    let mut small = [0u8; 4];
    assert_eq!(format_f64(-f64::MAX, &mut small), 4);
    assert_eq!(&small, b"-1.7");
}

/// A literal for `±m · 10^e` in one of several spellings.
fn spell(negative: bool, m: u64, e: i32, style: u8) -> String {
    let digits = m.to_string();
    let sign = if negative { "-" } else { "" };
    match style % 4 {
        0 => format!("{sign}{digits}e{e}"),
        1 => format!("{sign}{digits}E+{e}").replace("+-", "-"),
        2 => {
            // Point after the first digit, exponent adjusted.
            let (first, rest) = digits.split_at(1);
            let e = e + rest.len() as i32;
            if rest.is_empty() {
                format!("{sign}{first}e{e}")
            } else {
                format!("{sign}{first}.{rest}e{e}")
            }
        }
        _ => format!("{sign}{digits}.000e{e}"),
    }
}

fn spell_i64(m: i64, e: i32, style: u8) -> String {
    spell(m < 0, m.unsigned_abs(), e, style)
}

/// The two forms of `literal_len` (fast: a walk over the grammar; plain: `Parts::new`)
/// on the same inputs.
#[test]
fn literal_len_forms_agree() {
    for s in [
        "0",
        "-0",
        "1",
        "-",
        "",
        "01",
        "-01",
        "0.5",
        "0.",
        "1e",
        "1e+",
        "1e-5",
        "1E+05",
        "12.34e-5x",
        "1.e5",
        ".5",
        "-.5",
        "00",
        "9,",
        "1]",
        "1.5.5",
        "1e5e5",
        "-a",
        "0x1",
        "123456789012345678901234567890",
    ] {
        let b = s.as_bytes();
        assert_eq!(fast::literal_len(b), plain::literal_len(b), "{s:?}");
    }
}

proptest! {
    #[test]
    fn literal_len_forms_agree_everywhere(
        s in proptest::collection::vec(
            proptest::sample::select(b"0123456789-+.eEx ,]".to_vec()),
            0..12,
        )
    ) {
        prop_assert_eq!(fast::literal_len(&s), plain::literal_len(&s));
    }

    #[test]
    fn clinger_fast_path_is_exact(m in 0u64..=(1 << 53), e in -22i32..=22, neg: bool) {
        let s = spell(neg, m, e, 0);
        let (a, b) = (ours(&s), core_parse(&s));
        prop_assert!(same(a, b), "{}: {:e} vs {:e}", s, a, b);
    }

    #[test]
    fn up_to_19_digits_is_exact(
        m in 1u64..10_000_000_000_000_000_000,
        e in -370i32..330,
        neg: bool,
        style in 0u8..4,
    ) {
        let s = spell(neg, m, e, style);
        let (a, b) = (ours(&s), core_parse(&s));
        prop_assert!(same(a, b), "{}: {:e} vs {:e}", s, a, b);
    }

    #[test]
    fn short_decimals_are_exact(m in -100_000_000i64..100_000_000, e in -12i32..4) {
        let s = spell_i64(m, e, 2);
        prop_assert!(same(ours(&s), core_parse(&s)), "{}", s);
        // And in plain positional form, as a device would send them.
        let p = format!("{}", core_parse(&s));
        prop_assert!(same(ours(&p), core_parse(&p)), "{}", p);
    }

    #[test]
    fn every_f64_round_trips(bits: u64) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        for s in [format!("{v:e}"), format!("{v:?}"), format!("{v}")] {
            prop_assert!(same(ours(&s), v), "{}", s);
        }
    }

    #[test]
    fn extreme_exponents_round_trip(
        mantissa in 0u64..1 << 52,
        field in proptest::sample::select(std::vec![0u64, 1, 2, 3, 2044, 2045, 2046]),
    ) {
        let v = f64::from_bits(field << 52 | mantissa);
        for s in [format!("{v:e}"), format!("{v:?}")] {
            prop_assert!(same(ours(&s), v), "{}", s);
        }
        // Halfway to the next double up, in 17 significant digits: not exact in
        // decimal, so nearest is either neighbour and must agree with core.
        let next = f64::from_bits(v.to_bits() + 1);
        if next.is_finite() {
            let mid = format!("{:.16e}", v / 2.0 + next / 2.0);
            prop_assert!(same(ours(&mid), core_parse(&mid)), "{}", mid);
        }
    }

    #[test]
    fn integer_halfway_points_tie_to_even(v in (1u64 << 53)..(1 << 63)) {
        // Above 2^53 the doubles are spaced 2^k apart; halfway points are integers.
        let ulp = 1u64 << (64 - v.leading_zeros() - 53);
        let below = v & !(ulp - 1);
        for s in [below + ulp / 2, below + ulp / 2 - 1, below + ulp / 2 + 1] {
            let text = s.to_string();
            prop_assert!(same(ours(&text), core_parse(&text)), "{}", text);
        }
    }

    #[test]
    fn long_literals_within_one_ulp(
        head in 1_000_000_000_000_000_000u64..10_000_000_000_000_000_000,
        tail in "[0-9]{1,30}",
        e in -370i32..320,
    ) {
        let s = format!("{head}{tail}e{e}");
        let (a, b) = (ours(&s), core_parse(&s));
        // At most one unit in the last place apart.
        let ulps = (a.to_bits() as i64 - b.to_bits() as i64).abs();
        prop_assert!(ulps <= 1, "{}: {:e} vs {:e}", s, a, b);
        // And exactly the documented rule: the first 19 digits, plus "a little
        // more" (here 10^-40 of the last kept digit) when the rest is not all zeros.
        let r = tail.len() as i32;
        let model = if tail.bytes().all(|b| b == b'0') {
            format!("{head}e{}", e + r)
        } else {
            format!("{head}{}1e{}", "0".repeat(40), e + r - 41)
        };
        prop_assert!(same(a, core_parse(&model)), "{} vs model {}", s, model);
    }

    #[test]
    fn scaled_is_exact(
        m in -1_000_000_000_000_000i64..1_000_000_000_000_000, e in -25i32..5,
        scale in 0u32..6, style in 0u8..4,
    ) {
        // Oracle: m · 10^(e + scale) in i128, truncated toward zero.
        let k = e + scale as i32;
        let exact = if k >= 0 {
            m as i128 * 10i128.pow(k as u32)
        } else if k > -38 {
            m as i128 / 10i128.pow((-k) as u32)
        } else {
            0
        };
        let want = i64::try_from(exact).ok();
        prop_assert_eq!(to_i64_scaled(spell_i64(m, e, style).as_bytes(), scale), want);
    }

    #[test]
    fn compare_is_exact(
        a in -1_000_000_000_000_000i64..1_000_000_000_000_000, ea in -18i32..18,
        b in -1_000_000_000_000_000i64..1_000_000_000_000_000, shift in -19i32..=19,
        sa in 0u8..4, sb in 0u8..4,
    ) {
        // Oracle: both scaled to the smaller exponent, in i128 (|m| < 10^18, and
        // a shift of at most 19 digits keeps it below 10^37).
        let eb = ea + shift;
        let low = ea.min(eb);
        let x = a as i128 * 10i128.pow((ea - low) as u32);
        let y = b as i128 * 10i128.pow((eb - low) as u32);
        let got = compare(spell_i64(a, ea, sa).as_bytes(), spell_i64(b, eb, sb).as_bytes());
        prop_assert_eq!(got, Some(x.cmp(&y)));
        // Equal values spelled differently.
        let same_value = compare(spell_i64(a, ea, sa).as_bytes(), spell_i64(a, ea, sb).as_bytes());
        prop_assert_eq!(same_value, Some(Ordering::Equal));
    }

    #[test]
    fn format_matches_core(bits: u64) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        prop_assert_eq!(formatted(v), core_form(v));
    }

    #[test]
    fn format_matches_core_at_extremes(
        mantissa in 0u64..1 << 52,
        field in proptest::sample::select(std::vec![0u64, 1, 2, 1000, 1023, 1089, 1090, 2045, 2046]),
        neg: bool,
    ) {
        let v = f64::from_bits(u64::from(neg) << 63 | field << 52 | mantissa);
        prop_assert_eq!(formatted(v), core_form(v));
    }

    #[test]
    fn format_matches_core_for_decimals(m in -10_000_000_000i64..10_000_000_000, e in -30i32..30) {
        let v: f64 = spell_i64(m, e, 0).parse().unwrap();
        prop_assert_eq!(formatted(v), core_form(v));
    }

    #[test]
    fn format_matches_core_on_ties(x in 1_000_000_000_000u64..10_000_000_000_000_000, eighths in 0u64..8) {
        // Binary fractions of large numbers: often exactly halfway between two
        // shortest decimal forms.
        let v = x as f64 + eighths as f64 / 8.0;
        prop_assert_eq!(formatted(v), core_form(v));
        prop_assert_eq!(formatted(-v), core_form(-v));
    }

    #[test]
    fn never_panics(bytes in proptest::collection::vec(proptest::sample::select(b"0123456789-+.eE".to_vec()), 0..40)) {
        let _ = to_f64(&bytes);
        let _ = compare(&bytes, b"1");
    }
}
