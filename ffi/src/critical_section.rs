//! The critical section on a target without atomic read-modify-write (Cortex-M0/M0+,
//! RV32 without the A extension), taken from the C firmware.
//!
//! There, the resource-changed flags (`emcp_server_resource_changed`, callable from an
//! interrupt handler) are updated inside a critical section, which emcp takes through
//! the `critical-section` crate. Built without the feature
//! `critical-section-single-core` (which masks interrupts itself), the library asks the
//! firmware for it through two C functions the firmware defines:
//!
//! ```c
//! void emcp_critical_section_acquire(void); /* e.g. taskENTER_CRITICAL(), a spin lock */
//! void emcp_critical_section_release(void); /* its counterpart */
//! ```
//!
//! emcp holds it for a few instructions and never nests it; a firmware missing either
//! function fails to link. On targets with atomics none of this is compiled and the
//! functions are never called.

struct FirmwareHooks;

critical_section::set_impl!(FirmwareHooks);

extern "C" {
    /// Defined by the firmware, not by this library, and called only on a target
    /// without atomic read-modify-write (Cortex-M0/M0+, RV32 without the A extension)
    /// when the library was built without its `critical-section-single-core` feature:
    /// enter a critical section — nothing else that calls into the library may run
    /// until `emcp_critical_section_release` (mask interrupts on one core; an RTOS's
    /// critical section; a lock shared by the cores). Held for a few instructions,
    /// never nested. A firmware for such a target that lacks it fails to link.
    fn emcp_critical_section_acquire();
    /// Defined by the firmware: leave the critical section
    /// `emcp_critical_section_acquire` entered.
    fn emcp_critical_section_release();
}

// SAFETY: the firmware's pair is a critical section by the contract above (the
// documented requirement of a C firmware built for such a target); `()` carries no
// state between them (the crate's default restore state).
unsafe impl critical_section::Impl for FirmwareHooks {
    unsafe fn acquire() -> critical_section::RawRestoreState {
        // SAFETY: a C function of no arguments the firmware defines (above).
        unsafe { emcp_critical_section_acquire() }
    }

    unsafe fn release(_token: critical_section::RawRestoreState) {
        // SAFETY: as for acquire; called once per acquire, by the critical-section crate.
        unsafe { emcp_critical_section_release() }
    }
}
