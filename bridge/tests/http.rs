//! The bridge over Streamable HTTP (`--http`): sessions, ids of different clients,
//! a device reset under an HTTP session, the core's request checks.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use common::*;
use serde_json::{json, Value};

struct Server {
    child: Child,
    port: u16,
    /// The bridge's stderr so far (its notes on the device: connected, reset, ...).
    log: Arc<Mutex<String>>,
}

impl Server {
    /// A bridge on a port it picks itself (`--http 127.0.0.1:0`, the port read from
    /// its "served at" line): a port picked here and handed over could be taken by
    /// another test's server in between, and the test would talk to that one.
    fn start(device: &[&str]) -> Self {
        let mut args = vec![
            "--http",
            "127.0.0.1:0",
            "exec",
            "--restart-delay",
            "20ms",
            "--",
            DEVICE,
        ];
        args.extend(device);
        let mut child = Command::new(BRIDGE)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let log = keep_stderr(child.stderr.take().unwrap(), move |line| {
            if let Some((_, rest)) = line.split_once("served at http://127.0.0.1:") {
                let _ = tx.send(rest.trim_end_matches("/mcp").parse::<u16>());
            }
        });
        let port = match rx.recv_timeout(WAIT) {
            Ok(Ok(port)) => port,
            other => panic!(
                "the bridge does not say where it listens ({other:?}): {}",
                log.lock().unwrap()
            ),
        };
        Server { child, port, log }
    }

    /// What the bridge has written to stderr so far.
    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// POST `body` (with extra header lines); status, headers (lowercase names) and the
    /// body's JSON messages (SSE events unwrapped).
    fn post(
        &self,
        body: &str,
        headers: &[(&str, &str)],
    ) -> (u16, Vec<(String, String)>, Vec<Value>) {
        let mut extra = String::new();
        for (k, v) in headers {
            extra.push_str(&format!("{k}: {v}\r\n"));
        }
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        self.exchange(&request)
    }

    /// The whole answer to a request sent on its own connection, as text.
    fn raw(&self, request: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(WAIT)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        String::from_utf8(raw).unwrap()
    }

    fn exchange(&self, request: &str) -> (u16, Vec<(String, String)>, Vec<Value>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(WAIT)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8(raw).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v == "chunked");
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_owned()
        };
        let messages = body
            .lines()
            .map(|l| l.strip_prefix("data: ").unwrap_or(l))
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (status, headers, messages)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// An initialize-era session over HTTP survives a device reset: the request on the
/// device when it reset gets -32000, the next one works under the same session (the
/// strict device needs the replayed initialize).
#[test]
fn an_http_session_survives_a_device_reset() {
    let dir = TempDir::new("http-reset");
    let once = dir.path("reset");
    let srv = Server::start(&[
        "--strict",
        "--exit-after",
        "4",
        "--once",
        once.to_str().unwrap(),
    ]);
    let (status, headers, body) = srv.post(INIT, &[]);
    assert_eq!(status, 200);
    assert_eq!(body[0]["id"], "init", "the client's id comes back");
    let session = header(&headers, "mcp-session-id")
        .expect("a session")
        .to_owned();
    let s = [("Mcp-Session-Id", session.as_str())];
    assert_eq!(srv.post(INITIALIZED, &s).0, 202);
    let (_, _, body) = srv.post(&request("1", "tools/list", "{}"), &s);
    assert!(body[0]["result"]["tools"].is_array(), "{body:?}");
    let (_, _, body) = srv.post(&request("2", "ping", "{}"), &s); // line 4: reset
    assert_eq!(
        (body[0]["id"].clone(), error_code(&body[0])),
        (json!(2), Some(-32000)),
        "bridge log:\n{}",
        srv.log()
    );
    let (status, _, body) = srv.post(&call("3", "read_sensor", r#"{"sensor":"temperature"}"#), &s);
    assert_eq!(status, 200);
    assert_eq!(body[0]["id"], 3);
    assert_eq!(
        body[0]["result"]["content"][0]["text"],
        "temperature: 21.5 C",
        "{body:?}\nbridge log:\n{}",
        srv.log()
    );
    // An unknown session is 404, as in the core.
    assert_eq!(
        srv.post(&request("4", "ping", "{}"), &[("Mcp-Session-Id", "nope")])
            .0,
        404
    );
}

/// Clients that use the same ids at the same time each get their own answers.
#[test]
fn concurrent_clients_with_the_same_ids() {
    let srv = Arc::new(Server::start(&[]));
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let srv = Arc::clone(&srv);
            thread::spawn(move || {
                let sensors = ["temperature", "humidity", "pressure", "temperature"];
                for _ in 0..10 {
                    let args = format!(r#"{{"sensor":"{}"}}"#, sensors[w]);
                    let (status, _, body) = srv.post(&call("1", "read_sensor", &args), &[]);
                    assert_eq!(status, 200);
                    assert_eq!(body.len(), 1);
                    assert_eq!(body[0]["id"], 1);
                    assert_eq!(body[0]["result"]["structuredContent"]["sensor"], sensors[w]);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

/// The core's checks before anything reaches the device.
#[test]
fn requests_the_endpoint_refuses() {
    let srv = Server::start(&[]);
    let ping = request("1", "ping", "{}");
    let bad_host = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ping}",
        ping.len()
    );
    assert_eq!(srv.exchange(&bad_host).0, 403);
    // A refusal says why in its body.
    let text = srv.raw(&bad_host);
    assert!(
        text.ends_with("\r\n\r\n403 Forbidden: Host \"evil.example\" is not this device\n"),
        "{text}"
    );
    let wrong_path = "GET /other HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    assert_eq!(srv.exchange(wrong_path).0, 404);
    let text = srv.raw(wrong_path);
    assert!(
        text.ends_with("\r\n\r\n404 Not Found: this device serves MCP at /mcp\n"),
        "{text}"
    );
    assert_eq!(
        srv.post(&ping, &[("Content-Type", "text/plain")]).0,
        200,
        "first Content-Type wins"
    );
    let no_type = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ping}",
        ping.len()
    );
    assert_eq!(srv.exchange(&no_type).0, 415);
    // 2026-07-28: a header that contradicts the body is -32020 with 400.
    let stateless = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_sensor","arguments":{"sensor":"humidity"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let (status, _, body) = srv.post(
        stateless,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "set_led"),
        ],
    );
    assert_eq!((status, error_code(&body[0])), (400, Some(-32020)));
    let (status, _, body) = srv.post(
        stateless,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "read_sensor"),
        ],
    );
    assert_eq!(status, 200);
    assert_eq!(body[0]["result"]["structuredContent"]["sensor"], "humidity");
}

/// A request the core rejects still gets its JSON-RPC error over HTTP, with the
/// client's id and the core's code (not a 202 as if it were a notification, nor a
/// repaired request's success).
#[test]
fn rejected_requests_get_the_cores_error() {
    let srv = Server::start(&[]);
    for line in REJECTED_WITH_ID {
        let expected = core_answer(line);
        let (status, _, body) = srv.post(line, &[]);
        assert_eq!(status, 200, "{line}: {body:?}");
        assert_eq!(body.len(), 1, "{line}: {body:?}");
        assert_eq!(id_and_code(&body[0]), id_and_code(&expected[0]), "{line}");
    }
}
