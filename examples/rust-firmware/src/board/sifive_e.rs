//! The SiFive HiFive1 in QEMU (`sifive_e`: FE310, E31 core, built for RV32IMC), on
//! riscv-rt. What the application needs of it: a polled driver for the SiFive UART, the
//! link line, the semihosting call, the stack paint, and an exception handler.
//!
//! UART0 (0x10013000) carries MCP and nothing else. UART1 (0x10023000) is the relay's
//! link line ([`UartLink`]: `E<n>\n` in, `I\n` out). A received byte is taken by
//! reading RXDATA, which pops it: [`Receiver::ready`] looks at the receive watermark
//! (IP.RXWM: more bytes wait than RXCTRL.RXCNT, which stays 0) and only `read` touches
//! RXDATA. QEMU's transmitter drops a byte its character backend cannot take at once
//! (it never reports TXDATA full), so `run.sh rv32` joins the UARTs through the relay's
//! pipes, which take everything.
//!
//! riscv32imc has no atomic read-modify-write: emcp's change flags take the
//! `critical-section` that riscv's `critical-section-single-hart` provides.

pub use riscv_rt::entry;

use core::arch::{asm, global_asm};
use core::ptr::{read_volatile, write_volatile};

use crate::link::uart::UartLink;
use crate::stream::{Receiver, Transmitter};

/// The core this image is built for, in the start-up log.
pub const CPU: &str = "rv32imc (e31)";

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
    // SAFETY: UART0 and UART1 are the FE310's UARTs, and (the caller's contract) these
    // are their only users.
    let (uart0, link) = unsafe { (Uart::new(Uart::UART0), Uart::new(Uart::UART1)) };
    (uart0.rx, uart0.tx, UartLink::new(link.rx, link.tx))
}

/// One semihosting call: operation `op` in a0, parameter block at `block` in a1, then
/// the RISC-V semihosting sequence `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7`:
/// uncompressed (a compressed `c.ebreak` is a plain breakpoint) and 16-byte aligned, so
/// that the three instructions share one page, as the specification requires. One copy
/// (`inline(never)`): each inlined one would carry its own alignment padding.
///
/// # Safety
///
/// `block` is the parameter block `op` reads, valid for the whole call, and QEMU runs
/// with semihosting enabled (otherwise the `ebreak` traps).
#[inline(never)]
pub unsafe fn semihosting_call(op: u32, block: *const u32) -> u32 {
    let mut a0 = op as usize;
    // SAFETY: the caller's contract; the host reads the block and what it names and
    // writes only SYS_READ's buffer (memory is not declared untouched), then answers in
    // a0.
    unsafe {
        asm!(
            ".balign 16",
            ".option push",
            ".option norvc",
            "slli x0, x0, 0x1f",
            "ebreak",
            "srai x0, x0, 7",
            ".option pop",
            inout("a0") a0,
            in("a1") block,
            options(nostack, preserves_flags),
        );
    }
    a0 as u32
}

/// Wait for an interrupt (none is enabled: the core sleeps until QEMU stops).
pub fn wait() {
    riscv::asm::wfi();
}

/// The value the stack is painted with before `main` (cortex-m-rt's).
pub const STACK_PAINT: u32 = 0xcccc_cccc;

// riscv-rt calls `__pre_init` (feature `pre-init`) once the stack pointer is set and
// before RAM is initialised: paint the stack region from its bottom (`_stack_end`,
// memory.x) up to the stack pointer, which is still at the top, with STACK_PAINT.
// Assembly: no Rust runs before RAM is initialised.
global_asm!(
    ".section .text.__pre_init, \"ax\"",
    ".global __pre_init",
    "__pre_init:",
    "    la t0, _stack_end",
    "    li t1, 0xcccccccc",
    "1:  bgeu t0, sp, 2f",
    "    sw t1, 0(t0)",
    "    addi t0, t0, 4",
    "    j 1b",
    "2:  ret",
);

/// An exception (an access fault, an illegal instruction): log it and end the program.
/// A stack overflow faults on the first access below RAM, and this handler's own frame
/// then faults again (riscv-rt's trap entry saves registers on the stack).
#[export_name = "ExceptionHandler"]
extern "C" fn exception_handler(_frame: &riscv_rt::TrapFrame) -> ! {
    defmt::error!(
        "emcp: exception: mcause {=usize:#x}, mepc {=usize:#x}",
        riscv::register::mcause::read().bits(),
        riscv::register::mepc::read()
    );
    crate::fail("exception")
}

/// The registers of one SiFive UART, by offset.
const TXDATA: usize = 0x00;
const RXDATA: usize = 0x04;
const TXCTRL: usize = 0x08;
const RXCTRL: usize = 0x0c;
const IP: usize = 0x14;
const DIV: usize = 0x18;

/// TXDATA: the transmit FIFO is full. RXDATA: the receive FIFO was empty.
const FIFO_FLAG: u32 = 1 << 31;
/// TXCTRL.TXEN, RXCTRL.RXEN (the watermark fields 0).
const ENABLE: u32 = 1;
/// IP.RXWM: more bytes wait than RXCTRL.RXCNT (0).
const IP_RXWM: u32 = 1 << 1;
/// DIV for 115200 baud from the 16 MHz bus clock (QEMU ignores it).
const DIV_115200: u32 = 138;

/// One UART of the board: its receive side [`Rx`] and transmit side [`Tx`].
struct Uart {
    rx: Rx,
    tx: Tx,
}

/// The receive side of a UART.
pub struct Rx {
    base: usize,
}

/// The transmit side of a UART.
pub struct Tx {
    base: usize,
}

/// Read the register at `base + offset`.
fn get(base: usize, offset: usize) -> u32 {
    // SAFETY: `base` is a UART's register block (`Uart::new`'s contract) and `offset`
    // one of its registers above: an aligned word, accessed volatile. RXDATA, whose read
    // pops a byte, is only read by `Rx::read`.
    unsafe { read_volatile((base + offset) as *const u32) }
}

/// Write `value` to the register at `base + offset`.
fn set(base: usize, offset: usize, value: u32) {
    // SAFETY: as in `get`.
    unsafe { write_volatile((base + offset) as *mut u32, value) }
}

impl Uart {
    const UART0: usize = 0x1001_3000;
    const UART1: usize = 0x1002_3000;

    /// Take the UART at `base` and enable its transmitter and receiver.
    ///
    /// # Safety
    ///
    /// `base` is a SiFive UART's register block ([`Uart::UART0`], [`Uart::UART1`]),
    /// and nothing else in the program uses it while this value (or its halves) lives.
    unsafe fn new(base: usize) -> Self {
        set(base, DIV, DIV_115200);
        set(base, TXCTRL, ENABLE);
        set(base, RXCTRL, ENABLE);
        Uart {
            rx: Rx { base },
            tx: Tx { base },
        }
    }
}

impl Receiver for Rx {
    fn ready(&self) -> bool {
        get(self.base, IP) & IP_RXWM != 0
    }

    /// Pops the byte (RXDATA's low 8 bits).
    fn read(&mut self) -> u8 {
        get(self.base, RXDATA) as u8
    }
}

impl Transmitter for Tx {
    /// Waits while the transmit FIFO is full.
    fn write(&mut self, byte: u8) {
        while get(self.base, TXDATA) & FIFO_FLAG != 0 {}
        set(self.base, TXDATA, u32::from(byte));
    }
}
