//! Stack: every transcript's input and a hostile set (nesting at and past
//! `json::MAX_DEPTH`, long lines, invalid UTF-8, huge numbers, many escapes, many
//! members, oversized HTTP heads and bodies) served on a thread with a small fixed
//! stack ([`STACK`]: 16 KiB optimised, 40 KiB unoptimised), over stdio framing and
//! over HTTP (sans-IO), each followed by a message that must be answered.
//!
//! The peak stack use of each part is measured too, and must fit: the part runs on a
//! 1 MiB thread below a ballast of stack already used, and a binary search (each probe
//! a child process: an overflow aborts the process) finds the largest ballast it still
//! runs below; the peak is that of an empty part minus that of the part, within 64
//! bytes. `cargo test -p emcp-tests --test stack -- --ignored --nocapture
//! stack_needed` prints the figures (add `--release` for the optimised ones).

use std::path::PathBuf;
use std::process::Command;

use emcp::transport::http::{self, Policy, Served, Sessions};
use emcp::transport::serve::feed;
use emcp::wire::framing::{Frames, SliceFramer};
use emcp::wire::json::{Sink, SinkError};
use emcp::{Config, Server};
use emcp_tests::{config_for, split_lines, Transcript, VecSink};
use sensor_board::{Board, CONFIG};
use serde_json::Value;

/// The thread stack the whole set must run on: 16 KiB when optimised. Unoptimised
/// frames are about three times larger (peaks measured with `stack_needed`, x86-64,
/// 2026-12-01: release 9.4 KiB, debug 27.5 KiB), so the default `cargo test` profile
/// checks 40 KiB; `cargo test --release` checks 16 KiB.
const STACK: usize = if cfg!(debug_assertions) {
    40 * 1024
} else {
    16 * 1024
};

/// Of [`STACK`], what thread start and the platform may take (TLS, the thread's
/// closure); the measured peak of serving must fit in the rest.
const STACK_RESERVE: usize = 4 * 1024;

const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn transcripts() -> Vec<(String, Transcript)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcripts dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read transcript");
            (p.to_string_lossy().into_owned(), Transcript::parse(&text))
        })
        .collect()
}

fn nest(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

fn call(tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
    )
}

/// One hostile message and the code of the error it gets (`None`: a result, or for
/// a notification no answer).
struct Case {
    name: &'static str,
    line: Vec<u8>,
    error: Option<i64>,
    answered: bool,
}

fn case(name: &'static str, line: impl Into<Vec<u8>>, error: Option<i64>) -> Case {
    Case {
        name,
        line: line.into(),
        error,
        answered: true,
    }
}

/// The hostile set. `json::MAX_DEPTH` is 32 levels (objects and arrays together).
fn hostile() -> Vec<Case> {
    let max = emcp::wire::json::MAX_DEPTH;
    let escapes = "\\u0041".repeat(600);
    let pairs = "\\ud83d\\ude00".repeat(300);
    let many_members: String = (0..300).map(|i| format!(r#""m{i}":{i},"#)).collect();
    let digits = "9".repeat(3000);
    let mut bad_utf8 = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""#.to_vec();
    bad_utf8.extend((0x80u8..=0xff).cycle().take(1000));
    bad_utf8.extend_from_slice(br#""}}"#);
    vec![
        // Depth: the envelope is 2 levels, so 30 more reach the limit exactly.
        case(
            "nesting at MAX_DEPTH",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                nest(max - 2, "")
            ),
            None,
        ),
        case(
            "nesting one past MAX_DEPTH",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                nest(max - 1, "")
            ),
            Some(-32700),
        ),
        case("nesting 2000 deep", nest(2000, ""), Some(-32700)),
        case(
            "unclosed nesting 4000 deep",
            "{\"a\":".repeat(800),
            Some(-32700),
        ),
        case(
            "deep argument value against a schema",
            call(
                "read_sensor",
                &format!(r#"{{"sensor":{}}}"#, nest(max - 4, "1")),
            ),
            None,
        ),
        case(
            "deep unknown argument",
            call(
                "set_led",
                &format!(r#"{{"color":"red","x":{}}}"#, nest(max - 4, r#"{"y":1}"#)),
            ),
            None,
        ),
        case("a 1 MiB line", vec![b'x'; 1 << 20], Some(-32600)),
        case("a 1 MiB string", format!(r#"{{"a":"{}"}}"#, "y".repeat(1 << 20)), Some(-32600)),
        case("invalid UTF-8 run", bad_utf8, Some(-32700)),
        case("lone continuation bytes", b"\x80\x80\x80".to_vec(), Some(-32700)),
        case(
            "a 3000-digit id",
            format!(r#"{{"jsonrpc":"2.0","id":{digits},"method":"ping"}}"#),
            Some(-32600),
        ),
        case(
            "huge exponent",
            call("set_led", r#"{"color":"red","brightness":1e999999999}"#),
            None,
        ),
        case(
            "3000-digit integer argument",
            call("set_led", &format!(r#"{{"color":"red","brightness":{digits}}}"#)),
            None,
        ),
        case(
            "3000-digit fraction argument",
            call("move_servo", &format!(r#"{{"angle":0.{digits}}}"#)),
            None,
        ),
        case(
            "tiny exponent",
            call("move_servo", r#"{"angle":-1e-999999999}"#),
            None,
        ),
        case(
            "escapes in the method",
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{escapes}"}}"#),
            Some(-32601),
        ),
        case(
            "surrogate pairs in an argument",
            call("read_sensor", &format!(r#"{{"sensor":"{pairs}"}}"#)),
            None,
        ),
        case(
            "escapes in an argument name",
            call("set_led", &format!(r#"{{"color":"red","{escapes}":1}}"#)),
            None,
        ),
        case(
            "escaped URI of a template",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"sensor://{}/history"}}}}"#,
                "%41".repeat(80)
            ),
            Some(-32002),
        ),
        case(
            "300 members",
            format!(r#"{{{many_members}"jsonrpc":"2.0","id":1,"method":"ping"}}"#),
            None,
        ),
        case(
            "300 unknown arguments",
            call("set_led", &format!(r#"{{{many_members}"color":"red"}}"#)),
            None,
        ),
        case(
            "escaped completion value",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{{"ref":{{"type":"ref/prompt","name":"diagnose_board"}},"argument":{{"name":"symptom","value":"{escapes}"}}}}}}"#
            ),
            None,
        ),
        case(
            "unsupported version with a deep _meta",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{escapes}","io.modelcontextprotocol/clientCapabilities":{}}}}}}}"#,
                format_args!("{{\"x\":{}}}", nest(max - 6, ""))
            ),
            Some(-32022),
        ),
        case(
            "log level and progress on a deferred call",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"move_servo","arguments":{{"angle":1}},"_meta":{{"progressToken":"{}","io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
                "\\n".repeat(30)
            ),
            None,
        ),
        Case {
            name: "a listen with many URIs (acknowledged by a notification)",
            answered: false,
            error: None,
            line: format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":[{}"led://state"]}},{STATELESS_META}}}}}"#,
                "\"sensor://nope\",".repeat(200)
            )
            .into_bytes(),
        },
        Case {
            name: "deep notification",
            line: format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{}}}}}"#,
                nest(max - 3, "1")
            )
            .into_bytes(),
            error: None,
            answered: false,
        },
        Case {
            name: "deep client response",
            line: format!(r#"{{"jsonrpc":"2.0","id":5,"result":{}}}"#, nest(max - 2, "")).into_bytes(),
            error: None,
            answered: false,
        },
    ]
}

/// Servers and the line buffer, made before the measured work starts (a firmware
/// keeps them in statics): the work's stack is what serving requests takes.
struct Rig {
    /// Fresh board servers: with the board's configuration, and with page size 2.
    board: Vec<Server<Board>>,
    paged: Vec<Server<Board>>,
    line: Vec<u8>,
    transcripts: Vec<(String, Transcript)>,
    hostile: Vec<Case>,
}

impl Rig {
    fn new() -> Self {
        let fresh = |config: Config| -> Vec<Server<Board>> {
            (0..64)
                .map(|_| Server::new(Board::new(), config).unwrap())
                .collect()
        };
        Rig {
            board: fresh(CONFIG),
            paged: fresh(CONFIG.page_size(2)),
            line: vec![0; 4096],
            transcripts: transcripts(),
            hostile: hostile(),
        }
    }

    /// Feed `input` to a fresh server, finish, poll until idle; every output line
    /// (what `emcp_tests::run_chunks` does, without building anything big).
    fn run(&mut self, input: &[u8], paged: bool) -> Vec<String> {
        let pool = if paged {
            &mut self.paged
        } else {
            &mut self.board
        };
        let mut server = pool.pop().expect("a fresh server");
        let mut framer = SliceFramer::new(&mut self.line);
        let mut out = Vec::new();
        let mut sink = VecSink(&mut out);
        feed(&mut server, &mut framer, input, &mut sink);
        if let Some(frame) = framer.finish() {
            server.handle_frame(frame, &mut sink);
        }
        while server.poll(&mut sink) {}
        split_lines(&out)
    }
}

/// Every transcript's input through a board server; the exact expected lines.
fn run_transcripts(rig: &mut Rig) {
    for (path, t) in std::mem::take(&mut rig.transcripts) {
        let paged = config_for(&path).page_size != CONFIG.page_size;
        let got = rig.run(&t.input, paged);
        assert_eq!(got, t.expected, "{path}");
    }
}

/// The hostile set over stdio framing: each case, then a ping that must be answered.
fn run_hostile(rig: &mut Rig) {
    for c in std::mem::take(&mut rig.hostile) {
        let mut input = c.line;
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":\"next\",\"method\":\"ping\"}\n");
        let out = rig.run(&input, false);
        let responses: Vec<Value> = out
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .filter(|v| v.get("id").is_some())
            .collect();
        let (next, answers): (Vec<Value>, Vec<Value>) =
            responses.into_iter().partition(|v| v["id"] == "next");
        assert_eq!(
            next,
            [serde_json::json!({"jsonrpc": "2.0", "id": "next", "result": {}})],
            "{}: the next message is answered",
            c.name
        );
        if !c.answered {
            assert!(answers.is_empty(), "{}: {answers:?}", c.name);
            continue;
        }
        assert_eq!(answers.len(), 1, "{}: {out:?}", c.name);
        assert_eq!(
            answers[0]["error"]["code"].as_i64(),
            c.error,
            "{}: {}",
            c.name,
            answers[0]
        );
    }
}

struct Bytes(Vec<u8>);

impl Sink for Bytes {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

fn post(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// Serve one request on a fresh buffer of `cap` bytes the way a connection loop does
/// (431 when the head does not fit); the status line.
fn http_status(
    server: &mut Server<Board>,
    sessions: &mut Sessions,
    request: &[u8],
    cap: usize,
) -> String {
    let policy = Policy::default();
    let input = &request[..request.len().min(cap)];
    let mut scratch = vec![0u8; 512];
    let mut out = Bytes(Vec::new());
    let served = http::serve(server, sessions, &policy, input, &mut scratch, &mut out);
    if served == Served::Incomplete {
        assert_eq!(input.len(), cap, "a whole request is never incomplete");
        http::reject(&mut out, http::Status::HeadersTooLarge);
    }
    let text = String::from_utf8_lossy(&out.0).into_owned();
    text.lines().next().unwrap_or_default().to_owned()
}

/// The hostile set as HTTP bodies, and hostile heads; after each, a request on a new
/// connection buffer is answered 200.
fn run_http(rig: &mut Rig) {
    let mut server = rig.board.pop().expect("a fresh server");
    let mut sessions = Sessions::new(3);
    let cap = 4096 + Policy::default().max_body;
    let discover = post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n",
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{{{STATELESS_META}}}}}"#
        )
        .as_bytes(),
    );
    let mut requests: Vec<Vec<u8>> = hostile().into_iter().map(|c| post("", &c.line)).collect();
    let mut many = b"POST /mcp HTTP/1.1\r\n".to_vec();
    for i in 0..200 {
        many.extend_from_slice(format!("X-{i}: {}\r\n", "v".repeat(10)).as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    requests.push(many);
    requests.push(
        b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999999999999999\r\n\r\n"
            .to_vec(),
    );
    requests.push(vec![0xff; 3000]);
    requests.push(format!("GET /{} HTTP/1.1\r\n\r\n", "%2e".repeat(1000)).into_bytes());
    for r in &requests {
        let status = http_status(&mut server, &mut sessions, r, cap);
        assert!(status.starts_with("HTTP/1.1 "), "{status}");
        let next = http_status(&mut server, &mut sessions, &discover, cap);
        assert_eq!(next, "HTTP/1.1 200 OK");
        server.reset();
    }
}

type Work = fn(&mut Rig);

fn part(name: &str) -> Work {
    match name {
        "empty" => |_| {},
        "ping" => |rig| {
            let out = rig.run(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
                false,
            );
            assert_eq!(out, [r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]);
        },
        "transcripts" => run_transcripts,
        "hostile" => run_hostile,
        "http" => run_http,
        _ => panic!("no part {name}"),
    }
}

const PARTS: [&str; 4] = ["ping", "transcripts", "hostile", "http"];

/// Run `work` on a thread of `size` bytes of stack, below `ballast` bytes of it.
fn on_stack(size: usize, ballast_bytes: usize, work: Work) {
    let mut rig = Rig::new(); // built on this thread: only serving runs on the small one
    std::thread::Builder::new()
        .stack_size(size)
        .spawn(move || {
            // The thread's first allocation sets up its allocator arena: not serving.
            std::hint::black_box(vec![0u8; 64]);
            ballast(ballast_bytes, stack_here(), &mut rig, work);
        })
        .expect("spawn")
        .join()
        .expect("the work succeeds");
}

/// The address of a local: where the stack is now (integer arithmetic only).
#[inline(never)]
fn stack_here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Use `bytes` of stack (measured from `top`, in frames of about 100 bytes), then run
/// `work` below them.
#[inline(never)]
fn ballast(bytes: usize, top: usize, rig: &mut Rig, work: Work) {
    let pad = [0u8; 64];
    let here = std::hint::black_box(&pad) as *const _ as usize;
    if top.saturating_sub(here) < bytes {
        ballast(bytes, top, rig, work);
    } else {
        work(rig);
    }
    std::hint::black_box(&pad); // no tail call: the frame stays
}

/// The thread stack of a probe: far above the platform's minimum, so the ballast
/// decides what is left for the work.
const PROBE_STACK: usize = 1 << 20;

/// Resolution of the search, bytes.
const STEP: usize = 64;

#[test]
fn everything_on_a_small_stack() {
    for name in PARTS {
        on_stack(STACK, 0, part(name));
    }
    // The thread may have been given more than asked for (the platform's minimum):
    // measure the peak itself too.
    let empty = max_ballast("empty");
    for name in PARTS {
        let used = empty - max_ballast(name);
        assert!(
            used <= STACK - STACK_RESERVE,
            "{name}: {used} bytes of stack, over {}",
            STACK - STACK_RESERVE
        );
    }
}

/// A probe for [`stack_needed`]: runs one part below `ballast` bytes of used stack
/// when `EMCP_STACK_PROBE=part:ballast` is set (otherwise does nothing).
#[test]
fn stack_probe() {
    let Ok(probe) = std::env::var("EMCP_STACK_PROBE") else {
        return;
    };
    let (name, bytes) = probe.split_once(':').expect("part:ballast");
    let bytes: usize = bytes.parse().expect("ballast");
    on_stack(PROBE_STACK, bytes, part(name));
}

/// The most ballast `name` still runs below (in a child process: an overflow aborts).
fn max_ballast(name: &str) -> usize {
    let exe = std::env::current_exe().unwrap();
    let runs = |bytes: usize| {
        Command::new(&exe)
            .args(["--exact", "stack_probe", "--test-threads=1", "-q"])
            .env("EMCP_STACK_PROBE", format!("{name}:{bytes}"))
            .output()
            .unwrap()
            .status
            .success()
    };
    let (mut lo, mut hi) = (0, PROBE_STACK / STEP); // lo runs, hi overflows
    assert!(runs(0), "{name} fails without ballast");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if runs(mid * STEP) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo * STEP
}

/// Peak stack use of each part, beyond the frame of its thread's closure: the ballast
/// an empty closure runs below minus the ballast the part runs below.
#[test]
#[ignore = "measurement: prints the peak stack use of each part"]
fn stack_needed() {
    let empty = max_ballast("empty");
    for name in PARTS {
        let used = empty - max_ballast(name);
        println!("{name}: {used} bytes of stack (within {STEP})");
    }
}
