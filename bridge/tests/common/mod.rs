//! Running the built `emcp-bridge` against `flaky-device`, and a pseudo-terminal
//! standing in for a serial port.
#![allow(dead_code)]

use std::ffi::CStr;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BRIDGE: &str = env!("CARGO_BIN_EXE_emcp-bridge");
pub const DEVICE: &str = env!("CARGO_BIN_EXE_flaky-device");

/// How long a test waits for any one line.
pub const WAIT: Duration = Duration::from_secs(20);

pub const INIT: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bridge-test","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

pub fn call(id: &str, tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
    )
}

pub fn request(id: &str, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// A fresh temporary directory (removed on drop).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("emcp-bridge-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Keep a child's stderr in a shared string, a line at a time; each line is also shown
/// to `watch` (e.g. to find where a bridge listens).
pub fn keep_stderr(
    stderr: ChildStderr,
    mut watch: impl FnMut(&str) + Send + 'static,
) -> Arc<Mutex<String>> {
    let log = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&log);
    thread::spawn(move || {
        for line in BufReader::new(stderr).split(b'\n') {
            let Ok(line) = line else { return };
            let line = String::from_utf8_lossy(&line);
            watch(&line);
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    log
}

/// A running bridge: lines to its stdin, JSON lines from its stdout, its stderr kept.
pub struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    pub stderr: Arc<Mutex<String>>,
}

impl Bridge {
    pub fn start(args: &[&str]) -> Self {
        let mut child = Command::new(BRIDGE)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start emcp-bridge");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Bridge {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: keep_stderr(stderr, |_| {}),
        }
    }

    /// `emcp-bridge [bridge…] exec --restart-delay 20ms -- flaky-device [device…]`
    pub fn exec(bridge: &[&str], device: &[&str]) -> Self {
        let mut args: Vec<&str> = bridge.to_vec();
        args.extend(["exec", "--restart-delay", "20ms", "--", DEVICE]);
        args.extend(device);
        Bridge::start(&args)
    }

    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The bridge's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line, which must come within [`WAIT`] and be JSON.
    pub fn recv(&self) -> Value {
        match self.lines.recv_timeout(WAIT) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout not JSON ({e}): {line}\n{}", self.log())),
            Err(_) => panic!(
                "no line from the bridge within {WAIT:?}; stderr:\n{}",
                self.log()
            ),
        }
    }

    /// The next line if one comes within `d`.
    pub fn try_recv(&self, d: Duration) -> Option<Value> {
        self.lines
            .recv_timeout(d)
            .ok()
            .map(|l| serde_json::from_str(&l).expect("stdout is JSON"))
    }

    /// Lines until the response with this id (returned last).
    pub fn until_response(&self, id: &Value) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let v = self.recv();
            let done = v.get("method").is_none() && v.get("id") == Some(id);
            seen.push(v);
            if done {
                return seen;
            }
        }
    }

    /// Close stdin; every remaining line until the bridge exits (successfully).
    pub fn finish(mut self) -> Vec<Value> {
        self.stdin = None;
        let deadline = Instant::now() + WAIT;
        let mut rest = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => rest.push(serde_json::from_str(&line).expect("stdout is JSON")),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!(
                        "the bridge did not exit after end of input:\n{}",
                        self.log()
                    )
                }
            }
        }
        let status = self.child.wait().unwrap();
        assert!(status.success(), "bridge exit {status}:\n{}", self.log());
        rest
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Error code of a response, if it is an error.
pub fn error_code(v: &Value) -> Option<i64> {
    v.get("error")?.get("code")?.as_i64()
}

/// A pseudo-terminal: the master side (the "device" end) and the path of the slave
/// (the "serial port").
pub struct Pty {
    pub master: OwnedFd,
    /// Held open so the master sees no hangup before the bridge opens the port.
    pub slave: OwnedFd,
    pub path: PathBuf,
}

pub fn openpty() -> Pty {
    // SAFETY: plain libc calls on fds this function owns; every result is checked.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(master >= 0, "posix_openpt");
        let master = OwnedFd::from_raw_fd(master);
        assert_eq!(libc::grantpt(master.as_raw_fd()), 0);
        assert_eq!(libc::unlockpt(master.as_raw_fd()), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(
            libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()),
            0
        );
        let path = PathBuf::from(CStr::from_ptr(name.as_ptr()).to_str().unwrap());
        let slave = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        assert!(slave >= 0, "open slave");
        let slave = OwnedFd::from_raw_fd(slave);
        let mut t: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(slave.as_raw_fd(), &mut t), 0);
        libc::cfmakeraw(&mut t);
        assert_eq!(libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t), 0);
        Pty {
            master,
            slave,
            path,
        }
    }
}

/// Point `link` at `target`, atomically (a port re-enumerated under the same name).
pub fn point(link: &Path, target: &Path) {
    let tmp = link.with_extension("new");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp).unwrap();
    std::fs::rename(&tmp, link).unwrap();
}

/// A "board on a serial port": `flaky-device` on the master side of a fresh pty whose
/// slave `link` points to; whenever the device exits (a reset) a new pty and device
/// replace it under the same `link` after `gap`.
pub struct SerialBoard {
    stop: Arc<AtomicBool>,
    current: Arc<Mutex<Option<Child>>>,
    supervisor: Option<thread::JoinHandle<()>>,
    pub resets: Arc<Mutex<u32>>,
}

impl SerialBoard {
    pub fn start(link: PathBuf, device_args: Vec<String>, gap: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let current: Arc<Mutex<Option<Child>>> = Arc::new(Mutex::new(None));
        let resets = Arc::new(Mutex::new(0));
        let (s, c, r) = (Arc::clone(&stop), Arc::clone(&current), Arc::clone(&resets));
        let supervisor = thread::spawn(move || {
            while !s.load(Ordering::Acquire) {
                let pty = openpty();
                let input = pty.master.try_clone().unwrap();
                let child = Command::new(DEVICE)
                    .args(&device_args)
                    .stdin(Stdio::from(input))
                    .stdout(Stdio::from(pty.master))
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                *c.lock().unwrap() = Some(child);
                point(&link, &pty.path);
                // Wait for this incarnation to end.
                loop {
                    if let Some(child) = c.lock().unwrap().as_mut() {
                        if let Ok(Some(_)) = child.try_wait() {
                            break;
                        }
                    }
                    if s.load(Ordering::Acquire) {
                        break;
                    }
                    thread::sleep(Duration::from_millis(5));
                }
                drop(pty.slave);
                if s.load(Ordering::Acquire) {
                    break;
                }
                *r.lock().unwrap() += 1;
                let _ = std::fs::remove_file(&link); // the port is gone for a moment
                thread::sleep(gap);
            }
        });
        SerialBoard {
            stop,
            current,
            supervisor: Some(supervisor),
            resets,
        }
    }
}

impl Drop for SerialBoard {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(child) = self.current.lock().unwrap().as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(t) = self.supervisor.take() {
            let _ = t.join();
        }
    }
}

/// Requests the core rejects but answers with their id (a request with an id gets
/// exactly one response, whatever else is wrong with it).
pub const REJECTED_WITH_ID: [&str; 7] = [
    r#"{"jsonrpc":"2.0","id":2,"method":7}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":["ping"]}"#,
    r#"{"jsonrpc":"2.0","id":4}"#,
    r#"{"id":5,"method":"ping"}"#,
    r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}"#,
    r#"{"jsonrpc":"2.0","id":"8","method":null}"#,
];

/// What the core answers to `line` on a fresh sensor board, in process, read from a
/// stream as the board reads it (its line buffer): its lines.
pub fn core_answer(line: &str) -> Vec<Value> {
    struct Lines(Vec<u8>);
    impl emcp::wire::json::Sink for Lines {
        fn write(&mut self, bytes: &[u8]) -> Result<(), emcp::wire::json::SinkError> {
            self.0.extend_from_slice(bytes);
            Ok(())
        }
    }
    let mut server =
        emcp::Server::<sensor_board::Board>::new(sensor_board::Board::new(), sensor_board::CONFIG)
            .expect("the sensor board's configuration is valid");
    let mut out = Lines(Vec::new());
    let mut framer: Box<emcp::wire::framing::Framer<{ emcp::wire::framing::DEFAULT_LINE_LEN }>> =
        Box::default();
    let input = [line.as_bytes(), b"\n"].concat();
    emcp::transport::serve::feed(&mut server, &mut *framer, &input, &mut out);
    while server.poll(&mut out) {}
    out.0
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("the core writes JSON"))
        .collect()
}

/// The id and error code of a response.
pub fn id_and_code(v: &Value) -> (Value, Option<i64>) {
    (v["id"].clone(), error_code(v))
}
