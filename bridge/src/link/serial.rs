//! A serial port as the device (`serialport`, no libudev): opened raw at a baud rate;
//! when it fails or its path disappears (USB re-enumeration) it is closed, and the
//! path is polled until it can be opened again.

use std::io::{self, Read};
use std::path::PathBuf;
use std::time::Duration;

use super::{backoff, Connection, Link};

/// How long one read waits before the path is checked again.
const READ_SLICE: Duration = Duration::from_millis(200);

/// A serial port.
#[derive(Debug)]
pub struct Serial {
    path: PathBuf,
    baud: u32,
}

impl Serial {
    /// The port at `path` (a device node, or a symlink such as
    /// `/dev/serial/by-id/...`), at `baud`.
    pub fn new(path: PathBuf, baud: u32) -> Self {
        Serial { path, baud }
    }
}

/// Reads that wait through quiet periods, and end when the port fails or its path
/// is gone.
struct PortReader {
    port: serialport::TTYPort,
    path: PathBuf,
}

impl Read for PortReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.port.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    if !self.path.exists() {
                        return Err(io::Error::new(io::ErrorKind::NotFound, "port disappeared"));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

/// Writes that wait up to [`WRITE_WAIT`] for a slow port to take bytes.
struct PortWriter(serialport::TTYPort);

/// How long a write may wait for the port before the device counts as gone.
const WRITE_WAIT: Duration = Duration::from_secs(5);

impl io::Write for PortWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut waited = Duration::ZERO;
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::TimedOut && waited < WRITE_WAIT => {
                    waited += READ_SLICE;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Link for Serial {
    fn open(&mut self) -> io::Result<Connection> {
        if !self.path.exists() {
            return Err(io::Error::new(io::ErrorKind::NotFound, "no such port"));
        }
        let path = self.path.to_string_lossy().into_owned();
        let port = serialport::new(path, self.baud)
            .timeout(READ_SLICE)
            .flow_control(serialport::FlowControl::None)
            .open_native()
            .map_err(io::Error::from)?;
        let reader = port.try_clone_native().map_err(io::Error::from)?;
        Ok(Connection {
            reader: Box::new(PortReader {
                port: reader,
                path: self.path.clone(),
            }),
            writer: Box::new(PortWriter(port)),
        })
    }

    fn close(&mut self) {
        // The pump drops both halves of the connection; nothing else is held.
    }

    fn retry_delay(&self, attempt: u32) -> Duration {
        backoff(
            Duration::from_millis(100),
            Duration::from_millis(500),
            attempt,
        )
    }

    fn describe(&self) -> String {
        format!("serial {} at {} baud", self.path.display(), self.baud)
    }
}
