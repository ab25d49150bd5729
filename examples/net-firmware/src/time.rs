//! embassy-time's driver on the SysTick timer: a 1 kHz tick (`tick-hz-1_000`)
//! counted in 64 bits; each tick wakes the timers that are due. No alarm to
//! program, at the cost of one short interrupt per millisecond.

use core::cell::{Cell, RefCell};
use core::task::Waker;

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::exception;
use critical_section::Mutex;
use embassy_time_queue_utils::Queue;

/// The core clock of QEMU's mps2-an385 (the AN385 FPGA image's 25 MHz SYSCLK).
const CORE_HZ: u32 = 25_000_000;

/// Ticks per second (the `tick-hz-1_000` feature of `embassy-time-driver`).
const TICK_HZ: u32 = 1_000;

const _: () = assert!(embassy_time_driver::TICK_HZ == TICK_HZ as u64);

struct SysTickDriver {
    /// Ticks since [`init`].
    now: Mutex<Cell<u64>>,
    /// The tick at which the earliest timer is due (`u64::MAX`: none).
    next: Mutex<Cell<u64>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: SysTickDriver = SysTickDriver {
    now: Mutex::new(Cell::new(0)),
    next: Mutex::new(Cell::new(u64::MAX)),
    queue: Mutex::new(RefCell::new(Queue::new())),
});

impl embassy_time_driver::Driver for SysTickDriver {
    fn now(&self) -> u64 {
        critical_section::with(|cs| self.now.borrow(cs).get())
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| {
            let mut queue = self.queue.borrow_ref_mut(cs);
            if queue.schedule_wake(at, waker) {
                // A timer already due is woken here, the others at their tick.
                let now = self.now.borrow(cs).get();
                self.next.borrow(cs).set(queue.next_expiration(now));
            }
        });
    }
}

/// Start the tick.
pub fn init(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(CORE_HZ / TICK_HZ - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        let now = DRIVER.now.borrow(cs);
        now.set(now.get() + 1);
        let next = DRIVER.next.borrow(cs);
        if now.get() >= next.get() {
            let mut queue = DRIVER.queue.borrow_ref_mut(cs);
            next.set(queue.next_expiration(now.get()));
        }
    });
}
