//! The MCP byte stream as blocking `embedded-io`, over any board's UART: what
//! `emcp::transport::serve::serve` reads and writes.
//!
//! A board hands over the receive and transmit sides of the UART that carries MCP
//! ([`Receiver`], [`Transmitter`]) and its link line to the relay ([`Link`]). A UART
//! has no "end of stream": the relay says where the input ended on the link line, and
//! [`McpReader`] turns that into end of input (`read` returns 0) once every byte before
//! it has arrived, which is what `serve` waits for to finish.
//!
//! Polling: `read` spins on the receiver while nothing has arrived. A product would
//! sleep on the UART's receive interrupt; QEMU and the relay only need bytes to be taken
//! as they come (QEMU holds further bytes until the UART has room, so none is lost).

use core::convert::Infallible;

use crate::link::Link;

/// The receive side of a UART, polled.
pub trait Receiver {
    /// Whether a received byte waits.
    fn ready(&self) -> bool;
    /// The waiting byte (call after [`Receiver::ready`] said one waits).
    fn read(&mut self) -> u8;
}

/// The transmit side of a UART, polled.
pub trait Transmitter {
    /// Send one byte, waiting while the UART cannot take it.
    fn write(&mut self, byte: u8);
}

/// The reading half of the MCP byte stream: the UART's receive side for the bytes, and
/// the link line for the end of input (and the idle answer).
pub struct McpReader<R, L> {
    rx: R,
    link: L,
    /// MCP bytes received.
    received: u32,
    /// Called on each read (the stack check).
    on_read: fn(),
}

impl<R: Receiver, L: Link> McpReader<R, L> {
    /// The reader over `rx` and `link`; `on_read` runs on each read.
    pub fn new(rx: R, link: L, on_read: fn()) -> Self {
        McpReader {
            rx,
            link,
            received: 0,
            on_read,
        }
    }

    /// Whether the relay's input has ended and every byte it sent has arrived.
    fn at_end(&mut self) -> bool {
        matches!(self.link.end_of_input(), Some(n) if self.received >= n)
    }

    /// Tell the relay the firmware is idle: every request answered.
    pub fn send_idle(&mut self) {
        self.link.send_idle();
    }
}

impl<R, L> embedded_io::ErrorType for McpReader<R, L> {
    type Error = Infallible;
}

impl<R: Receiver, L: Link> embedded_io::Read for McpReader<R, L> {
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

impl<R: Receiver, L: Link> embedded_io::ReadReady for McpReader<R, L> {
    /// A byte waits, or the input has ended (`read` then returns at once).
    fn read_ready(&mut self) -> Result<bool, Infallible> {
        Ok(self.rx.ready() || self.at_end())
    }
}

/// The writing half of the MCP byte stream: the UART's transmit side.
pub struct McpWriter<T> {
    tx: T,
}

impl<T: Transmitter> McpWriter<T> {
    /// The writer over `tx`.
    pub fn new(tx: T) -> Self {
        McpWriter { tx }
    }
}

impl<T> embedded_io::ErrorType for McpWriter<T> {
    type Error = Infallible;
}

impl<T: Transmitter> embedded_io::Write for McpWriter<T> {
    /// Every byte, each once the UART takes it.
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
