//! Number literals: exact comparison, and `f64` conversions both ways, without
//! `core`'s float parsing and formatting.
//!
//! `core`'s `f64::from_str` and `Display` are exact, but on a Cortex-M they bring
//! tables of powers of five and ten and Grisu with a Dragon fallback: several times
//! this module's flash, and kilobytes of stack. Devices read and write a handful of
//! short decimals (`21.5`, `-12.5`, `1e2`), so this module does both with integer
//! arithmetic on one small big-integer type ([`Big`], [`LIMBS`] 32-bit limbs on the
//! stack), no float operations.
//!
//! Reading ([`to_f64`]):
//!
//! - A literal with at most 19 significant digits (every `f64` printed in shortest
//!   form has at most 17) converts **exactly**: to the nearest `f64`, ties to even,
//!   `±inf` beyond `f64::MAX`, `±0` or a subnormal below `f64::MIN_POSITIVE` — the same
//!   result as `core`'s parser. An integer below 2^64 (`45`, `1e2`) is rounded straight
//!   from its bits. Otherwise the digits `w` and the exponent `q` (value `w · 10^q`)
//!   become the ratio `w · 5^q / 1` or `w / 5^-q` of two big integers (at most 800
//!   bits), whose quotient is taken to 64 bits by long division and rounded once
//!   (about 300 bytes of stack).
//! - A longer literal keeps its first 19 significant digits; the digits after them
//!   only count as "something more" (a sticky bit for the rounding). The result is the
//!   exactly rounded value of a number within a relative `10^-18` of the literal: at
//!   most one unit in the last place from `core`'s result, and equal to it unless the
//!   literal lies within that distance of a point halfway between two `f64`s.
//!
//! Writing ([`format_f64`]): the shortest digits that read back as the value, the
//! closest among those (a tie goes away from zero, as in `core`), by Steele & White's
//! free-format algorithm on exact big integers, laid out as `core` prints an `f64`.
//! The same text as `core` for every finite `f64` (checked against it on random and
//! extreme values); about 650 bytes of stack. The work grows with the digits and the
//! exponent: `21.5` takes two-limb numbers, `5e-324` 34-limb ones.
//!
//! [`compare`] orders two literals by their exact decimal values, digit by digit (no
//! conversion, no rounding): `1 == 1.0 == 1e0`, and `100.00000000000000001 > 100`
//! although both are the same `f64`. [`is_integral`] reads integrality the same way.
//! Exponents are read saturating at `±10^9`, in 32-bit arithmetic (small code on a
//! 32-bit microcontroller): every reading is exact for literals whose exponent is
//! below `10^9` in magnitude (and that are under a gigabyte long). Beyond, only two
//! case can differ from the exact value: [`compare`] of two literals both beyond
//! (`2e1000000000` and `1e1000000001` compare as their first digits do).
//! [`to_i64_scaled`] refuses scales above [`MAX_SCALE`], so its answers are exact.
//!
//! The readers take the bytes of a literal that follows the JSON number grammar (as
//! every [`Value`](super::Value) of kind number does) and return `None` (or `false`)
//! for anything else. Nothing here panics: digits are read through iterators, limbs
//! through checked accesses, and the big integers are sized for the largest operands
//! (see [`LIMBS`]).

use core::cmp::Ordering;

mod fast;
mod plain;

/// A literal taken apart: `-`? `int` (`.` `frac`)? (`e` `exp`)?, read as
/// `±0.d₁d₂… · 10^scale` with `d₁` its first significant (non-zero) digit.
#[derive(Clone, Copy)]
struct Parts<'a> {
    negative: bool,
    /// The digits from the first significant one to the last digit of `int` or `frac`
    /// (trailing zeros included), with the point when it lies among them; empty for
    /// zero. [`Parts::digits`] reads them.
    significant: &'a [u8],
    /// `k` such that the value is `0.d₁d₂… · 10^k` (so `10^(k-1) <= |value| < 10^k`),
    /// the exponent read saturating at `±`[`EXP_LIMIT`] and the sum saturating at the
    /// `i32` range. Meaningless for zero.
    scale: i32,
    /// Length of the literal in bytes (read by `plain::literal_len`).
    end: usize,
}

/// Where exponents saturate: `e1000000000` and anything larger read as
/// `e1000000000`. Below it they are exact, and adding a slice length (below `2^31` on
/// a 32-bit target) cannot leave the `i32` range, so for such literals
/// [`Parts::scale`] is exact.
const EXP_LIMIT: i32 = 1_000_000_000;

/// Largest scale [`to_i64_scaled`] takes (`10^MAX_SCALE` is far beyond any `i64`
/// reading of a literal under [`EXP_LIMIT`]'s reach).
pub(crate) const MAX_SCALE: u32 = 1_000_000;

/// `a - b` for two slice lengths, saturating at the `i32` range (reached only on a
/// 64-bit target, by a literal over 2 GB long).
fn difference(a: usize, b: usize) -> i32 {
    // Slice lengths are at most `isize::MAX`: the casts are exact and the difference
    // fits an `isize`, which on a 32-bit target is an `i32` already.
    let d = a as isize - b as isize;
    i32::try_from(d).unwrap_or(if d < 0 { i32::MIN } else { i32::MAX })
}

/// Split `s` after its leading ASCII digits; `None` when there are none.
fn split_digits(s: &[u8]) -> Option<(&[u8], &[u8])> {
    match s.iter().take_while(|b| b.is_ascii_digit()).count() {
        0 => None,
        n => s.split_at_checked(n),
    }
}

impl<'a> Parts<'a> {
    /// Take apart the number literal at the start of `s` (the JSON grammar). With
    /// `whole` it must be all of `s`, and leading zeros are tolerated; without, it is
    /// read as the scanner reads it, by the strict grammar (no leading zeros) and with
    /// anything after it. `None` if there is no such literal.
    fn new(s: &'a [u8], whole: bool) -> Option<Self> {
        let negative = s.first() == Some(&b'-');
        let digits = s.get(usize::from(negative)..)?;
        let (int, mut rest) = split_digits(digits)?;
        if !whole && int.len() > 1 && int.first() == Some(&b'0') {
            return None;
        }
        if let [b'.', after @ ..] = rest {
            rest = split_digits(after)?.1;
        }
        // `int`, the point and `frac` as one string.
        let mantissa = digits.get(..digits.len() - rest.len())?;
        let mut exp: i32 = 0;
        if let Some((b'e' | b'E', after)) = rest.split_first() {
            let (negative, after) = match after.split_first() {
                Some((b'-', a)) => (true, a),
                Some((b'+', a)) => (false, a),
                _ => (false, after),
            };
            let exp_digits;
            (exp_digits, rest) = split_digits(after)?;
            // The digits only raise it: once at the limit, it stays there.
            for &b in exp_digits {
                exp = if exp < EXP_LIMIT / 10 {
                    exp * 10 + i32::from(b.wrapping_sub(b'0'))
                } else {
                    EXP_LIMIT
                };
            }
            if negative {
                exp = -exp;
            }
        }
        if whole && !rest.is_empty() {
            return None;
        }
        // Zeros before the first significant digit, and the point if it is among them.
        let lead = mantissa
            .iter()
            .take_while(|&&b| b == b'0' || b == b'.')
            .count();
        let lead_zeros = if lead > int.len() { lead - 1 } else { lead };
        Some(Parts {
            negative,
            significant: mantissa.get(lead..)?,
            scale: difference(int.len(), lead_zeros).saturating_add(exp),
            end: s.len() - rest.len(),
        })
    }

    /// The significant digits `d₁d₂…` as 0..=9.
    fn digits(&self) -> impl Iterator<Item = u8> + 'a {
        self.significant
            .iter()
            .filter(|b| b.is_ascii_digit())
            .map(|&b| b.wrapping_sub(b'0'))
    }

    /// Whether the literal's value is zero (`0`, `-0.000e7`).
    fn is_zero(&self) -> bool {
        self.significant.is_empty()
    }

    /// The integer part of `|value| · 10^shift` (`d₁…d_k` for `k = scale + shift`),
    /// `None` beyond `u64`.
    fn truncated(&self, shift: u32) -> Option<u64> {
        if self.is_zero() {
            return Some(0);
        }
        let k = i64::from(self.scale) + i64::from(shift);
        if k > 20 {
            return None; // at least 10^20 > u64::MAX
        }
        let mut digits = self.digits();
        let mut m: u64 = 0;
        for _ in 0..usize::try_from(k).unwrap_or(0) {
            let d = digits.next().unwrap_or(0);
            m = m.checked_mul(10)?.checked_add(u64::from(d))?;
        }
        Some(m)
    }
}

/// Length of the JSON number literal at the start of `s` (RFC 8259 grammar: no leading
/// zeros), for the scanner; `None` if `s` does not start with one. On hosts a walk
/// over the grammar that keeps nothing (every message has its id); on small targets
/// [`Parts::new`]'s (one copy in flash). Both forms are tested against each other.
#[cfg(emcp_fast)]
pub(crate) use fast::literal_len;
#[cfg(not(emcp_fast))]
pub(crate) use plain::literal_len;

/// `magnitude` with the sign, `None` outside `i64`. Out of line on small targets
/// (smaller there).
#[cfg_attr(not(emcp_fast), inline(never))]
fn signed(negative: bool, magnitude: u64) -> Option<i64> {
    if negative {
        // -2^63 is the one magnitude beyond i64::MAX that still fits.
        (magnitude <= 1 << 63).then_some((magnitude as i64).wrapping_neg())
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// The exact order of two number literals; `None` if either is not a JSON number.
///
/// Zero is zero whatever its sign (`-0 == 0`), as JSON Schema compares numbers.
pub(crate) fn compare(a: &[u8], b: &[u8]) -> Option<Ordering> {
    let (a, b) = (Parts::new(a, true)?, Parts::new(b, true)?);
    let sign = |p: &Parts<'_>| match (p.is_zero(), p.negative) {
        (true, _) => 0i8,
        (false, true) => -1,
        (false, false) => 1,
    };
    let (sa, sb) = (sign(&a), sign(&b));
    if sa != sb || sa == 0 {
        return Some(sa.cmp(&sb));
    }
    let mut magnitude = a.scale.cmp(&b.scale);
    // Same scale: the digit strings decide, the shorter one padded with zeros.
    let (mut da, mut db) = (a.digits(), b.digits());
    while magnitude == Ordering::Equal {
        match (da.next(), db.next()) {
            (None, None) => break,
            (x, y) => magnitude = x.unwrap_or(0).cmp(&y.unwrap_or(0)),
        }
    }
    Some(if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    })
}

/// A number literal's value times `10^scale`, truncated toward zero (`12.56` at scale
/// 1 is 125, `-0.05` at scale 1 is 0), from its digits; `None` if `raw` is not a JSON
/// number or the result is outside `i64`.
pub(crate) fn to_i64_scaled(raw: &[u8], scale: u32) -> Option<i64> {
    // Past `MAX_SCALE` a saturated exponent could meet the scale: refused, so that
    // every answer given is exact.
    if scale > MAX_SCALE {
        return None;
    }
    let parts = Parts::new(raw, true)?;
    signed(parts.negative, parts.truncated(scale)?)
}

/// An integer literal (no fraction, no exponent) as its sign and magnitude; `None`
/// if `raw` is not one or the magnitude is beyond `u64`.
pub(crate) fn to_integer(raw: &[u8]) -> Option<(bool, u64)> {
    let parts = Parts::new(raw, true)?;
    // A sign and digits, nothing else.
    if raw.iter().any(|&b| matches!(b, b'.' | b'e' | b'E')) {
        return None;
    }
    Some((parts.negative, parts.truncated(0)?))
}

/// An integer literal (no fraction, no exponent) that fits an `i64`.
pub(crate) fn to_i64(raw: &[u8]) -> Option<i64> {
    let (negative, magnitude) = to_integer(raw)?;
    signed(negative, magnitude)
}

/// Whether a number literal's value is an integer (`5`, `-3`, `5.0`, `1e3`, `2.50e1`,
/// `-0`), from its digits; `false` if `raw` is not a JSON number.
pub(crate) fn is_integral(raw: &[u8]) -> bool {
    let Some(parts) = Parts::new(raw, true) else {
        return false;
    };
    // 0.d₁…dₙ · 10^k with dₙ the last non-zero digit is an integer when k >= n.
    let mut n = 0;
    for (i, d) in parts.digits().enumerate() {
        if d != 0 {
            n = i + 1;
        }
    }
    n == 0 || parts.scale >= difference(n, 0) // n as an `i32`
}

/// Longest text [`format_f64`] writes: `-0.00000` and 17 digits.
pub(crate) const F64_MAX_LEN: usize = 25;

/// Write finite `v` into `out` in shortest round-trip form; returns the length.
///
/// The text `core` prints for an `f64`: the fewest significant digits that read back
/// as `v`, the closest to `v` among those (when two are equally close, the one further
/// from zero), positional (`Display`: `21.5`, `40`, `100000000000000000000`,
/// `0.000001`, `-0`) for magnitudes in [1e-6, 1e21) and zero, with an exponent
/// (`LowerExp`: `1e21`, `1.5e-7`, `2.2250738585072014e-308`) outside. `out` should
/// hold [`F64_MAX_LEN`] bytes; what does not fit is cut off.
#[inline(never)]
pub(crate) fn format_f64(v: f64, out: &mut [u8]) -> usize {
    let mut w = Cursor { out, len: 0 };
    if v.is_sign_negative() {
        w.push(b'-');
    }
    let bits = v.to_bits() & !(1 << 63);
    if bits == 0 {
        w.push(b'0');
        return w.len;
    }
    let mut digits = [0u8; 17];
    // |v| = 0.d₁d₂…dₙ · 10^k
    let (n, k) = shortest(bits, &mut digits);
    let digits = digits.get(..n).unwrap_or_default();
    if (-5..=21).contains(&k) {
        if k <= 0 {
            w.push(b'0');
            w.push(b'.');
            for _ in k..0 {
                w.push(b'0');
            }
        }
        let mut place = k;
        for &d in digits {
            if place == 0 && k > 0 {
                w.push(b'.');
            }
            w.push(b'0' + d);
            place -= 1;
        }
        while place > 0 {
            w.push(b'0');
            place -= 1;
        }
    } else {
        let (first, rest) = digits.split_first().unwrap_or((&1, &[]));
        w.push(b'0' + first);
        if !rest.is_empty() {
            w.push(b'.');
            for &d in rest {
                w.push(b'0' + d);
            }
        }
        w.push(b'e');
        let exp = k - 1;
        if exp < 0 {
            w.push(b'-');
        }
        let exp = u32::try_from(exp.unsigned_abs()).unwrap_or(0); // at most 324
        if exp >= 100 {
            w.push(b'0' + (exp / 100 % 10) as u8);
        }
        if exp >= 10 {
            w.push(b'0' + (exp / 10 % 10) as u8);
        }
        w.push(b'0' + (exp % 10) as u8);
    }
    w.len
}

/// The shortest digits of the positive finite `f64` with these `bits` (Steele &
/// White's free-format algorithm as Burger & Dybvig give it, on exact big integers):
/// writes them into `digits` and returns their number `n` and the power `k` with
/// `value = 0.d₁…dₙ · 10^k`.
///
/// `value = r / s`; the numbers that read back as it lie strictly (or, for an even
/// significand, inclusively: parsing ties to even) within `m⁻ / s` below and
/// `m⁺ / s` above it, half the gaps to its neighbours. The gap below is half as wide
/// at a power of two, so there `m⁻ = m⁺ / 2`.
fn shortest(bits: u64, digits: &mut [u8; 17]) -> (usize, i64) {
    let field = bits >> 52;
    let fraction = bits & ((1 << 52) - 1);
    let (f, e) = if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, field as i64 - 1075)
    };
    let inclusive = f & 1 == 0;
    let narrow_below = fraction == 0 && field > 1;
    // value = f · 2^e, m⁺ = 2^(e-1), m⁻ = 2^(e-1) or 2^(e-2): all times 2^(2-e).
    let mut r = Big::from_u64(f << 2);
    let mut s = Big::from_u64(1);
    let mut m = Big::from_u64(2); // m⁺
    let t = e - 2;
    if t >= 0 {
        r.shl(t as u32);
        m.shl(t as u32);
    } else {
        s.shl(t.unsigned_abs() as u32);
    }
    // k: 10^(k-1) <= value < 10^k, estimated from the binary exponent (never too
    // high: floor(p · log10 2) with 78913 / 2^18 < log10 2, exact for |p| < 1650),
    // then raised while the upper bound reaches 10^k.
    let p = e + 63 - i64::from(f.leading_zeros());
    let log = (p.unsigned_abs() * 78913) >> 18;
    let mut k = if p >= 0 {
        log as i64 + 1
    } else {
        -(log as i64)
    };
    if k >= 0 {
        s.mul_pow10(k as u32);
    } else {
        r.mul_pow10(k.unsigned_abs() as u32);
        m.mul_pow10(k.unsigned_abs() as u32);
    }
    let reaches = |r: &Big, m: &Big, s: &Big| {
        let mut high = r.clone();
        high.add(m);
        match high.cmp(s) {
            Ordering::Greater => true,
            Ordering::Equal => inclusive,
            Ordering::Less => false,
        }
    };
    while reaches(&r, &m, &s) {
        s.mul_small(10);
        k += 1;
    }
    let mut n = 0;
    for slot in digits.iter_mut() {
        r.mul_small(10);
        m.mul_small(10);
        let mut d = 0u8;
        while r.cmp(&s) != Ordering::Less && d < 9 {
            r.sub(&s);
            d += 1;
        }
        // r < m⁻ (comparing 2r with m⁺ where m⁻ is half of it).
        let low = {
            let below = if narrow_below {
                let mut twice = r.clone();
                twice.shl(1);
                twice.cmp(&m)
            } else {
                r.cmp(&m)
            };
            match below {
                Ordering::Less => true,
                Ordering::Equal => inclusive,
                Ordering::Greater => false,
            }
        };
        let high = reaches(&r, &m, &s);
        *slot = d;
        n += 1;
        let up = match (low, high) {
            (false, false) => continue,
            (true, false) => false,
            (false, true) => true,
            // Both d and d + 1 read back: the closer; on a tie the upper, as core.
            (true, true) => {
                let mut twice = r.clone();
                twice.shl(1);
                twice.cmp(&s) != Ordering::Less
            }
        };
        if up {
            *slot = d + 1;
        }
        break;
    }
    // A digit rounded up to 10 carries into the ones before it.
    let mut carry = false;
    for d in digits.iter_mut().take(n).rev() {
        if carry {
            *d += 1;
        }
        carry = *d > 9;
        if carry {
            *d = 0;
        }
    }
    if carry {
        *digits = [0; 17];
        if let Some(d) = digits.first_mut() {
            *d = 1;
        }
        k += 1;
    }
    // Trailing zeros (left by a carry) are not significant.
    let n = digits
        .iter()
        .take(n)
        .rposition(|&d| d != 0)
        .map_or(0, |i| i + 1);
    (n, k)
}

/// Bytes written left to right into a slice; what does not fit is dropped.
struct Cursor<'o> {
    out: &'o mut [u8],
    len: usize,
}

impl Cursor<'_> {
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.out.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }
}

/// Most significant digits kept exactly (10^19 - 1 < 2^64).
const DIGITS: i32 = 19;

/// The nearest `f64` to a number literal (ties to even), exact for literals with at
/// most 19 significant digits (see the [module docs](self) for longer ones); `None` if
/// `raw` is not a JSON number.
pub(crate) fn to_f64(raw: &[u8]) -> Option<f64> {
    let parts = Parts::new(raw, true)?;
    let mut w: u64 = 0;
    let mut kept: i32 = 0;
    let mut sticky = false;
    for d in parts.digits() {
        if kept < DIGITS {
            w = w * 10 + u64::from(d);
            kept += 1;
        } else if d != 0 {
            sticky = true;
            break;
        }
    }
    let scale = parts.scale;
    let bits = if w == 0 {
        0
    } else if scale > 309 {
        // At least 10^309.
        INFINITY
    } else if scale < -323 {
        // Below 10^-324, less than half the smallest subnormal (2^-1075 ≈ 2.47e-324).
        0
    } else {
        // value = w · 10^q with -342 <= q <= 308.
        let q = scale - kept;
        let integer = match q {
            0.. => (0..q).try_fold(w, |n, _| n.checked_mul(10)),
            _ => None,
        };
        match integer {
            // An integer below 2^64 (`45`, `1e2`): rounded straight from its bits,
            // without the big integers' stack.
            Some(n) => {
                let shift = n.leading_zeros();
                round(n << shift, -i64::from(shift), sticky)
            }
            None => nearest(w, q, sticky),
        }
    };
    let sign = if parts.negative { 1 << 63 } else { 0 };
    Some(f64::from_bits(bits | sign))
}

/// The bits of `f64::INFINITY`.
const INFINITY: u64 = 0x7FF0_0000_0000_0000;

/// The bits of the `f64` nearest to `w · 10^q` (plus a little more when `sticky`),
/// for `w > 0` and `-342 <= q <= 308`. Not inlined: its two big integers (280 bytes
/// of stack) are only taken when needed.
#[inline(never)]
fn nearest(w: u64, q: i32, sticky: bool) -> u64 {
    // w · 10^q = (num / den) · 2^e with num = w · 5^q, den = 1 (q >= 0) or
    // num = w, den = 5^-q (q < 0).
    let mut num = Big::from_u64(w);
    let mut den = Big::from_u64(1);
    if q >= 0 {
        num.mul_pow5(q.unsigned_abs());
    } else {
        den.mul_pow5(q.unsigned_abs());
    }
    let mut e = i64::from(q);
    // Align the two to the same bit length, then so that 1 <= num / den < 2.
    let (nb, db) = (num.bits(), den.bits());
    if nb < db {
        num.shl(db - nb);
        e -= i64::from(db - nb);
    } else {
        den.shl(nb - db);
        e += i64::from(nb - db);
    }
    if num.cmp(&den) == Ordering::Less {
        num.shl(1);
        e -= 1;
    }
    // 64 bits of the quotient, most significant (always 1) first.
    let mut m: u64 = 0;
    for _ in 0..64 {
        m <<= 1;
        if num.cmp(&den) != Ordering::Less {
            num.sub(&den);
            m |= 1;
        }
        num.shl(1);
    }
    round(m, e - 63, sticky || !num.is_zero())
}

/// The bits of the positive `f64` nearest to `(m + f) · 2^e`, where `m >= 2^63` and
/// `0 <= f < 1` is non-zero exactly when `sticky`; ties to even.
fn round(m: u64, e: i64, sticky: bool) -> u64 {
    // The value lies in [2^top, 2^(top+1)).
    let top = e + 63;
    if top > 1023 {
        return INFINITY;
    }
    // Bits of `m` below the last kept one: 11 for a normal number, more below 2^-1022.
    let shift = if top >= -1022 { 11 } else { 11 - 1022 - top };
    let (mant, rem, half) = match u32::try_from(shift) {
        Ok(s @ 11..=63) => (m >> s, m & ((1 << s) - 1), 1 << (s - 1)),
        Ok(64) => (0, m, 1 << 63),
        _ => return 0, // below 2^-1075: rounds to zero
    };
    let up = rem > half || (rem == half && (sticky || mant & 1 == 1));
    // For a normal number `mant` holds the implicit bit, which adds one to the
    // exponent field: hence `top + 1022`. A carry out of the mantissa moves on into
    // the exponent field, up to infinity; a subnormal that rounds up to 2^52 becomes
    // the smallest normal number the same way.
    let exponent = if top >= -1022 {
        u64::try_from(top + 1022).unwrap_or(0) << 52
    } else {
        0
    };
    exponent + mant + u64::from(up)
}

/// 32-bit limbs of a [`Big`]. Reading: the largest operand of the long division is
/// `5^342` (795 bits, for the smallest subnormals) or `w · 5^308` (779 bits), and the
/// running remainder stays below twice the divisor (796 bits). Printing: `s` is at
/// most `2^1076` (subnormals), `r` and `m⁺` stay below `10 · s` and their sum below
/// `20 · s`: 1081 bits, 34 limbs.
const LIMBS: usize = 34;

/// An unsigned big integer of [`LIMBS`] little-endian limbs; `len` limbs in use, the
/// top one non-zero, all above it zero.
#[derive(Clone)]
struct Big {
    limbs: [u32; LIMBS],
    len: usize,
}

impl Big {
    fn from_u64(v: u64) -> Self {
        let mut big = Big {
            limbs: [0; LIMBS],
            len: 2,
        };
        let [lo, hi, ..] = &mut big.limbs;
        *lo = v as u32;
        *hi = (v >> 32) as u32;
        big.trim();
        big
    }

    fn trim(&mut self) {
        while let Some(i) = self.len.checked_sub(1) {
            if self.limbs.get(i).is_some_and(|&l| l != 0) {
                break;
            }
            self.len = i;
        }
    }

    fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// Number of significant bits.
    fn bits(&self) -> u32 {
        match self.len.checked_sub(1).and_then(|i| self.limbs.get(i)) {
            Some(top) => self.len as u32 * 32 - top.leading_zeros(),
            None => 0,
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in self.limbs.iter_mut().take(self.len) {
            let p = u64::from(*limb) * u64::from(factor) + carry;
            *limb = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            if let Some(limb) = self.limbs.get_mut(self.len) {
                *limb = carry as u32;
                self.len += 1;
            }
        }
    }

    fn mul_pow5(&mut self, mut k: u32) {
        while k > 0 {
            // 5^13 is the largest power of five below 2^32.
            let step = k.min(13);
            self.mul_small(5u32.pow(step));
            k -= step;
        }
    }

    fn mul_pow10(&mut self, k: u32) {
        self.mul_pow5(k);
        self.shl(k);
    }

    fn add(&mut self, other: &Big) {
        let mut carry = 0u64;
        let len = self.len.max(other.len);
        for (a, &b) in self.limbs.iter_mut().zip(&other.limbs).take(len) {
            let sum = u64::from(*a) + u64::from(b) + carry;
            *a = sum as u32;
            carry = sum >> 32;
        }
        self.len = len;
        if carry != 0 {
            if let Some(limb) = self.limbs.get_mut(len) {
                *limb = carry as u32;
                self.len += 1;
            }
        }
    }

    /// Shift left by `n` bits (bits beyond [`LIMBS`] would be lost; the operands are
    /// sized so that none are).
    fn shl(&mut self, n: u32) {
        let whole = (n / 32) as usize;
        let bits = n % 32;
        let len = (self.len + whole + 1).min(LIMBS);
        // From the top down, each new limb is made of two old ones at or below it.
        for i in (0..len).rev() {
            let old = |j: Option<usize>| {
                u64::from(j.and_then(|j| self.limbs.get(j)).copied().unwrap_or(0))
            };
            let hi = old(i.checked_sub(whole));
            let lo = old(i.checked_sub(whole + 1));
            let limb = ((hi << 32 | lo) << bits >> 32) as u32;
            if let Some(l) = self.limbs.get_mut(i) {
                *l = limb;
            }
        }
        self.len = len;
        self.trim();
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.len.cmp(&other.len).then_with(|| {
            let a = self.limbs.iter().take(self.len).rev();
            a.cmp(other.limbs.iter().take(other.len).rev())
        })
    }

    /// `self - other`, for `self >= other`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = false;
        for (a, &b) in self.limbs.iter_mut().zip(&other.limbs).take(self.len) {
            let (d, o1) = a.overflowing_sub(b);
            let (d, o2) = d.overflowing_sub(u32::from(borrow));
            *a = d;
            borrow = o1 || o2;
        }
        self.trim();
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests;
