//! Subscriptions: who wants to hear that a resource changed, and the interrupt-safe
//! flags device code raises when one did.
//!
//! Two eras, one mechanism: an legacy-era session subscribes with
//! `resources/subscribe` (one bit per resource in [`Subscriptions::session`]); a
//! 2026-07-28 client opens a `subscriptions/listen` stream (a [`Listen`] entry, at most
//! `L` at once). Resources are identified by their index, so at most [`MAX_RESOURCES`]
//! resources can be subscribed to.

// The one place the flags' storage is chosen: the core's atomic, lock-free, wherever
// the target has atomic read-modify-write; elsewhere (Cortex-M0/M0+, RV32 without the
// A extension) a word behind the `critical-section` the device provides, as
// embassy-sync's `CriticalSectionRawMutex` is (docs/porting.md). Not `portable-atomic`: its fallback is a choice
// the firmware makes once for the whole build (esp-hal makes it, and refuses a library
// that makes another), while every HAL provides `critical-section`.
#[cfg(target_has_atomic = "32")]
#[path = "subscription/word_atomic.rs"]
mod word;
#[cfg(not(target_has_atomic = "32"))]
#[path = "subscription/word_critical.rs"]
mod word;

use crate::wire::rpc::OwnedId;

/// Most static resources a device may declare when it offers subscriptions (one bit
/// each in a `u32`).
pub const MAX_RESOURCES: usize = 32;

/// Interrupt-safe "resource changed" flags, one bit per resource index.
///
/// Place one in a `static`, [`ChangeFlags::raise`] it from an interrupt handler, and
/// return [`ChangeFlags::take`] from [`crate::Device::take_changes`]; the server turns
/// the bits into `notifications/resources/updated` for subscribers.
///
/// ```
/// use emcp::state::subscription::ChangeFlags;
/// static CHANGED: ChangeFlags = ChangeFlags::new();
/// CHANGED.raise(3);
/// assert_eq!(CHANGED.take(), 1 << 3);
/// assert_eq!(CHANGED.take(), 0);
/// ```
#[derive(Debug, Default)]
pub struct ChangeFlags(word::Word);

impl ChangeFlags {
    /// No flags raised.
    pub const fn new() -> Self {
        Self(word::Word::new())
    }
    /// Mark resource `index` changed (ignored past [`MAX_RESOURCES`]).
    pub fn raise(&self, index: usize) {
        if let Some(bit) = bit(index) {
            self.0.or(bit);
        }
    }
    /// Take and clear all raised flags.
    pub fn take(&self) -> u32 {
        self.0.take()
    }
}

/// Remove entry `i` of a table, moving the last entry into its place (heapless's
/// `swap_remove` without its `i < len` assertion, a panic path). `None`, and the table
/// unchanged, when there is no entry `i`. The server's job table uses it too.
pub(crate) fn swap_remove<T, const N: usize>(
    table: &mut heapless::Vec<T, N>,
    i: usize,
) -> Option<T> {
    if i >= table.len() {
        return None;
    }
    // Take the last entry out, then put it in place of entry `i` (plain moves: no
    // overlap-safe `memmove`, no byte-wise swap).
    let last = table.pop()?;
    match table.get_mut(i) {
        Some(slot) => Some(core::mem::replace(slot, last)),
        None => Some(last), // `i` was the last entry
    }
}

/// The bit of resource `index`, if it has one.
pub(crate) fn bit(index: usize) -> Option<u32> {
    u32::try_from(index).ok().and_then(|i| 1u32.checked_shl(i))
}

/// One open `subscriptions/listen` stream.
#[derive(Clone, Debug)]
pub struct Listen {
    /// The listen request's id (every notification on the stream carries it).
    pub id: OwnedId,
    /// Resources it listens to (bit per index).
    pub resources: u32,
    /// Changes of those resources not yet sent on the stream (bit per index).
    pub pending: u32,
}

/// Every subscription of the connection.
#[derive(Debug, Default)]
pub struct Subscriptions<const L: usize> {
    /// Initialize-era `resources/subscribe` bits.
    pub session: u32,
    /// Changes of the session's resources not yet sent (bit per index).
    pub session_pending: u32,
    /// Open listen streams.
    pub listens: heapless::Vec<Listen, L>,
}

impl<const L: usize> Subscriptions<L> {
    /// Nothing subscribed.
    pub const fn new() -> Self {
        Self {
            session: 0,
            session_pending: 0,
            listens: heapless::Vec::new(),
        }
    }
    /// Open a listen stream; gives the entry back when the table is full.
    pub fn listen(&mut self, entry: Listen) -> Result<(), Listen> {
        self.listens.push(entry)
    }
    /// Close the listen stream with this id; returns whether there was one.
    pub fn close(&mut self, id: &[u8]) -> bool {
        match self.listens.iter().position(|l| l.id.as_slice() == id) {
            Some(i) => swap_remove(&mut self.listens, i).is_some(),
            None => false,
        }
    }
    /// Note changed resources (bit per index) as pending for every subscriber of
    /// them.
    pub fn note(&mut self, changed: u32) {
        self.session_pending |= changed & self.session;
        for l in self.listens.iter_mut() {
            l.pending |= changed & l.resources;
        }
    }
    /// Drop everything (link lost).
    pub fn clear(&mut self) {
        self.session = 0;
        self.session_pending = 0;
        self.listens.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &[u8]) -> OwnedId {
        OwnedId::from_slice(s).unwrap()
    }

    #[test]
    fn swap_remove_never_panics() {
        let mut t: heapless::Vec<u8, 4> = heapless::Vec::new();
        t.extend_from_slice(&[1, 2, 3]).unwrap();
        assert_eq!(swap_remove(&mut t, 3), None);
        assert_eq!(swap_remove(&mut t, usize::MAX), None);
        assert_eq!(&t[..], [1, 2, 3]);
        assert_eq!(swap_remove(&mut t, 0), Some(1));
        assert_eq!(&t[..], [3, 2]);
        assert_eq!(swap_remove(&mut t, 1), Some(2));
        assert_eq!(&t[..], [3]);
        assert_eq!(swap_remove(&mut t, 0), Some(3));
        assert_eq!(swap_remove(&mut t, 0), None);
    }

    #[test]
    fn table_full_then_frees() {
        let mut s: Subscriptions<2> = Subscriptions::new();
        assert!(s
            .listen(Listen {
                id: id(b"1"),
                resources: 1,
                pending: 0
            })
            .is_ok());
        assert!(s
            .listen(Listen {
                id: id(b"2"),
                resources: 2,
                pending: 0
            })
            .is_ok());
        assert!(s
            .listen(Listen {
                id: id(b"3"),
                resources: 4,
                pending: 0
            })
            .is_err());
        assert!(s.close(b"1"));
        assert!(!s.close(b"1"));
        assert!(s
            .listen(Listen {
                id: id(b"3"),
                resources: 4,
                pending: 0
            })
            .is_ok());
    }

    #[test]
    fn bits() {
        assert_eq!(bit(0), Some(1));
        assert_eq!(bit(31), Some(1 << 31));
        assert_eq!(bit(32), None);
        let f = ChangeFlags::new();
        f.raise(40);
        assert_eq!(f.take(), 0);
    }
}
