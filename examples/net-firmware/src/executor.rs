//! The thread-mode executor: embassy's raw executor, asleep in `WFI` whenever no
//! task is ready.
//!
//! embassy-executor's own Cortex-M executor sleeps with `WFE` and wakes with `SEV`,
//! right on silicon; QEMU runs `WFE` as a no-op, so there the idle loop would spin a
//! host core at 100% and every idle cycle would count as executed instructions. `WFI`
//! with interrupts masked is the race-free form: a task woken from an interrupt
//! after the flag was tested leaves that interrupt pending, and a pending interrupt
//! ends `WFI` even while masked.

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{raw, Spawner};
use static_cell::StaticCell;

/// A task was woken since the executor last polled.
static WOKEN: AtomicBool = AtomicBool::new(true);

/// Called by embassy when a task is woken (in thread mode or in an interrupt).
#[unsafe(export_name = "__pender")]
fn pender(_context: *mut ()) {
    WOKEN.store(true, Ordering::Release);
}

/// Spawn the first tasks with `init`, then run them for ever.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    static EXECUTOR: StaticCell<raw::Executor> = StaticCell::new();
    let Some(executor) = EXECUTOR.try_init(raw::Executor::new(core::ptr::null_mut())) else {
        crate::fail("executor started twice");
    };
    let executor: &'static raw::Executor = executor;
    init(executor.spawner());
    loop {
        WOKEN.store(false, Ordering::Release);
        // SAFETY: `poll` is called from this one thread-mode loop only, never
        // re-entered from an interrupt.
        unsafe { executor.poll() };
        cortex_m::interrupt::free(|_| {
            if !WOKEN.load(Ordering::Acquire) {
                cortex_m::asm::wfi();
            }
        });
    }
}
