//! A polled driver for the ARM CMSDK APB UART of the MPS2 boards (no interrupts, no
//! FIFO: one byte each way). The board module names the UARTs' addresses.

use core::ptr::{addr_of, addr_of_mut, read_volatile, write_volatile};

use crate::stream::{Receiver, Transmitter};

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
    /// Take the UART at `base` and enable its transmitter and receiver.
    ///
    /// # Safety
    ///
    /// `base` is a CMSDK UART's register block, and nothing else in the program uses it
    /// while this value (or its halves) lives.
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
