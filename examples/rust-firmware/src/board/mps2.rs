//! The MPS2 boards in QEMU: mps2-an385 (Cortex-M3) and mps2-an386 (Cortex-M4F), on
//! cortex-m-rt. What the application needs of them: a polled driver for the ARM CMSDK
//! APB UART (no interrupts, no FIFO: one byte each way), the UART that carries MCP, the
//! link line, the semihosting call, and a HardFault handler.
//!
//! UART0 (0x40004000) carries MCP and nothing else. UART1 (0x40005000) is the relay's
//! link line ([`UartLink`]: `E<n>\n` in, `I\n` out). QEMU holds the next byte until the
//! one-byte receive buffer is read, so none is lost while the firmware polls.

pub use cortex_m_rt::{entry, STACK_PAINT_VALUE as STACK_PAINT};

use cortex_m_rt::{exception, ExceptionFrame};

use crate::link::uart::UartLink;

#[path = "cmsdk_uart.rs"]
mod uart;

use uart::{Rx, Tx, Uart};

/// The core this image is built for, in the start-up log.
#[cfg(target_abi = "eabihf")]
pub const CPU: &str = "cortex-m4f";
/// The core this image is built for, in the start-up log.
#[cfg(not(target_abi = "eabihf"))]
pub const CPU: &str = "cortex-m3";

/// UART0 of mps2-an385/an386.
const UART0: usize = 0x4000_4000;
/// UART1 of mps2-an385/an386.
const UART1: usize = 0x4000_5000;

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
    let (uart0, link) = unsafe { (Uart::new(UART0), Uart::new(UART1)) };
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
