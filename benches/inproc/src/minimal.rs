//! A minimal validating JSON scanner, written for the parser comparison
//! (`instr --parse minimal`): the least a server must do with a request line before
//! it may answer it — check that it is one JSON text (RFC 8259: structure, strings
//! and their escapes, numbers, literals, UTF-8; surrogate escapes paired) — and
//! nothing more: no member is looked up, no value kept, no error told apart from
//! another.
//!
//! It is one loop over the bytes with the usual scalar speed-ups (strings searched
//! eight bytes at a time for `"`, `\`, control and non-ASCII bytes; UTF-8 checked
//! once, by `core::str::from_utf8`, only when a non-ASCII byte was seen; one bit per
//! open container), so that its count shows what validation alone costs on the
//! lines the benchmarks send. It is not part of emcp.

/// Containers nested deeper than this are refused (serde_json's default recursion
/// limit).
pub const MAX_DEPTH: u32 = 128;

const ONES: u64 = u64::MAX / 0xFF;
const HIGHS: u64 = ONES << 7;

/// Whether `input` is one JSON text (whitespace around it allowed).
///
/// ```
/// use emcp_bench::minimal::validate;
/// assert!(validate(br#" {"a":[1,-2.5e3,"\u00e9",true,null]} "#));
/// assert!(!validate(br#"{"a":01}"#));
/// ```
pub fn validate(input: &[u8]) -> bool {
    scan(input).is_some()
}

fn scan(s: &[u8]) -> Option<()> {
    // Whether a byte above 0x7F was seen (the whole input's UTF-8 is checked at the
    // end then).
    let mut high = false;
    let mut i = 0usize;
    // Bit d: the container at depth d is an object.
    let mut objects = [0u64; (MAX_DEPTH as usize).div_ceil(64)];
    let mut depth: u32 = 0;
    'value: loop {
        // A value is due at `i` (after its key in an object).
        match next(s, &mut i)? {
            b'"' => i = string(s, i, &mut high)?,
            open @ (b'{' | b'[') => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                let bit = 1u64 << (depth % 64);
                let word = objects.get_mut((depth / 64) as usize)?;
                *word = if open == b'{' {
                    *word | bit
                } else {
                    *word & !bit
                };
                depth += 1;
                let at = i;
                match (open, next(s, &mut i)?) {
                    (b'{', b'}') | (b'[', b']') => depth -= 1,
                    (b'{', b'"') => {
                        i = key(s, i, &mut high)?;
                        continue 'value;
                    }
                    (b'[', _) => {
                        i = at;
                        continue 'value;
                    }
                    _ => return None,
                }
            }
            b'-' | b'0'..=b'9' => i = number(s, i - 1)?,
            b't' => i = literal(s, i - 1, b"true")?,
            b'f' => i = literal(s, i - 1, b"false")?,
            b'n' => i = literal(s, i - 1, b"null")?,
            _ => return None,
        }
        // A value ended at `i`: close containers until another value is due.
        loop {
            let Some(d) = depth.checked_sub(1) else {
                // The top-level value: only whitespace may follow.
                if s.get(i..)?.iter().any(|&b| !is_ws(b)) {
                    return None;
                }
                return (!high || core::str::from_utf8(s).is_ok()).then_some(());
            };
            let object = objects.get((d / 64) as usize)? >> (d % 64) & 1 != 0;
            match (next(s, &mut i)?, object) {
                (b',', true) => {
                    if next(s, &mut i)? != b'"' {
                        return None;
                    }
                    i = key(s, i, &mut high)?;
                    continue 'value;
                }
                (b',', false) => continue 'value,
                (b'}', true) | (b']', false) => depth = d,
                _ => return None,
            }
        }
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// The next byte that is not whitespace, from `*i`; `*i` ends just after it.
#[inline(always)]
fn next(s: &[u8], i: &mut usize) -> Option<u8> {
    let b = *s.get(*i)?;
    *i += 1;
    if b > b' ' {
        return Some(b);
    }
    next_after_ws(s, i, b)
}

#[inline(never)]
fn next_after_ws(s: &[u8], i: &mut usize, mut b: u8) -> Option<u8> {
    while is_ws(b) {
        b = *s.get(*i)?;
        *i += 1;
    }
    Some(b)
}

/// A key's string from `i` (just after its quote) and the `:` after it; returns the
/// index after the colon.
#[inline(always)]
fn key(s: &[u8], i: usize, high: &mut bool) -> Option<usize> {
    let mut i = string(s, i, high)?;
    (next(s, &mut i)? == b':').then_some(i)
}

/// String content from `i` (just after the opening quote); returns the index after
/// the closing quote.
#[inline(always)]
fn string(s: &[u8], mut i: usize, high: &mut bool) -> Option<usize> {
    loop {
        i = find_special(s, i)?;
        match *s.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i = escape(s, i)?,
            0x80.. => {
                *high = true;
                i += 1;
            }
            _ => return None,
        }
    }
}

/// Index of the first `"`, `\`, control or non-ASCII byte at or after `i`.
#[inline(always)]
fn find_special(s: &[u8], mut i: usize) -> Option<usize> {
    let splat = |b: u8| ONES.wrapping_mul(u64::from(b));
    while let Some(chunk) = s.get(i..).and_then(|r| r.first_chunk::<8>()) {
        let v = u64::from_le_bytes(*chunk);
        let flags = ((v ^ splat(b'"')).wrapping_sub(ONES)
            | (v ^ splat(b'\\')).wrapping_sub(ONES)
            | v.wrapping_sub(splat(0x20))
            | v)
            & HIGHS;
        if flags != 0 {
            return Some(i + (flags.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while let Some(&b) = s.get(i) {
        if matches!(b, b'"' | b'\\' | ..0x20 | 0x80..) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The escape whose backslash is at `i`; returns the index after it. A `\u` escape
/// of a surrogate must be a high one followed by an escaped low one (a lone surrogate
/// is no character: the string could not be decoded).
#[inline(never)]
fn escape(s: &[u8], i: usize) -> Option<usize> {
    match *s.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => match hex4(s, i + 2)? {
            0xD800..=0xDBFF => {
                let low = (s.get(i + 6..i + 8)? == b"\\u").then(|| hex4(s, i + 8))??;
                (0xDC00..=0xDFFF).contains(&low).then_some(i + 12)
            }
            0xDC00..=0xDFFF => None,
            _ => Some(i + 6),
        },
        _ => None,
    }
}

/// The four hex digits at `i` as a number.
fn hex4(s: &[u8], i: usize) -> Option<u32> {
    s.get(i..i + 4)?
        .iter()
        .try_fold(0, |n, &b| Some(n << 4 | char::from(b).to_digit(16)?))
}

/// The number at `i`; returns the index after it.
#[inline(never)]
fn number(s: &[u8], mut i: usize) -> Option<usize> {
    let digits = |i: &mut usize| {
        let start = *i;
        while matches!(s.get(*i), Some(b'0'..=b'9')) {
            *i += 1;
        }
        *i > start
    };
    if s.get(i) == Some(&b'-') {
        i += 1;
    }
    match s.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => {
            digits(&mut i);
        }
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return None;
        }
    }
    Some(i)
}

/// The literal `word` at `i`; returns the index after it.
fn literal(s: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    s.get(i..)?.starts_with(word).then_some(i + word.len())
}
