//! embassy-time's driver, tickless. The time is read from a free-running counter, the
//! board's CMSDK timer 0 counting the 25 MHz peripheral clock, extended to 64 bits in
//! software; CMSDK timer 1 is a one-shot alarm set for the earliest timer due, so the
//! core sleeps until then (no periodic tick: an idle device takes no interrupts). A
//! late alarm only delays a wake-up: it never slows the clock.

use core::cell::{Cell, RefCell};
use core::ptr::{read_volatile, write_volatile};
use core::task::Waker;

use critical_section::{CriticalSection, Mutex};
use embassy_time_queue_utils::Queue;

/// The core and peripheral clock of QEMU's mps2-an385 (the AN385 FPGA image's
/// 25 MHz SYSCLK).
const CLOCK_HZ: u32 = 25_000_000;

/// Ticks per second (the `tick-hz-1_000_000` feature of `embassy-time-driver`).
const TICK_HZ: u32 = 1_000_000;

const _: () = assert!(embassy_time_driver::TICK_HZ == TICK_HZ as u64);

/// The longest the alarm is set ahead, in clock cycles (60 s): the alarm reads the
/// counter at least this often, well within the 171 s in which it wraps.
const MAX_ALARM: u32 = 60 * CLOCK_HZ;

/// CMSDK APB timers: CTRL (bit 0: enable, bit 3: interrupt enable), VALUE (counts
/// down), RELOAD, INTCLEAR. Timer 0 is the clock, timer 1 the alarm.
const TIMER0: usize = 0x4000_0000;
const TIMER1: usize = 0x4000_1000;
const CTRL: usize = 0x0;
const VALUE: usize = 0x4;
const RELOAD: usize = 0x8;
const INTCLEAR: usize = 0xc;
const ENABLE: u32 = 1;
const IRQ_ENABLE: u32 = 1 << 3;

/// Timer 1's external interrupt on mps2-an385 (QEMU hw/arm/mps2.c).
pub const ALARM_IRQ: u16 = 9;

struct Driver {
    /// The counter's value at the last reading (counting up), and how often it had
    /// wrapped by then: the 64-bit count is read at least every SysTick, far more
    /// often than the 32-bit counter wraps (every 171 s).
    counter: Mutex<Cell<(u32, u32)>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: Driver = Driver {
    counter: Mutex::new(Cell::new((0, 0))),
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

    /// Wake the timers that are due and set the alarm for the next one.
    fn wake_due(&self, cs: CriticalSection<'_>) {
        let now = self.ticks(cs);
        // The queue is only borrowed inside critical sections, never twice at once.
        let Ok(mut queue) = self.queue.borrow(cs).try_borrow_mut() else {
            return;
        };
        let next = queue.next_expiration(now);
        drop(queue);
        // `next_expiration` woke every timer due by `now`, so `next` is later
        // (`u64::MAX` when none is set).
        let cycles = next
            .saturating_sub(now)
            .saturating_mul(u64::from(CLOCK_HZ / TICK_HZ))
            .clamp(1, u64::from(MAX_ALARM)) as u32;
        // SAFETY: TIMER1's registers; only this driver uses the timer, and only in a
        // critical section.
        unsafe {
            write_volatile((TIMER1 + CTRL) as *mut u32, 0);
            write_volatile((TIMER1 + INTCLEAR) as *mut u32, 1);
            // With no timer, still at most MAX_ALARM ahead, to keep the clock.
            write_volatile((TIMER1 + VALUE) as *mut u32, cycles);
            write_volatile((TIMER1 + CTRL) as *mut u32, ENABLE | IRQ_ENABLE);
        }
    }
}

impl embassy_time_driver::Driver for Driver {
    fn now(&self) -> u64 {
        critical_section::with(|cs| self.ticks(cs))
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| {
            let Ok(mut queue) = self.queue.borrow(cs).try_borrow_mut() else {
                return;
            };
            let earlier = queue.schedule_wake(at, waker);
            drop(queue);
            if earlier {
                self.wake_due(cs);
            }
        });
    }
}

/// Start the clock and the alarm (its interrupt, [`ALARM_IRQ`], is the caller's to
/// unmask and to route to [`on_alarm`]).
pub fn init() {
    // SAFETY: TIMER0's and TIMER1's registers; nothing else in the program uses them.
    unsafe {
        write_volatile((TIMER0 + CTRL) as *mut u32, 0);
        write_volatile((TIMER0 + RELOAD) as *mut u32, u32::MAX);
        write_volatile((TIMER0 + VALUE) as *mut u32, u32::MAX);
        write_volatile((TIMER0 + CTRL) as *mut u32, ENABLE);
        write_volatile((TIMER1 + CTRL) as *mut u32, 0);
        write_volatile((TIMER1 + RELOAD) as *mut u32, MAX_ALARM);
    }
    critical_section::with(|cs| DRIVER.wake_due(cs));
}

/// The clock's raw cycle count (wraps every 171 s).
pub fn cycles() -> u32 {
    // SAFETY: TIMER0's VALUE register, read only.
    u32::MAX - unsafe { read_volatile((TIMER0 + VALUE) as *const u32) }
}

/// The alarm's interrupt: wake the timers that are due, set the next alarm.
pub fn on_alarm() {
    critical_section::with(|cs| DRIVER.wake_due(cs));
}
