//! [`super::ChangeFlags`]' word where the target has no atomic read-modify-write
//! (Cortex-M0/M0+, RV32IMC): a plain word, read and written inside the
//! `critical-section` the firmware provides (cortex-m's `critical-section-single-core`,
//! riscv's `critical-section-single-hart`, embassy-rp, esp-hal; from C, emcp-ffi's
//! feature `critical-section-single-core` or its two hooks). Held for a load and a
//! store; never nested.

use core::cell::Cell;

use critical_section::Mutex;

pub(super) struct Word(Mutex<Cell<u32>>);

impl Word {
    pub(super) const fn new() -> Self {
        Self(Mutex::new(Cell::new(0)))
    }
    /// Set `bits`, from any context.
    pub(super) fn or(&self, bits: u32) {
        critical_section::with(|cs| {
            let word = self.0.borrow(cs);
            word.set(word.get() | bits);
        });
    }
    /// Take every bit set and clear them, from any context.
    pub(super) fn take(&self) -> u32 {
        critical_section::with(|cs| self.0.borrow(cs).replace(0))
    }
}

impl Default for Word {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Word {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Word(..)")
    }
}
