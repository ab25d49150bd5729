//! `pty-serial`: a board on a serial port, for tests — the device command runs on
//! the master side of a fresh pseudo-terminal, and the bridge is started on its slave
//! side as on a serial port:
//!
//! ```text
//! pty-serial BRIDGE [BRIDGE-ARGS...] -- DEVICE [DEVICE-ARGS...]
//! ```
//!
//! runs `BRIDGE BRIDGE-ARGS... serial /dev/pts/N` on this process's stdin, stdout
//! and stderr, and `DEVICE` with its stdin and stdout on the terminal (its stderr
//! ours); exits with the bridge's status once it has ended, stopping the device.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Command, ExitCode, Stdio};

/// A pseudo-terminal in raw mode: (master, slave, the slave's path).
fn openpty() -> std::io::Result<(OwnedFd, OwnedFd, String)> {
    let err = std::io::Error::last_os_error;
    // SAFETY: plain libc calls on descriptors this function creates and owns; each
    // result is checked before it is used, and `name` outlives the calls reading it.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        if master < 0 {
            return Err(err());
        }
        let master = OwnedFd::from_raw_fd(master);
        if libc::grantpt(master.as_raw_fd()) != 0 || libc::unlockpt(master.as_raw_fd()) != 0 {
            return Err(err());
        }
        let mut name = [0 as libc::c_char; 128];
        if libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()) != 0 {
            return Err(err());
        }
        let slave = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if slave < 0 {
            return Err(err());
        }
        let slave = OwnedFd::from_raw_fd(slave);
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(slave.as_raw_fd(), &mut t) != 0 {
            return Err(err());
        }
        libc::cfmakeraw(&mut t);
        if libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t) != 0 {
            return Err(err());
        }
        let path = CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
        Ok((master, slave, path))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(split) = args.iter().position(|a| a == "--") else {
        eprintln!("usage: pty-serial BRIDGE [BRIDGE-ARGS...] -- DEVICE [DEVICE-ARGS...]");
        return ExitCode::from(2);
    };
    let (bridge, device) = (&args[..split], &args[split + 1..]);
    if bridge.is_empty() || device.is_empty() {
        eprintln!("usage: pty-serial BRIDGE [BRIDGE-ARGS...] -- DEVICE [DEVICE-ARGS...]");
        return ExitCode::from(2);
    }
    let run = || -> std::io::Result<ExitCode> {
        // The slave stays open here until the end: the device sees no hangup while
        // the bridge opens and closes the port.
        let (master, _slave, path) = openpty()?;
        let mut device = Command::new(&device[0])
            .args(&device[1..])
            .stdin(Stdio::from(master.try_clone()?))
            .stdout(Stdio::from(master))
            .spawn()?;
        let status = Command::new(&bridge[0])
            .args(&bridge[1..])
            .args(["serial", &path])
            .status();
        let _ = device.kill();
        let _ = device.wait();
        let status = status?;
        Ok(match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        })
    };
    run().unwrap_or_else(|e| {
        eprintln!("pty-serial: {e}");
        ExitCode::FAILURE
    })
}
