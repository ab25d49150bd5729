//! Word-at-a-time byte search ("SWAR"): finds the first byte of interest in a slice
//! one machine word at a time, with a byte loop for the last partial word.
//!
//! The operations exist for `usize` (the searches of the crate, one machine word) and
//! for `u64` ([`wide`]: the fast forms, which read eight bytes at a time on any
//! target, so that they compile, and are tested, on 32-bit targets too).

/// The operations for one word type (`usize` in the library; tests also run them
/// on `u32` and `u64`, so 32-bit targets are covered on any host).
macro_rules! swar_ops {
    ($word:ty) => {
        const WORD: usize = core::mem::size_of::<$word>();
        const ONES: $word = <$word>::MAX / 0xFF;
        /// The high bit of every byte: where the flag functions flag.
        pub(crate) const HIGHS: $word = ONES << 7;

        /// `b` in every byte.
        #[inline]
        fn splat(b: u8) -> $word {
            ONES.wrapping_mul(<$word>::from(b))
        }

        // The flag functions set the high bit of every byte of interest; a borrow
        // can also flag bytes *above* a flagged one, so only the lowest flag is
        // exact, which is all `find` uses. They are exact for ASCII bytes only:
        // combine them with `ascii_only` (ignore bytes >= 0x80) or `| v` (flag
        // those too).

        /// Flags ASCII bytes of `v` equal to `b`.
        #[inline]
        pub(crate) fn eq(v: $word, b: u8) -> $word {
            (v ^ splat(b)).wrapping_sub(ONES)
        }

        /// Flags ASCII bytes of `v` below `n` (`n` <= 0x80).
        #[inline]
        pub(crate) fn below(v: $word, n: u8) -> $word {
            v.wrapping_sub(splat(n))
        }

        /// Clears the flags of non-ASCII bytes of `v`.
        #[inline]
        pub(crate) fn ascii_only(flags: $word, v: $word) -> $word {
            flags & !v
        }

        /// [`find`] both ways (the two must agree).
        #[cfg(test)]
        pub(crate) fn find_both(
            s: &[u8],
            word: impl Fn($word) -> $word + Copy,
            byte: impl Fn(u8) -> bool + Copy,
        ) -> Option<usize> {
            let found = find::<false>(s, word, byte);
            assert_eq!(found, find::<true>(s, word, byte), "{s:?}");
            found
        }

        /// Index of the first byte of `s` matching `byte`, which `word` must flag
        /// the same way (words are read little-endian). With `LAST_WORD`, the bytes
        /// after the last whole word are searched as part of the last word of `s`
        /// (when `s` has one) rather than one at a time.
        #[inline]
        pub(crate) fn find<const LAST_WORD: bool>(
            s: &[u8],
            word: impl Fn($word) -> $word,
            byte: impl Fn(u8) -> bool,
        ) -> Option<usize> {
            let mut rest = s;
            while let Some((chunk, tail)) = rest.split_first_chunk::<WORD>() {
                let flags = word(<$word>::from_le_bytes(*chunk)) & HIGHS;
                if flags != 0 {
                    let lane = (flags.trailing_zeros() / 8) as usize;
                    return Some(s.len() - rest.len() + lane);
                }
                rest = tail;
            }
            let done = s.len() - rest.len();
            if LAST_WORD {
                if rest.is_empty() {
                    return None;
                }
                if let Some(last) = s.last_chunk::<WORD>() {
                    // The last word of `s`, overlapping bytes already searched: those
                    // hold nothing of interest, so they flag nothing and lend no
                    // borrow to the lanes above them; their lanes are shifted out.
                    let seen = WORD - rest.len();
                    let flags = (word(<$word>::from_le_bytes(*last)) & HIGHS) >> (8 * seen);
                    return match flags {
                        0 => None,
                        f => Some(done + (f.trailing_zeros() / 8) as usize),
                    };
                }
            }
            let n = rest.iter().position(|&b| byte(b))?;
            Some(done + n)
        }
    };
}

swar_ops!(usize);

#[cfg(test)]
mod narrow {
    swar_ops!(u32);
}

/// The operations on 8-byte words, whatever the target's word: the fast forms' own
/// (on 64-bit targets the same code as the `usize` ones).
#[allow(dead_code)] // each fast form uses a few of them
pub(crate) mod wide {
    swar_ops!(u64);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    extern crate std;

    use proptest::prelude::*;
    use std::vec::Vec;

    /// The word masks used by the scanner and the writer against their byte forms,
    /// for each word size.
    macro_rules! check_with {
        ($m:path, $s:expr) => {{
            use $m as w;
            let s: &[u8] = $s;

            let is_special = |b: u8| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b);
            let found = w::find_both(
                s,
                |v| w::eq(v, b'"') | w::eq(v, b'\\') | w::below(v, 0x20) | v,
                is_special,
            );
            assert_eq!(found, s.iter().position(|&b| is_special(b)), "{s:?}");
            let found = w::find_both(s, |v| w::ascii_only(w::eq(v, b'\n'), v), |b| b == b'\n');
            assert_eq!(found, s.iter().position(|&b| b == b'\n'), "{s:?}");
            let is_qb = |b: u8| b == b'"' || b == b'\\';
            let found = w::find_both(
                s,
                |v| w::ascii_only(w::eq(v, b'"') | w::eq(v, b'\\'), v),
                is_qb,
            );
            assert_eq!(found, s.iter().position(|&b| is_qb(b)), "{s:?}");
            let needs = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
            let found = w::find_both(
                s,
                |v| w::ascii_only(w::eq(v, b'"') | w::eq(v, b'\\') | w::below(v, 0x20), v),
                needs,
            );
            assert_eq!(found, s.iter().position(|&b| needs(b)), "{s:?}");
        }};
    }

    fn check_all(s: &[u8]) {
        let stop = |b: u8| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b);
        assert_eq!(
            super::super::find_special_or_high(s),
            s.iter().position(|&b| stop(b))
        );
        // The framer's newline search, every form.
        let newline = s.iter().position(|&b| b == b'\n');
        assert_eq!(super::super::find::newline::fast(s), newline);
        assert_eq!(super::super::find::newline::plain(s), newline);
        assert_eq!(super::super::find::newline::word(s), newline);
        check_with!(super, s);
        check_with!(super::narrow, s);
        check_with!(super::wide, s);
    }

    #[test]
    fn every_length_and_position() {
        let specials = [
            0u8, 0x01, b'\n', 0x0b, 0x1f, b'"', b'\\', b'{', b'}', b'[', b']', 0x80, 0xc3, 0xff,
        ];
        for fill in [b'a', 0x20, 0x7f, 0xe9, b'!', b'#', b'^', b'|'] {
            for len in 0..=40 {
                let base: Vec<u8> = std::vec![fill; len];
                check_all(&base);
                for at in 0..len {
                    for &sp in &specials {
                        let mut s = base.clone();
                        s[at] = sp;
                        check_all(&s);
                        // A second special after the first.
                        for later in at + 1..len {
                            let mut t = s.clone();
                            t[later] = 0;
                            check_all(&t);
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn matches_bytewise(s in proptest::collection::vec(any::<u8>(), 0..80)) {
            check_all(&s);
        }

        #[test]
        fn matches_bytewise_near_specials(
            s in proptest::collection::vec(
                proptest::sample::select(std::vec![
                    0u8, 1, 0x1f, 0x20, 0x21, b'"', b'#', b'[', b'\\', b']', b'{', b'|',
                    b'}', 0x7f, 0x80, 0xff, b'a',
                ]),
                0..40,
            )
        ) {
            check_all(&s);
        }
    }
}
