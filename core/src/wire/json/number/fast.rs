//! The fast form of [`literal_len`](super::literal_len()), for hosts: a walk over the
//! number grammar that keeps nothing. Its twin is `plain::literal_len`.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

/// Length of the JSON number literal at the start of `s` (RFC 8259 grammar: no leading
/// zeros); `None` if `s` does not start with one.
pub(crate) fn literal_len(s: &[u8]) -> Option<usize> {
    // The number of digits from `i` on.
    let digits = |i: usize| {
        s.get(i..)
            .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count())
    };
    let mut i = usize::from(s.first() == Some(&b'-'));
    // The integer part: a zero, or digits not starting with one.
    let int = digits(i);
    match s.get(i)? {
        b'0' if int == 1 => {}
        b'1'..=b'9' => {}
        _ => return None,
    }
    i += int;
    if s.get(i) == Some(&b'.') {
        i += match digits(i + 1) {
            0 => return None,
            n => 1 + n,
        };
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1 + usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
        i += match digits(i) {
            0 => return None,
            n => n,
        };
    }
    Some(i)
}
