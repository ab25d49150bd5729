//! The stack's high-water mark. cortex-m-rt paints the stack region at reset
//! (`paint-stack`, with 0xCCCCCCCC; memory.x places it at the bottom of RAM);
//! the deepest word no longer holding the paint is the peak so far.

use cortex_m::register::msp;
use embassy_time::{Duration, Timer};

const PAINT: u32 = 0xCCCC_CCCC;

extern "C" {
    static _stack_end: u32;
    static _stack_start: u32;
}

fn bounds() -> (usize, usize) {
    (
        core::ptr::addr_of!(_stack_end) as usize,
        core::ptr::addr_of!(_stack_start) as usize,
    )
}

/// Paint the free part of the stack again, so that [`watch`] reports the peak of
/// the running program rather than of its start-up.
pub fn repaint() {
    let (bottom, _) = bounds();
    cortex_m::interrupt::free(|_| {
        // Interrupts are off: nothing uses the stack below this frame meanwhile.
        let below = msp::read() as usize - 64;
        let mut p = bottom;
        while p < below {
            // SAFETY: [bottom, below) is the unused part of the stack region, and no
            // interrupt can push a frame there while they are disabled.
            unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
            p += 4;
        }
    });
}

/// Bytes of the stack used at the deepest point so far.
pub fn high_water() -> usize {
    let (bottom, top) = bounds();
    let mut p = bottom;
    // SAFETY: every word of [bottom, top) is RAM of the stack region; read only.
    while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    top - p
}

/// Log the high-water mark whenever it grows.
pub async fn watch() -> ! {
    let (bottom, top) = bounds();
    let mut reported = 0;
    loop {
        Timer::after(Duration::from_millis(500)).await;
        let used = high_water();
        if used > reported {
            reported = used;
            defmt::info!("stack high-water {} of {} bytes", used, top - bottom);
        }
    }
}
