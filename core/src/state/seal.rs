//! Sealing `requestState`: the handler state that rides with the client between the
//! rounds of an input-required exchange.
//!
//! **`requestState` is attacker-controlled**: it comes back from the client. It is
//! sealed with HMAC-SHA-256 under the device's key ([`StateKey`]), bound to the tool
//! or prompt it belongs to, and refused (-32602) when it does not verify.

use crate::wire::json::Str;
use hmac::{Mac, SimpleHmac};
use sha2::Sha256;

/// Longest handler state a `requestState` carries, in bytes.
pub const MAX_STATE: usize = 64;

/// Bytes of the HMAC-SHA-256 tag kept in a `requestState` (128 bits).
pub const TAG_LEN: usize = 16;

/// Longest `requestState` text: base64 of the state and the tag.
pub const MAX_SEALED: usize = (MAX_STATE + TAG_LEN).div_ceil(3) * 4;

/// The device's secret for sealing `requestState`. Take it from a hardware RNG at
/// boot (state sealed before a reboot then no longer verifies, which only makes the
/// client start over) or from provisioned key storage.
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl core::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

impl StateKey {
    /// A key from 32 secret bytes.
    pub const fn new(bytes: [u8; 32]) -> Self {
        StateKey(bytes)
    }

    /// The tag of `state` for the handler named `owner` (a tool or prompt name).
    fn tag(&self, owner: &str, state: &[u8]) -> SimpleHmac<Sha256> {
        // A fixed-size key: `new_from_slice` cannot fail, and the fallback is never
        // taken; a key of zeros would still produce tags, never a panic.
        let mut mac = SimpleHmac::<Sha256>::new_from_slice(&self.0)
            .unwrap_or_else(|_| SimpleHmac::<Sha256>::new(&Default::default()));
        mac.update(b"emcp requestState v1\0");
        mac.update(owner.as_bytes());
        mac.update(b"\0");
        mac.update(state);
        mac
    }

    /// The id of task number `counter` (feature `tasks`): the first 128 bits of
    /// HMAC-SHA-256 under this key, so that no one without the key can guess the id
    /// of another client's task from their own.
    #[cfg(feature = "tasks")]
    pub fn task_id(&self, counter: u32) -> [u8; TAG_LEN] {
        let mut mac = SimpleHmac::<Sha256>::new_from_slice(&self.0)
            .unwrap_or_else(|_| SimpleHmac::<Sha256>::new(&Default::default()));
        mac.update(b"emcp taskId v1\0");
        mac.update(&counter.to_le_bytes());
        let tag = mac.finalize().into_bytes();
        let mut id = [0u8; TAG_LEN];
        for (d, s) in id.iter_mut().zip(tag.iter()) {
            *d = *s;
        }
        id
    }

    /// Seal `state` for `owner` into `out` as base64 text (state, then tag). Returns
    /// the text, or `None` when `state` is longer than [`MAX_STATE`].
    pub fn seal<'b>(
        &self,
        owner: &str,
        state: &[u8],
        out: &'b mut [u8; MAX_SEALED],
    ) -> Option<&'b str> {
        if state.len() > MAX_STATE {
            return None;
        }
        let tag = self.tag(owner, state).finalize().into_bytes();
        let mut raw = [0u8; MAX_STATE + TAG_LEN];
        let n = state.len() + TAG_LEN;
        // Copied element by element: `copy_from_slice`'s length check would stay a
        // panic path in a firmware image, though the lengths agree.
        let tag = tag.get(..TAG_LEN)?;
        for (d, s) in raw.iter_mut().zip(state.iter().chain(tag)) {
            *d = *s;
        }
        let len = base64_encode(raw.get(..n)?, out)?;
        core::str::from_utf8(out.get(..len)?).ok()
    }

    /// Open a `requestState` sealed for `owner`: the state bytes, in `buf`.
    ///
    /// # Errors
    ///
    /// [`StateError`] when the text is not one this key sealed for `owner` (altered,
    /// truncated, for another tool, or from another key).
    pub fn open<'b>(
        &self,
        owner: &str,
        sealed: Str<'_>,
        buf: &'b mut [u8; MAX_STATE + TAG_LEN],
    ) -> Result<&'b [u8], StateError> {
        let text = sealed.as_plain().ok_or(StateError)?;
        let n = base64_decode(text.as_bytes(), buf).ok_or(StateError)?;
        let state_len = n.checked_sub(TAG_LEN).ok_or(StateError)?;
        let (state, tag) = buf
            .get(..n)
            .ok_or(StateError)?
            .split_at_checked(state_len)
            .ok_or(StateError)?;
        self.tag(owner, state)
            .verify_truncated_left(tag)
            .map_err(|_| StateError)?;
        Ok(state)
    }
}

/// A `requestState` that does not verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateError;

impl core::fmt::Display for StateError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("requestState does not verify: not sealed by this server's key, or altered")
    }
}

impl core::error::Error for StateError {}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding; returns the length written, `None` if `out` is short.
fn base64_encode(bytes: &[u8], out: &mut [u8]) -> Option<usize> {
    let mut n = 0;
    for group in bytes.chunks(3) {
        let b = [
            group.first().copied().unwrap_or(0),
            group.get(1).copied().unwrap_or(0),
            group.get(2).copied().unwrap_or(0),
        ];
        let v = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            let c = if k <= group.len() {
                ALPHABET.get((v >> (18 - 6 * k)) as usize & 63).copied()?
            } else {
                b'='
            };
            *out.get_mut(n)? = c;
            n += 1;
        }
    }
    Some(n)
}

/// Decode standard base64 with padding (the form [`base64_encode`] writes, nothing
/// else); returns the length decoded, `None` on any other text.
fn base64_decode(text: &[u8], out: &mut [u8]) -> Option<usize> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut n = 0;
    let groups = text.len() / 4;
    for (g, quad) in text.chunks(4).enumerate() {
        let mut v = 0u32;
        let mut pad = 0;
        for (k, &c) in quad.iter().enumerate() {
            let d = if c == b'=' && g + 1 == groups && k >= 2 {
                pad += 1;
                0
            } else if pad > 0 {
                return None;
            } else {
                ALPHABET.iter().position(|&a| a == c)? as u32
            };
            v = v << 6 | d;
        }
        // Canonical text only: the bits padding stands for must be zero.
        if v & ((1u32 << (8 * pad)) - 1) != 0 {
            return None;
        }
        for k in 0..3 - pad {
            *out.get_mut(n)? = (v >> (16 - 8 * k)) as u8;
            n += 1;
        }
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::json::parse;

    fn quoted(s: &str) -> std::string::String {
        std::format!("\"{s}\"")
    }
    extern crate std;

    #[test]
    fn sealed_state_opens_only_unaltered_for_its_owner() {
        let key = StateKey::new([7; 32]);
        let mut out = [0u8; MAX_SEALED];
        let sealed = key.seal("tool_a", b"round 2: Alice", &mut out).unwrap();
        let sealed = std::string::String::from(sealed);
        let text = quoted(&sealed);
        let v = parse(text.as_bytes()).unwrap();
        let mut buf = [0u8; MAX_STATE + TAG_LEN];
        assert_eq!(
            key.open("tool_a", v.as_str().unwrap(), &mut buf),
            Ok(&b"round 2: Alice"[..])
        );
        // Another owner, another key, any change of the text: refused.
        assert_eq!(
            key.open("tool_b", v.as_str().unwrap(), &mut buf),
            Err(StateError)
        );
        let other = StateKey::new([8; 32]);
        assert_eq!(
            other.open("tool_a", v.as_str().unwrap(), &mut buf),
            Err(StateError)
        );
        for bad in [
            std::format!("{sealed}-TAMPERED"),
            sealed[1..].into(),
            std::format!("A{}", &sealed[1..]),
            std::string::String::new(),
            "====".into(),
        ] {
            let text = quoted(&bad);
            let v = parse(text.as_bytes()).unwrap();
            assert_eq!(
                key.open("tool_a", v.as_str().unwrap(), &mut buf),
                Err(StateError),
                "{bad}"
            );
        }
        // Too long to seal.
        assert!(key.seal("t", &[0; MAX_STATE + 1], &mut out).is_none());
        assert!(key.seal("t", &[0; MAX_STATE], &mut out).is_some());
    }

    #[test]
    fn base64_round_trip() {
        for len in 0..20 {
            let bytes: std::vec::Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37)).collect();
            let mut text = [0u8; 32];
            let n = base64_encode(&bytes, &mut text).unwrap();
            let mut back = [0u8; 32];
            let m = base64_decode(&text[..n], &mut back).unwrap();
            assert_eq!(&back[..m], &bytes[..]);
        }
        assert!(base64_decode(b"A===", &mut [0; 8]).is_none());
        assert!(
            base64_decode(b"AB==", &mut [0; 8]).is_none(),
            "non-canonical"
        );
        assert_eq!(base64_decode(b"AA==", &mut [0; 8]), Some(1));
        assert!(base64_decode(b"AB=C", &mut [0; 8]).is_none());
        assert!(base64_decode(b"ABC", &mut [0; 8]).is_none());
    }
}
