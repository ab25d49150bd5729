//! embassy-time's driver. The time is read from a free-running counter, the board's
//! CMSDK timer 0 counting the 25 MHz peripheral clock, extended to 64 bits in
//! software; SysTick interrupts every millisecond to wake the timers that are due.
//! A late or lost SysTick interrupt (QEMU under load drops some) only delays a
//! wake-up: it never slows the clock.

use core::cell::{Cell, RefCell};
use core::ptr::{read_volatile, write_volatile};
use core::task::Waker;

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::exception;
use critical_section::{CriticalSection, Mutex};
use embassy_time_queue_utils::Queue;

/// The core and peripheral clock of QEMU's mps2-an385 (the AN385 FPGA image's
/// 25 MHz SYSCLK).
const CLOCK_HZ: u32 = 25_000_000;

/// Ticks per second (the `tick-hz-1_000_000` feature of `embassy-time-driver`).
const TICK_HZ: u32 = 1_000_000;

const _: () = assert!(embassy_time_driver::TICK_HZ == TICK_HZ as u64);

/// How often SysTick looks for timers that are due.
const CHECK_HZ: u32 = 1_000;

/// CMSDK APB timer 0: CTRL (bit 0: enable), VALUE (counts down), RELOAD.
const TIMER0: usize = 0x4000_0000;
const CTRL: usize = 0x0;
const VALUE: usize = 0x4;
const RELOAD: usize = 0x8;

struct Driver {
    /// The counter's value at the last reading (counting up), and how often it had
    /// wrapped by then: the 64-bit count is read at least every SysTick, far more
    /// often than the 32-bit counter wraps (every 171 s).
    counter: Mutex<Cell<(u32, u32)>>,
    /// The tick at which the earliest timer is due (`u64::MAX`: none).
    next: Mutex<Cell<u64>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: Driver = Driver {
    counter: Mutex::new(Cell::new((0, 0))),
    next: Mutex::new(Cell::new(u64::MAX)),
    queue: Mutex::new(RefCell::new(Queue::new())),
});

impl Driver {
    fn ticks(&self, cs: CriticalSection<'_>) -> u64 {
        // SAFETY: TIMER0's VALUE register, read only; the timer is this driver's.
        let elapsed = u32::MAX - unsafe { read_volatile((TIMER0 + VALUE) as *const u32) };
        let counter = self.counter.borrow(cs);
        let (last, mut wraps) = counter.get();
        if elapsed < last {
            wraps += 1;
        }
        counter.set((elapsed, wraps));
        ((u64::from(wraps) << 32) | u64::from(elapsed)) / u64::from(CLOCK_HZ / TICK_HZ)
    }

    /// Wake the timers that are due and note when the next one is.
    fn wake_due(&self, cs: CriticalSection<'_>) {
        let now = self.ticks(cs);
        let next = self.next.borrow(cs);
        if now >= next.get() {
            next.set(self.queue.borrow_ref_mut(cs).next_expiration(now));
        }
    }
}

impl embassy_time_driver::Driver for Driver {
    fn now(&self) -> u64 {
        critical_section::with(|cs| self.ticks(cs))
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| {
            let mut queue = self.queue.borrow_ref_mut(cs);
            if queue.schedule_wake(at, waker) {
                // A timer already due is woken here, the others at a SysTick.
                let now = self.ticks(cs);
                self.next.borrow(cs).set(queue.next_expiration(now));
            }
        });
    }
}

/// Start the clock and the periodic check.
pub fn init(mut syst: SYST) {
    // SAFETY: TIMER0's registers; nothing else in the program uses this timer.
    unsafe {
        write_volatile((TIMER0 + CTRL) as *mut u32, 0);
        write_volatile((TIMER0 + RELOAD) as *mut u32, u32::MAX);
        write_volatile((TIMER0 + VALUE) as *mut u32, u32::MAX);
        write_volatile((TIMER0 + CTRL) as *mut u32, 1);
    }
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(CLOCK_HZ / CHECK_HZ - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| DRIVER.wake_due(cs));
}
