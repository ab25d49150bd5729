//! The legacy-era session of an endpoint and its `Mcp-Session-Id`s.
//!
//! An id is the only thing that stands between a client and another's session (a
//! DELETE ends it), so no id may tell anything of another: each is SipHash-1-3, keyed
//! by the endpoint's seed, of a counter (the `siphasher` crate; SipHash is a keyed
//! pseudo-random function, made for outputs an attacker sees). A mixer without a key
//! (SplitMix64, used before) is a bijection: one id gave its state, and so every id
//! after it.

use core::hash::Hasher;
use siphasher::sip::SipHasher13;

/// Length of a session id ([`Sessions`]).
pub const SESSION_ID_LEN: usize = 16;

/// The legacy-era session of an endpoint (at most one).
#[derive(Clone, Debug)]
pub struct Sessions {
    current: Option<[u8; SESSION_ID_LEN]>,
    key: u64,
    count: u64,
}

impl Sessions {
    /// No session yet. `seed` keys the session ids: take it from a hardware RNG (or the
    /// operating system's, `emcp_host::session_seed`). Whoever knows it can compute
    /// every id; whoever sees ids cannot.
    pub fn new(seed: u64) -> Self {
        Sessions {
            current: None,
            key: seed,
            count: 0,
        }
    }

    /// The current session id.
    pub fn current(&self) -> Option<&[u8]> {
        self.current.as_ref().map(|id| &id[..])
    }

    /// End the current session (the client's DELETE).
    pub fn end(&mut self) {
        self.current = None;
    }

    /// Start a new session (replacing any other) and return its id: 16 lowercase hex
    /// digits of SipHash-1-3, keyed by the seed, of the number of sessions started.
    ///
    /// ```
    /// let mut s = emcp::transport::http::Sessions::new(7);
    /// let a = s.start();
    /// let b = s.start();
    /// assert_ne!(a, b);
    /// assert_eq!(s.current(), Some(&b[..]));
    /// s.end();
    /// assert_eq!(s.current(), None);
    /// ```
    pub fn start(&mut self) -> [u8; SESSION_ID_LEN] {
        self.count = self.count.wrapping_add(1);
        let mut h = SipHasher13::new_with_keys(self.key, !self.key);
        h.write_u64(self.count);
        let z = h.finish();
        let mut id = [0u8; SESSION_ID_LEN];
        for (i, d) in id.iter_mut().enumerate() {
            let nibble = (z >> (60 - 4 * i)) & 0xF;
            *d = b"0123456789abcdef"
                .get(nibble as usize)
                .copied()
                .unwrap_or(b'0');
        }
        self.current = Some(id);
        id
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// The id SplitMix64's finalizer gives for the state after `z`'s, had `id` been made
    /// by it: its inverse applied to `id`, one step on. (What an attacker computes.)
    fn splitmix_next(id: &[u8]) -> [u8; SESSION_ID_LEN] {
        let z = u64::from_str_radix(core::str::from_utf8(id).unwrap(), 16).unwrap();
        // The multiplicative inverse mod 2^64 of an odd m (Newton's iteration).
        let inverse = |m: u64| {
            let mut x = m;
            for _ in 0..6 {
                x = x.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(x)));
            }
            x
        };
        let unshift = |z: u64, s: u32| {
            let mut x = z;
            for _ in 0..64 / s {
                x = z ^ (x >> s);
            }
            x
        };
        let mut x = unshift(z, 31);
        x = unshift(x.wrapping_mul(inverse(0x94D0_49BB_1331_11EB)), 27);
        let state = unshift(x.wrapping_mul(inverse(0xBF58_476D_1CE4_E5B9)), 30);
        let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let mut next = [0u8; SESSION_ID_LEN];
        let hex = std::format!("{z:016x}");
        next.copy_from_slice(hex.as_bytes());
        next
    }

    #[test]
    fn an_id_tells_nothing_of_the_next() {
        for seed in [0, 1, 7, 0x0123_4567_89ab_cdef, u64::MAX] {
            let mut s = Sessions::new(seed);
            let mut ids = std::vec::Vec::new();
            for _ in 0..64 {
                ids.push(s.start());
            }
            for pair in ids.windows(2) {
                assert_ne!(splitmix_next(&pair[0]), pair[1], "seed {seed}");
            }
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), 64, "seed {seed}");
        }
        // Another seed, other ids.
        assert_ne!(Sessions::new(1).start(), Sessions::new(2).start());
    }

    #[test]
    fn the_attack_works_on_an_unkeyed_mixer() {
        // The test above would catch SplitMix64: its inverse predicts the next id.
        let mut state = 0x1234_5678_u64;
        let id = |state: &mut u64| {
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let mut out = [0u8; SESSION_ID_LEN];
            out.copy_from_slice(std::format!("{z:016x}").as_bytes());
            out
        };
        let a = id(&mut state);
        let b = id(&mut state);
        assert_eq!(splitmix_next(&a), b);
    }
}
