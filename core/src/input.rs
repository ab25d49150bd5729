//! Input a handler asks the client for during a request — elicitation, sampling,
//! roots — and the `requestState` that carries a handler's progress between rounds.
//!
//! 2026-07-28 answers with an *input-required result* (`resultType:
//! "input_required"`, `inputRequests`, `requestState`) and the client retries the
//! request with `inputResponses`; the initialize era sends the same requests to the
//! client and waits for its responses. Handlers see both the same way
//! ([`crate::device::ToolCall::ask`], [`crate::device::ToolCall::input`]).
//!
//! **`requestState` is attacker-controlled**: it comes back from the client. It is
//! sealed with HMAC-SHA-256 under the device's key ([`StateKey`]), bound to the tool
//! or prompt it belongs to, and refused (-32602) when it does not verify.

use crate::json::{JsonWriter, Str, Value};
use hmac::{Mac, SimpleHmac};
use sha2::Sha256;

/// Most input requests one round of a handler may make.
pub const MAX_ASKS: usize = 4;

/// Longest input request key, in bytes.
pub const MAX_KEY: usize = 32;

/// Initialize era: bytes of a waiting tool call's arguments kept while it waits for
/// the client's responses (a longer argument object cannot wait: `ask` refuses).
pub const MAX_WAIT_ARGS: usize = 512;

/// Initialize era: bytes of the client's responses kept for a waiting tool call (a
/// response that does not fit is seen by the handler as `null`).
pub const MAX_WAIT_ANSWERS: usize = 1024;

/// A kind of input a handler can ask the client for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// `elicitation/create`: ask the user to fill in a form.
    Elicitation,
    /// `sampling/createMessage`: ask the client's model for a completion.
    Sampling,
    /// `roots/list`: ask for the client's roots.
    Roots,
}

impl Capability {
    /// The request method that asks for this input.
    pub fn method(self) -> &'static str {
        match self {
            Capability::Elicitation => "elicitation/create",
            Capability::Sampling => "sampling/createMessage",
            Capability::Roots => "roots/list",
        }
    }

    /// The client capability that must be declared for it.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Elicitation => "elicitation",
            Capability::Sampling => "sampling",
            Capability::Roots => "roots",
        }
    }

    fn bit(self) -> u8 {
        match self {
            Capability::Elicitation => 1,
            Capability::Sampling => 2,
            Capability::Roots => 4,
        }
    }
}

/// The input capabilities a client declared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities(u8);

impl Capabilities {
    /// Read a `ClientCapabilities` object (`None`: nothing declared). A capability is
    /// declared when its member is present and an object.
    pub fn from_value(caps: Option<Value<'_>>) -> Self {
        const ALL: [Capability; 3] = [
            Capability::Elicitation,
            Capability::Sampling,
            Capability::Roots,
        ];
        // One walk over the object (usually `{}`), the first member of each name.
        let mut found = [None; ALL.len()];
        if let Some(v) = caps {
            v.members()
                .file_into(&ALL.map(Capability::name), &mut found);
        }
        let mut bits = 0;
        for (c, v) in ALL.iter().zip(found) {
            if v.is_some_and(|v| v.kind() == crate::json::Kind::Object) {
                bits |= c.bit();
            }
        }
        Capabilities(bits)
    }

    /// Whether `c` was declared.
    pub fn has(self, c: Capability) -> bool {
        self.0 & c.bit() != 0
    }
}

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
        raw.get_mut(..state.len())?.copy_from_slice(state);
        raw.get_mut(state.len()..n)?
            .copy_from_slice(tag.get(..TAG_LEN)?);
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
        let (state, tag) = buf.get(..n).ok_or(StateError)?.split_at(state_len);
        self.tag(owner, state)
            .verify_truncated_left(tag)
            .map_err(|_| StateError)?;
        Ok(state)
    }
}

/// An input request sent to the client in the initialize era: its JSON-RPC id and
/// the key the handler gave it.
#[derive(Clone, Debug)]
pub(crate) struct Ask {
    pub id: u32,
    pub key: heapless::String<MAX_KEY>,
}

/// The input side of one round of a handler (a tool call or a prompt).
#[derive(Debug, Default)]
pub(crate) struct Input<'a> {
    /// The client's responses: 2026-07-28 `inputResponses`, or in the initialize era
    /// the responses collected while the call waited.
    pub inputs: Option<Value<'a>>,
    /// The handler state of the previous round (verified).
    pub state: Option<&'a [u8]>,
    /// The state to carry into the next round.
    pub new_state: Option<heapless::Vec<u8, MAX_STATE>>,
    /// 2026-07-28: inside the result's `inputRequests`.
    pub asking: bool,
    /// Initialize era: the requests sent to the client this round.
    pub asks: heapless::Vec<Ask, MAX_ASKS>,
    /// Initialize era: the id of the next server-to-client request.
    pub next_id: u32,
    /// Initialize era: the call may wait (a job slot is free, arguments fit).
    pub can_wait: bool,
    /// A capability the handler required and the client lacks (-32021).
    pub missing: Option<Capability>,
}

impl<'a> Input<'a> {
    /// The client's response for `key`, when it sent one (`null` counts as none).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.inputs
            .and_then(|i| i.get(key))
            .filter(|v| !v.is_null())
    }

    /// Keep `state` for the next round; false when longer than [`MAX_STATE`].
    pub fn set_state(&mut self, state: &[u8]) -> bool {
        match heapless::Vec::from_slice(state) {
            Ok(v) => {
                self.new_state = Some(v);
                true
            }
            Err(_) => false,
        }
    }

    /// Note that the handler needs `c`; false (and -32021 unless the handler writes a
    /// result anyway) when the client did not declare it.
    pub fn require(&mut self, caps: Capabilities, c: Capability) -> bool {
        if caps.has(c) {
            return true;
        }
        self.missing = Some(c);
        false
    }

    /// Ask the client for input `key` of kind `c`, `params` writing the request's
    /// params object. `idle`: nothing of the result was written yet. 2026-07-28 opens
    /// (or continues) the input-required result; the initialize era sends a request
    /// line to the client now. False when the client lacks the capability, the key is
    /// too long or one too many, content was already written, or (initialize era)
    /// the call cannot wait.
    pub fn ask(
        &mut self,
        w: &mut JsonWriter<'_>,
        ex: &crate::device::Exchange<'_>,
        idle: bool,
        key: &str,
        c: Capability,
        params: &dyn Fn(&mut JsonWriter<'_>),
    ) -> bool {
        if !ex.caps.has(c) || !(idle || self.asking || !self.asks.is_empty()) {
            return false;
        }
        if ex.modern {
            if key.len() > MAX_KEY {
                return false;
            }
            if !self.asking {
                crate::rpc::begin_result(w, ex.id);
                w.member_lit(b",\"resultType\":\"input_required\"");
                w.key_lit("inputRequests");
                w.begin_object();
                self.asking = true;
            }
            w.key(key);
            w.begin_object();
            w.key_lit("method");
            w.str_lit(c.method());
            w.key_lit("params");
            params(w);
            w.end_object();
            return true;
        }
        let Ok(key) = heapless::String::try_from(key) else {
            return false;
        };
        let id = self.next_id;
        if !self.can_wait || self.asks.push(Ask { id, key }).is_err() {
            return false;
        }
        self.next_id = id.wrapping_add(1);
        w.raw(crate::rpc::ID);
        let mut digits = [0u8; 20];
        w.raw(crate::json::writer::decimal(u64::from(id), &mut digits));
        w.raw(b",\"method\":");
        w.str_lit(c.method());
        w.raw(b",\"params\":");
        params(w);
        w.raw(b"}\n");
        true
    }
}

/// A `requestState` that does not verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateError;

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
    use crate::json::parse;

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

    #[test]
    fn capabilities_are_declared_objects() {
        let v =
            parse(br#"{"sampling":{},"elicitation":true,"roots":{"listChanged":true}}"#).unwrap();
        let c = Capabilities::from_value(Some(v));
        assert!(c.has(Capability::Sampling));
        assert!(!c.has(Capability::Elicitation));
        assert!(c.has(Capability::Roots));
        assert_eq!(Capabilities::from_value(None), Capabilities::default());
    }
}
