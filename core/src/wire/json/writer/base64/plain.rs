//! The plain form of the base64 loop, for small targets: a carried group is its own
//! sink write, and every group is encoded character by character ([`encode_group`]).
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::{encode_group, Encode};
use crate::wire::json::writer::JsonWriter;

/// Groups encoded per sink write: 64 bytes of stack, zeroed on every call.
pub(super) const B64_RUN: usize = 16;

/// The plain form.
pub(super) struct Form;

impl Encode for Form {
    /// The carried group completed byte by byte and written on its own.
    #[inline(always)]
    fn complete_carry(
        w: &mut JsonWriter<'_>,
        rest: &mut &[u8],
        _out: &mut [u8],
        _n: &mut usize,
    ) -> bool {
        while w.carry_len > 0 {
            let Some((&c, tail)) = rest.split_first() else {
                return false;
            };
            *rest = tail;
            w.carry = w.carry << 8 | u32::from(c);
            w.carry_len = (w.carry_len + 1) % 3;
            if w.carry_len == 0 {
                w.put(&encode_group(w.carry));
            }
        }
        true
    }

    /// No step of several groups (less code).
    #[inline(always)]
    fn quads(_rest: &mut &[u8], _out: &mut [u8], _n: &mut usize) {}

    #[inline(always)]
    fn group(group: u32) -> [u8; 4] {
        encode_group(group)
    }
}
