//! [`super::ChangeFlags`]' word where the target has atomic read-modify-write: core's
//! `AtomicU32`, lock-free.

use core::sync::atomic::{AtomicU32, Ordering};

#[derive(Debug, Default)]
pub(super) struct Word(AtomicU32);

impl Word {
    pub(super) const fn new() -> Self {
        Self(AtomicU32::new(0))
    }
    /// Set `bits`, from any context.
    pub(super) fn or(&self, bits: u32) {
        self.0.fetch_or(bits, Ordering::Release);
    }
    /// Take every bit set and clear them, from any context.
    pub(super) fn take(&self) -> u32 {
        self.0.swap(0, Ordering::Acquire)
    }
}
