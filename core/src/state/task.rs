//! What a task is between requests (feature `tasks`): its status, its id on the wire,
//! and the names of the input it waits for.
//!
//! A task id is 128 bits of HMAC under the device's
//! [`StateKey`](crate::state::seal::StateKey) ([`StateKey::task_id`](crate::state::seal::StateKey::task_id)),
//! written as 32 lowercase hex digits: a client cannot guess another client's ids
//! from its own.

use crate::state::seal::TAG_LEN;
use crate::wire::json::Str;

/// Length of a task id on the wire (hex digits).
pub const TASK_ID_LEN: usize = 2 * TAG_LEN;

/// A task's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskStatus {
    /// The device is working on it.
    Working,
    /// The device waits for the client's input (`tasks/update`).
    InputRequired,
    /// Done: the tool's result (possibly `isError: true`) is ready.
    Completed,
    /// Ended by a protocol-level error (or expired).
    Failed,
    /// Cancelled by the client.
    Cancelled,
}

impl TaskStatus {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Completed, failed or cancelled: nothing changes any more.
    pub const fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// A task id: the HMAC tag it is written from.
pub type TaskId = [u8; TAG_LEN];

/// The id as the 32 hex digits the client sees.
pub fn id_text(id: &TaskId) -> [u8; TASK_ID_LEN] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; TASK_ID_LEN];
    for (pair, b) in out.chunks_mut(2).zip(id.iter()) {
        if let [hi, lo] = pair {
            *hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
            *lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
        }
    }
    out
}

/// The id a client's `taskId` names, if it is one this server could have written.
pub fn parse_id(text: Str<'_>) -> Option<TaskId> {
    let raw = text.raw();
    if raw.len() != TASK_ID_LEN {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut id = [0u8; TAG_LEN];
    for (b, pair) in id.iter_mut().zip(raw.chunks(2)) {
        let [hi, lo] = pair else { return None };
        *b = digit(*hi)? << 4 | digit(*lo)?;
    }
    Some(id)
}

/// The name of an input request, kept as a 32-bit FNV-1a hash (a task remembers
/// which of its requests are unanswered, not their text).
pub fn key_hash(key: &[u8]) -> u32 {
    crate::wire::hash::fnv1a(key)
}

/// Whether a task created at `created_ms` with a time to live of `ttl_ms` has
/// expired at `now_ms` (a clock that went backwards expires nothing).
pub fn expired(created_ms: u64, ttl_ms: u32, now_ms: u64) -> bool {
    now_ms.saturating_sub(created_ms) > u64::from(ttl_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::json::parse;

    #[test]
    fn ids_round_trip_and_foreign_text_is_refused() {
        let id: TaskId = core::array::from_fn(|i| (i * 37) as u8);
        let text = id_text(&id);
        let mut quoted = [b'"'; TASK_ID_LEN + 2];
        quoted[1..=TASK_ID_LEN].copy_from_slice(&text);
        let v = parse(&quoted).unwrap();
        assert_eq!(parse_id(v.as_str().unwrap()), Some(id));
        for bad in [
            &b"\"abc\""[..],
            b"\"00000000000000000000000000000000X\"",
            b"\"0000000000000000000000000000000G\"",
        ] {
            let v = parse(bad).unwrap();
            assert_eq!(parse_id(v.as_str().unwrap()), None);
        }
    }

    #[test]
    fn expiry_and_statuses() {
        assert!(!expired(1000, 500, 1500));
        assert!(expired(1000, 500, 1501));
        assert!(!expired(1000, 500, 10), "clock went back");
        assert!(TaskStatus::Cancelled.is_terminal());
        assert!(!TaskStatus::InputRequired.is_terminal());
        assert_ne!(key_hash(b"a"), key_hash(b"b"));
    }
}
