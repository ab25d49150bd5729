//! The link line on a UART of its own (the MPS2 boards' UART1, sifive_e's UART1).

use super::{EofMessage, Link};
use crate::stream::{Receiver, Transmitter};

/// The link line on a UART of its own.
pub struct UartLink<R, T> {
    rx: R,
    tx: T,
    message: EofMessage,
}

impl<R: Receiver, T: Transmitter> UartLink<R, T> {
    /// The link over a UART's receive and transmit sides.
    pub fn new(rx: R, tx: T) -> Self {
        UartLink {
            rx,
            tx,
            message: EofMessage::new(),
        }
    }
}

impl<R: Receiver, T: Transmitter> Link for UartLink<R, T> {
    /// Every byte that waits is taken and parsed.
    fn end_of_input(&mut self) -> Option<u32> {
        while self.rx.ready() {
            self.message.push(self.rx.read());
        }
        self.message.end
    }

    fn send_idle(&mut self) {
        self.tx.write(b'I');
        self.tx.write(b'\n');
    }
}
