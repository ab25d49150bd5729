//! The stack's high-water mark. The board paints the stack region at reset with
//! [`STACK_PAINT`] (cortex-m-rt's `paint-stack`; on RISC-V the board's
//! `__pre_init`); each board's memory.x places the region at the bottom of RAM, as the
//! C image's link.ld does. The deepest word no longer holding the paint is the peak so
//! far, start-up included (as the C image measures it).

use core::ptr::{addr_of, read_volatile};
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::board::STACK_PAINT;

extern "C" {
    static _stack_end: u32;
    static _stack_start: u32;
}

/// The stack region: its lowest address and the address above its top.
fn bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken, never their values.
    (
        addr_of!(_stack_end) as usize,
        addr_of!(_stack_start) as usize,
    )
}

/// Bytes of the stack used at the deepest point so far.
pub fn high_water() -> usize {
    let (bottom, top) = bounds();
    let mut p = bottom;
    // SAFETY: every word of [bottom, top) is RAM of the stack region; read only.
    while p < top && unsafe { read_volatile(p as *const u32) } == STACK_PAINT {
        p += 4;
    }
    top - p
}

/// The largest mark logged so far.
static REPORTED: AtomicUsize = AtomicUsize::new(0);

/// Log the high-water mark when it grew (`examples/firmware/size.sh` reads these
/// lines: `stack high-water N bytes`, the C image's wording).
pub fn check() {
    let used = high_water();
    if used > REPORTED.load(Ordering::Relaxed) {
        REPORTED.store(used, Ordering::Relaxed);
        defmt::info!("emcp: stack high-water {=usize} bytes", used);
    }
}
