//! The device side: something that can be opened into a byte stream carrying
//! newline-delimited JSON-RPC both ways, and opened again after it went away.

pub mod exec;
pub mod serial;

use std::io::{self, Read, Write};
use std::time::Duration;

/// An open connection to the device: its output and its input.
pub struct Connection {
    /// Bytes from the device. End of stream or an error means the device went away.
    pub reader: Box<dyn Read + Send>,
    /// Bytes to the device. Dropping it closes the device's input (a child's stdin).
    pub writer: Box<dyn Write + Send>,
}

/// A device link: opened, used until its reader ends, closed, opened again.
pub trait Link: Send {
    /// Open the device. An error means "not now": [`Link::retry_delay`] later the
    /// pump tries again.
    ///
    /// # Errors
    ///
    /// Why the device could not be opened (a missing port, a command that failed to
    /// start).
    fn open(&mut self) -> io::Result<Connection>;

    /// The connection ended (its reader saw end of stream or an error): release what
    /// is left of it (reap a child, drop a port).
    fn close(&mut self);

    /// Stop the device for good: a child is killed; a port is released.
    fn stop(&mut self) {
        self.close();
    }

    /// How long to wait before the `attempt`-th consecutive open (1 after the first
    /// connection ended). Default: 100 ms doubling to 2 s.
    fn retry_delay(&self, attempt: u32) -> Duration {
        backoff(Duration::from_millis(100), Duration::from_secs(2), attempt)
    }

    /// What the link is, for diagnostics (`serial /dev/ttyACM0`).
    fn describe(&self) -> String;
}

/// `first`, doubled per attempt after the first, at most `max`.
///
/// ```
/// use std::time::Duration;
/// use emcp_bridge::link::backoff;
/// let ms = |a| backoff(Duration::from_millis(100), Duration::from_secs(2), a).as_millis();
/// assert_eq!([ms(0), ms(1), ms(2), ms(3), ms(9)], [0, 100, 200, 400, 2000]);
/// ```
pub fn backoff(first: Duration, max: Duration, attempt: u32) -> Duration {
    if attempt == 0 {
        return Duration::ZERO;
    }
    let factor = 1u32.checked_shl(attempt - 1).unwrap_or(u32::MAX);
    first.saturating_mul(factor).min(max)
}
