//! The link line to `examples/firmware/relay.py`: how the relay tells the firmware
//! where its input ended (`E<n>\n`: after n MCP bytes), and how the firmware answers
//! that every request was answered (idle). A board picks one form, as the relay's
//! `--link` does:
//!
//! - [`uart::UartLink`]: a second UART (the MPS2 boards' UART1, sifive_e's UART1):
//!   `E<n>\n` comes in on it, `I\n` goes out.
//! - [`file::FileLink`]: two files in QEMU's working directory, over semihosting, for a
//!   board with one UART (the micro:bit's nRF51): the relay writes `eof` (whole: written
//!   aside, then renamed), which the firmware reads while it waits for input; the
//!   firmware says idle by creating `idle`.

// A board links over one form: the other one is unused in its image.
#[allow(dead_code, reason = "a board uses one form of the link line")]
pub mod file;
#[allow(dead_code, reason = "a board uses one form of the link line")]
pub mod uart;

/// The board's side of the link line.
pub trait Link {
    /// The number of MCP bytes the relay sent before its input ended, once it said so.
    fn end_of_input(&mut self) -> Option<u32>;
    /// Tell the relay the firmware is idle: every request answered.
    fn send_idle(&mut self);
}

/// The relay's `E<digits>\n`, parsed a byte at a time (other bytes are ignored).
pub(crate) struct EofMessage {
    /// The number being parsed.
    number: u32,
    /// The relay's byte count at end of input, once its message was whole.
    pub(crate) end: Option<u32>,
}

impl EofMessage {
    pub(crate) const fn new() -> Self {
        EofMessage {
            number: 0,
            end: None,
        }
    }

    pub(crate) fn push(&mut self, byte: u8) {
        match byte {
            b'E' => self.number = 0,
            c @ b'0'..=b'9' => {
                self.number = self
                    .number
                    .wrapping_mul(10)
                    .wrapping_add(u32::from(c - b'0'))
            }
            b'\n' => self.end = Some(self.number),
            _ => {}
        }
    }
}
