//! The bridge over a child process (`exec -- flaky-device …`): resets mid-stream,
//! handshake and subscription replay, timeouts, boot noise.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

/// Requests sent vs. responses received through a reset in a pipelined stream:
/// equal, each id exactly once; the ones the reset lost are -32000 errors.
#[test]
fn a_reset_mid_stream_answers_every_request_exactly_once() {
    let dir = TempDir::new("midstream");
    let once = dir.path("reset");
    let once = once.to_str().unwrap();
    let mut b = Bridge::exec(&[], &["--exit-after", "20", "--once", once]);
    b.send(INIT);
    b.send(INITIALIZED);
    let mut ids = vec![json!("init")];
    for i in 1..=60 {
        let id = if i % 2 == 0 {
            format!("{i}")
        } else {
            format!("\"r-{i}\"")
        };
        b.send(&call(&id, "read_sensor", r#"{"sensor":"temperature"}"#));
        ids.push(serde_json::from_str(&id).unwrap());
    }
    let lines = b.finish();
    let mut answers: HashMap<String, Vec<Value>> = HashMap::new();
    for v in &lines {
        assert!(v.get("method").is_none(), "unexpected message {v}");
        answers
            .entry(v["id"].to_string())
            .or_default()
            .push(v.clone());
    }
    assert_eq!(
        lines.len(),
        ids.len(),
        "requests sent vs. responses received"
    );
    let mut reset_errors = 0;
    for id in &ids {
        let got = &answers[&id.to_string()];
        assert_eq!(got.len(), 1, "id {id} answered {} times", got.len());
        match error_code(&got[0]) {
            Some(-32000) => reset_errors += 1,
            Some(other) => panic!("unexpected error {other}: {}", got[0]),
            None if *id == json!("init") => assert!(got[0]["result"]["serverInfo"].is_object()),
            None => assert_eq!(
                got[0]["result"]["structuredContent"]["sensor"],
                "temperature"
            ),
        }
    }
    assert!(
        reset_errors >= 1,
        "the reset lost at least the request it died on"
    );
    assert!(reset_errors < 60, "requests after the reset were served");
}

/// After a reset the next request succeeds without the host initializing again: the
/// bridge replayed `initialize` (the strict device refuses anything before it) and
/// swallowed its response.
#[test]
fn the_handshake_is_replayed_after_a_reset() {
    let dir = TempDir::new("handshake");
    let once = dir.path("reset");
    let mut b = Bridge::exec(
        &[],
        &[
            "--strict",
            "--banner",
            "--exit-after",
            "4",
            "--once",
            once.to_str().unwrap(),
        ],
    );
    b.send(INIT);
    let init = b.recv();
    assert_eq!(
        init["id"], "init",
        "boot noise never reaches the host: {init}"
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    b.send(INITIALIZED);
    b.send(&request("1", "tools/list", "{}"));
    assert!(b.recv()["result"]["tools"].is_array());
    b.send(&request("2", "tools/list", "{}")); // line 4: the device resets on it
    let lost = b.recv();
    assert_eq!(
        (lost["id"].clone(), error_code(&lost)),
        (json!(2), Some(-32000))
    );
    b.send(&call("3", "read_sensor", r#"{"sensor":"humidity"}"#));
    let ok = b.recv();
    assert_eq!(ok["id"], 3);
    assert!(
        ok.get("error").is_none(),
        "refused: initialize not replayed: {ok}"
    );
    assert_eq!(ok["result"]["content"][0]["text"], "humidity: 40.0 %");
    assert!(
        b.finish().is_empty(),
        "nothing more: the replayed initialize was swallowed"
    );
}

/// A legacy `resources/subscribe` is re-made on the new device: after the reset a
/// set_led still brings notifications/resources/updated for led://state.
#[test]
fn subscriptions_are_remade_after_a_reset() {
    let dir = TempDir::new("subscribe");
    let once = dir.path("reset");
    let mut b = Bridge::exec(
        &[],
        &["--exit-after", "5", "--once", once.to_str().unwrap()],
    );
    b.send(INIT);
    b.recv();
    b.send(INITIALIZED);
    b.send(&request(
        "1",
        "resources/subscribe",
        r#"{"uri":"led://state"}"#,
    ));
    assert_eq!(b.recv()["id"], 1);
    b.send(&call("2", "set_led", r#"{"color":"red"}"#));
    let seen = b.until_response(&json!(2));
    let seen = if seen.len() == 1 {
        vec![seen[0].clone(), b.recv()]
    } else {
        seen
    };
    assert!(seen
        .iter()
        .any(|v| v["method"] == "notifications/resources/updated"));
    b.send(&request("3", "ping", "{}")); // line 5: reset
    assert_eq!(error_code(&b.recv()), Some(-32000));
    b.send(&call("4", "set_led", r#"{"color":"blue","brightness":5}"#));
    let mut got = b.until_response(&json!(4));
    if got.len() == 1 {
        got.push(b.recv());
    }
    let updated = got
        .iter()
        .find(|v| v["method"] == "notifications/resources/updated")
        .unwrap_or_else(|| panic!("no update after the reset: {got:?}\n{}", b.log()));
    assert_eq!(updated["params"]["uri"], "led://state");
    assert!(
        b.finish().is_empty(),
        "the replayed subscribe's answer was swallowed"
    );
}

/// A request the device never answers gets -32001 after the timeout, once; the
/// bridge goes on serving.
#[test]
fn a_request_without_answer_times_out_once() {
    let mut b = Bridge::exec(&["--timeout", "300ms"], &["--hang", "prompts/list"]);
    let start = Instant::now();
    b.send(&request("\"slow\"", "prompts/list", "{}"));
    b.send(&request("1", "ping", "{}"));
    assert_eq!(b.recv()["id"], 1);
    let timeout = b.recv();
    assert_eq!(
        (timeout["id"].clone(), error_code(&timeout)),
        (json!("slow"), Some(-32001))
    );
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert!(
        b.try_recv(Duration::from_millis(500)).is_none(),
        "answered twice"
    );
    b.send(&request("2", "ping", "{}"));
    assert_eq!(b.recv()["id"], 2);
    assert!(b.finish().is_empty());
}

/// A device that keeps resetting: every request still gets exactly one answer, and
/// the bridge exits cleanly at end of input.
#[test]
fn a_device_that_keeps_resetting() {
    let mut b = Bridge::exec(&[], &["--exit-after", "3"]);
    for i in 0..30 {
        b.send(&request(&i.to_string(), "ping", "{}"));
        let v = b.recv();
        assert_eq!(v["id"], i);
        assert!(
            v.get("result").is_some() || error_code(&v) == Some(-32000),
            "{v}"
        );
    }
    let log = b.log();
    assert!(b.finish().is_empty());
    assert!(log.contains("device reset"), "{log}");
}

/// Exec'ing a command that does not exist: requests time out, nothing on stdout but
/// those errors, and the bridge still exits at end of input.
#[test]
fn a_command_that_cannot_start() {
    let mut b = Bridge::start(&["--timeout", "200ms", "exec", "--", "/nonexistent/device"]);
    b.send(&request("1", "ping", "{}"));
    assert_eq!(error_code(&b.recv()), Some(-32001));
    let log = b.log();
    assert!(b.finish().is_empty());
    assert!(log.contains("waiting for the device"), "{log}");
}

/// A request the core rejects is still a request: through the bridge it gets the one
/// response the core gives it (its id, the core's error code), and the next request
/// is served.
#[test]
fn rejected_requests_are_answered_once_with_the_cores_error() {
    let mut b = Bridge::exec(&[], &[]);
    for (n, line) in REJECTED_WITH_ID.iter().enumerate() {
        let expected = core_answer(line);
        assert_eq!(expected.len(), 1, "the core answers {line} once");
        b.send(line);
        let got = b
            .try_recv(Duration::from_secs(3))
            .unwrap_or_else(|| panic!("no answer to {line}; stderr:\n{}", b.log()));
        assert_eq!(id_and_code(&got), id_and_code(&expected[0]), "{line}");
        let ping = request(&format!("\"p{n}\""), "ping", "{}");
        b.send(&ping);
        assert_eq!(b.recv()["id"], format!("p{n}"), "after {line}");
    }
    assert!(b.finish().is_empty(), "each answered once");
}

/// A line longer than the device's line buffer is answered once, as the core answers
/// it (id null), and never becomes a request the bridge waits for: no timeout error
/// follows, and the bridge ends at end of input.
#[test]
fn a_line_longer_than_the_device_reads_is_answered_once() {
    let mut b = Bridge::exec(&["--timeout", "1s"], &[]);
    let pad = "y".repeat(5000);
    let long = request("1", "ping", &format!(r#"{{"pad":"{pad}"}}"#));
    let expected = core_answer(&"x".repeat(emcp::wire::framing::DEFAULT_LINE_LEN + 1));
    b.send(&long);
    assert_eq!(id_and_code(&b.recv()), id_and_code(&expected[0]));
    b.send(&request("2", "ping", "{}"));
    assert_eq!(b.recv()["id"], 2);
    assert!(
        b.try_recv(Duration::from_millis(1500)).is_none(),
        "answered twice"
    );
    assert!(b.finish().is_empty());
}
