//! Numbers and literals: integers with hand-written digits (no `core::fmt`, no 64-bit
//! division), floats in shortest round-trip form, `true`, `false` and `null`.

use super::super::number::{format_f64, F64_MAX_LEN};
use super::JsonWriter;

/// Write the digits of `v` into `buf` ending just before `end` (room for 20 digits
/// needed); returns the index of the first digit.
fn format_u64(buf: &mut [u8], end: usize, mut v: u64) -> usize {
    let mut pos = end;
    loop {
        let (q, digit) = div_rem_10(v);
        prepend(buf, &mut pos, b'0' + digit);
        v = q;
        if v == 0 {
            return pos;
        }
    }
}

/// `v` in decimal, in `buf` (the writer's own digit loop, for other layers that need
/// a number inside a string or a header).
pub(crate) fn decimal(v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let start = format_u64(buf, 20, v);
    buf.get(start..).unwrap_or_default()
}

/// `v / 10` and `v % 10` by long division in 16-bit steps: only 32-bit divisions,
/// where a 64-bit division would be a library routine linked in on a 32-bit target.
pub(super) fn div_rem_10(v: u64) -> (u64, u8) {
    let mut q = 0u64;
    let mut r = 0u32;
    let mut rest = v;
    for _ in 0..4 {
        // The next 16 bits from the top; r < 10, so this fits 32 bits.
        let part = r << 16 | (rest >> 48) as u32;
        rest <<= 16;
        q = q << 16 | u64::from(part / 10);
        r = part % 10;
    }
    (q, r as u8)
}

/// `v` as an integer when it is one below 2^53 in magnitude (where every integer is a
/// double, and core prints its digits); `None` for `-0`. Read from the bits, without
/// float conversions.
fn small_integer(v: f64) -> Option<i64> {
    let bits = v.to_bits();
    let negative = bits >> 63 != 0;
    let field = (bits >> 52 & 0x7FF) as u32;
    let fraction = bits & ((1 << 52) - 1);
    if field == 0 {
        // Zero (subnormals are not integers).
        return (fraction == 0 && !negative).then_some(0);
    }
    // |v| = (2^52 + fraction) · 2^(field - 1075): an integer below 2^53 when the
    // shift is 0..=52 and drops no one bits.
    let shift = 1075u32.checked_sub(field).filter(|&s| s <= 52)?;
    let m = fraction | 1 << 52;
    if m & ((1 << shift) - 1) != 0 {
        return None;
    }
    let magnitude = (m >> shift) as i64;
    Some(if negative { -magnitude } else { magnitude })
}

/// Put `b` just before `buf[*pos]` (nothing if there is no room). Forced inline on
/// hosts only: on small targets the compiler's choice is smaller.
#[cfg_attr(emcp_fast, inline(always))]
fn prepend(buf: &mut [u8], pos: &mut usize, b: u8) {
    if let Some(p) = pos.checked_sub(1) {
        if let Some(d) = buf.get_mut(p) {
            *d = b;
            *pos = p;
        }
    }
}

impl JsonWriter<'_> {
    /// An unsigned integer, exact (hand-written digits, no `core::fmt`).
    pub fn u64(&mut self, v: u64) {
        self.number(v, false, false);
    }

    /// A signed integer, exact (hand-written digits, no `core::fmt`).
    pub fn i64(&mut self, v: i64) {
        self.number(v.unsigned_abs(), v < 0, false);
    }

    /// An unsigned integer as a string value (`"42"`, e.g. a pagination cursor),
    /// without `core::fmt`.
    pub(crate) fn u64_str(&mut self, v: u64) {
        self.number(v, false, true);
    }

    /// `magnitude` with its sign, in quotes when `quoted`.
    fn number(&mut self, magnitude: u64, negative: bool, quoted: bool) {
        self.put_lead(if quoted { b",\"" } else { b"," });
        // Room for `-` and the 20 digits of u64::MAX (i64::MIN has 19).
        let mut buf = [0u8; 21];
        let mut start = format_u64(&mut buf, 21, magnitude);
        if negative {
            prepend(&mut buf, &mut start, b'-');
        }
        self.put(buf.get(start..).unwrap_or_default());
        if quoted {
            self.put(b"\"");
        }
        self.after_value();
    }

    /// A float in shortest round-trip form, the text core's `Display` prints for an
    /// `f64`; NaN and ±inf become `null`. Magnitudes from 1e21 up and below 1e-6 use
    /// exponent form (core's `LowerExp`, also shortest round-trip), as JavaScript
    /// does, so the output stays short (`1e300`, not 301 digits). No `core::fmt` and
    /// no float arithmetic: integers below 2^53 are written as integers, everything
    /// else with exact big-integer arithmetic (Steele & White's free-format digits,
    /// about 650 bytes of stack; small numbers for `21.5`, more work for extreme
    /// exponents).
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 64];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.begin_array();
    /// for v in [21.5, 40.0, 0.1, 1e300, f64::NAN] {
    ///     w.f64(v);
    /// }
    /// w.end_array();
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), b"[21.5,40,0.1,1e300,null]");
    /// ```
    pub fn f64(&mut self, v: f64) {
        if !v.is_finite() {
            self.null();
            return;
        }
        // Integral values (`40.0`, progress counts): the integer digits, which are
        // the shortest form below 2^53.
        if let Some(i) = small_integer(v) {
            self.i64(i);
            return;
        }
        let mut buf = [0u8; 1 + F64_MAX_LEN];
        let start = if self.comma { 0 } else { 1 };
        if let Some((comma, text)) = buf.split_first_mut() {
            *comma = b',';
            let len = format_f64(v, text);
            self.put(buf.get(start..=len).unwrap_or_default());
        }
        self.after_value();
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) {
        self.put_lead(if v { b",true" } else { b",false" });
        self.after_value();
    }

    /// `null`.
    pub fn null(&mut self) {
        self.put_lead(b",null");
        self.after_value();
    }
}
