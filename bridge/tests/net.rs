//! `emcp-bridge http URL`: a networked device on stdio. Against the sensor board's
//! Streamable HTTP server (both eras, its streams, concurrent requests), a device
//! server killed and restarted with a call in flight, and a scripted device that
//! misbehaves every way an HTTP server can.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The sensor board served over HTTP in this process (the core's transport, as
/// `sensor-board --http`): its URL.
fn board() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server: emcp::Server<sensor_board::Board> =
        emcp::Server::new(sensor_board::Board::new(), sensor_board::CONFIG).unwrap();
    thread::spawn(move || {
        emcp_host::serve_http(
            listener,
            server,
            emcp::transport::http::Policy::default(),
            7,
        )
    });
    format!("http://127.0.0.1:{port}/mcp")
}

fn bridge(url: &str, options: &[&str]) -> Bridge {
    let mut args = options.to_vec();
    args.extend(["http", url]);
    Bridge::start(&args)
}

/// Lines until each of `wanted` (a predicate) matched one; all lines seen.
/// The next response, past the notifications an open stream may still deliver (a
/// listen stream's updates come when the device sends them, not in request order).
fn response(b: &Bridge) -> Value {
    loop {
        let v = b.recv();
        if v.get("method").is_none() {
            return v;
        }
    }
}

fn until_all(b: &Bridge, wanted: &[&dyn Fn(&Value) -> bool]) -> Vec<Value> {
    let mut seen = Vec::new();
    let mut found = vec![false; wanted.len()];
    while found.iter().any(|f| !f) {
        let v = b.recv();
        for (i, w) in wanted.iter().enumerate() {
            if !found[i] && w(&v) {
                found[i] = true;
            }
        }
        seen.push(v);
    }
    seen
}

#[test]
fn the_sensor_board_in_both_eras_with_its_streams() {
    let url = board();
    let mut b = bridge(&url, &[]);
    // Initialize era: the session, its GET stream (a resource update), progress.
    b.send(INIT);
    let init = b.recv();
    assert_eq!(init["id"], "init");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    b.send(INITIALIZED);
    b.send(&request(
        "2",
        "resources/subscribe",
        r#"{"uri":"led://state"}"#,
    ));
    assert_eq!(b.recv()["id"], 2);
    b.send(&call("3", "set_led", r#"{"color":"red","brightness":40}"#));
    let seen = until_all(
        &b,
        &[
            &|v: &Value| v["id"] == 3 && v["result"].is_object(),
            &|v: &Value| {
                v["method"] == "notifications/resources/updated"
                    && v["params"]["uri"] == "led://state"
            },
        ],
    );
    assert_eq!(seen.len(), 2, "{seen:?}");
    b.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"move_servo","arguments":{"angle":30},"_meta":{"progressToken":"servo"}}}"#);
    let seen = b.until_response(&json!(4));
    let progress: Vec<_> = seen
        .iter()
        .filter(|v| v["params"]["progressToken"] == "servo")
        .collect();
    assert_eq!(progress.len(), 3, "{seen:?}");
    assert!(seen.last().unwrap()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("30.0"));

    // 2026-07-28: no session, the headers the device checks (a wrong one is -32020).
    b.send(&request("5", "server/discover", &format!("{{{META}}}")));
    assert_eq!(
        response(&b)["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    b.send(&format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"read_sensor","arguments":{{"sensor":"humidity"}},{META}}}}}"#
    ));
    let v = response(&b);
    assert_eq!(
        (v["id"].clone(), v["result"]["resultType"].clone()),
        (json!(6), json!("complete")),
        "{v}"
    );
    // An unknown method: 404 with the JSON-RPC error, passed on as the device wrote it.
    b.send(&request("7", "no/such", &format!("{{{META}}}")));
    assert_eq!(error_code(&response(&b)), Some(-32601));
    // A listen stream: acknowledged, then an update on it.
    b.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":["led://state"]}},{META}}}}}"#
    ));
    // The session's own update may still be on its way.
    let ack = until_all(
        &b,
        &[&|v: &Value| v["method"] == "notifications/subscriptions/acknowledged"],
    )
    .pop()
    .unwrap_or_default();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    b.send(&format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"set_led","arguments":{{"color":"green"}},{META}}}}}"#
    ));
    let seen = until_all(
        &b,
        &[&|v: &Value| v["id"] == 8, &|v: &Value| {
            v["method"] == "notifications/resources/updated"
                && v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L"
        }],
    );
    assert!(seen.len() >= 2, "{seen:?}");

    // Bad lines: answered here, as the core answers them.
    b.send("{not json");
    let v = response(&b);
    assert_eq!(
        (v["id"].clone(), error_code(&v)),
        (Value::Null, Some(-32700))
    );
    b.send(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(5000)
    ));
    let v = response(&b);
    assert_eq!(
        (v["id"].clone(), error_code(&v)),
        (Value::Null, Some(-32600))
    );
    b.send(&request("10", "ping", "{}"));
    assert_eq!(response(&b)["id"], 10);
    // End of input: the open listen stream is answered (the bridge is stopping).
    let rest: Vec<Value> = b
        .finish()
        .into_iter()
        .filter(|v| v.get("method").is_none())
        .collect();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(
        (rest[0]["id"].clone(), error_code(&rest[0])),
        (json!("L"), Some(-32000))
    );
}

/// A device server that can be killed and started again on the same port: the
/// bridge's own `--http` in front of a sensor board that never answers `tools/call`
/// (a long call).
struct Device {
    child: Child,
    port: u16,
}

impl Device {
    fn start(port: u16) -> Device {
        let child = Command::new(BRIDGE)
            .args([
                "--http",
                &format!("127.0.0.1:{port}"),
                "exec",
                "--",
                DEVICE,
                "--hang",
                "tools/call",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < WAIT, "the device server does not listen");
            thread::sleep(Duration::from_millis(20));
        }
        Device { child, port }
    }

    fn kill(mut self) -> u16 {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.port
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_long_call_holds_up_no_ping_and_a_reboot_fails_it_once() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let device = Device::start(port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut b = bridge(&url, &[]);
    b.send(INIT);
    assert_eq!(b.recv()["id"], "init");
    b.send(INITIALIZED);
    b.send(&call("1", "read_sensor", r#"{"sensor":"temperature"}"#));
    let sent = Instant::now();
    b.send(&request("2", "ping", "{}"));
    let v = b.recv();
    assert_eq!(
        v["id"], 2,
        "the ping is answered while the call is in flight: {v}"
    );
    assert!(sent.elapsed() < Duration::from_secs(5));
    // The device goes down with the call on it: an error for it, at once.
    let port = device.kill();
    let v = b.recv();
    assert_eq!(
        (v["id"].clone(), error_code(&v)),
        (json!(1), Some(-32000)),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("before the response"),
        "{v}"
    );
    // Still down: refused, said so.
    b.send(&request("3", "ping", "{}"));
    let v = b.recv();
    assert_eq!(
        (v["id"].clone(), error_code(&v)),
        (json!(3), Some(-32000)),
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unreachable"),
        "{v}"
    );
    // Back, with the session forgotten: re-initialized, and the request served.
    let _device = Device::start(port);
    b.send(&request("4", "ping", "{}"));
    let v = b.recv();
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":4,"result":{}}),
        "{}",
        b.log()
    );
    assert!(b.log().contains("re-initializing"), "{}", b.log());
    b.send(&request("5", "tools/list", "{}"));
    assert!(b.recv()["result"]["tools"].is_array());
    assert!(b.finish().is_empty(), "each request answered once");
}

/// What the scripted device saw: each request's head and body.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A device that answers each POST by the word in its body: `refuse` (503 with a
/// text body), `drop` (an event, then the connection closed), `flood` (an event
/// stream that never ends one event), `huge` (a 100 MB JSON body), `garbage` (not
/// HTTP), `jsonerror` (400 with the JSON-RPC error), `slow` (an open stream until the
/// client closes it), `headers` (its request headers in the result); notifications
/// 202.
fn scripted() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let log = Arc::clone(&log);
            thread::spawn(move || scripted_exchange(stream, &log));
        }
    });
    (format!("http://127.0.0.1:{port}/mcp"), seen)
}

fn scripted_exchange(stream: TcpStream, log: &Seen) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).unwrap();
    let body = String::from_utf8(body).unwrap();
    log.lock().unwrap().push((head.clone(), body.clone()));
    let mut s = stream;
    let id = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v.get("id").cloned());
    let Some(id) = id else {
        let _ = s.write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    let sse = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
    let progress = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\n\n";
    if body.contains("refuse") {
        let text = "busy: all 3 sockets in use\n";
        let _ = write!(s, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{text}", text.len());
    } else if body.contains("drop") {
        let _ = write!(s, "{sse}{progress}");
    } else if body.contains("flood") {
        let _ = write!(s, "{sse}data: ");
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..(1 << 14) {
            if s.write_all(&chunk).is_err() {
                return;
            }
        }
    } else if body.contains("huge") {
        let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n");
        let chunk = vec![b' '; 64 * 1024];
        for _ in 0..1526 {
            if s.write_all(&chunk).is_err() {
                return;
            }
        }
    } else if body.contains("garbage") {
        let _ = s.write_all(b"SSH-2.0-OpenSSH_9.6\r\n\r\n");
    } else if body.contains("jsonerror") {
        let error = json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":"Unknown tool: jsonerror"}}).to_string();
        let _ = write!(s, "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{error}", error.len());
    } else if body.contains("slow") {
        let _ = write!(s, "{sse}{progress}");
        let mut rest = [0u8; 64];
        while matches!(reader.read(&mut rest), Ok(n) if n > 0) {}
        log.lock().unwrap().push(("closed".into(), body));
    } else {
        let headers: Vec<&str> = head.lines().skip(1).collect();
        let answer = json!({"jsonrpc":"2.0","id":id,"result":{"headers":headers}}).to_string();
        let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}", answer.len());
    }
}

/// The bridge's resident memory in KiB (Linux).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn whatever_the_device_does_each_request_is_answered_once() {
    let (url, seen) = scripted();
    let mut b = bridge(&url, &["--timeout", "3s"]);
    let message = |v: &Value| v["error"]["message"].as_str().unwrap_or("").to_owned();
    // Each in flight at once; each answered once, in whatever order.
    let words = ["refuse", "drop", "flood", "huge", "garbage", "jsonerror"];
    for (i, w) in words.iter().enumerate() {
        b.send(&call(&i.to_string(), w, "{}"));
    }
    let mut answers = std::collections::HashMap::new();
    let mut peak = 0;
    while answers.len() < words.len() {
        let v = b.recv();
        peak = peak.max(rss_kib(b.pid()));
        if let Some(i) = v["id"].as_u64() {
            assert!(
                answers.insert(i as usize, v.clone()).is_none(),
                "answered twice: {v}"
            );
        }
    }
    let refuse = message(&answers[&0]);
    assert!(
        refuse.contains("HTTP 503") && refuse.contains("busy: all 3 sockets in use"),
        "{refuse}"
    );
    assert!(
        message(&answers[&1]).contains("before the response"),
        "{:?}",
        answers[&1]
    );
    assert_eq!(
        error_code(&answers[&2]),
        Some(-32001),
        "the endless event: the timeout"
    );
    assert!(message(&answers[&3]).contains("limit"), "{:?}", answers[&3]);
    assert!(
        message(&answers[&4]).contains("not an HTTP response"),
        "{:?}",
        answers[&4]
    );
    assert_eq!(
        answers[&5],
        json!({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Unknown tool: jsonerror"}}),
        "a JSON-RPC error with its HTTP status is the answer"
    );
    assert!(peak < 64 * 1024, "memory stays bounded: {peak} KiB");

    // 2026-07-28 headers; no session.
    b.send(&format!(
        r#"{{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{{"name":"héaders","arguments":{{}},{META}}}}}"#
    ));
    let headers = b.recv()["result"]["headers"].to_string();
    for h in [
        "MCP-Protocol-Version: 2026-07-28",
        "Mcp-Method: tools/call",
        "Mcp-Name: héaders",
    ] {
        assert!(headers.contains(h), "{h} in {headers}");
    }
    assert!(!headers.contains("Mcp-Session-Id"), "{headers}");

    // A request the host cancels: no answer, its connection closed, the device told.
    b.send(&call("30", "slow", "{}"));
    thread::sleep(Duration::from_millis(300));
    b.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":30}}"#);
    let start = Instant::now();
    while !seen.lock().unwrap().iter().any(|(h, _)| h == "closed") {
        assert!(
            start.elapsed() < WAIT,
            "the cancelled request's connection stays open"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let progress = b.recv();
    assert_eq!(progress["method"], "notifications/progress");
    b.send(&request("31", "ping", "{}"));
    assert_eq!(b.recv()["id"], 31);
    assert!(b.finish().is_empty(), "no answer to the cancelled request");
    assert!(seen
        .lock()
        .unwrap()
        .iter()
        .any(|(_, body)| body.contains("notifications/cancelled")));
}

#[test]
fn a_device_that_is_not_there() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut b = bridge(&format!("http://127.0.0.1:{port}/mcp"), &[]);
    b.send(INIT);
    let v = b.recv();
    assert_eq!(
        (v["id"].clone(), error_code(&v)),
        (json!("init"), Some(-32000))
    );
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("http://127.0.0.1:{port}/mcp")));
    assert!(b.finish().is_empty());
    // Not a URL the bridge can use: said at once, exit status 2.
    let out = Command::new(BRIDGE)
        .args(["http", "https://valve.local/mcp"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("https is not supported"));
}
