//! The HTTP transport (`emcp::transport::http`) driven sans-IO with the sensor board: framing of
//! answers, split and pipelined requests, oversized heads and bodies, Host/Origin
//! checks, header/body mismatches, sessions, and a client that sends a byte at a time.

use emcp::transport::http::{self, Policy, Served, Sessions};
use emcp::wire::json::{Sink, SinkError};
use emcp::Server;
use sensor_board::{Board, CONFIG};

struct Out(Vec<u8>);

impl Sink for Out {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

struct Conn {
    server: Server<Board>,
    sessions: Sessions,
    policy: Policy,
    input: Vec<u8>,
    scratch: usize,
}

const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

impl Conn {
    fn new() -> Self {
        Conn {
            server: Server::new(Board::new(), CONFIG).unwrap(),
            sessions: Sessions::new(7),
            policy: Policy::default(),
            input: Vec::new(),
            scratch: 4096,
        }
    }

    /// Feed bytes; answer every complete request; return what was written.
    fn feed(&mut self, bytes: &[u8]) -> (String, Vec<Served<'static>>) {
        self.input.extend_from_slice(bytes);
        let mut out = Out(Vec::new());
        let mut results = Vec::new();
        loop {
            let mut scratch = vec![0u8; self.scratch];
            let served = http::serve(
                &mut self.server,
                &mut self.sessions,
                &self.policy,
                &self.input,
                &mut scratch,
                &mut out,
            );
            let consumed = match served {
                Served::Incomplete => break,
                Served::Done {
                    consumed,
                    keep_alive,
                } => {
                    results.push(Served::Done {
                        consumed,
                        keep_alive,
                    });
                    consumed
                }
                Served::Stream {
                    consumed,
                    until_response,
                    ..
                } => {
                    results.push(Served::Stream {
                        consumed,
                        request: b"",
                        until_response,
                    });
                    consumed
                }
            };
            self.input.drain(..consumed);
            if self.input.is_empty() {
                break;
            }
        }
        (String::from_utf8(out.0).unwrap(), results)
    }
}

fn post(headers: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn stateless(method: &str, name: Option<&str>, id: u32, params: &str) -> String {
    let mut headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n");
    if let Some(n) = name {
        headers.push_str(&format!("Mcp-Name: {n}\r\n"));
    }
    let sep = if params.is_empty() { "" } else { "," };
    post(
        &headers,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}{STATELESS_META}}}}}"#
        ),
    )
}

use emcp_tests::{http_body as body, http_body as body_of, http_status as status};

#[test]
fn json_answer_with_length_and_keep_alive() {
    let mut c = Conn::new();
    let (out, served) = c.feed(stateless("tools/list", None, 1, "").as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 200 OK");
    assert!(out.contains("Content-Type: application/json\r\n"));
    let body = body(&out);
    assert!(out.contains(&format!("Content-Length: {}\r\n", body.len())));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["result"]["tools"][0]["name"], "read_sensor");
    assert!(matches!(
        served[..],
        [Served::Done {
            keep_alive: true,
            ..
        }]
    ));
}

#[test]
fn a_pending_tool_keeps_its_event_stream_open_until_the_result() {
    let mut c = Conn::new();
    let params = r#""name":"move_servo","arguments":{"angle":10},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let req = post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: move_servo\r\n",
        &format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{{params}}}}}"#),
    );
    let (out, served) = c.feed(req.as_bytes());
    assert!(out.contains("Content-Type: text/event-stream\r\n"), "{out}");
    assert!(out.contains("Transfer-Encoding: chunked\r\n"));
    assert!(!out.ends_with("0\r\n\r\n"), "ended too early: {out}");
    assert!(matches!(
        served[..],
        [Served::Stream {
            until_response: true,
            ..
        }]
    ));
    // The job's lines come from poll, routed to request 9: progress, then the result.
    let mut router = Routed(Vec::new(), Vec::new());
    while c.server.busy() {
        c.server.poll(&mut router);
    }
    let lines: Vec<&str> = std::str::from_utf8(&router.1).unwrap().lines().collect();
    assert!(
        router.0.iter().all(|r| r.as_deref() == Some(&b"9"[..])),
        "{:?}",
        router.0
    );
    assert!(lines.len() >= 2, "{lines:?}");
    assert!(lines[0].contains("notifications/progress"), "{lines:?}");
    assert!(
        lines.last().unwrap().contains(r#""id":9,"result""#),
        "{lines:?}"
    );
}

/// Collects the routes announced and the bytes written.
struct Routed(Vec<Option<Vec<u8>>>, Vec<u8>);

impl Sink for Routed {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.1.extend_from_slice(bytes);
        Ok(())
    }
    fn route(&mut self, request: Option<&[u8]>) {
        self.0.push(request.map(<[u8]>::to_vec));
    }
}

#[test]
fn error_codes_choose_the_status_for_2026_07_28() {
    let mut c = Conn::new();
    let (out, _) = c.feed(stateless("nope/nope", None, 1, "").as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 404 Not Found");
    assert!(out.contains("-32601"));
    let (out, _) =
        c.feed(stateless("tools/call", Some("ghost"), 2, r#""name":"ghost""#).as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 400 Bad Request");
    // _meta missing under a 2026-07-28 header: -32602 before any header check.
    let req = post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}"#,
    );
    let (out, _) = c.feed(req.as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 400 Bad Request");
    assert!(out.contains("-32602"), "{out}");
}

#[test]
fn headers_unlike_the_body_get_32020() {
    let mut c = Conn::new();
    for headers in [
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n",
        "MCP-Protocol-Version: 2026-07-28\r\n",
        "MCP-Protocol-Version: 2025-06-18\r\nMcp-Method: tools/list\r\n",
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{STATELESS_META}}}}}"#
        );
        let (out, _) = c.feed(post(headers, &body).as_bytes());
        assert_eq!(status(&out), "HTTP/1.1 400 Bad Request", "{headers}");
        assert!(out.contains(r#""id":4,"error":{"code":-32020"#), "{out}");
    }
    // Mcp-Name must name the tool.
    let (out, _) = c.feed(
        stateless(
            "tools/call",
            Some("set_led"),
            5,
            r#""name":"read_sensor","arguments":{"sensor":"humidity"}"#,
        )
        .as_bytes(),
    );
    assert!(out.contains("-32020"), "{out}");
    // tasks/get, tasks/update, tasks/cancel: Mcp-Name must be the taskId (checked by
    // the transport, tasks or not: this board has none, so a match is -32601).
    for (name, id, code) in [
        (Some("other-task"), 7, "-32020"),
        (None, 8, "-32020"),
        (Some("t-1"), 9, "-32601"),
    ] {
        let (out, _) = c.feed(stateless("tasks/get", name, id, r#""taskId":"t-1""#).as_bytes());
        assert!(
            out.contains(&format!(r#""id":{id},"error":{{"code":{code}"#)),
            "{out}"
        );
    }
    // Surrounding whitespace in a header value is not part of it.
    let (out, _) = c.feed(
        stateless(
            "tools/call",
            Some("  read_sensor "),
            6,
            r#""name":"read_sensor","arguments":{"sensor":"humidity"}"#,
        )
        .as_bytes(),
    );
    assert_eq!(status(&out), "HTTP/1.1 200 OK", "{out}");
}

#[test]
fn split_and_pipelined_requests() {
    let one = stateless("tools/list", None, 1, "");
    let two = stateless("resources/list", None, 2, "");
    let both = format!("{one}{two}");
    // Pipelined: two answers from one read.
    let mut c = Conn::new();
    let (out, served) = c.feed(both.as_bytes());
    assert_eq!(served.len(), 2);
    assert_eq!(out.matches("HTTP/1.1 200 OK").count(), 2);
    // A slow client: one byte per read gives the same bytes out.
    let mut slow = Conn::new();
    let mut all = String::new();
    for b in both.as_bytes() {
        all.push_str(&slow.feed(std::slice::from_ref(b)).0);
    }
    assert_eq!(all, out);
}

#[test]
fn oversized_and_malformed_requests_close_the_connection() {
    let mut c = Conn::new();
    c.policy.max_body = 64;
    let big = stateless(
        "tools/list",
        None,
        1,
        &format!(r#""pad":"{}""#, "x".repeat(100)),
    );
    let (out, served) = c.feed(big.as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 413 Payload Too Large");
    assert_eq!(body(&out), "413 Payload Too Large: body over 64 bytes\n");
    assert!(out.contains("Connection: close"));
    assert!(matches!(
        served[..],
        [Served::Done {
            keep_alive: false,
            ..
        }]
    ));

    let mut c = Conn::new();
    let (out, _) = c.feed(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    assert_eq!(status(&out), "HTTP/1.1 501 Not Implemented");
    assert!(body(&out).contains("Transfer-Encoding"), "{out}");
    let mut c = Conn::new();
    let (out, _) = c
        .feed(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\r\n{}");
    assert_eq!(status(&out), "HTTP/1.1 411 Length Required");
    assert!(body(&out).contains("without Content-Length"), "{out}");
    let mut c = Conn::new();
    let (out, _) = c.feed(b"P\x00ST /mcp HTTP/1.1\r\n\r\n");
    assert_eq!(status(&out), "HTTP/1.1 400 Bad Request");
    assert_eq!(body(&out), "400 Bad Request: malformed request head\n");
    let mut c = Conn::new();
    let mut many = String::from("POST /mcp HTTP/1.1\r\n");
    for i in 0..40 {
        many.push_str(&format!("X-{i}: y\r\n"));
    }
    many.push_str("\r\n");
    let (out, _) = c.feed(many.as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 431 Request Header Fields Too Large");
}

#[test]
fn host_and_origin_must_be_local() {
    let mut c = Conn::new();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let evil = post("", body).replace("Host: 127.0.0.1:3000", "Host: evil.example.com");
    let out = c.feed(evil.as_bytes()).0;
    assert_eq!(status(&out), "HTTP/1.1 403 Forbidden");
    assert_eq!(
        body_of(&out),
        "403 Forbidden: Host \"evil.example.com\" is not this device\n"
    );
    let origin = post("Origin: http://evil.example.com\r\n", body);
    let out = c.feed(origin.as_bytes()).0;
    assert_eq!(status(&out), "HTTP/1.1 403 Forbidden");
    assert_eq!(
        body_of(&out),
        "403 Forbidden: Origin \"http://evil.example.com\" is not this device\n"
    );
    let none = post("", body).replace("Host: 127.0.0.1:3000\r\n", "");
    assert_eq!(
        body_of(&c.feed(none.as_bytes()).0),
        "403 Forbidden: no Host header\n"
    );
    for ok in [
        "Origin: http://127.0.0.1:3000\r\n",
        "Origin: http://localhost\r\n",
        "",
    ] {
        assert_eq!(
            status(&c.feed(post(ok, body).as_bytes()).0),
            "HTTP/1.1 200 OK",
            "{ok}"
        );
    }
    let v6 = post("", body).replace("Host: 127.0.0.1:3000", "Host: [::1]:8080");
    assert_eq!(status(&c.feed(v6.as_bytes()).0), "HTTP/1.1 200 OK");
}

#[test]
fn the_devices_own_address_and_mdns_name_are_its_hosts() {
    static OWN: http::OwnHost = http::OwnHost::new("valve");
    let mut c = Conn::new();
    c.policy = Policy {
        hosts: &["bench-pi"],
        own: Some(&OWN),
        ..Policy::new()
    };
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let with_host =
        |host: &str| post("", body).replace("Host: 127.0.0.1:3000", &format!("Host: {host}"));
    // No address yet (DHCP has not answered): only the names.
    for (host, ok) in [
        ("valve.local", true),
        ("VALVE.local:80", true),
        ("bench-pi", true),
        ("192.168.1.50", false),
        ("valve", false),
    ] {
        let out = c.feed(with_host(host).as_bytes()).0;
        let want = if ok {
            "HTTP/1.1 200 OK"
        } else {
            "HTTP/1.1 403 Forbidden"
        };
        assert_eq!(status(&out), want, "{host}: {out}");
    }
    OWN.set_ipv4(Some([192, 168, 1, 50]));
    let out = c.feed(with_host("192.168.1.50:80").as_bytes()).0;
    assert_eq!(status(&out), "HTTP/1.1 200 OK", "{out}");
    let origin = post("Origin: http://192.168.1.50\r\n", body);
    assert_eq!(status(&c.feed(origin.as_bytes()).0), "HTTP/1.1 200 OK");
    // A new lease: the old address is no longer the device's.
    OWN.set_ipv4(Some([192, 168, 1, 77]));
    let out = c.feed(with_host("192.168.1.50").as_bytes()).0;
    assert_eq!(
        body_of(&out),
        "403 Forbidden: Host \"192.168.1.50\" is not this device\n"
    );
}

#[test]
fn other_paths_methods_and_media_types() {
    let mut c = Conn::new();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let other = post("", body).replace("POST /mcp", "POST /other");
    let out = c.feed(other.as_bytes()).0;
    assert_eq!(status(&out), "HTTP/1.1 404 Not Found");
    assert_eq!(
        body_of(&out),
        "404 Not Found: this device serves MCP at /mcp\n"
    );
    let get = "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";
    let (out, _) = c.feed(get.as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 405 Method Not Allowed");
    assert!(out.contains("Allow: POST\r\n"));
    assert!(
        body_of(&out).starts_with("405 Method Not Allowed: use POST"),
        "{out}"
    );
    let text = post("", body).replace("Content-Type: application/json", "Content-Type: text/plain");
    let out = c.feed(text.as_bytes()).0;
    assert_eq!(status(&out), "HTTP/1.1 415 Unsupported Media Type");
    assert!(body_of(&out).contains("application/json"), "{out}");
    let accept = post("", body).replace(
        "Accept: application/json, text/event-stream",
        "Accept: text/html",
    );
    let out = c.feed(accept.as_bytes()).0;
    assert_eq!(status(&out), "HTTP/1.1 406 Not Acceptable");
    assert!(
        body_of(&out).starts_with("406 Not Acceptable: Accept must"),
        "{out}"
    );
}

#[test]
fn initialize_era_sessions() {
    let mut c = Conn::new();
    let init = post(
        "",
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let (out, _) = c.feed(init.as_bytes());
    let session = out
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("a session id")
        .to_string();
    assert_eq!(session.len(), 16);
    let with =
        |extra: &str| format!("Mcp-Session-Id: {extra}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    // A notification: 202, no body.
    let note = post(
        &with(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let (out, _) = c.feed(note.as_bytes());
    assert_eq!(status(&out), "HTTP/1.1 202 Accepted");
    assert!(out.contains("Content-Length: 0\r\n"));
    // ping: exactly {}; errors keep 200 in this era.
    let (out, _) = c.feed(
        post(
            &with(&session),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        )
        .as_bytes(),
    );
    assert!(
        out.ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        "{out}"
    );
    let (out, _) = c.feed(
        post(
            &with(&session),
            r#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#,
        )
        .as_bytes(),
    );
    assert_eq!(status(&out), "HTTP/1.1 200 OK");
    // Another session id: 404. DELETE ends the session; then it is unknown.
    let (out, _) = c.feed(
        post(
            &with("0000000000000000"),
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        )
        .as_bytes(),
    );
    assert_eq!(status(&out), "HTTP/1.1 404 Not Found");
    let delete =
        format!("DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {session}\r\n\r\n");
    assert_eq!(status(&c.feed(delete.as_bytes()).0), "HTTP/1.1 200 OK");
    let (out, _) = c.feed(
        post(
            &with(&session),
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        )
        .as_bytes(),
    );
    assert_eq!(status(&out), "HTTP/1.1 404 Not Found");
}

#[test]
fn listen_stays_open_as_an_event_stream() {
    let mut c = Conn::new();
    let (out, served) = c.feed(
        stateless(
            "subscriptions/listen",
            None,
            77,
            r#""notifications":{"resourceSubscriptions":["led://state"]}"#,
        )
        .as_bytes(),
    );
    assert!(out.contains("Content-Type: text/event-stream\r\n"));
    assert!(out.contains("notifications/subscriptions/acknowledged"));
    assert!(
        !out.ends_with("0\r\n\r\n"),
        "a listen stream must stay open"
    );
    assert!(matches!(served[..], [Served::Stream { .. }]));
    // A change reaches the listen stream through poll, tagged with its id.
    let (out, _) = c.feed(
        stateless(
            "tools/call",
            Some("set_led"),
            78,
            r#""name":"set_led","arguments":{"color":"red"}"#,
        )
        .as_bytes(),
    );
    assert!(
        !out.contains("resources/updated"),
        "not on the tool call's answer: {out}"
    );
    let mut poll = Out(Vec::new());
    c.server.poll(&mut poll);
    let line = String::from_utf8(poll.0).unwrap();
    assert!(
        line.contains(r#""io.modelcontextprotocol/subscriptionId":77"#),
        "{line}"
    );
    assert!(line.contains("led://state"));
}

#[test]
fn a_large_response_streams_chunked_through_a_small_buffer() {
    let mut c = Conn::new();
    c.scratch = 256;
    let (out, _) = c.feed(
        stateless(
            "resources/read",
            Some("log://samples"),
            1,
            r#""uri":"log://samples""#,
        )
        .as_bytes(),
    );
    assert_eq!(status(&out), "HTTP/1.1 200 OK");
    assert!(out.contains("Transfer-Encoding: chunked\r\n"));
    let json = body(&out);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["result"]["contents"][0]["blob"].as_str().unwrap().len(),
        4096 / 3 * 4 + 4
    );
}
