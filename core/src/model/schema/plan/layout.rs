//! A plan as 32-bit words, for an image that keeps it in flash: the C ABI's
//! `emcp_tool.plan`, written at build time by `emcp-plan` (crate `emcp-ffi`) so that a
//! C device's calls are checked as a Rust device's are, without walking schema text.
//!
//! The words are [`HEAD_WORDS`] of a [`Head`] followed by [`PROPERTY_WORDS`] of each
//! [`Property`], the bytes of each word in the target's byte order. Both structs are
//! `#[repr(C)]` of `u32`, `u16`, `i32` and `u8` fields with no padding (asserted
//! below), so these are their bytes on every target, every bit pattern is a value,
//! and a reader that may use `unsafe` (the C ABI) can take `&Head` and `&[Property]`
//! from 4-aligned words of the right length. What they hold is then checked by
//! [`PlanRef::fits`](super::PlanRef::fits) (the schema's length and hash, [`VERSION`],
//! every index and span) before a server uses them.
//!
//! ```
//! use emcp::model::schema::plan::layout::{words, HEAD_WORDS, PROPERTY_WORDS};
//! use emcp::model::schema::Plan;
//!
//! let plan = Plan::compile(r#"{"type":"object","properties":{"on":{"type":"boolean"}}}"#);
//! let mut out = [0u32; HEAD_WORDS + 8 * PROPERTY_WORDS];
//! let n = words(&plan, cfg!(target_endian = "big"), &mut out).unwrap();
//! assert_eq!(n, HEAD_WORDS + PROPERTY_WORDS);
//! ```

use super::{Head, Plan, Property, Span};

/// The layout's version, in every [`Head`]: words written for another layout do not
/// fit ([`PlanRef::fits`](super::PlanRef::fits)).
pub const VERSION: u16 = 1;

/// Words of a [`Head`].
pub const HEAD_WORDS: usize = 6;

/// Words of a [`Property`].
pub const PROPERTY_WORDS: usize = 12;

// No padding: the fields' sizes add up to the structs' sizes, in whole words.
const _: () = {
    assert!(core::mem::size_of::<Head>() == 4 * HEAD_WORDS);
    assert!(4 + 2 + 1 + 1 + 4 + super::MAX_PLAN_PROPERTIES + 1 + 1 + 2 == 4 * HEAD_WORDS);
    assert!(core::mem::size_of::<Property>() == 4 * PROPERTY_WORDS);
    assert!(4 + 4 * super::PROPERTY_KEYS.len() + 4 + 4 + 4 == 4 * PROPERTY_WORDS);
    assert!(core::mem::align_of::<Head>() <= 4 && core::mem::align_of::<Property>() <= 4);
};

/// Write `plan`'s head and properties into `out` as words for a target of the given
/// byte order; the number of words written, or `None` when `out` is too short.
pub fn words(plan: &Plan<'_>, big_endian: bool, out: &mut [u32]) -> Option<usize> {
    let mut w = Words {
        out,
        at: 0,
        big_endian,
        bytes: [0; 4],
        filled: 0,
    };
    let h = plan.head();
    w.u32(h.hash);
    w.u16(h.len);
    w.bytes(&[h.compiled, h.closed]);
    w.span(h.required);
    w.bytes(&h.required_props);
    w.bytes(&[h.required_count, h.count]);
    w.u16(h.version);
    for p in plan.properties() {
        w.span(p.name);
        for k in p.keywords {
            w.span(k);
        }
        w.u32(p.int_min as u32);
        w.u32(p.int_max as u32);
        w.bytes(&[p.ty, p.plain_enum, p.enum_settles, p.int_bounds]);
    }
    (w.filled == 0 && !w.overflow()).then_some(w.at)
}

/// Bytes gathered into words.
struct Words<'o> {
    out: &'o mut [u32],
    at: usize,
    big_endian: bool,
    bytes: [u8; 4],
    filled: usize,
}

impl Words<'_> {
    fn overflow(&self) -> bool {
        self.at > self.out.len()
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if let Some(slot) = self.bytes.get_mut(self.filled) {
                *slot = b;
            }
            self.filled += 1;
            if self.filled == 4 {
                let word = match self.big_endian {
                    true => u32::from_be_bytes(self.bytes),
                    false => u32::from_le_bytes(self.bytes),
                };
                if let Some(slot) = self.out.get_mut(self.at) {
                    *slot = word;
                }
                self.at += 1;
                self.filled = 0;
            }
        }
    }

    fn u16(&mut self, v: u16) {
        match self.big_endian {
            true => self.bytes(&v.to_be_bytes()),
            false => self.bytes(&v.to_le_bytes()),
        }
    }

    fn u32(&mut self, v: u32) {
        match self.big_endian {
            true => self.bytes(&v.to_be_bytes()),
            false => self.bytes(&v.to_le_bytes()),
        }
    }

    fn span(&mut self, s: Span) {
        self.u16(s.start);
        self.u16(s.end);
    }
}
