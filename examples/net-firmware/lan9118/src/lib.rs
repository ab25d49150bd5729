//! An [`embassy_net_driver::Driver`] for the SMSC LAN9118 Ethernet controller, as
//! QEMU emulates it on the `mps2-an385` board (`0x4020_0000`, interrupt 13).
//!
//! Programmed I/O through the data FIFOs: a received frame is read word by word
//! into the driver's own buffer when the stack consumes it; a frame to send is
//! written into the TX data FIFO behind its two command words. Reception is
//! interrupt-driven: [`Lan9118::receive`] enables the "RX status FIFO level"
//! interrupt when the FIFO is empty, and the board's interrupt handler calls
//! [`on_interrupt`], which masks the controller's interrupts again and wakes the
//! network stack. Transmission never waits: the emulated controller sends a frame
//! as soon as its last word is written.
//!
//! The frame buffers are the caller's ([`Buffers`]). One controller per program
//! (the waker is a `static`). The MAC address is the
//! one the controller holds at reset (QEMU: the `-nic` option's, default
//! `52:54:00:12:34:56`).
#![no_std]

use core::ptr::{read_volatile, write_volatile};
use core::task::Context;

use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};
use embassy_sync::waitqueue::AtomicWaker;

/// Base address of the controller on QEMU's `mps2-an385` and `mps2-an386`.
pub const MPS2_BASE: usize = 0x4020_0000;

/// Its external interrupt number there.
pub const MPS2_IRQ: u16 = 13;

/// Largest Ethernet frame handled, without the FCS.
pub const MTU: usize = 1514;

/// Frame buffer: a frame, its 4-byte FCS, rounded up to whole FIFO words.
const FRAME_BUF: usize = (MTU + 4 + 3) & !3;

// System control and status registers (byte offsets).
const RX_DATA_FIFO: usize = 0x00;
const TX_DATA_FIFO: usize = 0x20;
const RX_STATUS_FIFO: usize = 0x40;
const TX_STATUS_FIFO: usize = 0x48;
const ID_REV: usize = 0x50;
const IRQ_CFG: usize = 0x54;
const INT_STS: usize = 0x58;
const INT_EN: usize = 0x5c;
const BYTE_TEST: usize = 0x64;
const TX_CFG: usize = 0x70;
const HW_CFG: usize = 0x74;
const RX_FIFO_INF: usize = 0x7c;
const TX_FIFO_INF: usize = 0x80;
const PMT_CTRL: usize = 0x84;
const MAC_CSR_CMD: usize = 0xa4;
const MAC_CSR_DATA: usize = 0xa8;

const BYTE_TEST_VALUE: u32 = 0x8765_4321;
const HW_CFG_SRST: u32 = 1;
const PMT_CTRL_READY: u32 = 1;
/// IRQ pin enabled, active high, push-pull.
const IRQ_CFG_ACTIVE_HIGH: u32 = (1 << 8) | (1 << 4) | 1;
/// RX status FIFO level (more statuses than `FIFO_INT`'s level, 0 at reset).
const INT_RSFL: u32 = 1 << 3;
/// TX on, TX status FIFO allowed to overrun (statuses are not needed).
const TX_CFG_ON: u32 = (1 << 2) | (1 << 1);
const TX_CMD_A_FIRST: u32 = 1 << 13;
const TX_CMD_A_LAST: u32 = 1 << 12;
/// RX status: error summary.
const RX_STS_ERROR: u32 = 1 << 15;

const MAC_CSR_BUSY: u32 = 1 << 31;
const MAC_CSR_READ: u32 = 1 << 30;
const MAC_CR: u32 = 1;
const MAC_ADDRH: u32 = 2;
const MAC_ADDRL: u32 = 3;
/// Receiver and transmitter on, full duplex; exact address filter, broadcasts in,
/// every multicast frame in (MCPAS, bit 19: the stack keeps the groups it joined,
/// such as mDNS's 224.0.0.251, and drops the rest).
const MAC_CR_ON: u32 = (1 << 20) | (1 << 19) | (1 << 3) | (1 << 2);

/// Polls of a busy bit before giving up (the emulation is never busy).
const SPINS: u32 = 100_000;

static RX_WAKER: AtomicWaker = AtomicWaker::new();

/// Why [`Lan9118::new`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// `BYTE_TEST` did not read back its fixed pattern: no controller at this address.
    NotFound,
    /// The controller did not come out of reset, or a MAC register stayed busy.
    Timeout,
}

/// The controller's registers at a base address.
#[derive(Clone, Copy, Debug)]
struct Regs(usize);

impl Regs {
    fn read(self, offset: usize) -> u32 {
        // SAFETY: `Regs` is only built from the base address the caller of
        // `Lan9118::new` vouched for; every offset is a 32-bit register in its window.
        unsafe { read_volatile((self.0 + offset) as *const u32) }
    }

    fn write(self, offset: usize, value: u32) {
        // SAFETY: as in `read`.
        unsafe { write_volatile((self.0 + offset) as *mut u32, value) }
    }

    fn wait_clear(self, offset: usize, bit: u32) -> Result<(), Error> {
        for _ in 0..SPINS {
            if self.read(offset) & bit == 0 {
                return Ok(());
            }
        }
        Err(Error::Timeout)
    }

    fn wait_set(self, offset: usize, bit: u32) -> Result<(), Error> {
        for _ in 0..SPINS {
            if self.read(offset) & bit != 0 {
                return Ok(());
            }
        }
        Err(Error::Timeout)
    }

    fn mac_read(self, reg: u32) -> Result<u32, Error> {
        self.wait_clear(MAC_CSR_CMD, MAC_CSR_BUSY)?;
        self.write(MAC_CSR_CMD, MAC_CSR_BUSY | MAC_CSR_READ | reg);
        self.wait_clear(MAC_CSR_CMD, MAC_CSR_BUSY)?;
        Ok(self.read(MAC_CSR_DATA))
    }

    fn mac_write(self, reg: u32, value: u32) -> Result<(), Error> {
        self.wait_clear(MAC_CSR_CMD, MAC_CSR_BUSY)?;
        self.write(MAC_CSR_DATA, value);
        self.write(MAC_CSR_CMD, MAC_CSR_BUSY | reg);
        self.wait_clear(MAC_CSR_CMD, MAC_CSR_BUSY)
    }

    /// Statuses waiting in the RX status FIFO.
    fn rx_pending(self) -> u32 {
        (self.read(RX_FIFO_INF) >> 16) & 0xff
    }
}

/// The driver's frame buffers (one received frame, one to send: about 3 KiB),
/// supplied by the caller, typically in a `static` (`const` constructible, so
/// they need not pass through the stack).
pub struct Buffers {
    rx: [u8; FRAME_BUF],
    tx: [u8; FRAME_BUF],
}

impl Buffers {
    pub const fn new() -> Self {
        Buffers {
            rx: [0; FRAME_BUF],
            tx: [0; FRAME_BUF],
        }
    }
}

impl Default for Buffers {
    fn default() -> Self {
        Self::new()
    }
}

/// A LAN9118 and its frame buffers.
pub struct Lan9118<'d> {
    regs: Regs,
    mac: [u8; 6],
    buffers: &'d mut Buffers,
}

impl<'d> Lan9118<'d> {
    /// Reset the controller at `base` and start its receiver and transmitter.
    ///
    /// # Safety
    ///
    /// `base` must be the address of a LAN9118's register window, used by nothing
    /// else for as long as the driver lives.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when no controller answers there, [`Error::Timeout`] when
    /// it does not come out of reset.
    pub unsafe fn new(base: usize, buffers: &'d mut Buffers) -> Result<Self, Error> {
        let regs = Regs(base);
        if regs.read(BYTE_TEST) != BYTE_TEST_VALUE {
            return Err(Error::NotFound);
        }
        regs.write(HW_CFG, HW_CFG_SRST);
        regs.wait_clear(HW_CFG, HW_CFG_SRST)?;
        regs.wait_set(PMT_CTRL, PMT_CTRL_READY)?;
        regs.write(INT_EN, 0);
        regs.write(INT_STS, u32::MAX);
        regs.write(IRQ_CFG, IRQ_CFG_ACTIVE_HIGH);
        let low = regs.mac_read(MAC_ADDRL)?.to_le_bytes();
        let high = regs.mac_read(MAC_ADDRH)?.to_le_bytes();
        let mac = [low[0], low[1], low[2], low[3], high[0], high[1]];
        regs.write(TX_CFG, TX_CFG_ON);
        regs.mac_write(MAC_CR, MAC_CR_ON)?;
        Ok(Lan9118 { regs, mac, buffers })
    }

    /// The controller's `ID_REV` register (`0x0118_0001` for QEMU's).
    pub fn id(&self) -> u32 {
        self.regs.read(ID_REV)
    }

    /// The MAC address.
    pub fn mac(&self) -> [u8; 6] {
        self.mac
    }
}

/// The controller's interrupt: call from the board's handler for [`MPS2_IRQ`].
/// Masks the controller's interrupts (the line is level-triggered) and wakes the
/// receiver, which enables them again when it runs out of frames.
///
/// # Safety
///
/// `base` as for [`Lan9118::new`].
pub unsafe fn on_interrupt(base: usize) {
    Regs(base).write(INT_EN, 0);
    RX_WAKER.wake();
}

impl embassy_net_driver::Driver for Lan9118<'_> {
    type RxToken<'a>
        = RxToken<'a>
    where
        Self: 'a;
    type TxToken<'a>
        = TxToken<'a>
    where
        Self: 'a;

    fn receive(&mut self, cx: &mut Context) -> Option<(RxToken<'_>, TxToken<'_>)> {
        let regs = self.regs;
        if regs.rx_pending() == 0 {
            // Register first, then arm: a frame arriving in between raises the
            // interrupt, which finds the waker.
            RX_WAKER.register(cx.waker());
            regs.write(INT_STS, INT_RSFL);
            regs.write(INT_EN, INT_RSFL);
            if regs.rx_pending() == 0 {
                return None;
            }
        }
        let Buffers { rx, tx } = &mut *self.buffers;
        Some((RxToken { regs, buf: rx }, TxToken { regs, buf: tx }))
    }

    fn transmit(&mut self, _cx: &mut Context) -> Option<TxToken<'_>> {
        Some(TxToken {
            regs: self.regs,
            buf: &mut self.buffers.tx,
        })
    }

    fn link_state(&mut self, _cx: &mut Context) -> LinkState {
        LinkState::Up
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = MTU;
        caps.max_burst_size = Some(1);
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet(self.mac)
    }
}

/// A received frame, read from the FIFO when consumed.
pub struct RxToken<'a> {
    regs: Regs,
    buf: &'a mut [u8; FRAME_BUF],
}

impl embassy_net_driver::RxToken for RxToken<'_> {
    fn consume<R, F>(self, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let status = self.regs.read(RX_STATUS_FIFO);
        // The length counts the FCS, which the FIFO holds after the frame.
        let len = ((status >> 16) & 0x3fff) as usize;
        let words = len.div_ceil(4);
        for i in 0..words {
            let word = self.regs.read(RX_DATA_FIFO).to_le_bytes();
            if let Some(slot) = self.buf.get_mut(4 * i..4 * i + 4) {
                for (d, s) in slot.iter_mut().zip(word) {
                    *d = s;
                }
            }
        }
        let frame = if status & RX_STS_ERROR != 0 || len < 4 + 14 {
            0
        } else {
            (len - 4).min(MTU)
        };
        // A bad frame is handed over empty: smoltcp drops it.
        f(self.buf.get_mut(..frame).unwrap_or_default())
    }
}

/// Room for one frame to send.
pub struct TxToken<'a> {
    regs: Regs,
    buf: &'a mut [u8; FRAME_BUF],
}

impl embassy_net_driver::TxToken for TxToken<'_> {
    fn consume<R, F>(self, len: usize, f: F) -> R
    where
        F: FnOnce(&mut [u8]) -> R,
    {
        let len = len.min(MTU);
        let result = f(self.buf.get_mut(..len).unwrap_or_default());
        // Statuses of sent frames are not needed: drop them.
        for _ in 0..(self.regs.read(TX_FIFO_INF) >> 16) & 0xff {
            let _ = self.regs.read(TX_STATUS_FIFO);
        }
        let len32 = len as u32;
        self.regs
            .write(TX_DATA_FIFO, TX_CMD_A_FIRST | TX_CMD_A_LAST | len32);
        self.regs.write(TX_DATA_FIFO, (len32 << 16) | len32);
        for chunk in self.buf.get(..len).unwrap_or_default().chunks(4) {
            let mut word = [0u8; 4];
            for (w, &b) in word.iter_mut().zip(chunk) {
                *w = b;
            }
            self.regs.write(TX_DATA_FIFO, u32::from_le_bytes(word));
        }
        result
    }
}
