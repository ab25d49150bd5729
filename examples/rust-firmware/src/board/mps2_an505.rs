//! The MPS2 with the AN505 image in QEMU (`mps2-an505`: Cortex-M33, ARMv8-M with the
//! Security Extension), on cortex-m-rt. The CMSDK UARTs of the other MPS2 boards, on
//! another memory map; what the application needs of it is as in `mps2.rs`.
//!
//! The core starts in the Secure state and the image stays there: code at 0x10000000
//! (the reset vector table, INITSVTOR0) and RAM at 0x38000000 are the secure aliases of
//! SSRAM1 and SSRAM2, and the UARTs are reached at their secure aliases (0x5020_0000:
//! the peripheral protection controllers let secure accesses through from reset).
//! UART0 carries MCP and nothing else; UART1 is the relay's link line ([`UartLink`]).

pub use cortex_m_rt::{entry, STACK_PAINT_VALUE as STACK_PAINT};

use cortex_m_rt::{exception, ExceptionFrame};

use crate::link::uart::UartLink;

#[path = "cmsdk_uart.rs"]
mod uart;

use uart::{Rx, Tx, Uart};

/// The core this image is built for, in the start-up log.
pub const CPU: &str = "cortex-m33";

/// UART0 of mps2-an505, secure alias.
const UART0: usize = 0x5020_0000;
/// UART1 of mps2-an505, secure alias.
const UART1: usize = 0x5020_1000;

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

/// A fault (a bus error, an undefined instruction; with no SecureFault handler
/// enabled, security faults escalate here): log it and end the program.
#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    crate::fail("hard fault")
}
