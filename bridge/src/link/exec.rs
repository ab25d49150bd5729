//! A child process as the device: its stdin and stdout carry the protocol, its stderr
//! is the bridge's. When it exits it is started again (the pump's backoff).

use std::io;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{backoff, Connection, Link};

/// How long a child whose stdout ended may take to exit before it is killed.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A command run as the device.
#[derive(Debug)]
pub struct Exec {
    program: String,
    args: Vec<String>,
    /// The first restart delay; doubled per quick restart up to `max_delay`.
    first_delay: Duration,
    max_delay: Duration,
    child: Option<Child>,
}

impl Exec {
    /// Run `program` with `args`; restart it after `first_delay`, doubling per
    /// consecutive restart up to `max_delay`.
    pub fn new(
        program: String,
        args: Vec<String>,
        first_delay: Duration,
        max_delay: Duration,
    ) -> Self {
        Exec {
            program,
            args,
            first_delay,
            max_delay,
            child: None,
        }
    }

    /// End the child: wait up to `grace` for it to exit by itself, then kill its
    /// process group.
    fn end(&mut self, grace: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let deadline = Instant::now() + grace;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    if !status.success() {
                        eprintln!("emcp-bridge: device process {status}");
                    }
                    return;
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                _ => break,
            }
        }
        if let Ok(pid) = i32::try_from(child.id()) {
            // The child leads its own process group (QEMU behind a script dies too).
            // SAFETY: kill(2) with a negative pid signals a process group; no memory
            // is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Link for Exec {
    fn open(&mut self) -> io::Result<Connection> {
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("child without pipes"));
        };
        self.child = Some(child);
        Ok(Connection {
            reader: Box::new(stdout),
            writer: Box::new(stdin),
        })
    }

    fn close(&mut self) {
        self.end(EXIT_GRACE);
    }

    fn stop(&mut self) {
        self.end(EXIT_GRACE);
    }

    fn retry_delay(&self, attempt: u32) -> Duration {
        backoff(self.first_delay, self.max_delay, attempt)
    }

    fn describe(&self) -> String {
        format!("exec {} {}", self.program, self.args.join(" "))
    }
}
