//! A polled driver for the ARM CMSDK APB UART of the MPS2 boards (no interrupts, no
//! FIFO: one byte each way), and the MCP byte stream over it as blocking `embedded-io`.
//!
//! UART0 (0x40004000) carries MCP and nothing else. UART1 (0x40005000) is the
//! link-control line of `examples/firmware/relay.py`: a UART has no "end of stream",
//! so the relay sends `E<n>\n` there when its input closed after n bytes, and waits for
//! `I\n` (idle) once every request was answered. [`McpReader`] turns that message
//! into end of input ([`McpReader`]'s `read` returns 0), which is what `emcp::transport::serve::serve`
//! waits for to finish.
//!
//! Polling: `read` spins on the status register while nothing has arrived. A product
//! would sleep on the UART's receive interrupt; QEMU and the relay only need bytes to
//! be taken as they come (QEMU holds the next byte until the one-byte buffer is read,
//! so none is lost).

use core::convert::Infallible;
use core::ptr::{addr_of, addr_of_mut, read_volatile, write_volatile};

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

impl Rx {
    /// Whether a received byte waits.
    pub fn ready(&self) -> bool {
        state(self.regs) & RX_FULL != 0
    }

    /// The waiting byte (call after [`Rx::ready`]).
    pub fn read(&mut self) -> u8 {
        // SAFETY: as in `state`. Only the low 8 bits of DATA carry the byte.
        unsafe { read_volatile(addr_of!((*self.regs).data)) as u8 }
    }
}

impl Tx {
    /// Send one byte, waiting while the transmit buffer is full.
    pub fn write(&mut self, byte: u8) {
        while state(self.regs) & TX_FULL != 0 {}
        // SAFETY: as in `state`; a volatile MMIO write of DATA.
        unsafe { write_volatile(addr_of_mut!((*self.regs).data), u32::from(byte)) }
    }
}

/// The reading half of the MCP byte stream: UART0's receive side for the bytes, and
/// UART1, the relay's link-control line, for the end of input (and the idle answer).
pub struct McpReader {
    rx: Rx,
    link_rx: Rx,
    link_tx: Tx,
    /// MCP bytes received on UART0.
    received: u32,
    /// The number of the link message being parsed.
    number: u32,
    /// The relay's byte count at end of input, once it sent `E<n>\n`.
    eof_at: Option<u32>,
    /// Called on each read (the stack check).
    on_read: fn(),
}

impl McpReader {
    /// The reader over `rx` (UART0's receive side) and `link` (UART1); `on_read` runs
    /// on each read.
    pub fn new(rx: Rx, link: Uart, on_read: fn()) -> Self {
        let (link_rx, link_tx) = link.split();
        McpReader {
            rx,
            link_rx,
            link_tx,
            received: 0,
            number: 0,
            eof_at: None,
            on_read,
        }
    }

    /// Read the link line: `E<digits>\n` is the end of input after that many bytes.
    fn poll_link(&mut self) {
        while self.link_rx.ready() {
            match self.link_rx.read() {
                b'E' => self.number = 0,
                c @ b'0'..=b'9' => {
                    self.number = self
                        .number
                        .wrapping_mul(10)
                        .wrapping_add(u32::from(c - b'0'))
                }
                b'\n' => self.eof_at = Some(self.number),
                _ => {}
            }
        }
    }

    /// Whether the relay's input has ended and every byte it sent has arrived.
    fn at_end(&mut self) -> bool {
        self.poll_link();
        matches!(self.eof_at, Some(n) if self.received >= n)
    }

    /// Tell the relay the firmware is idle: every request answered.
    pub fn send_idle(&mut self) {
        self.link_tx.write(b'I');
        self.link_tx.write(b'\n');
    }
}

impl embedded_io::ErrorType for McpReader {
    type Error = Infallible;
}

impl embedded_io::Read for McpReader {
    /// Wait for a byte (or the end of input: `Ok(0)`), then take every byte that
    /// waits, up to `buf`'s length.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        (self.on_read)();
        if buf.is_empty() {
            return Ok(0);
        }
        while !self.rx.ready() {
            if self.at_end() {
                return Ok(0);
            }
        }
        let mut n = 0;
        for slot in buf.iter_mut() {
            if !self.rx.ready() {
                break;
            }
            *slot = self.rx.read();
            n += 1;
        }
        self.received = self.received.wrapping_add(n as u32);
        Ok(n)
    }
}

impl embedded_io::ReadReady for McpReader {
    /// A byte waits, or the input has ended (`read` then returns at once).
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        Ok(self.rx.ready() || self.at_end())
    }
}

/// The writing half of the MCP byte stream: UART0's transmit side.
pub struct McpWriter {
    tx: Tx,
}

impl McpWriter {
    /// The writer over `tx` (UART0's transmit side).
    pub fn new(tx: Tx) -> Self {
        McpWriter { tx }
    }
}

impl embedded_io::ErrorType for McpWriter {
    type Error = Infallible;
}

impl embedded_io::Write for McpWriter {
    /// Every byte, each once the UART's one-byte transmit buffer is free.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        for &byte in buf {
            self.tx.write(byte);
        }
        Ok(buf.len())
    }

    /// Nothing to flush: `write` returns once the last byte is in the UART.
    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}
