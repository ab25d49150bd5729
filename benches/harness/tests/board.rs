//! End to end: the harness binary against the Rust sensor board (built here with
//! `cargo build -p sensor-board` if needed) in both eras, and against commands that
//! must fail the checks.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

const HARNESS: &str = env!("CARGO_BIN_EXE_stdio-harness");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The debug sensor-board binary, built once per test process.
fn board() -> &'static str {
    static BOARD: OnceLock<String> = OnceLock::new();
    BOARD.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-q", "-p", "sensor-board"])
            .current_dir(root())
            .status()
            .expect("run cargo build -p sensor-board");
        assert!(status.success(), "cargo build -p sensor-board failed");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| root().join("target"), PathBuf::from);
        let bin = target.join("debug/sensor-board");
        assert!(bin.exists(), "{} missing after the build", bin.display());
        bin.to_string_lossy().into_owned()
    })
}

fn harness(args: &[&str], command: &[&str]) -> Output {
    Command::new(HARNESS)
        .args(args)
        .args(["--quiet", "--timeout", "60", "--"])
        .args(command)
        .output()
        .expect("run stdio-harness")
}

fn assert_ok(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "harness failed:\n{stderr}\n{stdout}");
    assert!(stderr.contains("check: ok"), "{stderr}");
}

fn assert_fails(out: &Output, why: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "expected failure:\n{stderr}");
    assert!(stderr.contains("FAIL"), "{stderr}");
    assert!(stderr.contains(why), "expected {why:?} in:\n{stderr}");
}

#[test]
fn legacy_pipelined_checks_every_response() {
    let out = harness(&["--era", "legacy", "--n", "50", "--json"], &[board()]);
    assert_ok(&out);
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(row["check"], "ok");
    assert_eq!(row["responses"], 50);
    assert_eq!(row["era"], "legacy");
    assert!(row["cpu_us"].as_u64().unwrap() > 0);
    assert!(row["peak_rss_kib"].as_u64().unwrap() > 0);
}

#[test]
fn stateless_pipelined_checks_every_response() {
    let out = harness(&["--era", "stateless", "--n", "50", "--header"], &[board()]);
    assert_ok(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout.lines().nth(2).expect("header and one row");
    assert!(
        row.starts_with("| sensor-board | stateless | pipelined | 50 |"),
        "{row}"
    );
    assert!(row.ends_with("| ok |"), "{row}");
}

#[test]
fn interactive_answers_each_lone_request() {
    for era in ["legacy", "stateless"] {
        let out = harness(&["--era", era, "--n", "21", "--interactive"], &[board()]);
        assert_ok(&out);
        assert!(String::from_utf8_lossy(&out.stderr).contains("round trip: p50"));
    }
}

#[test]
fn unsupported_version_fails() {
    // Legacy negotiation answers with the server's own version (noted, not a failure);
    // a 2026-07-28 server/discover refuses an unknown version with an error.
    let out = harness(
        &["--n", "5", "--protocol-version", "1999-01-01"],
        &[board()],
    );
    assert_ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: server answered protocolVersion"));
    let args = [
        "--era",
        "stateless",
        "--n",
        "5",
        "--protocol-version",
        "1999-01-01",
    ];
    let out = harness(&args, &[board()]);
    assert_fails(&out, "handshake: request 0 failed: error");
}

#[test]
fn echo_is_not_a_server() {
    // `cat` sends our requests back: a request from the "server" is a failure.
    let out = harness(&["--n", "5"], &["cat"]);
    assert_fails(&out, "the server sent a request (initialize)");
}

#[test]
fn garbage_fails() {
    let script = "while read -r l; do echo 'not json'; done";
    let out = harness(&["--n", "5"], &["sh", "-c", script]);
    assert_fails(&out, "invalid JSON");
}

#[test]
fn wrong_answers_fail() {
    // Answers the handshake, then every request with an empty result.
    let script = r#"read -r l; echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}'
        read -r l; i=1; while read -r l; do echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"result\":{}}"; i=$((i+1)); done"#;
    let out = harness(&["--n", "5", "--warmup", "0"], &["sh", "-c", script]);
    assert_fails(&out, "request 1: tool result has no text content");
}

#[test]
fn silent_server_times_out() {
    let out = Command::new(HARNESS)
        .args(["--n", "5", "--timeout", "1", "--", "sleep", "30"])
        .output()
        .expect("run stdio-harness");
    assert_fails(&out, "timed out");
}

#[test]
fn missing_command_fails() {
    let out = harness(&["--n", "5"], &["/nonexistent/server"]);
    assert_fails(&out, "cannot start");
}
