//! The plain form of the base64 loop, for small targets: a carried group is its own
//! sink write, and every group is encoded character by character ([`encode_group`]).
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::encode_group;
use crate::wire::json::writer::JsonWriter;

/// Groups encoded per sink write: 64 bytes of stack, zeroed on every call.
const B64_RUN: usize = 16;

/// [`JsonWriter::base64_part`]: the carried group completed byte by byte and written
/// on its own, then full groups up to `B64_RUN` per sink write, one at a time; up to
/// two bytes carried to the next part.
#[inline(always)]
pub(super) fn part(w: &mut JsonWriter<'_>, bytes: &[u8]) {
    let mut rest = bytes;
    let mut out = [0u8; 4 * B64_RUN];
    let mut n = 0;
    while w.carry_len > 0 {
        let Some((&c, tail)) = rest.split_first() else {
            return;
        };
        rest = tail;
        w.carry = w.carry << 8 | u32::from(c);
        w.carry_len = (w.carry_len + 1) % 3;
        if w.carry_len == 0 {
            w.put(&encode_group(w.carry));
        }
    }
    loop {
        while let Some(o) = out.get_mut(n..).and_then(|o| o.first_chunk_mut::<4>()) {
            let Some((&[x, y, z], tail)) = rest.split_first_chunk::<3>() else {
                break;
            };
            *o = encode_group(u32::from(x) << 16 | u32::from(y) << 8 | u32::from(z));
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
