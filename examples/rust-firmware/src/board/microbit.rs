//! The BBC micro:bit in QEMU (`microbit`: nRF51822, Cortex-M0), on cortex-m-rt. What
//! the application needs of it: a polled driver for the nRF51 UART, the link line, the
//! semihosting call, and a HardFault handler; and TIMER0 running, which keeps QEMU
//! polling the UART's input ([`start_wake_timer`]).
//!
//! The nRF51 has one UART (0x40002000): it carries MCP and nothing else, so the relay's
//! link line is two files over semihosting ([`FileLink`], the relay's `--link files`).
//! The UART is polled by its events: a received byte raises EVENTS_RXDRDY, a sent one
//! EVENTS_TXDRDY; each is cleared by writing 0. QEMU's receiver holds 6 bytes and takes
//! more from the relay as the firmware reads them, so none is lost while it polls.
//!
//! thumbv6m has no atomic read-modify-write: emcp's change flags take the
//! `critical-section` that cortex-m's `critical-section-single-core` provides.

pub use cortex_m_rt::{entry, STACK_PAINT_VALUE as STACK_PAINT};

use core::ptr::{read_volatile, write_volatile};

use cortex_m_rt::{exception, ExceptionFrame};

use crate::link::file::FileLink;
use crate::stream::{Receiver, Transmitter};

/// The core this image is built for, in the start-up log.
pub const CPU: &str = "cortex-m0";

/// UART0's receive side: MCP bytes in.
pub type McpRx = Rx;
/// UART0's transmit side: MCP bytes out.
pub type McpTx = Tx;
/// The link line: files, over semihosting.
pub type McpLink = FileLink;

/// The UART that carries MCP, and the link line.
///
/// # Safety
///
/// Called once: nothing else in the program uses UART0.
pub unsafe fn parts() -> (McpRx, McpTx, McpLink) {
    // SAFETY: UART0 is the nRF51's UART and TIMER0 one of its timers, and (the caller's
    // contract) this is their only user.
    unsafe {
        init();
        start_wake_timer();
    }
    (Rx { _private: () }, Tx { _private: () }, FileLink::new())
}

/// One semihosting call (`bkpt 0xab`): operation `op`, parameter block at `block`.
///
/// # Safety
///
/// `block` is the parameter block `op` reads, valid for the whole call, and QEMU runs
/// with semihosting enabled (otherwise the breakpoint faults).
pub unsafe fn semihosting_call(op: u32, block: *const u32) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { cortex_m::asm::semihosting_syscall(op, block as u32) }
}

/// Wait for an interrupt (none is enabled: the core sleeps until QEMU stops).
pub fn wait() {
    cortex_m::asm::wfi();
}

/// A fault (a bus error, an undefined instruction): log it and end the program.
#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    crate::fail("hard fault")
}

/// UART0's registers, by offset from its base.
const UART0: usize = 0x4000_2000;
const TASKS_STARTRX: usize = 0x000;
const TASKS_STARTTX: usize = 0x008;
const EVENTS_RXDRDY: usize = 0x108;
const EVENTS_TXDRDY: usize = 0x11c;
const ENABLE: usize = 0x500;
const PSELTXD: usize = 0x50c;
const PSELRXD: usize = 0x514;
const RXD: usize = 0x518;
const TXD: usize = 0x51c;
const BAUDRATE: usize = 0x524;

/// ENABLE's value for the UART.
const ENABLE_UART: u32 = 4;
/// BAUDRATE's value for 115200 baud.
const BAUD_115200: u32 = 0x01d7_e000;
/// The micro:bit's pins to the interface chip's serial port: P0.24 (TX), P0.25 (RX).
const PIN_TX: u32 = 24;
const PIN_RX: u32 = 25;

/// Read UART0's register at `offset`.
fn get(offset: usize) -> u32 {
    // SAFETY: `offset` is one of the register offsets above, in UART0's register block
    // (aligned words, accessed volatile); reads have no side effect but RXD's, which
    // only `Rx` (the receiver's one owner) reads.
    unsafe { read_volatile((UART0 + offset) as *const u32) }
}

/// Write `value` to UART0's register at `offset`.
fn set(offset: usize, value: u32) {
    // SAFETY: as in `get`; registers are written by `init` and by the one owner of each
    // side (`Rx`: EVENTS_RXDRDY; `Tx`: TXD, EVENTS_TXDRDY).
    unsafe { write_volatile((UART0 + offset) as *mut u32, value) }
}

/// Configure and enable UART0 and start both directions. QEMU needs ENABLE and
/// TASKS_STARTRX (without it nothing is received) and ignores the pins and the baud
/// rate; a real nRF51 needs them all.
///
/// # Safety
///
/// Nothing else uses UART0.
unsafe fn init() {
    set(PSELTXD, PIN_TX);
    set(PSELRXD, PIN_RX);
    set(BAUDRATE, BAUD_115200);
    set(ENABLE, ENABLE_UART);
    set(TASKS_STARTTX, 1);
    set(TASKS_STARTRX, 1);
}

/// TIMER0's registers.
const TIMER0_START: usize = 0x4000_8000;
const TIMER0_SHORTS: usize = 0x4000_8200;
const TIMER0_MODE: usize = 0x4000_8504;
const TIMER0_BITMODE: usize = 0x4000_8508;
const TIMER0_PRESCALER: usize = 0x4000_8510;
const TIMER0_CC0: usize = 0x4000_8540;

/// Run TIMER0 in circles of 1 ms (1 MHz, cleared on reaching CC[0] = 1000; no
/// interrupt). Nothing reads it: it is there for QEMU, whose main loop then wakes every
/// millisecond. Bytes the relay sends before TASKS_STARTRX find the UART refusing
/// input, and QEMU polls its character backend again only when the main loop next
/// wakes for another reason: about 1 s later without the timer (a session of one
/// request took 1.2 s, 0.18 s with it). On hardware it only costs TIMER0's current.
///
/// # Safety
///
/// Nothing else uses TIMER0.
unsafe fn start_wake_timer() {
    let set = |register: usize, value: u32| {
        // SAFETY: `register` is one of TIMER0's registers above (aligned words,
        // accessed volatile), and (the caller's contract) nothing else uses TIMER0.
        unsafe { write_volatile(register as *mut u32, value) }
    };
    set(TIMER0_MODE, 0); // timer
    set(TIMER0_BITMODE, 3); // 32 bits
    set(TIMER0_PRESCALER, 4); // 16 MHz / 2^4: 1 MHz
    set(TIMER0_CC0, 1000); // 1 ms
    set(TIMER0_SHORTS, 1); // COMPARE[0] clears the count
    set(TIMER0_START, 1);
}

/// The receive side of UART0.
pub struct Rx {
    _private: (),
}

/// The transmit side of UART0.
pub struct Tx {
    _private: (),
}

impl Receiver for Rx {
    fn ready(&self) -> bool {
        get(EVENTS_RXDRDY) != 0
    }

    /// Clears EVENTS_RXDRDY before reading RXD: the read raises the event again when
    /// more bytes wait in the receive FIFO (cleared after, that event would be lost and
    /// the bytes left behind).
    fn read(&mut self) -> u8 {
        set(EVENTS_RXDRDY, 0);
        get(RXD) as u8
    }
}

impl Transmitter for Tx {
    /// Writes TXD, then waits for EVENTS_TXDRDY and clears it (a byte written while the
    /// previous one is still going out would be dropped).
    fn write(&mut self, byte: u8) {
        set(TXD, u32::from(byte));
        while get(EVENTS_TXDRDY) == 0 {}
        set(EVENTS_TXDRDY, 0);
    }
}
