//! base64 strings (RFC 4648, padded), encoded on the fly from any number of parts.
//!
//! Two forms of the encoding loop: [`plain`] (one group at a time, the alphabet
//! looked up character by character: small code) and [`fast`] (four groups at a time
//! from two 8-byte words, two characters per lookup in an 8 KiB table), each behind
//! one function, `part`. Both are compiled everywhere and write the same bytes (the
//! tests below).

use super::{JsonWriter, OpenString};

mod fast;
mod plain;

// The form chosen once: `fast` on hosts, `plain` on small targets (core/build.rs).
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

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
        form::part(self, bytes);
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

    use super::{fast, plain};
    use crate::wire::json::writer::tests::out;
    use crate::wire::json::writer::JsonWriter;
    use proptest::prelude::*;
    use std::string::String;
    use std::vec::Vec;

    /// `data` as one base64 string fed in parts cut at `cuts`, by one form's `part`.
    fn by(part: fn(&mut JsonWriter<'_>, &[u8]), data: &[u8], cuts: &[usize]) -> String {
        out(|w| {
            w.base64_begin();
            let mut from = 0;
            for &cut in cuts {
                part(w, &data[from..cut]);
                from = cut;
            }
            part(w, &data[from..]);
            w.base64_end();
        })
    }

    fn agree(data: &[u8], cuts: &[usize]) {
        let fast = by(fast::part, data, cuts);
        let plain = by(plain::part, data, cuts);
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
