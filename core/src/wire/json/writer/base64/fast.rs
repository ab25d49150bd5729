//! The fast form of the base64 loop, for hosts: a carried group leads the first run,
//! four groups are encoded at a time from two overlapping 8-byte words, and every
//! group takes two lookups in [`B64_PAIRS`] (8 KiB: out of a small target's flash).
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use super::BASE64;
use crate::wire::json::writer::JsonWriter;

/// Groups encoded per sink write: 128 bytes of stack, zeroed on every call, so no
/// bigger than a streamed part needs: they take a 64-byte part and a carried group in
/// one run (a bigger part takes one sink write per 96 bytes).
const B64_RUN: usize = 32;

/// The two base64 characters of every 12-bit value: 12 bytes are encoded with eight
/// lookups in it, a lone group with two.
// Evaluated at compile time: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
static B64_PAIRS: [[u8; 2]; 4096] = {
    let mut table = [[0u8; 2]; 4096];
    let mut i = 0;
    while i < 4096 {
        table[i] = [BASE64[i >> 6], BASE64[i & 0x3F]];
        i += 1;
    }
    table
};

/// The two base64 characters of the low 12 bits of `v` ([`B64_PAIRS`]).
#[inline(always)]
fn b64_pair(v: u64) -> [u8; 2] {
    B64_PAIRS
        .get(v as usize & 0xFFF)
        .copied()
        .unwrap_or_default()
}

/// The four base64 characters of one group, the low 24 bits of `group`: two lookups
/// in [`B64_PAIRS`].
#[inline(always)]
fn encode_full_group(group: u32) -> [u8; 4] {
    let [a, b] = b64_pair(u64::from(group >> 12));
    let [c, d] = b64_pair(u64::from(group));
    [a, b, c, d]
}

/// [`JsonWriter::base64_part`]: the carried group completed and encoded first, then
/// full groups up to `B64_RUN` per sink write, four per step while 14 input bytes
/// remain (two overlapping big-endian words, the top 6 bytes of each encoded as four
/// character pairs), then one at a time; up to two bytes carried to the next part.
#[inline(always)]
pub(super) fn part(w: &mut JsonWriter<'_>, bytes: &[u8]) {
    let mut rest = bytes;
    let mut out = [0u8; 4 * B64_RUN];
    let mut n = 0;
    if w.carry_len > 0 {
        let need = 3usize.saturating_sub(usize::from(w.carry_len));
        let Some((head, tail)) = rest.split_at_checked(need) else {
            w.carry_in(rest);
            w.carry_len += rest.len() as u8;
            return;
        };
        w.carry_in(head);
        if let Some(o) = out.first_chunk_mut::<4>() {
            *o = encode_full_group(w.carry);
            n = 4;
        }
        rest = tail;
    }
    loop {
        for o in out.get_mut(n..).unwrap_or_default().as_chunks_mut::<16>().0 {
            let Some((x, _)) = rest.split_first_chunk::<14>() else {
                break;
            };
            let (Some(a), Some(b)) = (x.first_chunk::<8>(), x.last_chunk::<8>()) else {
                break;
            };
            let (v, u) = (u64::from_be_bytes(*a), u64::from_be_bytes(*b));
            let [a, b] = b64_pair(v >> 52);
            let [c, d] = b64_pair(v >> 40);
            let [e, f] = b64_pair(v >> 28);
            let [g, h] = b64_pair(v >> 16);
            let [i, j] = b64_pair(u >> 52);
            let [k, l] = b64_pair(u >> 40);
            let [m, p] = b64_pair(u >> 28);
            let [q, r] = b64_pair(u >> 16);
            *o = [a, b, c, d, e, f, g, h, i, j, k, l, m, p, q, r];
            rest = rest.get(12..).unwrap_or_default();
            n += 16;
        }
        while let Some(o) = out.get_mut(n..).and_then(|o| o.first_chunk_mut::<4>()) {
            let Some((&[x, y, z], tail)) = rest.split_first_chunk::<3>() else {
                break;
            };
            *o = encode_full_group(u32::from(x) << 16 | u32::from(y) << 8 | u32::from(z));
            rest = tail;
            n += 4;
        }
        if n == 0 {
            break;
        }
        w.put(out.get(..n).unwrap_or_default());
        if rest.len() < 3 {
            break;
        }
        n = 0;
    }
    w.carry_in(rest);
    w.carry_len = rest.len() as u8;
}

#[cfg(test)]
mod tests {
    #[test]
    fn pair_table_is_the_alphabet_twice() {
        for (i, pair) in super::B64_PAIRS.iter().enumerate() {
            let b64 = super::super::b64;
            assert_eq!(*pair, [b64((i >> 6) as u8), b64(i as u8)], "{i}");
        }
    }
}
