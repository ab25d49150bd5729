//! `soak [OPTIONS] -- CMD ARGS...`: a long run of one board over stdio with memory read
//! along the way (benches/soak.sh; issue #39 item 4).
//!
//! Spawns CMD (a sensor board, or `emcp-bridge exec -- BOARD`), does the initialize
//! handshake, then sends `--messages` messages of a fixed cycle — every kind of request
//! the board serves, a line that is not JSON, an unknown method, notifications — in
//! batches, each batch pipelined (a writer thread writes it while the main thread reads)
//! and every response checked before the next batch starts: each id answered exactly
//! once with the right shape, one `id: null` parse error per bad line, nothing else.
//! The batch fixes how much is in flight. `emcp-bridge` holds at most `QUEUE` bytes
//! (bridge/src/pump.rs) of what it has read and not yet handled on each side, so its
//! memory follows the batch only through the requests in flight (its id table), not the
//! number of messages; a batch over its `max_in_flight` (1,024) is answered in part with
//! `Too many requests in flight`, which fails the check.
//! Between batches, with nothing in flight, it reads `VmRSS` and `VmHWM` of the child and
//! each of its descendants from /proc: the first sample after `--warmup` messages, then
//! every `--every` messages, and the last at the end. Prints one JSON object on stdout.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use emcp_harness::mix::base64_decode;
use serde_json::{json, Value};

const USAGE: &str = "\
usage: soak [--messages N] [--warmup W] [--every E] [--batch B] [--name NAME] [--quiet]
            -- CMD ARGS...
  --messages N   messages after the handshake, warm-up included (default 1000000)
  --warmup W     messages before the first memory sample (default 10000)
  --every E      messages between memory samples (default 100000)
  --batch B      messages pipelined at once (default 1000; samples fall on batch ends)
  --name NAME    the setup's name in the output
  --quiet        the child's stderr goes to /dev/null";

const VERSION: &str = "2025-06-18";

/// One message of the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Msg {
    Initialize,
    ToolsList,
    ReadSensor(&'static str),
    SetLed,
    MoveServo,
    ReadTemperature,
    ReadBlob,
    ReadHistory,
    PromptGet,
    ResourcesList,
    Ping,
    /// A line that is not JSON: answered with a parse error, `id: null`.
    BadLine,
    /// An unknown method: answered with error -32601.
    Unknown,
    /// `notifications/initialized` (no answer).
    NoteInitialized,
    /// `notifications/cancelled` for a request that is not running (no answer).
    NoteCancelled,
}

const CYCLE: [Msg; 16] = [
    Msg::Initialize,
    Msg::NoteInitialized,
    Msg::ToolsList,
    Msg::ReadSensor("temperature"),
    Msg::ReadSensor("humidity"),
    Msg::ReadSensor("pressure"),
    Msg::SetLed,
    Msg::MoveServo,
    Msg::ReadTemperature,
    Msg::ReadBlob,
    Msg::ReadHistory,
    Msg::PromptGet,
    Msg::ResourcesList,
    Msg::Ping,
    Msg::BadLine,
    Msg::Unknown,
];
// (NoteCancelled is sent in place of every 4th NoteInitialized: see `msg_at`.)

/// Message `i` (0-based, counted over the whole run).
fn msg_at(i: u64) -> Msg {
    let m = CYCLE[(i % CYCLE.len() as u64) as usize];
    if m == Msg::NoteInitialized && (i / CYCLE.len() as u64) % 4 == 3 {
        Msg::NoteCancelled
    } else {
        m
    }
}

fn write_msg(m: Msg, id: u64, out: &mut Vec<u8>) {
    let line = match m {
        Msg::Initialize => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{}},"clientInfo":{{"name":"soak","version":"0.1.0"}}}}}}"#
        ),
        Msg::ToolsList => {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#)
        }
        Msg::ReadSensor(s) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_sensor","arguments":{{"sensor":"{s}"}}}}}}"#
        ),
        Msg::SetLed => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"set_led","arguments":{{"color":"red","brightness":50}}}}}}"#
        ),
        Msg::MoveServo => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"move_servo","arguments":{{"angle":45}}}}}}"#
        ),
        Msg::ReadTemperature => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"sensor://temperature"}}}}"#
        ),
        Msg::ReadBlob => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"log://samples"}}}}"#
        ),
        Msg::ReadHistory => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"sensor://temperature/history"}}}}"#
        ),
        Msg::PromptGet => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"prompts/get","params":{{"name":"diagnose_board","arguments":{{"symptom":"no reading"}}}}}}"#
        ),
        Msg::ResourcesList => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/list"}}"#),
        Msg::Ping => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
        Msg::BadLine => "this line is not JSON {\"id\":".to_string(),
        Msg::Unknown => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"soak/no-such-method"}}"#),
        Msg::NoteInitialized => r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        Msg::NoteCancelled => format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"soak"}}}}"#
        ),
    };
    out.extend_from_slice(line.as_bytes());
    out.push(b'\n');
}

/// Whether `m` is answered with an id of its own.
fn has_id(m: Msg) -> bool {
    !matches!(m, Msg::BadLine | Msg::NoteInitialized | Msg::NoteCancelled)
}

/// Checks results, caching the one long answer (the blob) once it was checked in full.
#[derive(Default)]
struct Checker {
    blob_ok: Option<String>,
}

fn text_of(result: &Value) -> Option<&str> {
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    result.pointer("/content/0/text").and_then(Value::as_str)
}

impl Checker {
    fn check(&mut self, m: Msg, msg: &Value) -> Result<(), String> {
        if let Msg::Unknown = m {
            return match msg.pointer("/error/code").and_then(Value::as_i64) {
                Some(-32601) => Ok(()),
                _ => Err(format!(
                    "unknown method: want error -32601, got {}",
                    clip(msg)
                )),
            };
        }
        if let Some(e) = msg.get("error") {
            return Err(format!("{m:?}: error {e}"));
        }
        let r = msg
            .get("result")
            .ok_or_else(|| format!("{m:?}: no result"))?;
        let ok = match m {
            Msg::Initialize => {
                r.get("protocolVersion").and_then(Value::as_str) == Some(VERSION)
                    && r.pointer("/serverInfo/name").and_then(Value::as_str)
                        == Some("emcp-sensor-board")
            }
            Msg::ToolsList => {
                let names: Vec<&str> = r
                    .get("tools")
                    .and_then(Value::as_array)
                    .map(|t| t.iter().filter_map(|t| t.get("name")?.as_str()).collect())
                    .unwrap_or_default();
                names == ["read_sensor", "set_led", "move_servo"]
            }
            Msg::ReadSensor(s) => {
                let want = match s {
                    "temperature" => "temperature: 21.5 C",
                    "humidity" => "humidity: 40.0 %",
                    _ => "pressure: 1013.2 hPa",
                };
                text_of(r) == Some(want)
            }
            Msg::SetLed => text_of(r) == Some("led: red 50%"),
            Msg::MoveServo => text_of(r) == Some("servo: 45.0 deg"),
            Msg::ReadTemperature => {
                r.pointer("/contents/0/uri").and_then(Value::as_str) == Some("sensor://temperature")
                    && r.pointer("/contents/0/text")
                        .and_then(Value::as_str)
                        .and_then(|t| serde_json::from_str::<Value>(t).ok())
                        == Some(json!({"celsius": 21.5}))
            }
            Msg::ReadBlob => {
                let blob = r.pointer("/contents/0/blob").and_then(Value::as_str);
                match (blob, &self.blob_ok) {
                    (Some(b), Some(ok)) => b == ok,
                    (Some(b), None) => {
                        let good = base64_decode(b).is_some_and(|bytes| {
                            bytes.len() == 4096
                                && bytes
                                    .iter()
                                    .enumerate()
                                    .all(|(i, &x)| x == ((i * 31 + 7) % 256) as u8)
                        });
                        if good {
                            self.blob_ok = Some(b.to_string());
                        }
                        good
                    }
                    _ => false,
                }
            }
            Msg::ReadHistory => {
                r.pointer("/contents/0/text").and_then(Value::as_str)
                    == Some("sample,value\n0,20.8\n1,20.9\n2,21.0\n3,21.1\n4,21.2\n5,21.3\n6,21.4\n7,21.5\n")
            }
            Msg::PromptGet => r
                .pointer("/messages/0/content/text")
                .and_then(Value::as_str)
                .is_some_and(|t| {
                    t.starts_with("The sensor board shows this symptom: no reading\n")
                        && t.contains("LED red 50%")
                }),
            Msg::ResourcesList => {
                r.get("resources").and_then(Value::as_array).map(Vec::len) == Some(5)
            }
            Msg::Ping => r == &json!({}),
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{m:?}: wrong result {}", clip(msg)))
        }
    }
}

fn clip(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// `(pid, comm, VmRSS KiB, VmHWM KiB)` of `pid` and its descendants.
fn memory(pid: u32) -> Vec<(u32, String, u64, u64)> {
    let field = |status: &str, key: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let status = std::fs::read_to_string(format!("/proc/{p}/status")).unwrap_or_default();
        let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
        out.push((
            p,
            comm.trim().to_string(),
            field(&status, "VmRSS:"),
            field(&status, "VmHWM:"),
        ));
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) {
            for t in tasks.flatten() {
                let list = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
                todo.extend(
                    list.split_whitespace()
                        .filter_map(|c| c.parse::<u32>().ok()),
                );
            }
        }
    }
    out
}

struct Args {
    messages: u64,
    warmup: u64,
    every: u64,
    batch: u64,
    name: String,
    quiet: bool,
    command: Vec<String>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        messages: 1_000_000,
        warmup: 10_000,
        every: 100_000,
        batch: 1_000,
        name: String::new(),
        quiet: false,
        command: Vec::new(),
    };
    let mut argv = std::env::args().skip(1);
    let num = |v: Option<String>, f: &str| -> Result<u64, String> {
        v.and_then(|v| v.parse().ok())
            .ok_or(format!("{f} needs a number"))
    };
    while let Some(arg) = argv.next() {
        match arg.as_str() {
            "--messages" => a.messages = num(argv.next(), &arg)?,
            "--warmup" => a.warmup = num(argv.next(), &arg)?,
            "--every" => a.every = num(argv.next(), &arg)?.max(1),
            "--batch" => a.batch = num(argv.next(), &arg)?.max(1),
            "--name" => a.name = argv.next().ok_or("--name needs a value")?,
            "--quiet" => a.quiet = true,
            "--" => a.command.extend(argv.by_ref()),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if a.command.is_empty() {
        return Err("no command: put it after --".into());
    }
    if a.warmup >= a.messages {
        return Err("--warmup must be below --messages".into());
    }
    if a.name.is_empty() {
        a.name = a.command.join(" ");
    }
    Ok(a)
}

fn sample_json(at: u64, secs: f64, mem: &[(u32, String, u64, u64)]) -> Value {
    json!({
        "messages": at,
        "seconds": (secs * 10.0).round() / 10.0,
        "processes": mem.iter().map(|(pid, comm, rss, hwm)| json!({
            "pid": pid, "comm": comm, "rss_kib": rss, "hwm_kib": hwm,
        })).collect::<Vec<_>>(),
    })
}

fn soak(a: &Args) -> Result<Value, String> {
    let (program, rest) = a.command.split_first().ok_or("no command")?;
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if a.quiet {
            Stdio::null()
        } else {
            Stdio::inherit()
        })
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let outcome = converse(a, &mut child);
    if outcome.is_err() {
        // Stops a child waiting for input (and so a writer blocked on a full pipe).
        let _ = child.kill();
        let _ = child.wait();
    }
    outcome
}

fn converse(a: &Args, child: &mut Child) -> Result<Value, String> {
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::with_capacity(1 << 20, stdout);

    // The writer thread: writes each batch it is given; hands stdin back at the end.
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let writer = std::thread::spawn(move || -> Result<(), String> {
        for buf in rx {
            stdin
                .write_all(&buf)
                .and_then(|()| stdin.flush())
                .map_err(|e| format!("writing to the server: {e}"))?;
        }
        Ok(())
    });

    let mut checker = Checker::default();
    let mut line = Vec::with_capacity(16 * 1024);
    let mut read_msg = |lines: &mut BufReader<_>| -> Result<Value, String> {
        loop {
            line.clear();
            let got = lines
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("reading the server: {e}"))?;
            if got == 0 {
                return Err("the server closed its stdout".into());
            }
            let t = line.trim_ascii();
            if t.is_empty() {
                continue;
            }
            return serde_json::from_slice(t).map_err(|e| {
                format!(
                    "invalid JSON from the server ({e}): {}",
                    String::from_utf8_lossy(&t[..t.len().min(200)])
                )
            });
        }
    };

    // The handshake (id 0), not counted.
    let mut buf = Vec::new();
    write_msg(Msg::Initialize, 0, &mut buf);
    write_msg(Msg::NoteInitialized, 0, &mut buf);
    tx.send(std::mem::take(&mut buf))
        .map_err(|_| "writer gone")?;
    let first = read_msg(&mut lines)?;
    if first.get("id") != Some(&json!(0)) {
        return Err(format!("handshake: {}", clip(&first)));
    }
    checker.check(Msg::Initialize, &first)?;

    let start = Instant::now();
    let (mut sent, mut answered, mut parse_errors, mut notifications) = (0u64, 0u64, 0u64, 0u64);
    let mut bytes_out = 0u64;
    let mut samples = Vec::new();
    let mut next_sample = a.warmup;
    let mut pending: HashMap<u64, Msg> = HashMap::new();
    while sent < a.messages {
        let end = (sent + a.batch)
            .min(a.messages)
            .min(next_sample.max(sent + 1));
        let mut bad_lines = 0u64;
        for i in sent..end {
            let m = msg_at(i);
            let id = i + 1;
            write_msg(m, id, &mut buf);
            if has_id(m) {
                pending.insert(id, m);
            } else if m == Msg::BadLine {
                bad_lines += 1;
            }
        }
        bytes_out += buf.len() as u64;
        tx.send(std::mem::take(&mut buf))
            .map_err(|_| "the writer stopped")?;
        while !pending.is_empty() || bad_lines > 0 {
            let msg = read_msg(&mut lines)?;
            if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
                return Err(format!("no \"jsonrpc\":\"2.0\": {}", clip(&msg)));
            }
            if msg.get("method").is_some() {
                if msg.get("id").is_some() {
                    return Err(format!("a request from the server: {}", clip(&msg)));
                }
                notifications += 1;
                continue;
            }
            match msg.get("id") {
                Some(Value::Null) => {
                    if bad_lines == 0
                        || msg.pointer("/error/code").and_then(Value::as_i64) != Some(-32700)
                    {
                        return Err(format!("unexpected id-null answer: {}", clip(&msg)));
                    }
                    bad_lines -= 1;
                    parse_errors += 1;
                }
                Some(v) => {
                    let id = v
                        .as_u64()
                        .ok_or_else(|| format!("id not sent: {}", clip(&msg)))?;
                    let m = pending.remove(&id).ok_or_else(|| {
                        format!("id {id} answered twice or never sent: {}", clip(&msg))
                    })?;
                    checker
                        .check(m, &msg)
                        .map_err(|e| format!("id {id}: {e}"))?;
                    answered += 1;
                }
                None => return Err(format!("a response without an id: {}", clip(&msg))),
            }
        }
        sent = end;
        if sent == next_sample || sent == a.messages {
            let secs = start.elapsed().as_secs_f64();
            let mem = memory(pid);
            eprintln!(
                "soak: {}: {sent} messages, {secs:.1} s: {}",
                a.name,
                mem.iter()
                    .map(|(_, c, r, h)| format!("{c} VmRSS {r} KiB VmHWM {h} KiB"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            samples.push(sample_json(sent, secs, &mem));
            next_sample = (sent + a.every).min(a.messages);
        }
    }
    let wall = start.elapsed().as_secs_f64();
    drop(tx);
    writer.join().map_err(|_| "the writer panicked")??;
    // End of input: the server must exit, with nothing more to say but notifications.
    loop {
        match read_msg(&mut lines) {
            Ok(m) if m.get("method").is_some() && m.get("id").is_none() => notifications += 1,
            Ok(m) => return Err(format!("an answer after all were in: {}", clip(&m))),
            Err(_) => break,
        }
    }
    let status = child.wait().map_err(|e| format!("wait: {e}"))?;
    Ok(json!({
        "name": a.name, "command": a.command.join(" "),
        "messages": a.messages, "warmup": a.warmup, "batch": a.batch, "every": a.every,
        "answered": answered, "parse_errors": parse_errors, "notifications": notifications,
        "bytes_to_server": bytes_out,
        "seconds": (wall * 10.0).round() / 10.0,
        "msgs_per_s": (a.messages as f64 / wall).round(),
        "exit": status.code(),
        "samples": samples, "check": "ok",
    }))
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("soak: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match soak(&a) {
        Ok(j) => {
            println!("{j}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("soak: {}: FAIL: {e}", a.name);
            println!("{}", json!({"name": a.name, "check": "FAIL", "error": e}));
            ExitCode::FAILURE
        }
    }
}
