//! Every bounded table and limit, filled: the defined answer when it is full, and
//! recovery once space frees up. Tables already covered elsewhere are named in the
//! bad-input table of docs/protocol.md (listen streams:
//! `tests/transcripts/stateless_listen.txt`; job slots: `tests/transcripts/cancel.txt` and the
//! server's unit tests; the output buffer: the server's unit tests and
//! `tests/c/api_edges.c`; the line buffer: `tests/transcripts/bad_input.txt`).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use emcp::device::input::{Capability, MAX_ASKS, MAX_KEY, MAX_WAIT_ARGS};
use emcp::device::{Completion, ToolCall};
use emcp::model::registry::Tool;
use emcp::state::seal::{StateKey, MAX_STATE};
use emcp::transport::http::{self, Policy, Served, Sessions};
use emcp::wire::json::{Sink, SinkError};
use emcp::{Config, Device, Server, Step};
use emcp_tests::{run_chunks, split_lines, VecSink};
use sensor_board::{Board, CONFIG};
use serde_json::{json, Value};

const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Every line `f` writes, parsed.
fn lines(f: impl FnOnce(&mut dyn Sink)) -> Vec<Value> {
    let mut out = Vec::new();
    f(&mut VecSink(&mut out));
    split_lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn ping(id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
}

fn listen(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"notifications":{{}},{STATELESS_META}}}}}"#
    )
}

fn assert_pong(out: &[Value], id: u32) {
    assert_eq!(out, [json!({"jsonrpc": "2.0", "id": id, "result": {}})]);
}

// ---------------------------------------------------------------------------------
// Input requests (feature `input`): a device whose one tool asks for `keys` inputs
// with keys `key_len` bytes long and keeps a `state_len`-byte state, and reports what
// each call to `ask`/`set_request_state` returned.

static ASK_TOOLS: [Tool<'static>; 1] = [Tool::new("ask", r#"{"type":"object"}"#)];

#[derive(Default)]
struct Asker {
    /// What each `ask` of the last first round returned.
    asked: Vec<bool>,
    /// What `set_request_state` of the last first round returned.
    state_kept: Option<bool>,
}

fn key(i: usize, len: usize) -> String {
    let mut k = format!("k{i}");
    while k.len() < len {
        k.push('x');
    }
    k
}

impl Device for Asker {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        ASK_TOOLS.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        let n = |name: &str| {
            call.arg(name)
                .and_then(|v| v.as_u64())
                .map_or(0, |v| v as usize)
        };
        let (keys, key_len, state_len) = (n("keys"), n("key_len"), n("state_len"));
        if call.request_state().is_some() {
            // The second round: which responses arrived (a response that did not fit
            // is seen as none).
            let seen: Vec<String> = (0..keys)
                .map(|i| {
                    let k = key(i, key_len);
                    let got = if call.input(&k).is_some() {
                        "value"
                    } else {
                        "none"
                    };
                    format!("{k}={got}")
                })
                .collect();
            call.text(&seen.join(","));
            return Step::Done;
        }
        self.asked = (0..keys)
            .map(|i| {
                call.ask(&key(i, key_len), Capability::Elicitation, &|w| {
                    w.begin_object();
                    w.key("message");
                    w.str("?");
                    w.end_object();
                })
            })
            .collect();
        self.state_kept = Some(call.set_request_state(&vec![b's'; state_len]));
        if !self.asked.contains(&true) {
            call.error("could not ask");
        }
        Step::Done
    }
}

type AskServer = Server<Asker, 4, 2, 1>;

fn asker() -> AskServer {
    let mut s = Server::new(Asker::default(), Config::new("t", "1")).unwrap();
    s.set_state_key(StateKey::new([7; 32]));
    s
}

fn send(s: &mut AskServer, msg: &Value) -> Vec<Value> {
    lines(|out| s.handle_in(msg.to_string().as_bytes(), None, out))
}

fn initialize(s: &mut AskServer) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "1"}}});
    assert!(send(s, &init)[0]["result"].is_object());
}

fn legacy_ask(id: u32, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "ask", "arguments": args}})
}

fn stateless_ask(id: u32, args: Value, extra: Value) -> Value {
    let mut params = json!({"name": "ask", "arguments": args, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[test]
fn initialize_era_asks_beyond_max_asks_are_refused() {
    let mut s = asker();
    initialize(&mut s);
    let out = send(
        &mut s,
        &legacy_ask(
            1,
            json!({"keys": MAX_ASKS + 1, "key_len": 2, "state_len": 1}),
        ),
    );
    // Four requests go to the client; the fifth `ask` returns false.
    assert_eq!(out.len(), MAX_ASKS, "{out:?}");
    assert!(out.iter().all(|l| l["method"] == "elicitation/create"));
    let mut want = vec![true; MAX_ASKS];
    want.push(false);
    assert_eq!(s.device().asked, want);
    // The responses resume the call; the next message is answered.
    for l in &out {
        let r = json!({"jsonrpc": "2.0", "id": l["id"], "result": {"action": "accept"}});
        assert!(send(&mut s, &r).is_empty());
    }
    let out = lines(|o| {
        s.poll(o);
    });
    assert_eq!(
        out[0]["result"]["content"][0]["text"],
        "k0=value,k1=value,k2=value,k3=value,k4=none"
    );
    assert_pong(&send(&mut s, &serde_json::from_str(&ping(2)).unwrap()), 2);
}

#[test]
fn stateless_asks_are_not_counted_against_max_asks() {
    // 2026-07-28 writes each input request into the result as it goes: no table.
    let mut s = asker();
    let out = send(
        &mut s,
        &stateless_ask(
            1,
            json!({"keys": MAX_ASKS + 2, "key_len": 2, "state_len": 1}),
            json!({}),
        ),
    );
    let requests = out[0]["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), MAX_ASKS + 2);
    assert_eq!(s.device().asked, vec![true; MAX_ASKS + 2]);
}

#[test]
fn input_keys_longer_than_max_key_are_refused_in_both_eras() {
    let mut s = asker();
    let too_long = json!({"keys": 1, "key_len": MAX_KEY + 1, "state_len": 1});
    let fits = json!({"keys": 1, "key_len": MAX_KEY, "state_len": 1});
    let out = send(&mut s, &stateless_ask(1, too_long.clone(), json!({})));
    assert_eq!(s.device().asked, [false]);
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    let out = send(&mut s, &stateless_ask(2, fits.clone(), json!({})));
    assert_eq!(s.device().asked, [true]);
    assert_eq!(out[0]["result"]["resultType"], "input_required");

    initialize(&mut s);
    let out = send(&mut s, &legacy_ask(3, too_long));
    assert_eq!(s.device().asked, [false]);
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    let out = send(&mut s, &legacy_ask(4, fits));
    assert_eq!(s.device().asked, [true]);
    assert_eq!(out[0]["method"], "elicitation/create");
}

#[test]
fn request_state_over_max_state_is_refused_and_oversized_state_from_the_client_is_32602() {
    let mut s = asker();
    let out = send(
        &mut s,
        &stateless_ask(
            1,
            json!({"keys": 1, "key_len": 2, "state_len": MAX_STATE + 1}),
            json!({}),
        ),
    );
    assert_eq!(s.device().state_kept, Some(false));
    assert_eq!(out[0]["result"]["resultType"], "input_required");
    assert!(out[0]["result"].get("requestState").is_none(), "{out:?}");
    let args = json!({"keys": 1, "key_len": 2, "state_len": MAX_STATE});
    let out = send(&mut s, &stateless_ask(2, args.clone(), json!({})));
    assert_eq!(s.device().state_kept, Some(true));
    let state = out[0]["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();

    // A requestState far over the sealed size (or any that does not verify): -32602
    // before the handler runs; the next request is answered.
    for bad in ["A".repeat(10_000), format!("{state}{state}")] {
        let out = send(
            &mut s,
            &stateless_ask(3, args.clone(), json!({"requestState": bad})),
        );
        assert_eq!(out[0]["error"]["code"], -32602, "{out:?}");
        assert_eq!(out[0]["error"]["message"], "Invalid requestState");
    }
    let answer = json!({"k0": {"action": "accept"}});
    let out = send(
        &mut s,
        &stateless_ask(
            4,
            args,
            json!({"requestState": state, "inputResponses": answer}),
        ),
    );
    assert_eq!(out[0]["result"]["content"][0]["text"], "k0=value");
}

#[test]
fn arguments_over_max_wait_args_cannot_wait() {
    let mut s = asker();
    initialize(&mut s);
    let pad = "x".repeat(MAX_WAIT_ARGS);
    let out = send(
        &mut s,
        &legacy_ask(
            1,
            json!({"keys": 1, "key_len": 2, "state_len": 1, "pad": pad}),
        ),
    );
    assert_eq!(s.device().asked, [false]);
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    assert!(!s.is_pending(b"1"));
    let out = send(
        &mut s,
        &legacy_ask(2, json!({"keys": 1, "key_len": 2, "state_len": 1})),
    );
    assert_eq!(out[0]["method"], "elicitation/create");
}

#[test]
fn a_response_over_max_wait_answers_is_seen_as_none() {
    let mut s = asker();
    initialize(&mut s);
    let args = json!({"keys": 2, "key_len": 2, "state_len": 1});
    let out = send(&mut s, &legacy_ask(1, args.clone()));
    assert_eq!(out.len(), 2);
    // The first response is over input::MAX_WAIT_ANSWERS (1024 bytes): kept as null.
    let big = json!({"jsonrpc": "2.0", "id": out[0]["id"],
        "result": {"action": "accept", "content": {"pad": "y".repeat(1100)}}});
    assert!(send(&mut s, &big).is_empty());
    let small = json!({"jsonrpc": "2.0", "id": out[1]["id"], "result": {"action": "decline"}});
    assert!(send(&mut s, &small).is_empty());
    let done = lines(|o| {
        s.poll(o);
    });
    assert_eq!(
        done[0]["result"]["content"][0]["text"], "k0=none,k1=value",
        "{done:?}"
    );
    assert!(!s.busy());
}

#[test]
fn wait_slots_full_then_freed_by_the_response() {
    let mut s = asker(); // W = 1
    initialize(&mut s);
    let args = json!({"keys": 1, "key_len": 2, "state_len": 1});
    let asked = send(&mut s, &legacy_ask(1, args.clone()));
    assert_eq!(asked[0]["method"], "elicitation/create");
    // The slot is taken: the next call cannot ask (its handler answers a tool error).
    let out = send(&mut s, &legacy_ask(2, args.clone()));
    assert_eq!(s.device().asked, [false]);
    assert_eq!(out[0]["result"]["isError"], true);
    // Responses to unknown ids are ignored and free nothing.
    let stray = json!({"jsonrpc": "2.0", "id": 4_000_000, "result": {}});
    assert!(send(&mut s, &stray).is_empty());
    assert!(s.is_pending(b"1"));
    let r = json!({"jsonrpc": "2.0", "id": asked[0]["id"], "result": {"action": "accept"}});
    assert!(send(&mut s, &r).is_empty());
    let done = lines(|o| {
        s.poll(o);
    });
    assert_eq!(done[0]["id"], 1);
    assert!(!s.is_pending(b"1"));
    // The slot is free again.
    let out = send(&mut s, &legacy_ask(3, args));
    assert_eq!(out[0]["method"], "elicitation/create");
}

// ---------------------------------------------------------------------------------
// Identifiers, URIs, completions.

#[test]
fn progress_token_over_max_id_len_is_ignored() {
    let call = |token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"move_servo","arguments":{{"angle":3}},"_meta":{{"progressToken":"{token}"}}}}}}"#
        ) + "\n"
    };
    // 64 bytes of JSON text, quotes included: progress is reported.
    let fits = "t".repeat(emcp::wire::rpc::MAX_ID_LEN - 2);
    let out = run_chunks(CONFIG, call(&fits).as_bytes(), &[]);
    assert_eq!(out.len(), 4, "{out:?}");
    assert!(out[0].contains("notifications/progress"));
    // One byte more: the token is ignored (no progress), the call is answered.
    let over = "t".repeat(emcp::wire::rpc::MAX_ID_LEN - 1);
    let out = run_chunks(CONFIG, call(&over).as_bytes(), &[]);
    assert_eq!(
        out,
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"servo: 3.0 deg"}]}}"#
        ]
    );
}

#[test]
fn uri_over_max_uri_len_is_not_found_with_its_uri() {
    let name = "t".repeat(emcp::server::MAX_URI_LEN);
    let uri = format!("sensor://{name}/history");
    let input = format!(
        "{}\n{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}}),
        ping(2)
    );
    let out = run_chunks(CONFIG, input.as_bytes(), &[]);
    let err: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(
        err["error"],
        json!({"code": -32002, "message": "Resource not found", "data": {"uri": uri}})
    );
    assert_eq!(out[1], r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
}

struct Chatty {
    accepted: usize,
}

impl Device for Chatty {
    fn completions(&self) -> bool {
        true
    }
    fn prompt(&self, i: usize) -> Option<emcp::model::registry::Prompt<'static>> {
        static PROMPTS: [emcp::model::registry::Prompt<'static>; 1] =
            [emcp::model::registry::Prompt::new("p")];
        PROMPTS.get(i).copied()
    }
    fn complete(&mut self, c: &mut Completion<'_>) {
        self.accepted = (0..emcp::device::MAX_COMPLETIONS + 50)
            .filter(|i| c.offer(&format!("v{i}")))
            .count();
    }
}

#[test]
fn completion_values_beyond_max_completions_are_dropped() {
    let mut s: Server<Chatty> = Server::new(Chatty { accepted: 0 }, Config::new("c", "1")).unwrap();
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}}"#;
    let out = lines(|o| s.handle(req.as_bytes(), o));
    let c = &out[0]["result"]["completion"];
    assert_eq!(
        c["values"].as_array().unwrap().len(),
        emcp::device::MAX_COMPLETIONS
    );
    assert_eq!(c["total"], emcp::device::MAX_COMPLETIONS);
    assert_eq!(c["hasMore"], false);
    assert_eq!(s.device().accepted, emcp::device::MAX_COMPLETIONS);
    assert_pong(&lines(|o| s.handle(ping(2).as_bytes(), o)), 2);
}

// ---------------------------------------------------------------------------------
// Link reset.

#[test]
fn link_reset_cancels_jobs_and_frees_every_table() {
    let mut s: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let servo = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"move_servo","arguments":{{"angle":5}}}}}}"#
        )
    };
    for id in 1..=4 {
        let out = lines(|o| s.handle(listen(id).as_bytes(), o));
        assert_eq!(
            out[0]["method"], "notifications/subscriptions/acknowledged",
            "{out:?}"
        );
    }
    let out = lines(|o| s.handle(listen(5).as_bytes(), o));
    assert_eq!(out[0]["error"]["message"], "Too many open subscriptions");
    for id in [6, 7] {
        assert!(lines(|o| s.handle(servo(id).as_bytes(), o)).is_empty());
    }
    assert!(s.is_pending(b"6") && s.is_pending(b"7") && s.busy());

    s.reset();
    assert!(!s.busy() && !s.is_pending(b"6"));
    // Nothing is sent for the cancelled jobs.
    assert!(lines(|o| {
        s.poll(o);
    })
    .is_empty());
    // Every table is free again.
    for id in 8..=11 {
        let out = lines(|o| s.handle(listen(id).as_bytes(), o));
        assert_eq!(out[0]["method"], "notifications/subscriptions/acknowledged");
    }
    assert!(lines(|o| s.handle(servo(12).as_bytes(), o)).is_empty());
    assert!(s.is_pending(b"12"));
    assert_pong(&lines(|o| s.handle(ping(13).as_bytes(), o)), 13);
}

// ---------------------------------------------------------------------------------
// HTTP: the listen table over the sans-IO transport, and the connection bound of
// `emcp-host` over real sockets.

fn post_stateless(method: &str, id: u32, params: &str) -> Vec<u8> {
    let sep = if params.is_empty() { "" } else { "," };
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}{STATELESS_META}}}}}"#
    );
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

struct Bytes(Vec<u8>);

impl Sink for Bytes {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// Serve one request; the answer and whether it became an open stream.
fn http_once(server: &mut Server<Board>, sessions: &mut Sessions, req: &[u8]) -> (String, bool) {
    let mut out = Bytes(Vec::new());
    let mut scratch = [0u8; 1024];
    let policy = Policy::default();
    let served = http::serve(server, sessions, &policy, req, &mut scratch, &mut out);
    let streaming = matches!(served, Served::Stream { .. });
    (String::from_utf8(out.0).unwrap(), streaming)
}

#[test]
fn listen_table_full_over_http_is_500_and_frees_when_a_stream_closes() {
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let mut sessions = Sessions::new(1);
    let listen = |id| post_stateless("subscriptions/listen", id, r#""notifications":{}"#);
    for id in 1..=4 {
        assert!(
            http_once(&mut server, &mut sessions, &listen(id)).1,
            "listen {id} is a stream"
        );
    }
    let (out, streaming) = http_once(&mut server, &mut sessions, &listen(5));
    assert!(!streaming);
    assert!(
        out.starts_with("HTTP/1.1 500 Internal Server Error\r\n"),
        "{out}"
    );
    assert!(out.ends_with(
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Too many open subscriptions"}}"#
    ));
    // Other requests are still answered, and a closed stream frees its slot.
    let (out, _) = http_once(
        &mut server,
        &mut sessions,
        &post_stateless("server/discover", 6, ""),
    );
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(server.close_listen(b"2"));
    let (out, streaming) = http_once(&mut server, &mut sessions, &listen(7));
    assert!(streaming, "{out}");
}

/// Start `emcp-host` with the sensor board on a free port, at most `max` connections.
fn start_host(max: usize) -> std::net::SocketAddr {
    start_host_with(emcp_host::Limits {
        max_connections: max,
        ..emcp_host::Limits::default()
    })
}

fn start_host_with(limits: emcp_host::Limits) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    std::thread::spawn(move || {
        emcp_host::serve_http_bounded(listener, server, Policy::default(), 1, limits)
    });
    addr
}

#[test]
fn idle_and_slow_connections_give_their_slot_back_but_streams_stay() {
    let addr = start_host_with(emcp_host::Limits {
        max_connections: 2,
        idle_timeout: Duration::from_millis(300),
    });
    // A listen stream (exempt from the timeout) and an idle connection fill both slots;
    // a half-sent request is as idle as no request.
    let mut stream = connect(addr);
    stream
        .write_all(&post_stateless(
            "subscriptions/listen",
            9,
            r#""notifications":{}"#,
        ))
        .unwrap();
    assert!(read_until(&mut stream, "acknowledged").contains("text/event-stream"));
    let mut slow = connect(addr);
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    // The slow one was closed; its slot serves a new client.
    let r = slow.read(&mut [0u8; 16]);
    assert!(matches!(r, Ok(0)), "closed after idling, not {r:?}");
    let mut next = connect(addr);
    next.write_all(&post_stateless("server/discover", 1, ""))
        .unwrap();
    assert!(read_answer(&mut next).starts_with("HTTP/1.1 200 OK\r\n"));
    // The stream outlived the timeout: still open — reads time out (after the rest of
    // the acknowledgement), they never see the end of the stream.
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    loop {
        match stream.read(&mut [0u8; 64]) {
            Ok(0) => panic!("the listen stream was closed"),
            Ok(_) => continue,
            Err(e) => {
                assert!(
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ),
                    "{e}"
                );
                break;
            }
        }
    }
}

fn connect(addr: std::net::SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Read one answer with a `Content-Length` (head and body), or everything until the
/// server closes (for a refusal).
fn read_answer(s: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..end]).to_string();
            let len = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.parse::<usize>().ok());
            if len.is_some_and(|n| got.len() >= end + 4 + n) {
                break;
            }
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8(got).unwrap()
}

/// Read until `needle` has arrived (an event stream never ends by itself).
fn read_until(s: &mut TcpStream, needle: &str) -> String {
    let mut got = String::new();
    let mut buf = [0u8; 4096];
    while !got.contains(needle) {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.push_str(&String::from_utf8_lossy(&buf[..n])),
        }
    }
    got
}

#[test]
fn host_connections_beyond_the_bound_get_503_and_a_freed_slot_serves_again() {
    const MAX: usize = 3;
    let addr = start_host(MAX);
    let discover = |id| post_stateless("server/discover", id, "");
    // Two keep-alive connections, each answered, and one open listen stream: all
    // three slots taken.
    let mut kept: Vec<TcpStream> = (0..2)
        .map(|i| {
            let mut c = connect(addr);
            c.write_all(&discover(i)).unwrap();
            assert!(read_answer(&mut c).starts_with("HTTP/1.1 200 OK\r\n"));
            c
        })
        .collect();
    let mut stream = connect(addr);
    stream
        .write_all(&post_stateless(
            "subscriptions/listen",
            9,
            r#""notifications":{}"#,
        ))
        .unwrap();
    let head = read_until(&mut stream, "acknowledged");
    assert!(head.contains("text/event-stream"), "{head}");

    // One more: 503 with Retry-After, then the server closes it.
    let mut extra = connect(addr);
    extra.write_all(&discover(10)).unwrap();
    let answer = read_answer(&mut extra);
    assert!(
        answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{answer}"
    );
    assert!(answer.contains("Retry-After: 1\r\n"), "{answer}");
    assert!(answer.contains("Connection: close\r\n"), "{answer}");
    assert_eq!(extra.read(&mut [0u8; 16]).unwrap_or(0), 0, "closed");

    // The connections that hold slots are still served.
    kept[0].write_all(&discover(11)).unwrap();
    assert!(read_answer(&mut kept[0]).starts_with("HTTP/1.1 200 OK\r\n"));

    // Closing the listen stream frees its slot: a new connection is served again.
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut c = connect(addr);
        c.write_all(&discover(12)).unwrap();
        let answer = read_answer(&mut c);
        if answer.starts_with("HTTP/1.1 200 OK\r\n") {
            break;
        }
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(Instant::now() < deadline, "the slot never freed");
        std::thread::sleep(Duration::from_millis(20));
    }
    kept.clear();
}
