//! The thread-mode executors: embassy's raw executor, twice, asleep in `WFI`
//! whenever no task is ready.
//!
//! The application's tasks run on one executor and the network stack's runner on the
//! other, polled only when no application task is ready: every task the runner
//! woke has run before the runner takes in the next packets. A socket the
//! application freed (its connection reset, the reset sent by the runner) listens
//! again before the next SYN is looked at, rather than after it: with one
//! executor, whose run queue is last-woken-first, the runner (woken by the
//! Ethernet interrupt and by every socket call) usually ran first, and at over
//! 1,000 new connections a second a SYN now and then found every socket still on
//! its way back and was reset (benches/firmware/load.sh).
//!
//! embassy-executor's own Cortex-M executor sleeps with `WFE` and wakes with `SEV`,
//! right on silicon; QEMU runs `WFE` as a no-op, so there the idle loop would spin a
//! host core at 100% and every idle cycle would count as executed instructions. `WFI`
//! with interrupts masked is the race-free form: a task woken from an interrupt
//! after the flags were tested leaves that interrupt pending, and a pending
//! interrupt ends `WFI` even while masked.

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{raw, Spawner};
use static_cell::StaticCell;

/// A task of the application's executor was woken since that executor last polled.
static APP_WOKEN: AtomicBool = AtomicBool::new(true);
/// The network runner's executor was woken since it last polled.
static NET_WOKEN: AtomicBool = AtomicBool::new(true);

/// Called by embassy when a task is woken (in thread mode or in an interrupt), with
/// the context its executor was made with: that executor's flag.
#[unsafe(export_name = "__pender")]
fn pender(context: *mut ()) {
    // SAFETY: both executors are made in `run` with the address of one of the
    // flags above, statics that live for ever, as their context.
    let woken = unsafe { &*context.cast::<AtomicBool>() };
    woken.store(true, Ordering::Release);
}

/// Spawn the first tasks with `init` (the application's spawner, then the network
/// runner's), then run them for ever, the application's first.
pub fn run(init: impl FnOnce(Spawner, Spawner)) -> ! {
    static APP: StaticCell<raw::Executor> = StaticCell::new();
    static NET: StaticCell<raw::Executor> = StaticCell::new();
    let flag = |woken: &'static AtomicBool| core::ptr::from_ref(woken).cast_mut().cast();
    let (Some(app), Some(net)) = (
        APP.try_init(raw::Executor::new(flag(&APP_WOKEN))),
        NET.try_init(raw::Executor::new(flag(&NET_WOKEN))),
    ) else {
        crate::fail("executor started twice");
    };
    let (app, net): (&'static raw::Executor, &'static raw::Executor) = (app, net);
    init(app.spawner(), net.spawner());
    loop {
        // SAFETY (both polls): `poll` is called from this one thread-mode loop only,
        // never re-entered from an interrupt.
        if APP_WOKEN.swap(false, Ordering::AcqRel) {
            unsafe { app.poll() };
        } else if NET_WOKEN.swap(false, Ordering::AcqRel) {
            unsafe { net.poll() };
        } else {
            cortex_m::interrupt::free(|_| {
                if !APP_WOKEN.load(Ordering::Acquire) && !NET_WOKEN.load(Ordering::Acquire) {
                    cortex_m::asm::wfi();
                }
            });
        }
    }
}
