//! Drive the hostile-input corpus (`tests/hostile/corpus.txt`) through one entry point
//! of emcp and check what every process between a client and the core must hold:
//!
//! - every request with an id is answered exactly once, with the id and the error
//!   code (or success) the core gives in process ([`emcp::Server`], fed the same
//!   bytes in the same order) — nothing expected is written down twice;
//! - notifications (and client responses) are never answered;
//! - the valid ping sent after each entry is answered normally;
//! - nothing but JSON-RPC reaches the protocol stream (stdout; over HTTP the bodies,
//!   and stdout stays empty);
//! - the process is alive after the last entry, and (stdio) exits successfully at the
//!   end of its input.
//!
//! ```text
//! hostile-check [--quick] [--line-max N] 'COMMAND ARGS'     stdio
//! hostile-check [--quick] --http 'COMMAND … ADDR …'         Streamable HTTP
//! ```
//!
//! Over stdio the command reads the entries from its stdin, one entry and its ping at
//! a time: the lines before the ping's answer are the entry's answers. `--line-max`
//! is the board's line buffer (default 4096, the Rust and C boards; the firmware has
//! 1024): the in-process core gets the same one. Over HTTP `ADDR` in the command
//! becomes `127.0.0.1:PORT` and each entry is one POST (entries marked `@stdio` are
//! not sent): a JSON-RPC answer is expected in the body where the core answers
//! (status 200), 202 and no body where it answers nothing; 413 for a body over
//! `--max-body` (default: the core transport's `Policy::default().max_body`). With
//! `--line-max N` over HTTP the server is a bridge before a device with that line
//! buffer: a longer body gets the core's line-too-long error. `--quick` leaves out the
//! entries marked `@big` (slow under QEMU, or longer than the firmware's line buffer).
//!
//! Prints `N entries: P passed, F failed` and exits non-zero on any failure.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use emcp::transport::serve::feed;
use emcp::wire::framing::Framer;
use emcp::{Era, Server};
use emcp_tests::VecSink;
use sensor_board::{Board, CONFIG};

/// How long one entry may take to be answered (QEMU included).
const WAIT: Duration = Duration::from_secs(20);

/// One corpus entry.
struct Entry {
    /// Line number in the corpus file.
    line: usize,
    /// The bytes sent (without the newline that follows on a stream).
    bytes: Vec<u8>,
    /// Longer than the firmware's line buffer or slow at UART speed.
    big: bool,
    /// A stream-framing case: not an HTTP body.
    stdio: bool,
}

impl Entry {
    /// The entry as written, shortened for a report.
    fn show(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let text: String = text.chars().take(90).collect();
        format!("corpus line {}: {text:?}", self.line)
    }
}

/// `\n \r \t \\ \xNN` escapes and `$(N*TEXT)` repetitions.
fn expand(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let (byte, len) = match b[i + 1] {
                b'n' => (b'\n', 2),
                b'r' => (b'\r', 2),
                b't' => (b'\t', 2),
                b'\\' => (b'\\', 2),
                b'x' => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).expect("\\xNN");
                    (u8::from_str_radix(hex, 16).expect("\\xNN"), 4)
                }
                // Not an escape of the corpus: a JSON escape, kept as written.
                _ => (b'\\', 1),
            };
            out.push(byte);
            i += len;
        } else if b[i..].starts_with(b"$(") {
            let close = i + text[i..].find(')').expect("$(N*TEXT) closed");
            let (n, body) = text[i + 2..close].split_once('*').expect("$(N*TEXT)");
            let n: usize = n.parse().expect("$(N*TEXT): N a number");
            out.extend(body.as_bytes().repeat(n));
            i = close + 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn corpus() -> Vec<Entry> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hostile/corpus.txt");
    let text = std::fs::read_to_string(&path).expect("tests/hostile/corpus.txt");
    let mut entries = Vec::new();
    for (n, mut line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let (mut big, mut stdio) = (false, false);
        loop {
            if let Some(rest) = line.strip_prefix("@big ") {
                (big, line) = (true, rest);
            } else if let Some(rest) = line.strip_prefix("@stdio ") {
                (stdio, line) = (true, rest);
            } else {
                break;
            }
        }
        entries.push(Entry {
            line: n + 1,
            bytes: expand(line),
            big,
            stdio,
        });
    }
    entries
}

fn ping(n: usize) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":"hostile/{n}","method":"ping"}}"#).into_bytes()
}

/// What a line answers: `id=<raw id> result` or `id=<raw id> error <code>`. An error
/// when the line is not a JSON-RPC 2.0 response.
fn signature(line: &[u8]) -> Result<String, String> {
    let show = || {
        String::from_utf8_lossy(line)
            .chars()
            .take(120)
            .collect::<String>()
    };
    let v = emcp::wire::json::parse(line).map_err(|_| format!("not JSON: {}", show()))?;
    let version = v.get("jsonrpc").map(|j| j.raw());
    let id = v.get("id").map(|i| i.raw());
    let (Some(br#""2.0""#), Some(id), None) = (version, id, v.get("method")) else {
        return Err(format!("not a JSON-RPC response: {}", show()));
    };
    let id = String::from_utf8_lossy(id);
    match (v.get("result"), v.get("error")) {
        (Some(_), None) => Ok(format!("id={id} result")),
        (None, Some(e)) => match e.get("code").and_then(|c| c.as_i64()) {
            Some(code) => Ok(format!("id={id} error {code}")),
            None => Err(format!("error without a code: {}", show())),
        },
        _ => Err(format!("neither result nor error: {}", show())),
    }
}

fn signatures(lines: &[Vec<u8>]) -> Result<Vec<String>, String> {
    let mut s = lines
        .iter()
        .map(|l| signature(l))
        .collect::<Result<Vec<_>, _>>()?;
    s.sort();
    Ok(s)
}

/// The core in process: a sensor board fed like the board process (a line buffer of
/// `N` bytes) or like the HTTP transport (one body at a time).
struct Core<const N: usize> {
    server: Server<Board>,
    framer: Box<Framer<N>>,
}

impl<const N: usize> Core<N> {
    fn new() -> Self {
        Core {
            server: Server::new(Board::new(), CONFIG).expect("the sensor board's configuration"),
            framer: Box::default(),
        }
    }

    fn lines(out: &[u8]) -> Vec<Vec<u8>> {
        out.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    }

    /// Bytes from a stream.
    fn stream(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut sink = VecSink(&mut out);
        feed(&mut self.server, &mut *self.framer, bytes, &mut sink);
        while self.server.poll(&mut sink) {}
        Self::lines(&out)
    }

    /// One HTTP body (the legacy era: the corpus carries no 2026-07-28 `_meta`).
    fn body(&mut self, body: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut sink = VecSink(&mut out);
        self.server.handle_in(body, Some(Era::Legacy), &mut sink);
        Self::lines(&out)
    }
}

/// The expected answers of each step, in process, for a line buffer of `line_max`.
fn expected_stream(steps: &[Vec<u8>], line_max: usize) -> Vec<Vec<Vec<u8>>> {
    fn run<const N: usize>(steps: &[Vec<u8>]) -> Vec<Vec<Vec<u8>>> {
        let mut core = Core::<N>::new();
        steps.iter().map(|s| core.stream(s)).collect()
    }
    match line_max {
        1024 => run::<1024>(steps),
        4096 => run::<4096>(steps),
        other => panic!("--line-max {other}: 1024 or 4096"),
    }
}

/// Compare one step's answers; `Err` says how they differ.
fn compare(got: &[Vec<u8>], expected: &[Vec<u8>]) -> Result<(), String> {
    let want = signatures(expected).map_err(|e| format!("the core itself: {e}"))?;
    let got = signatures(got)?;
    if got == want {
        Ok(())
    } else {
        Err(format!("answered {got:?}, the core answers {want:?}"))
    }
}

struct Report {
    passed: usize,
    failed: usize,
}

impl Report {
    fn step(&mut self, entry: &Entry, verdict: Result<(), String>) {
        match verdict {
            Ok(()) => self.passed += 1,
            Err(e) => {
                self.failed += 1;
                eprintln!("FAIL  {}\n      {e}", entry.show());
            }
        }
    }
}

/// Lines of a child's stdout, as they come.
fn lines_of(stdout: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).split(b'\n') {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn stdio(
    cmd: &str,
    entries: &[&Entry],
    line_max: usize,
    report: &mut Report,
) -> Result<(), String> {
    let steps: Vec<Vec<u8>> = entries
        .iter()
        .enumerate()
        .map(|(n, e)| [&e.bytes[..], b"\n", &ping(n), b"\n"].concat())
        .collect();
    let expected = expected_stream(&steps, line_max);
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start `{cmd}`: {e}"))?;
    // Written from a thread of its own: a process that stops reading must not stop
    // the check (its deadline still runs).
    let (input, inputs) = mpsc::channel::<Vec<u8>>();
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::spawn(move || {
        for bytes in inputs {
            if stdin
                .write_all(&bytes)
                .and_then(|()| stdin.flush())
                .is_err()
            {
                return;
            }
        }
    });
    let lines = lines_of(child.stdout.take().expect("stdout"));
    for (n, (entry, step)) in entries.iter().zip(&steps).enumerate() {
        let _ = input.send(step.clone());
        // The entry's answers, then the ping's.
        let done = format!("id=\"hostile/{n}\" result");
        let mut got = Vec::new();
        let deadline = Instant::now() + WAIT;
        loop {
            match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    let line = line.strip_suffix(b"\r").map(<[u8]>::to_vec).unwrap_or(line);
                    let last = signature(&line).is_ok_and(|s| s == done);
                    got.push(line);
                    if last {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    report.step(
                        entry,
                        Err(format!(
                            "no answer to the ping after it within {WAIT:?}; so far {got:?}",
                            got = got
                                .iter()
                                .map(|l| String::from_utf8_lossy(l).into_owned())
                                .collect::<Vec<_>>()
                        )),
                    );
                    return Err("the entry point stopped answering".into());
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
                    report.step(entry, Err(format!("the process ended ({status})")));
                    return Err("the entry point died".into());
                }
            }
        }
        report.step(entry, compare(&got, &expected[n]));
    }
    drop(input);
    let deadline = Instant::now() + WAIT;
    let mut rest = Vec::new();
    loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => rest.push(String::from_utf8_lossy(&line).into_owned()),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                return Err(format!("no exit within {WAIT:?} after end of input"));
            }
        }
    }
    if !rest.is_empty() {
        return Err(format!("lines after the last ping's answer: {rest:?}"));
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("exit status {status} after end of input"));
    }
    Ok(())
}

/// One HTTP exchange: status and the JSON-RPC lines of the body (SSE events
/// unwrapped); an error when the body holds anything else.
fn post(port: u16, body: &[u8]) -> Result<(u16, Vec<Vec<u8>>), String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(WAIT)).map_err(|e| e.to_string())?;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())
        .and_then(|()| s.write_all(body))
        .map_err(|e| format!("send: {e}"))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .map_err(|e| format!("no complete response within {WAIT:?}: {e}"))?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("no response head: {:?}", String::from_utf8_lossy(&raw)))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let status: u16 = head
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line: {head}"))?;
    let header = |name: &str| {
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_ascii_lowercase())
    };
    if header("transfer-encoding").as_deref() == Some("chunked") {
        body = dechunk(&body)?;
    }
    let sse = header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let mut lines = Vec::new();
    for line in body.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if sse {
            if let Some(data) = line
                .strip_prefix(b"data: ")
                .or_else(|| line.strip_prefix(b"data:"))
            {
                lines.push(data.to_vec());
            } else if !(line.is_empty()
                || line.starts_with(b"id:")
                || line.starts_with(b"event:")
                || line.starts_with(b":"))
            {
                return Err(format!(
                    "not an SSE line: {:?}",
                    String::from_utf8_lossy(line)
                ));
            }
        } else if !line.is_empty() {
            lines.push(line.to_vec());
        }
    }
    Ok((status, lines))
}

fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("bad chunk")?;
        let size = std::str::from_utf8(&body[..end]).map_err(|_| "bad chunk size")?;
        let n = usize::from_str_radix(size.trim(), 16).map_err(|_| "bad chunk size")?;
        if n == 0 {
            return Ok(out);
        }
        let data = body.get(end + 2..end + 2 + n).ok_or("short chunk")?;
        out.extend_from_slice(data);
        body = body.get(end + 4 + n..).ok_or("short chunk")?;
    }
}

fn http(cmd: &str, entries: &[&Entry], limits: Limits, report: &mut Report) -> Result<(), String> {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let cmd = cmd.replace("ADDR", &format!("127.0.0.1:{port}"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec {cmd}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start `{cmd}`: {e}"))?;
    let stdout = lines_of(child.stdout.take().expect("stdout"));
    let result = http_entries(&mut child, port, entries, limits, report);
    let alive = matches!(child.try_wait(), Ok(None));
    let _ = child.kill();
    let _ = child.wait();
    result?;
    let printed: Vec<String> = stdout
        .try_iter()
        .map(|l| String::from_utf8_lossy(&l).into_owned())
        .collect();
    if !printed.is_empty() {
        return Err(format!("stdout is not empty: {printed:?}"));
    }
    if !alive {
        return Err("the server had exited after the last entry".into());
    }
    Ok(())
}

/// What an HTTP entry point is expected to do with a body.
#[derive(Clone, Copy)]
struct Limits {
    /// Bodies over this many bytes are refused with 413.
    max_body: usize,
    /// The line buffer of a device behind the entry point (a bridge): a longer body
    /// is answered as the core answers such a line.
    line_max: Option<usize>,
}

fn http_entries(
    child: &mut Child,
    port: u16,
    entries: &[&Entry],
    limits: Limits,
    report: &mut Report,
) -> Result<(), String> {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if start.elapsed() > WAIT || !matches!(child.try_wait(), Ok(None)) {
            return Err(format!("nothing listens on port {port}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    const LINE: usize = emcp::wire::framing::DEFAULT_LINE_LEN;
    let mut core = Core::<LINE>::new();
    for (n, entry) in entries.iter().enumerate() {
        let body = &entry.bytes;
        let refused = body.len() > limits.max_body;
        let expected = if limits.line_max.is_some_and(|max| body.len() > max) {
            // In process: a line over the line buffer.
            core.stream(&[&vec![b'x'; LINE + 1][..], b"\n"].concat())
        } else {
            core.body(body)
        };
        let verdict = post(port, body).and_then(|(status, got)| {
            match (refused, expected.is_empty(), status) {
                (true, _, 413) => Ok(()),
                (true, _, _) => Err(format!(
                    "status {status}: a body over {} bytes is refused (413)",
                    limits.max_body
                )),
                (false, true, 202) if got.is_empty() => Ok(()),
                (false, true, _) => Err(format!(
                    "status {status} with {} line(s); the core answers nothing (202)",
                    got.len()
                )),
                (false, false, 200) => compare(&got, &expected),
                (false, false, _) => Err(format!(
                    "status {status}; the core answers {:?}",
                    signatures(&expected)
                )),
            }
        });
        let ping = ping(n);
        let expected_ping = core.body(&ping);
        let verdict = verdict.and_then(|()| {
            let (status, got) = post(port, &ping).map_err(|e| format!("the ping after it: {e}"))?;
            if status != 200 {
                return Err(format!("the ping after it: status {status}"));
            }
            compare(&got, &expected_ping).map_err(|e| format!("the ping after it: {e}"))
        });
        report.step(entry, verdict);
        if !matches!(child.try_wait(), Ok(None)) {
            return Err(format!("the server exited after {}", entry.show()));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut quick, mut over_http, mut line_max, mut cmd) = (false, false, None, None);
    let mut max_body = emcp::transport::http::Policy::default().max_body;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--http" => over_http = true,
            "--line-max" => line_max = args.next().and_then(|n| n.parse().ok()),
            "--max-body" => max_body = args.next().and_then(|n| n.parse().ok()).unwrap_or(0),
            _ if cmd.is_none() && !a.starts_with("--") => cmd = Some(a),
            _ => cmd = None,
        }
    }
    let Some(cmd) = cmd else {
        eprintln!("usage: hostile-check [--quick] [--line-max N] 'COMMAND ARGS' | [--quick] --http [--max-body N] [--line-max N] 'COMMAND … ADDR …'");
        return ExitCode::from(2);
    };
    let all = corpus();
    let entries: Vec<&Entry> = all
        .iter()
        .filter(|e| !(quick && e.big || over_http && e.stdio))
        .collect();
    let mut report = Report {
        passed: 0,
        failed: 0,
    };
    let started = Instant::now();
    let run = if over_http {
        let limits = Limits { max_body, line_max };
        http(&cmd, &entries, limits, &mut report)
    } else {
        let line_max = line_max.unwrap_or(emcp::wire::framing::DEFAULT_LINE_LEN);
        stdio(&cmd, &entries, line_max, &mut report)
    };
    if let Err(e) = &run {
        eprintln!("FAIL  {cmd}: {e}");
    }
    println!(
        "{}: {} entries: {} passed, {} failed ({:.1} s)",
        if over_http {
            format!("--http {cmd}")
        } else {
            cmd.clone()
        },
        entries.len(),
        report.passed,
        report.failed,
        started.elapsed().as_secs_f64()
    );
    if run.is_ok() && report.failed == 0 && report.passed == entries.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
