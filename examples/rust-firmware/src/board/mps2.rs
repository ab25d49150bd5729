//! The MPS2 boards in QEMU: mps2-an385 (Cortex-M3) and mps2-an386 (Cortex-M4F), on
//! cortex-m-rt. What the application needs of them: a polled driver for the ARM CMSDK
//! APB UART (no interrupts, no FIFO: one byte each way), the UART that carries MCP, the
//! link line, the semihosting call, and a HardFault handler.
//!
//! UART0 (0x40004000) carries MCP and nothing else. UART1 (0x40005000) is the relay's
//! link line ([`UartLink`]: `E<n>\n` in, `I\n` out). QEMU holds the next byte until the
//! one-byte receive buffer is read, so none is lost while the firmware polls.

pub use cortex_m_rt::{entry, STACK_PAINT_VALUE as STACK_PAINT};

use core::ptr::{addr_of, addr_of_mut, read_volatile, write_volatile};

use cortex_m_rt::{exception, ExceptionFrame};

use crate::link::uart::UartLink;
use crate::stream::{Receiver, Transmitter};

/// The core this image is built for, in the start-up log.
#[cfg(target_abi = "eabihf")]
pub const CPU: &str = "cortex-m4f";
/// The core this image is built for, in the start-up log.
#[cfg(not(target_abi = "eabihf"))]
pub const CPU: &str = "cortex-m3";

/// UART0's receive side: MCP bytes in.
pub type McpRx = Rx;
/// UART0's transmit side: MCP bytes out.
pub type McpTx = Tx;
/// The link line: UART1.
pub type McpLink = UartLink<Rx, Tx>;

/// The UART that carries MCP, and the link line.
///
/// # Safety
///
/// Called once: nothing else in the program uses UART0 or UART1.
pub unsafe fn parts() -> (McpRx, McpTx, McpLink) {
    // SAFETY: UART0 and UART1 are the board's CMSDK UARTs, and (the caller's contract)
    // these are their only users.
    let (uart0, link) = unsafe { (Uart::new(Uart::UART0), Uart::new(Uart::UART1)) };
    let (rx, tx) = uart0.split();
    let (link_rx, link_tx) = link.split();
    (rx, tx, UartLink::new(link_rx, link_tx))
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

/// A fault (a bus error, an undefined instruction): log it and end the program. A
/// stack overflow faults while entering this handler and locks the core up instead.
#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    crate::fail("hard fault")
}

/// The registers of one CMSDK APB UART.
#[repr(C)]
struct Registers {
    /// +0x00 received byte / byte to transmit.
    data: u32,
    /// +0x04 bit 0 TX buffer full, bit 1 RX buffer full.
    state: u32,
    /// +0x08 bit 0 TX enable, bit 1 RX enable.
    ctrl: u32,
    /// +0x0c interrupt status (unused).
    _intstatus: u32,
    /// +0x10 baud divider, at least 16.
    bauddiv: u32,
}

const TX_FULL: u32 = 0x1;
const RX_FULL: u32 = 0x2;
const TX_RX_ENABLE: u32 = 0x3;

/// One UART of the board: its receive side [`Rx`] and transmit side [`Tx`], which
/// may be held apart (DATA reads and STATE reads take received bytes; DATA writes send).
pub struct Uart {
    rx: Rx,
    tx: Tx,
}

/// The receive side of a [`Uart`].
pub struct Rx {
    regs: *mut Registers,
}

/// The transmit side of a [`Uart`].
pub struct Tx {
    regs: *mut Registers,
}

/// STATE of the UART at `regs`.
fn state(regs: *mut Registers) -> u32 {
    // SAFETY: `regs` is a UART's register block (`Uart::new`'s contract); a volatile
    // MMIO read of an aligned word.
    unsafe { read_volatile(addr_of!((*regs).state)) }
}

impl Uart {
    /// UART0 of mps2-an385/an386.
    pub const UART0: usize = 0x4000_4000;
    /// UART1 of mps2-an385/an386.
    pub const UART1: usize = 0x4000_5000;

    /// Take the UART at `base` and enable its transmitter and receiver.
    ///
    /// # Safety
    ///
    /// `base` is a CMSDK UART's register block ([`Uart::UART0`], [`Uart::UART1`]), and
    /// nothing else in the program uses it while this value (or its halves) lives.
    pub unsafe fn new(base: usize) -> Self {
        let regs = base as *mut Registers;
        // SAFETY: the caller gives us the register block (above); these are aligned
        // MMIO words, accessed volatile.
        unsafe {
            write_volatile(addr_of_mut!((*regs).bauddiv), 16);
            write_volatile(addr_of_mut!((*regs).ctrl), TX_RX_ENABLE);
            // Read DATA once (harmless when empty). In QEMU this tells the character
            // backend that the UART takes input now: without it, bytes sent before the
            // receiver was enabled wait until QEMU's main loop wakes for another reason
            // (up to ~1 s). The C image's uart_init does the same.
            let _ = read_volatile(addr_of!((*regs).data));
        }
        Uart {
            rx: Rx { regs },
            tx: Tx { regs },
        }
    }

    /// The receive and transmit sides.
    pub fn split(self) -> (Rx, Tx) {
        (self.rx, self.tx)
    }
}

impl Receiver for Rx {
    fn ready(&self) -> bool {
        state(self.regs) & RX_FULL != 0
    }

    fn read(&mut self) -> u8 {
        // SAFETY: as in `state`. Only the low 8 bits of DATA carry the byte.
        unsafe { read_volatile(addr_of!((*self.regs).data)) as u8 }
    }
}

impl Transmitter for Tx {
    /// Waits while the one-byte transmit buffer is full.
    fn write(&mut self, byte: u8) {
        while state(self.regs) & TX_FULL != 0 {}
        // SAFETY: as in `state`; a volatile MMIO write of DATA.
        unsafe { write_volatile(addr_of_mut!((*self.regs).data), u32::from(byte)) }
    }
}
