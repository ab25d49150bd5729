//! Device-side policy: the authorization hook (the board's arm switch for
//! `move_servo`), rate limits with a token bucket on the device's clock, and the HTTP
//! bearer token.

use emcp::device::ToolCall;
use emcp::model::registry::Tool;
use emcp::state::policy::{TokenBucket, Verdict};
use emcp::transport::http::{self, Policy, Sessions};
use emcp::wire::json::{Sink, SinkError, Value as JsonValue};
use emcp::{Config, Device, Server, Step};
use sensor_board::{Board, CONFIG};
use serde_json::{json, Value};

#[derive(Default)]
struct Out(Vec<u8>);

impl Sink for Out {
    fn write(&mut self, b: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(b);
        Ok(())
    }
}

fn ask<D: Device>(server: &mut Server<D>, msg: Value) -> Vec<Value> {
    let mut out = Out::default();
    server.handle(msg.to_string().as_bytes(), &mut out);
    while server.busy() {
        server.poll(&mut out);
    }
    String::from_utf8(out.0)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn call(id: u32, name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": args}})
}

#[test]
fn the_arm_switch_gates_move_servo_only() {
    let mut s: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    s.device_mut().set_armed(false);
    let r = ask(&mut s, call(1, "move_servo", json!({"angle": 30})));
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["result"]["isError"], true);
    assert_eq!(
        r[0]["result"]["content"][0]["text"],
        "move_servo refused: the arm switch is off"
    );
    assert_eq!(s.device().servo(), 0, "the servo did not move");
    // Other tools are not affected; the next request is served normally.
    let r = ask(&mut s, call(2, "set_led", json!({"color": "red"})));
    assert_eq!(r[0]["result"]["content"][0]["text"], "led: red 100%");
    // Armed again: it moves.
    s.device_mut().set_armed(true);
    let r = ask(&mut s, call(3, "move_servo", json!({"angle": 30})));
    assert_eq!(
        r.last().unwrap()["result"]["content"][0]["text"],
        "servo: 30.0 deg"
    );
    assert_eq!(s.device().servo(), 300);
}

static PING: [Tool<'static>; 1] = [Tool::new("ping_device", r#"{"type":"object"}"#)];

/// A device whose one tool may run twice per second (a fake clock it advances).
struct Limited {
    now_ms: u64,
    bucket: TokenBucket,
    runs: u32,
}

impl Device for Limited {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        PING.get(i).copied()
    }
    fn authorize(&mut self, _tool: usize, _args: Option<JsonValue<'_>>) -> Verdict {
        self.bucket.take(self.now_ms)
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        self.runs += 1;
        call.text("pong");
        Step::Done
    }
}

#[test]
fn a_rate_limit_answers_when_to_retry_and_recovers() {
    let device = Limited {
        now_ms: 0,
        bucket: TokenBucket::new(2, 500),
        runs: 0,
    };
    let mut s: Server<Limited> = Server::new(device, Config::new("t", "1")).unwrap();
    for id in 1..=2 {
        let r = ask(&mut s, call(id, "ping_device", json!({})));
        assert_eq!(r[0]["result"]["content"][0]["text"], "pong");
    }
    s.device_mut().now_ms = 120;
    let r = ask(&mut s, call(3, "ping_device", json!({})));
    assert_eq!(r[0]["result"]["isError"], true);
    assert_eq!(
        r[0]["result"]["content"][0]["text"],
        "Rate limit exceeded: retry in 380 ms"
    );
    assert_eq!(s.device().runs, 2, "a refused call does not run");
    s.device_mut().now_ms = 500;
    let r = ask(&mut s, call(4, "ping_device", json!({})));
    assert_eq!(r[0]["result"]["content"][0]["text"], "pong");
}

fn http_post(policy: &Policy, extra: &str) -> String {
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let mut sessions = Sessions::new(1);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut out = Out::default();
    let mut scratch = [0u8; 512];
    http::serve(
        &mut server,
        &mut sessions,
        policy,
        req.as_bytes(),
        &mut scratch,
        &mut out,
    );
    String::from_utf8(out.0).unwrap()
}

#[test]
fn bearer_token_when_configured() {
    let policy = Policy {
        bearer: Some("s3cret-token"),
        ..Policy::default()
    };
    for bad in [
        "",
        "Authorization: Bearer wrong\r\n",
        "Authorization: Bearer s3cret-toke\r\n",
        "Authorization: Bearer s3cret-token2\r\n",
        "Authorization: Basic s3cret-token\r\n",
        "Authorization: s3cret-token\r\n",
    ] {
        let out = http_post(&policy, bad);
        assert!(
            out.starts_with("HTTP/1.1 401 Unauthorized\r\n"),
            "{bad:?}: {out}"
        );
        assert!(out.contains("WWW-Authenticate: Bearer\r\n"));
        assert!(
            out.ends_with(
                "\r\n\r\n401 Unauthorized: this device needs \"Authorization: Bearer <token>\"\n"
            ),
            "{bad:?}: {out}"
        );
    }
    for good in [
        "Authorization: Bearer s3cret-token\r\n",
        "Authorization: bearer   s3cret-token \r\n",
    ] {
        let out = http_post(&policy, good);
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{good:?}: {out}");
    }
    // Without a configured token no header is needed.
    assert!(http_post(&Policy::default(), "").starts_with("HTTP/1.1 200 OK\r\n"));
}
