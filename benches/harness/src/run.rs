//! One run of a server command: spawn, handshake, warm up, send the measured requests
//! (pipelined or one at a time), check every response (pipelined: once all have
//! arrived, so that checking does not compete with the server for the CPU), close
//! stdin, reap the child with `wait4` for its CPU time and peak RSS.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mix::{Writer, HANDSHAKE_ID};

/// How the measured requests are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// All requests written by a writer thread while the main thread reads.
    Pipelined,
    /// One request, wait for its response, then the next.
    Interactive,
}

impl Mode {
    /// `pipelined` / `interactive`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Pipelined => "pipelined",
            Mode::Interactive => "interactive",
        }
    }
}

/// What to run and how.
#[derive(Clone, Debug)]
pub struct Config {
    /// Requests and checks.
    pub writer: Writer,
    /// Pipelined or interactive.
    pub mode: Mode,
    /// Requests sent one at a time after the handshake, before the measured ones.
    pub warmup: u64,
    /// Send the child's stderr to /dev/null instead of ours.
    pub quiet_child: bool,
    /// Kill the child and fail when one run takes longer.
    pub timeout: Duration,
    /// The server command and its arguments.
    pub command: Vec<String>,
}

/// What one run measured.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Measured requests.
    pub n: u64,
    /// Child user + system CPU time, µs (whole process life).
    pub cpu_us: u64,
    /// Peak resident set size of the child and its descendants, KiB: the sum of their
    /// `VmHWM` in /proc, read after the last response, before stdin is closed (falls
    /// back to `ru_maxrss` without /proc).
    pub peak_rss_kib: u64,
    /// `ru_maxrss` from `wait4`, KiB. On Linux this is at least the harness's own peak
    /// RSS at spawn time (the spawned child starts as a copy of the harness and exec
    /// keeps the high-water mark), so it overstates small servers.
    pub ru_maxrss_kib: u64,
    /// First measured write to last measured response.
    pub wall: Duration,
    /// Bytes written to the child in the measured phase.
    pub bytes_out: u64,
    /// Bytes read from the child in the measured phase (notifications included).
    pub bytes_in: u64,
    /// Responses checked in the measured phase.
    pub responses: u64,
    /// Notifications received (whole run).
    pub notifications: u64,
    /// Round-trip latencies (interactive mode), µs.
    pub latencies_us: Vec<u64>,
    /// Remarks (e.g. the negotiated version differs, non-zero exit).
    pub notes: Vec<String>,
}

/// Run `config.command` once with `n` measured requests.
pub fn run(config: &Config, n: u64) -> Result<Stats, String> {
    let (program, args) = config.command.split_first().ok_or("no command given")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if config.quiet_child {
            Stdio::null()
        } else {
            Stdio::inherit()
        })
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let stdin = child.stdin.take().ok_or("no stdin pipe")?;
    let stdout = child.stdout.take().ok_or("no stdout pipe")?;

    // Watchdog: kill the child when the run takes too long (until it is reaped).
    let reaped = Arc::new(Mutex::new(false));
    let timed_out = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = {
        let (reaped, timed_out, timeout) = (reaped.clone(), timed_out.clone(), config.timeout);
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(timeout) {
                let reaped = reaped.lock().unwrap_or_else(|e| e.into_inner());
                if !*reaped {
                    timed_out.store(true, Ordering::SeqCst);
                    // SAFETY: plain syscall on our own unreaped child.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
        })
    };

    let mut stats = Stats {
        n,
        ..Stats::default()
    };
    let mut reader = Reader {
        inner: BufReader::with_capacity(256 * 1024, stdout),
        ahead: Vec::new(),
        line: Vec::with_capacity(16 * 1024),
        bytes: 0,
        notifications: 0,
    };
    let outcome = converse(config, n, stdin, &mut reader, &mut stats).and_then(|stdin| {
        // The child's own peak RSS, read while it is still alive (see `peak_rss_kib`).
        stats.peak_rss_kib = peak_rss_kib(pid);
        drop(stdin); // end of input: the child should now exit
                     // Late notifications up to end of output are tolerated; another response is not.
        if let Some((id, _)) = reader.next()? {
            return Err(format!(
                "unexpected response to id {id} after all {n} responses"
            ));
        }
        stats.notifications = reader.notifications;
        Ok(())
    });
    if outcome.is_err() {
        // The child may be waiting for more input or blocked writing: stop it.
        // SAFETY: plain syscall on our own unreaped child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let (status, usage) = wait4(pid)?;
    *reaped.lock().unwrap_or_else(|e| e.into_inner()) = true;
    let _ = done_tx.send(());
    let _ = watchdog.join();
    drop(child);

    if timed_out.load(Ordering::SeqCst) {
        return Err(format!(
            "timed out after {:?} ({} of {n} responses); child killed",
            config.timeout, stats.responses
        ));
    }
    outcome?;
    stats.cpu_us = tv_us(usage.ru_utime) + tv_us(usage.ru_stime);
    stats.ru_maxrss_kib = usage.ru_maxrss as u64;
    if stats.peak_rss_kib == 0 {
        stats.peak_rss_kib = stats.ru_maxrss_kib;
    }
    if libc::WIFEXITED(status) {
        let code = libc::WEXITSTATUS(status);
        if code != 0 {
            stats.notes.push(format!("child exited with status {code}"));
        }
    } else if libc::WIFSIGNALED(status) {
        stats
            .notes
            .push(format!("child killed by signal {}", libc::WTERMSIG(status)));
    }
    Ok(stats)
}

/// This process's own user + system CPU time so far, µs (all threads).
pub fn self_cpu_us() -> u64 {
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a local.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    tv_us(usage.ru_utime) + tv_us(usage.ru_stime)
}

fn tv_us(tv: libc::timeval) -> u64 {
    tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64
}

fn wait4(pid: libc::pid_t) -> Result<(libc::c_int, libc::rusage), String> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers to locals; pid is our own child.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4: {err}"));
        }
    }
}

/// Reads messages from the child, skipping (and counting) notifications.
struct Reader {
    inner: BufReader<ChildStdout>,
    /// Output read ahead of the lines handed out (by [`Reader::read_raw`]), served first.
    ahead: Vec<u8>,
    line: Vec<u8>,
    bytes: u64,
    notifications: u64,
}

impl Reader {
    /// The next response: `(id, result)`, with the generic JSON-RPC checks done.
    fn response(&mut self) -> Result<(u64, Value), String> {
        self.next()?
            .ok_or_else(|| "the server closed its stdout (exited?)".to_string())
    }

    /// The next response, or `None` at end of output.
    fn next(&mut self) -> Result<Option<(u64, Value)>, String> {
        while let Some(line) = self.next_line()? {
            if let Some(response) = self.message(&line)? {
                return Ok(Some(response));
            }
        }
        Ok(None)
    }

    /// The next non-blank line (trimmed), or `None` at end of output.
    fn next_line(&mut self) -> Result<Option<Vec<u8>>, String> {
        while let Some(end) = self.ahead.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.ahead.drain(..=end).collect();
            self.bytes += line.len() as u64;
            let text = line.trim_ascii();
            if !text.is_empty() {
                return Ok(Some(text.to_vec()));
            }
        }
        loop {
            self.line.clear();
            // A line begun in the bytes read ahead ends here.
            self.line.append(&mut self.ahead);
            let got = self
                .inner
                .read_until(b'\n', &mut self.line)
                .map_err(|e| format!("reading the server's stdout: {e}"))?;
            if got == 0 && self.line.is_empty() {
                return Ok(None);
            }
            self.bytes += self.line.len() as u64;
            let text = self.line.trim_ascii();
            if !text.is_empty() {
                return Ok(Some(text.to_vec()));
            }
        }
    }

    /// Read raw output until it holds `n` lines that are not notifications, and return
    /// those lines, unchecked, for [`Reader::message`] later (notifications among them
    /// counted; what came after them kept for [`Reader::next_line`]). While the server
    /// is being measured the harness only copies bytes and counts newlines — lines are
    /// told apart once at least `n` have arrived — so that its own CPU use disturbs the
    /// measured server as little as possible.
    fn read_raw(&mut self, n: u64) -> Result<Vec<Vec<u8>>, String> {
        #[derive(serde::Deserialize)]
        struct Top<'a> {
            #[serde(borrow)]
            id: Option<&'a serde_json::value::RawValue>,
            #[serde(borrow)]
            method: Option<&'a serde_json::value::RawValue>,
        }
        let mut raw = std::mem::take(&mut self.ahead);
        let buffered = self.inner.buffer().len();
        raw.extend_from_slice(self.inner.buffer());
        self.inner.consume(buffered);
        let mut newlines = raw.iter().filter(|&&b| b == b'\n').count() as u64;
        let mut chunk = vec![0u8; 1 << 20];
        let mut need = n;
        loop {
            while newlines < need {
                let got = self
                    .inner
                    .get_mut()
                    .read(&mut chunk)
                    .map_err(|e| format!("reading the server's stdout: {e}"))?;
                let new = chunk.get(..got).unwrap_or_default();
                if new.is_empty() {
                    return Err("the server closed its stdout (exited?)".to_string());
                }
                newlines += new.iter().filter(|&&b| b == b'\n').count() as u64;
                raw.extend_from_slice(new);
            }
            // Tell the lines apart: enough that are not notifications?
            let mut lines = Vec::with_capacity(n as usize);
            let mut notifications = 0;
            let mut used = 0;
            for line in raw.split_inclusive(|&b| b == b'\n') {
                if lines.len() as u64 == n || !line.ends_with(b"\n") {
                    break;
                }
                used += line.len();
                let text = line.trim_ascii();
                if text.is_empty() {
                    continue;
                }
                let top: Top<'_> = serde_json::from_slice(text).map_err(|e| invalid(&e, text))?;
                if top.method.is_some() && top.id.is_none() {
                    notifications += 1;
                } else {
                    lines.push(text.to_vec());
                }
            }
            if lines.len() as u64 == n {
                self.notifications += notifications;
                self.bytes += used as u64;
                self.ahead = raw.split_off(used);
                return Ok(lines);
            }
            need = newlines + (n - lines.len() as u64);
        }
    }

    /// Check one message line: `Some((id, result))` for a response, `None` for a
    /// notification (counted).
    fn message(&mut self, text: &[u8]) -> Result<Option<(u64, Value)>, String> {
        let mut msg: Value = serde_json::from_slice(text).map_err(|e| invalid(&e, text))?;
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(format!(
                "message without \"jsonrpc\":\"2.0\": {}",
                clip(&msg)
            ));
        }
        if let Some(method) = msg.get("method").and_then(Value::as_str) {
            if msg.get("id").is_some() {
                return Err(format!(
                    "the server sent a request ({method}); the harness answers none: {}",
                    clip(&msg)
                ));
            }
            self.notifications += 1;
            return Ok(None);
        }
        let id = msg
            .get("id")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("response without a numeric id: {}", clip(&msg)))?;
        if let Some(error) = msg.get("error") {
            return Err(format!("request {id} failed: error {error}"));
        }
        let result = msg
            .get_mut("result")
            .map(Value::take)
            .ok_or_else(|| format!("response {id} has no result"))?;
        Ok(Some((id, result)))
    }
}

/// The error for a line that is not JSON (its start quoted).
fn invalid(e: &serde_json::Error, line: &[u8]) -> String {
    format!(
        "invalid JSON from the server ({e}): {}",
        String::from_utf8_lossy(&line[..line.len().min(200)])
    )
}

fn clip(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

fn send(stdin: &mut ChildStdin, bytes: &[u8]) -> Result<(), String> {
    stdin
        .write_all(bytes)
        .and_then(|()| stdin.flush())
        .map_err(|e| format!("writing to the server's stdin: {e}"))
}

/// Handshake, warmup and the measured requests; ids 1..=n are measured, warmup uses
/// n+1..=n+warmup. Returns stdin (still open) once every response is checked.
fn converse(
    config: &Config,
    n: u64,
    mut stdin: ChildStdin,
    reader: &mut Reader,
    stats: &mut Stats,
) -> Result<ChildStdin, String> {
    let w = &config.writer;

    // Handshake (not measured).
    let hs = w.handshake();
    send(&mut stdin, format!("{}\n", hs[0]).as_bytes())?;
    let (id, result) = reader.response().map_err(|e| format!("handshake: {e}"))?;
    if id != HANDSHAKE_ID {
        return Err(format!("handshake: response id {id}, want {HANDSHAKE_ID}"));
    }
    if let Some(note) = w.check_handshake(&result)? {
        stats.notes.push(note);
    }
    for line in &hs[1..] {
        send(&mut stdin, format!("{line}\n").as_bytes())?;
    }

    // Warmup (not measured), one at a time.
    let mut buf = Vec::with_capacity(1024);
    for id in n + 1..=n + config.warmup {
        buf.clear();
        w.request(id, &mut buf);
        send(&mut stdin, &buf)?;
        let (got, result) = reader.response().map_err(|e| format!("warmup: {e}"))?;
        if got != id {
            return Err(format!("warmup: response id {got}, want {id}"));
        }
        w.check(id, &result)
            .map_err(|e| format!("warmup request {id}: {e}"))?;
    }

    let bytes_before = reader.bytes;
    let mut seen = vec![false; n as usize + 1];
    let mut accept = |id: u64, result: &Value| -> Result<(), String> {
        if id == 0 || id > n {
            return Err(format!("response to unknown id {id}"));
        }
        if std::mem::replace(&mut seen[id as usize], true) {
            return Err(format!("second response to id {id}"));
        }
        w.check(id, result)
            .map_err(|e| format!("request {id}: {e}"))
    };
    match config.mode {
        Mode::Pipelined => {
            let mut all = Vec::with_capacity(n as usize * 160);
            for id in 1..=n {
                w.request(id, &mut all);
            }
            stats.bytes_out = all.len() as u64;
            let start = Instant::now();
            let writer = std::thread::spawn(move || -> (ChildStdin, Result<(), String>) {
                let r = send(&mut stdin, &all);
                (stdin, r)
            });
            // Read while the server runs, check once it has answered everything.
            let (lines, mut outcome) = match reader.read_raw(n) {
                Ok(lines) => (lines, Ok(())),
                Err(e) => (Vec::new(), Err(e)),
            };
            stats.wall = start.elapsed();
            for line in &lines {
                if outcome.is_err() {
                    break;
                }
                outcome = match reader.message(line) {
                    Ok(Some((id, result))) => accept(id, &result),
                    Ok(None) => Err("a notification counted as a response".to_string()),
                    Err(e) => Err(e),
                };
                stats.responses += u64::from(outcome.is_ok());
            }
            if let Err(e) = outcome {
                // The caller kills the child, which ends a writer stuck on a full pipe;
                // do not wait for it here.
                drop(writer);
                return Err(e);
            }
            let (stdin, written) = writer
                .join()
                .map_err(|_| "the writer thread panicked".to_string())?;
            written?;
            stats.bytes_in = reader.bytes - bytes_before;
            Ok(stdin)
        }
        Mode::Interactive => {
            stats.latencies_us.reserve(n as usize);
            let start = Instant::now();
            for id in 1..=n {
                buf.clear();
                w.request(id, &mut buf);
                stats.bytes_out += buf.len() as u64;
                let t0 = Instant::now();
                send(&mut stdin, &buf)?;
                let (got, result) = reader.response()?;
                stats.latencies_us.push(t0.elapsed().as_micros() as u64);
                if got != id {
                    return Err(format!("response id {got}, want {id}"));
                }
                accept(got, &result)?;
                stats.responses += 1;
            }
            stats.wall = start.elapsed();
            stats.bytes_in = reader.bytes - bytes_before;
            Ok(stdin)
        }
    }
}

/// Sum of `VmHWM` (peak RSS, KiB) of `pid` and its descendants; 0 without /proc.
fn peak_rss_kib(pid: libc::pid_t) -> u64 {
    let hwm = |pid: u32| -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    let children = |pid: u32| -> Vec<u32> {
        let mut out = Vec::new();
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
            for t in tasks.flatten() {
                let path = t.path().join("children");
                let list = std::fs::read_to_string(path).unwrap_or_default();
                out.extend(
                    list.split_whitespace()
                        .filter_map(|c| c.parse::<u32>().ok()),
                );
            }
        }
        out
    };
    let mut total = 0;
    let mut todo = vec![pid as u32];
    while let Some(p) = todo.pop() {
        total += hwm(p);
        todo.extend(children(p));
    }
    total
}
