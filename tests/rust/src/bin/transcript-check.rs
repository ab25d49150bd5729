//! Run every transcript against a board *process* (the Rust binary, the C board, the
//! QEMU firmware): the transcript's input goes to the command's stdin in one piece,
//! stdin is closed, and the command's stdout must hold exactly the expected lines.
//!
//! A process polls pending jobs whenever it likes, so lines that belong to different
//! requests may interleave differently than in-process; the check is therefore: the
//! same lines (as a multiset), and the same order among the lines of each request (its
//! response and its progress notifications), each log, and each subscription.
//! Transcripts whose outcome depends on poll timing (`# process: skip` inside) are
//! skipped and reported as such.
//!
//! A line-too-long error's `data.limit` is the board's line buffer (4096 on the host
//! boards, 1024 in the firmware): its number is not compared.
//!
//! With `--bytewise` the input is written one byte per `write`, a few microseconds
//! apart, so the board sees it arrive in the smallest pieces a stream can deliver.
//!
//! With `--no-error-data` the board is a build without emcp's `error-data` (the C
//! firmware): every expected error that names what it refuses (`data` holding only
//! `method`, `name`, `offset` or `limit`) is expected without its `data`, and must come
//! that way.
//!
//! `cargo run -p emcp-tests --bin transcript-check -- [--bytewise] [--no-error-data] 'COMMAND ARGS'`
//! Prints `N passed, M failed` and exits non-zero on any failure.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use emcp_tests::Transcript;

/// Which ordered stream a line belongs to.
fn stream_key(line: &str) -> String {
    let v: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(_) => return "invalid".into(),
    };
    if let Some(id) = v.get("id") {
        return format!("request {id}");
    }
    let params = &v["params"];
    match v["method"].as_str().unwrap_or("") {
        "notifications/progress" => format!("request-progress {}", params["progressToken"]),
        "notifications/message" => "log".into(),
        m => format!(
            "{m} {}",
            params["_meta"]["io.modelcontextprotocol/subscriptionId"]
        ),
    }
}

/// `line` with the number of a line-too-long error's `data.limit` left out: it is
/// the board's line buffer, which differs between boards (4096 on the host boards,
/// 1024 in the firmware); the in-process transcript tests check the number.
fn any_limit(line: &str) -> String {
    const KEY: &str = r#""data":{"limit":"#;
    match line.find(KEY) {
        Some(at) => {
            let digits = line[at + KEY.len()..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            format!(
                "{}N{}",
                &line[..at + KEY.len()],
                &line[at + KEY.len() + digits..]
            )
        }
        None => line.to_string(),
    }
}

/// `line` without the `data` of an error naming what it refuses (`"data":{"method":…}`,
/// `name`, `offset` or `limit`, that member alone): as a build without `error-data`
/// answers.
fn without_naming(line: &str) -> String {
    for key in ["method", "name", "offset", "limit"] {
        let member = format!(r#","data":{{"{key}":"#);
        let Some(at) = line.find(&member) else {
            continue;
        };
        let rest = &line[at + member.len()..];
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
        if let Some(Ok(_)) = values.next() {
            let end = values.byte_offset();
            if rest[end..].starts_with('}') {
                return format!("{}{}", &line[..at], &rest[end + 1..]);
            }
        }
    }
    line.to_string()
}

fn streams(lines: &[String]) -> BTreeMap<String, Vec<&String>> {
    let mut map: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for l in lines {
        map.entry(stream_key(l)).or_default().push(l);
    }
    map
}

fn run(cmd: &str, input: &[u8], timeout: Duration, bytewise: bool) -> Result<Vec<String>, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start `{cmd}`: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        if bytewise {
            for b in input.chunks(1) {
                if stdin.write_all(b).and_then(|()| stdin.flush()).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_micros(20));
            }
        } else {
            let _ = stdin.write_all(&input);
        }
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let _ = writer.join();
                let out = reader.join().unwrap_or_default();
                if !status.success() {
                    return Err(format!("exited with {status}"));
                }
                let text = String::from_utf8(out).map_err(|_| "output is not UTF-8".to_string())?;
                if !text.is_empty() && !text.ends_with('\n') {
                    return Err("output ends mid-line".into());
                }
                return Ok(text.lines().map(String::from).collect());
            }
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                return Err(format!("no exit within {timeout:?} after end of input"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytewise = args.iter().any(|a| a == "--bytewise");
    let naming = !args.iter().any(|a| a == "--no-error-data");
    if let Some(a) = args
        .iter()
        .find(|a| a.starts_with("--") && !["--bytewise", "--no-error-data"].contains(&a.as_str()))
    {
        eprintln!("transcript-check: unknown option {a}");
        return ExitCode::from(2);
    }
    let Some(cmd) = args.iter().find(|a| !a.starts_with("--")).cloned() else {
        eprintln!("usage: transcript-check [--bytewise] [--no-error-data] 'COMMAND ARGS'");
        return ExitCode::from(2);
    };
    let timeout = Duration::from_secs(
        std::env::var("EMCP_TRANSCRIPT_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(60),
    );
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcripts dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for path in files {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).expect("read transcript");
        if text.lines().any(|l| l.starts_with("# process: skip")) || name.starts_with("paged") {
            eprintln!("skip  {name} (depends on poll timing or on a non-default configuration)");
            skipped += 1;
            continue;
        }
        let mut t = Transcript::parse(&text);
        if !naming {
            t.expected = t.expected.iter().map(|l| without_naming(l)).collect();
        }
        t.expected = t.expected.iter().map(|l| any_limit(l)).collect();
        let verdict = run(&cmd, &t.input, timeout, bytewise).and_then(|got| {
            let got: Vec<String> = got.iter().map(|l| any_limit(l)).collect();
            let (mut a, mut b) = (got.clone(), t.expected.clone());
            a.sort();
            b.sort();
            if a != b {
                let missing: Vec<_> = t
                    .expected
                    .iter()
                    .filter(|l| !got.contains(l))
                    .take(3)
                    .collect();
                let extra: Vec<_> = got
                    .iter()
                    .filter(|l| !t.expected.contains(l))
                    .take(3)
                    .collect();
                return Err(format!(
                    "{} lines, expected {}; missing {missing:#?}; unexpected {extra:#?}",
                    got.len(),
                    t.expected.len()
                ));
            }
            if streams(&got) != streams(&t.expected) {
                return Err("lines of one request or stream came in another order".into());
            }
            Ok(())
        });
        match verdict {
            Ok(()) => {
                eprintln!("ok    {name}");
                passed += 1;
            }
            Err(e) => {
                eprintln!("FAIL  {name}: {e}");
                failed += 1;
            }
        }
    }
    eprintln!("({skipped} skipped)");
    println!("{passed} passed, {failed} failed");
    if failed == 0 && passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
