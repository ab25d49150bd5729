//! base64 strings (RFC 4648, padded), encoded on the fly from any number of parts.
//!
//! Two forms of the encoding loop: [`plain`] (one group at a time, the alphabet
//! looked up character by character: small code) and [`fast`] (four groups at a time
//! from two 8-byte words, two characters per lookup in an 8 KiB table). `Encode` is
//! what differs; the loop around it is one. Both are compiled everywhere and write the
//! same bytes (`tests.rs`, `forms_agree`).

use super::{JsonWriter, OpenString};

mod fast;
mod plain;

// The form chosen once: `fast` on hosts, `plain` on small targets (core/build.rs).
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

/// What a form of [`JsonWriter::base64_part`] provides.
trait Encode {
    /// Complete a group carried over from the previous part with the first bytes of
    /// `rest` (taking them off it), written or encoded into `out` at `*n`; false when
    /// `rest` ran out first (all of it carried).
    fn complete_carry(
        w: &mut JsonWriter<'_>,
        rest: &mut &[u8],
        out: &mut [u8],
        n: &mut usize,
    ) -> bool;
    /// Encode whole groups of `rest` several at a time into `out` at `*n`, while both
    /// have room (nothing, for a form that has no such step).
    fn quads(rest: &mut &[u8], out: &mut [u8], n: &mut usize);
    /// The four characters of one group, the low 24 bits of `group`.
    fn group(group: u32) -> [u8; 4];
}

pub(super) const BASE64: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[inline(always)]
fn b64(sextet: u8) -> u8 {
    BASE64
        .get(usize::from(sextet & 0x3F))
        .copied()
        .unwrap_or(b'=')
}

impl JsonWriter<'_> {
    /// Open a base64 (RFC 4648, padded) string value, fed by
    /// [`base64_part`](Self::base64_part) and closed by
    /// [`base64_end`](Self::base64_end).
    ///
    /// ```
    /// use emcp::wire::json::{JsonWriter, SliceSink};
    ///
    /// let mut buf = [0u8; 16];
    /// let mut sink = SliceSink::new(&mut buf);
    /// let mut w = JsonWriter::new(&mut sink);
    /// w.base64_begin();
    /// w.base64_part(b"foo");
    /// w.base64_part(b"ba");
    /// w.base64_end();
    /// assert!(w.is_ok());
    /// assert_eq!(sink.written(), br#""Zm9vYmE=""#);
    /// ```
    pub fn base64_begin(&mut self) {
        self.put_lead(b",\"");
        self.carry_len = 0;
        self.open = OpenString::Base64;
    }

    /// More bytes of an open base64 string. Up to two bytes are carried over to the
    /// next part; full groups (on hosts led by the carried one) are encoded up to
    /// `B64_RUN` at a time into a stack buffer and written as one run (the base64
    /// alphabet needs no escaping).
    pub fn base64_part(&mut self, bytes: &[u8]) {
        self.base64_part_by::<form::Form>(bytes, &mut [0u8; 4 * form::B64_RUN]);
    }

    /// [`base64_part`](Self::base64_part) in form `F`, encoding into `out` (room for
    /// `F`'s run).
    #[inline(always)]
    fn base64_part_by<F: Encode>(&mut self, bytes: &[u8], out: &mut [u8]) {
        let mut rest = bytes;
        let mut n = 0;
        // First complete a group carried over from the previous part (all of this
        // part may go into it).
        if !F::complete_carry(self, &mut rest, out, &mut n) {
            return;
        }
        // Full groups, up to `B64_RUN` per sink write: as many as the form encodes
        // several at a time, then one group at a time.
        loop {
            F::quads(&mut rest, out, &mut n);
            while let Some(o) = out.get_mut(n..).and_then(|o| o.first_chunk_mut::<4>()) {
                let Some((&[x, y, z], tail)) = rest.split_first_chunk::<3>() else {
                    break;
                };
                *o = F::group(u32::from(x) << 16 | u32::from(y) << 8 | u32::from(z));
                rest = tail;
                n += 4;
            }
            if n == 0 {
                break;
            }
            self.put(out.get(..n).unwrap_or_default());
            if rest.len() < 3 {
                break;
            }
            n = 0;
        }
        self.carry_in(rest);
        self.carry_len = rest.len() as u8;
    }

    /// `bytes` (the few a part ends with) appended to the carried group.
    #[inline(always)]
    pub(super) fn carry_in(&mut self, bytes: &[u8]) {
        for &c in bytes {
            self.carry = self.carry << 8 | u32::from(c);
        }
    }

    /// Flush the carried bytes with padding and close the base64 string.
    pub fn base64_end(&mut self) {
        // One carried byte gives two characters and `==`, two give three and `=`.
        let carried = usize::from(self.carry_len);
        if carried > 0 {
            // The carried bytes at the top of a group filled up with zero bytes.
            let mut group = encode_group(self.carry << (8 * 3usize.saturating_sub(carried)));
            for c in group.iter_mut().skip(carried + 1) {
                *c = b'=';
            }
            self.put(&group);
        }
        self.carry_len = 0;
        self.string_end();
    }

    /// A whole base64 string value: `base64_begin` + `base64_part` + `base64_end`.
    pub fn base64(&mut self, bytes: &[u8]) {
        self.base64_begin();
        self.base64_part(bytes);
        self.base64_end();
    }
}

/// The four base64 characters of one 3-byte group, the low 24 bits of `group`: four
/// table lookups in straight-line code (fewer instructions than a loop over the
/// shifts, and less code on Cortex-M).
#[inline(never)]
pub(super) fn encode_group(group: u32) -> [u8; 4] {
    [
        b64((group >> 18) as u8),
        b64((group >> 12) as u8),
        b64((group >> 6) as u8),
        b64(group as u8),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    extern crate std;

    use super::{fast, plain, Encode};
    use crate::wire::json::writer::tests::out;
    use proptest::prelude::*;
    use std::string::String;
    use std::vec::Vec;

    /// `data` as one base64 string fed in parts cut at `cuts`, by form `F`.
    fn by<F: Encode, const RUN: usize>(data: &[u8], cuts: &[usize]) -> String {
        out(|w| {
            w.base64_begin();
            let mut from = 0;
            for &cut in cuts {
                w.base64_part_by::<F>(&data[from..cut], &mut [0u8; RUN]);
                from = cut;
            }
            w.base64_part_by::<F>(&data[from..], &mut [0u8; RUN]);
            w.base64_end();
        })
    }

    fn agree(data: &[u8], cuts: &[usize]) {
        let fast = by::<fast::Form, { 4 * fast::B64_RUN }>(data, cuts);
        let plain = by::<plain::Form, { 4 * plain::B64_RUN }>(data, cuts);
        assert_eq!(fast, plain, "{data:?} cut at {cuts:?}");
    }

    /// Every length to 200 (around the runs and the four-group steps), whole and cut
    /// into parts of every small size (carried groups of one and two bytes).
    #[test]
    fn forms_agree_on_fixtures() {
        let data: Vec<u8> = (0..=255u8).map(|b| b.wrapping_mul(151)).collect();
        for len in 0..200 {
            let d = &data[..len];
            agree(d, &[]);
            for step in 1..8 {
                let cuts: Vec<usize> = (step..len).step_by(step).collect();
                agree(d, &cuts);
            }
        }
    }

    proptest! {
        #[test]
        fn forms_agree(
            data in proptest::collection::vec(any::<u8>(), 0..400),
            mut cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let mut cuts: Vec<usize> = cuts.drain(..).map(|c| c.index(data.len() + 1)).collect();
            cuts.sort_unstable();
            agree(&data, &cuts);
        }
    }
}
