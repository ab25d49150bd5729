//! The link line as two files in QEMU's working directory, over semihosting (the
//! micro:bit, whose nRF51 has one UART).

use super::{EofMessage, Link};
use crate::semihosting;

/// The link line as two files in QEMU's working directory, over semihosting.
pub struct FileLink {
    message: EofMessage,
    /// Polls left before `eof` is looked for again.
    countdown: u32,
}

impl FileLink {
    /// Polls of [`Link::end_of_input`] per look for `eof`. The reader polls on every
    /// spin while it waits for input; each look is a semihosting call (a trip out of
    /// the emulated CPU and a host `open`), so it is done on one poll in this many:
    /// about 2 ms apart in QEMU, which bounds how late the end of input is seen.
    const POLLS_PER_LOOK: u32 = 1 << 15;

    /// The link, before any `eof`.
    pub const fn new() -> Self {
        FileLink {
            message: EofMessage::new(),
            countdown: Self::POLLS_PER_LOOK,
        }
    }

    /// Read `eof` if the relay has written it (it is whole when it exists).
    fn look(&mut self) {
        let Some(file) = semihosting::open(b"eof\0", semihosting::MODE_R) else {
            return;
        };
        // `E` and a u32's ten digits and a newline.
        let mut buf = [0u8; 12];
        let n = semihosting::read(file, &mut buf);
        semihosting::close(file);
        for &byte in buf.iter().take(n) {
            self.message.push(byte);
        }
    }
}

impl Link for FileLink {
    /// Until `eof` was read, one poll in [`FileLink::POLLS_PER_LOOK`] looks for it.
    fn end_of_input(&mut self) -> Option<u32> {
        if self.message.end.is_none() {
            self.countdown = self.countdown.saturating_sub(1);
            if self.countdown == 0 {
                self.countdown = Self::POLLS_PER_LOOK;
                self.look();
            }
        }
        self.message.end
    }

    /// Create `idle` (empty).
    fn send_idle(&mut self) {
        if let Some(file) = semihosting::open(b"idle\0", semihosting::MODE_W) {
            semihosting::close(file);
        }
    }
}
