//! Async serving (`emcp::transport::asynch`) driven on the host: in-memory duplex pipes
//! implementing `embedded-io-async` `Read`/`Write`, one `block_on` executor, and a
//! tick that only yields. HTTP: both eras, 202, 413, 408, 431, a response too large
//! for the transmit buffer, a pending job streamed on its own POST, a listen stream
//! fed by another connection's change, a dropped stream cancelling its job, two
//! connections interleaved on one shared server. Byte stream: lines answered, a job
//! run while waiting for input, end of input.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::poll_fn;
use std::task::{Poll, Waker};

use embassy_futures::join::join;
use embassy_futures::{block_on, yield_now};
use embassy_sync::blocking_mutex::raw::NoopRawMutex;
use embedded_io_async::ErrorKind;
use emcp::transport::asynch::{self, serve_http_connection, HttpState, Limits, Shared};
use emcp::transport::http::Policy;
use emcp::wire::framing::Framer;
use emcp::Server;
use sensor_board::{Board, CONFIG};

/// One direction of a pipe.
#[derive(Default)]
struct Half {
    bytes: RefCell<VecDeque<u8>>,
    closed: Cell<bool>,
    /// Writes into this half fail (the peer reset the connection).
    broken: Cell<bool>,
    reader: RefCell<Option<Waker>>,
}

impl Half {
    fn wake(&self) {
        if let Some(w) = self.reader.borrow_mut().take() {
            w.wake();
        }
    }
    fn close(&self) {
        self.closed.set(true);
        self.wake();
    }
}

/// One end of a duplex pipe: reads `rx`, writes `tx`.
struct End<'a> {
    rx: &'a Half,
    tx: &'a Half,
}

impl embedded_io_async::ErrorType for End<'_> {
    type Error = ErrorKind;
}

impl embedded_io_async::Read for End<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ErrorKind> {
        // `block_on` polls everything again and again: a read still waiting after
        // this many polls waits for bytes that never come (a test bug, not a hang).
        let mut polls = 0u32;
        poll_fn(|cx| {
            let mut q = self.rx.bytes.borrow_mut();
            if !q.is_empty() {
                let n = buf.len().min(q.len());
                for (d, s) in buf.iter_mut().zip(q.drain(..n)) {
                    *d = s;
                }
                Poll::Ready(Ok(n))
            } else if self.rx.closed.get() {
                Poll::Ready(Ok(0))
            } else {
                polls += 1;
                assert!(polls < 2_000_000, "a read waited forever");
                *self.rx.reader.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
        })
        .await
    }
}

impl embedded_io_async::Write for End<'_> {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, ErrorKind> {
        if self.tx.broken.get() {
            return Err(ErrorKind::BrokenPipe);
        }
        self.tx.bytes.borrow_mut().extend(buf);
        self.tx.wake();
        Ok(buf.len())
    }
    async fn flush(&mut self) -> Result<(), ErrorKind> {
        Ok(())
    }
}

/// A pipe's two halves; `ends()` gives (device end, client end).
#[derive(Default)]
struct Pipe(Half, Half);

impl Pipe {
    fn ends(&self) -> (End<'_>, End<'_>) {
        (
            End {
                rx: &self.0,
                tx: &self.1,
            },
            End {
                rx: &self.1,
                tx: &self.0,
            },
        )
    }
    /// The client hangs up (the device reads end of input).
    fn hang_up(&self) {
        self.0.close();
    }
}

type State = HttpState<Board>;

fn shared() -> Shared<NoopRawMutex, State> {
    Shared::new(HttpState::new(
        Server::new(Board::new(), CONFIG).unwrap(),
        7,
    ))
}

/// A device-side connection task: `serve_http_connection` with the given buffers.
async fn device(
    shared: &Shared<NoopRawMutex, State>,
    mut end: End<'_>,
    rx: usize,
    tx: usize,
    limits: Limits,
) {
    let mut rx_buf = vec![0u8; rx];
    let mut tx_buf = vec![0u8; tx];
    let policy = Policy::default();
    let mut tick = yield_now;
    serve_http_connection(
        shared,
        &mut end,
        &mut rx_buf,
        &mut tx_buf,
        &policy,
        &limits,
        &mut tick,
    )
    .await
    .unwrap();
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn post(headers: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A 2026-07-28 request: headers that agree with the body.
fn stateless(method: &str, name: Option<&str>, id: u32, params: &str) -> String {
    let mut headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n");
    if let Some(n) = name {
        headers.push_str(&format!("Mcp-Name: {n}\r\n"));
    }
    let sep = if params.is_empty() { "" } else { "," };
    post(
        &headers,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}{META}}}}}"#
        ),
    )
}

/// A 2026-07-28 `read_sensor` call for the humidity.
fn read_humidity(id: u32) -> String {
    stateless(
        "tools/call",
        Some("read_sensor"),
        id,
        r#""name":"read_sensor","arguments":{"sensor":"humidity"}"#,
    )
}

/// The client: write a request, read its whole answer.
async fn ask(end: &mut End<'_>, request: &str) -> String {
    use embedded_io_async::Write;
    end.write(request.as_bytes()).await.unwrap();
    answer(end).await
}

/// Read one whole answer (by `Content-Length`, or to the end of a chunked body), or
/// what came before the device closed.
async fn answer(end: &mut End<'_>) -> String {
    use embedded_io_async::Read;
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    loop {
        if let Some(n) = complete(&got) {
            assert_eq!(n, got.len(), "more than one answer");
            return String::from_utf8(got).unwrap();
        }
        let n = end.read(&mut buf).await.unwrap();
        if n == 0 {
            return String::from_utf8(got).unwrap();
        }
        got.extend_from_slice(&buf[..n]);
    }
}

/// The length of the first complete answer in `got`.
fn complete(got: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(got).ok()?;
    let head_end = text.find("\r\n\r\n")? + 4;
    let head = &text[..head_end];
    if head.contains("Transfer-Encoding: chunked") {
        let end = text[head_end..].find("\r\n0\r\n\r\n")?;
        return Some(head_end + end + 7);
    }
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .map_or(0, |v| v.trim().parse::<usize>().unwrap());
    (text.len() >= head_end + len).then_some(head_end + len)
}

use emcp_tests::{http_body as body, http_status as status};

/// The JSON-RPC messages of an event stream's body.
fn events(answer: &str) -> Vec<serde_json::Value> {
    body(answer)
        .split("\r\n\r\n")
        .filter_map(|e| e.strip_prefix("event: message\r\ndata: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn json(answer: &str) -> serde_json::Value {
    serde_json::from_str(&body(answer)).unwrap()
}

fn header<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    let head = answer.split("\r\n\r\n").next()?;
    head.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
}

#[test]
fn legacy_session_initialize_then_tools_call_on_one_connection() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 2048, Limits::new()),
        async {
            let init = ask(
                &mut client,
                &post("", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#),
            )
            .await;
            assert_eq!(status(&init), "HTTP/1.1 200 OK", "{init}");
            assert_eq!(json(&init)["result"]["protocolVersion"], "2025-06-18");
            let session = header(&init, "Mcp-Session-Id").unwrap().to_string();
            let s = format!("Mcp-Session-Id: {session}\r\n");
            let note = ask(
                &mut client,
                &post(
                    &s,
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                ),
            )
            .await;
            assert_eq!(status(&note), "HTTP/1.1 202 Accepted", "{note}");
            let call = ask(
                &mut client,
                &post(&s, r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_sensor","arguments":{"sensor":"temperature"}}}"#),
            )
            .await;
            assert_eq!(status(&call), "HTTP/1.1 200 OK", "{call}");
            let v = json(&call);
            assert_eq!(v["id"], 2);
            assert_eq!(v["result"]["structuredContent"]["sensor"], "temperature");
            pipe.hang_up();
        },
    ));
}

#[test]
fn stateless_request_answered_with_json() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 2048, Limits::new()),
        async {
            let req = stateless(
                "tools/call",
                Some("read_sensor"),
                5,
                r#""name":"read_sensor","arguments":{"sensor":"humidity"}"#,
            );
            let a = ask(&mut client, &req).await;
            assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
            assert_eq!(header(&a, "Content-Type"), Some("application/json"));
            let v = json(&a);
            assert_eq!(v["id"], 5);
            assert_eq!(v["result"]["structuredContent"]["sensor"], "humidity");
            // A header that contradicts the body: 400 with -32020, connection kept.
            let bad = req.replace("Mcp-Name: read_sensor", "Mcp-Name: set_led");
            let a = ask(&mut client, &bad).await;
            assert_eq!(status(&a), "HTTP/1.1 400 Bad Request", "{a}");
            assert_eq!(json(&a)["error"]["code"], -32020);
            pipe.hang_up();
        },
    ));
}

#[test]
fn oversized_body_is_413_and_the_connection_closes() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 2048, Limits::new()),
        async {
            use embedded_io_async::Write;
            let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
            client.write(head.as_bytes()).await.unwrap();
            let a = answer(&mut client).await;
            assert_eq!(status(&a), "HTTP/1.1 413 Payload Too Large", "{a}");
            assert_eq!(header(&a, "Connection"), Some("close"));
            assert_eq!(header(&a, "Content-Type"), Some("text/plain"));
            assert_eq!(body(&a), "413 Payload Too Large: body over 8192 bytes\n");
        },
    ));
    // `join` returned: the device closed on its own, the client never hung up.
}

#[test]
fn a_head_larger_than_the_receive_buffer_is_431() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 256, 1024, Limits::new()),
        async {
            use embedded_io_async::Write;
            let long = format!(
                "POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Pad: {}\r\n",
                "a".repeat(400)
            );
            client.write(long.as_bytes()).await.unwrap();
            let a = answer(&mut client).await;
            assert_eq!(
                status(&a),
                "HTTP/1.1 431 Request Header Fields Too Large",
                "{a}"
            );
            assert_eq!(
                body(&a),
                "431 Request Header Fields Too Large: request head too large\n"
            );
        },
    ));
}

#[test]
fn a_transmit_buffer_below_the_minimum_is_refused_with_500() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    let tx = asynch::MIN_TX_BUF - 1;
    block_on(join(device(&shared, dev, 4096, tx, Limits::new()), async {
        let a = ask(&mut client, &stateless("ping", None, 1, "")).await;
        assert_eq!(status(&a), "HTTP/1.1 500 Internal Server Error", "{a}");
        assert!(body(&a).starts_with("500 Internal Server Error: "), "{a}");
    }));
}

#[test]
fn response_too_large_for_the_transmit_buffer_is_32603_for_its_id() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 1024, Limits::new()),
        async {
            // log://samples is a 4096-byte blob: over 5 KiB of base64.
            let req = stateless(
                "resources/read",
                Some("log://samples"),
                8,
                r#""uri":"log://samples""#,
            );
            let a = ask(&mut client, &req).await;
            assert_eq!(status(&a), "HTTP/1.1 500 Internal Server Error", "{a}");
            let v = json(&a);
            assert_eq!(v["id"], 8);
            assert_eq!(v["error"]["code"], -32603);
            assert_eq!(
                v["error"]["message"],
                "Response too large for the output buffer"
            );
            // The connection goes on: a small response still fits.
            let a = ask(
                &mut client,
                &stateless(
                    "tools/call",
                    Some("read_sensor"),
                    9,
                    r#""name":"read_sensor","arguments":{"sensor":"pressure"}"#,
                ),
            )
            .await;
            assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
            assert_eq!(json(&a)["result"]["structuredContent"]["unit"], "hPa");
            pipe.hang_up();
        },
    ));
}

/// Whatever the transmit buffer's size around a large response, the answer is whole:
/// the response itself or -32603 for its id, never a cut body.
#[test]
fn answers_are_whole_at_every_transmit_buffer_size_around_a_large_response() {
    let (mut whole, mut too_large) = (0, 0);
    for tx in (5600..6400).step_by(8) {
        let shared = shared();
        let pipe = Pipe::default();
        let (dev, mut client) = pipe.ends();
        block_on(join(device(&shared, dev, 4096, tx, Limits::new()), async {
            for legacy in [false, true] {
                let req = if legacy {
                    post(
                        "",
                        r#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"log://samples"}}"#,
                    )
                } else {
                    stateless(
                        "resources/read",
                        Some("log://samples"),
                        8,
                        r#""uri":"log://samples""#,
                    )
                };
                let a = ask(&mut client, &req).await;
                let v = json(&a);
                assert_eq!(v["id"], 8, "tx {tx}: {a}");
                if v["error"]["code"] == -32603 {
                    too_large += 1;
                } else {
                    let blob = v["result"]["contents"][0]["blob"].as_str().unwrap();
                    assert_eq!(blob.len(), 5464, "tx {tx}");
                    whole += 1;
                }
            }
            pipe.hang_up();
        }));
    }
    // Both outcomes occur in the range.
    assert!(
        whole > 0 && too_large > 0,
        "{whole} whole, {too_large} too large"
    );
}

#[test]
fn a_response_longer_than_the_status_scratch_goes_chunked_and_whole() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 8192, Limits::new()),
        async {
            let req = stateless(
                "resources/read",
                Some("log://samples"),
                8,
                r#""uri":"log://samples""#,
            );
            let a = ask(&mut client, &req).await;
            assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
            let v = json(&a);
            assert_eq!(v["id"], 8);
            assert!(v["result"]["contents"][0]["blob"].as_str().unwrap().len() > 5000);
            pipe.hang_up();
        },
    ));
}

/// A 2026-07-28 `move_servo` call with a progress token: a job of three steps.
fn servo(id: u32) -> String {
    post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: move_servo\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"move_servo","arguments":{{"angle":10}},"_meta":{{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ),
    )
}

#[test]
fn a_pending_job_streams_its_progress_then_its_result_on_its_own_post() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 2048, Limits::new()),
        async {
            let a = ask(&mut client, &servo(9)).await;
            assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
            assert_eq!(header(&a, "Content-Type"), Some("text/event-stream"));
            let ev = events(&a);
            let progress: Vec<_> = ev
                .iter()
                .filter(|e| e["method"] == "notifications/progress")
                .map(|e| e["params"]["progress"].as_u64().unwrap())
                .collect();
            assert_eq!(progress, [1, 2, 3], "{ev:?}");
            let last = ev.last().unwrap();
            assert_eq!(last["id"], 9);
            assert_eq!(last["result"]["content"][0]["text"], "servo: 10.0 deg");
            // The stream ended with the result: the connection serves the next request.
            let a = ask(&mut client, &read_humidity(10)).await;
            assert_eq!(json(&a)["id"], 10, "{a}");
            assert_eq!(json(&a)["result"]["structuredContent"]["unit"], "%", "{a}");
            pipe.hang_up();
        },
    ));
    assert!(!shared.with(|s| s.server.busy()).unwrap());
}

#[test]
fn a_stream_dropped_mid_job_cancels_the_job() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 2048, Limits::new()),
        async {
            use embedded_io_async::{Read, Write};
            client.write(servo(9).as_bytes()).await.unwrap();
            // The head and the first progress event, then the client goes away.
            let mut buf = [0u8; 64];
            assert!(client.read(&mut buf).await.unwrap() > 0);
            pipe.hang_up();
        },
    ));
    let (pending, cancelled) = shared
        .with(|s| (s.server.is_pending(b"9"), s.server.device().cancelled()))
        .unwrap();
    assert!(!pending);
    assert_eq!(cancelled, 1);
}

#[test]
fn a_stream_whose_head_cannot_be_sent_cancels_its_job() {
    let shared = shared();
    let pipe = Pipe::default();
    let (mut dev, mut client) = pipe.ends();
    pipe.1.broken.set(true); // the device's writes fail: the client reset
    block_on(join(
        async {
            let (mut rx, mut tx) = (vec![0u8; 4096], vec![0u8; 2048]);
            let served = serve_http_connection(
                &shared,
                &mut dev,
                &mut rx,
                &mut tx,
                &Policy::default(),
                &Limits::new(),
                &mut yield_now,
            )
            .await;
            assert!(matches!(
                served,
                Err(emcp::transport::serve::ServeError::Write(Some(
                    ErrorKind::BrokenPipe
                )))
            ));
        },
        async {
            use embedded_io_async::Write;
            client.write(servo(9).as_bytes()).await.unwrap();
        },
    ));
    let (pending, cancelled) = shared
        .with(|s| (s.server.is_pending(b"9"), s.server.device().cancelled()))
        .unwrap();
    assert!(!pending);
    assert_eq!(cancelled, 1);
}

#[test]
fn a_stalled_request_is_408_after_the_idle_ticks() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(
            &shared,
            dev,
            4096,
            2048,
            Limits::new().idle_ticks(50).tick_ms(600),
        ),
        async {
            use embedded_io_async::Write;
            // A byte now and then, never the whole request.
            for b in b"POST /mcp HTTP/1.1\r\nHo" {
                client.write(&[*b]).await.unwrap();
                yield_now().await;
            }
            let a = answer(&mut client).await;
            assert_eq!(status(&a), "HTTP/1.1 408 Request Timeout", "{a}");
            assert_eq!(
                body(&a),
                "408 Request Timeout: request not complete within 30 s\n"
            );
        },
    ));
}

/// A `Tick` that records how it is waited on: single ticks, and whole idle limits.
struct Recorded<'a> {
    single: &'a Cell<u32>,
    whole: &'a RefCell<Vec<u32>>,
}

impl asynch::Tick for Recorded<'_> {
    fn tick(&mut self) -> impl std::future::Future<Output = ()> {
        self.single.set(self.single.get() + 1);
        yield_now()
    }
    fn ticks(&mut self, n: u32) -> impl std::future::Future<Output = ()> {
        self.whole.borrow_mut().push(n);
        async move {
            for _ in 0..n {
                yield_now().await;
            }
        }
    }
}

#[test]
fn an_idle_connection_waits_its_limit_in_one_wait() {
    let shared = shared();
    let pipe = Pipe::default();
    let (mut dev, mut client) = pipe.ends();
    let (single, whole) = (Cell::new(0), RefCell::new(Vec::new()));
    block_on(join(
        async {
            let (mut rx_buf, mut tx_buf) = (vec![0u8; 4096], vec![0u8; 2048]);
            let mut tick = Recorded {
                single: &single,
                whole: &whole,
            };
            serve_http_connection(
                &shared,
                &mut dev,
                &mut rx_buf,
                &mut tx_buf,
                &Policy::default(),
                &Limits::new().idle_ticks(50),
                &mut tick,
            )
            .await
            .unwrap();
            pipe.1.close(); // the device's task closes the socket when serving ends
        },
        async {
            use embedded_io_async::Read;
            let discover = stateless("server/discover", None, 1, "");
            let a = ask(&mut client, &discover).await;
            assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
            // Then nothing: the device closes the connection at its limit, quietly.
            let mut buf = [0u8; 64];
            assert_eq!(client.read(&mut buf).await.unwrap(), 0);
        },
    ));
    // One wait for the limit before the request and one after it; no single ticks.
    assert_eq!(*whole.borrow(), [50, 50]);
    assert_eq!(single.get(), 0);
}

#[test]
fn two_connections_interleave_on_one_server() {
    let shared = shared();
    let (p1, p2) = (Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    block_on(join(
        join(
            device(&shared, d1, 4096, 2048, Limits::new()),
            device(&shared, d2, 4096, 2048, Limits::new()),
        ),
        join(
            async {
                // A pending job on connection 1…
                let a = ask(&mut c1, &servo(1)).await;
                let ev = events(&a);
                assert!(ev.iter().all(|e| e["id"].is_null() || e["id"] == 1));
                assert_eq!(ev.last().unwrap()["id"], 1, "{a}");
                p1.hang_up();
            },
            async {
                // …while connection 2 asks its own questions.
                for id in 2..6 {
                    let a = ask(
                        &mut c2,
                        &stateless(
                            "tools/call",
                            Some("read_sensor"),
                            id,
                            r#""name":"read_sensor","arguments":{"sensor":"pressure"}"#,
                        ),
                    )
                    .await;
                    assert_eq!(json(&a)["id"], id, "{a}");
                    yield_now().await;
                }
                p2.hang_up();
            },
        ),
    ));
}

#[test]
fn a_listen_stream_hears_a_change_made_on_another_connection() {
    let shared = shared();
    let (p1, p2) = (Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    let acknowledged = Cell::new(false);
    block_on(join(
        join(
            device(&shared, d1, 4096, 2048, Limits::new()),
            device(&shared, d2, 4096, 2048, Limits::new()),
        ),
        join(
            async {
                use embedded_io_async::{Read, Write};
                let listen = stateless(
                    "subscriptions/listen",
                    None,
                    7,
                    r#""notifications":{"resourceSubscriptions":["led://state"]}"#,
                );
                c1.write(listen.as_bytes()).await.unwrap();
                let mut got = Vec::new();
                let mut buf = [0u8; 512];
                while !String::from_utf8_lossy(&got).contains("resources/updated") {
                    let n = c1.read(&mut buf).await.unwrap();
                    got.extend_from_slice(&buf[..n]);
                    if String::from_utf8_lossy(&got).contains("subscriptions/acknowledged") {
                        acknowledged.set(true);
                    }
                }
                let text = String::from_utf8(got).unwrap();
                assert!(text.contains(r#""uri":"led://state""#), "{text}");
                assert!(
                    text.contains(r#""io.modelcontextprotocol/subscriptionId":7"#),
                    "{text}"
                );
                p1.hang_up();
            },
            async {
                while !acknowledged.get() {
                    yield_now().await;
                }
                let a = ask(
                    &mut c2,
                    &stateless(
                        "tools/call",
                        Some("set_led"),
                        3,
                        r#""name":"set_led","arguments":{"color":"red"}"#,
                    ),
                )
                .await;
                assert_eq!(json(&a)["id"], 3, "{a}");
                p2.hang_up();
            },
        ),
    ));
    // The listen stream was closed with its connection.
    assert!(!shared.with(|s| s.server.close_listen(b"7")).unwrap());
}

/// Read from `end` until the text read contains `needle`; returns all of it.
async fn until(end: &mut End<'_>, needle: &str) -> String {
    use embedded_io_async::Read;
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    while !String::from_utf8_lossy(&got).contains(needle) {
        let n = end.read(&mut buf).await.unwrap();
        assert!(
            n > 0,
            "closed before {needle:?}: {}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(got).unwrap()
}

#[test]
fn two_listen_streams_both_hear_one_change() {
    let shared = shared();
    let (p1, p2, p3) = (Pipe::default(), Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    let (d3, mut c3) = p3.ends();
    let ready = Cell::new(0);
    block_on(join(
        join(
            join(
                device(&shared, d1, 4096, 2048, Limits::new()),
                device(&shared, d2, 4096, 2048, Limits::new()),
            ),
            device(&shared, d3, 4096, 2048, Limits::new()),
        ),
        join(
            join(
                async {
                    use embedded_io_async::Write;
                    let listen = stateless(
                        "subscriptions/listen",
                        None,
                        11,
                        r#""notifications":{"resourceSubscriptions":["led://state"]}"#,
                    );
                    c1.write(listen.as_bytes()).await.unwrap();
                    until(&mut c1, "subscriptions/acknowledged").await;
                    ready.set(ready.get() + 1);
                    let text = until(&mut c1, "resources/updated").await;
                    assert!(text.contains(r#"/subscriptionId":11}"#), "{text}");
                    p1.hang_up();
                },
                async {
                    use embedded_io_async::Write;
                    let listen = stateless(
                        "subscriptions/listen",
                        None,
                        12,
                        r#""notifications":{"resourceSubscriptions":["led://state"]}"#,
                    );
                    c2.write(listen.as_bytes()).await.unwrap();
                    until(&mut c2, "subscriptions/acknowledged").await;
                    ready.set(ready.get() + 1);
                    let text = until(&mut c2, "resources/updated").await;
                    assert!(text.contains(r#"/subscriptionId":12}"#), "{text}");
                    p2.hang_up();
                },
            ),
            async {
                while ready.get() < 2 {
                    yield_now().await;
                }
                let a = ask(
                    &mut c3,
                    &stateless(
                        "tools/call",
                        Some("set_led"),
                        3,
                        r#""name":"set_led","arguments":{"color":"blue"}"#,
                    ),
                )
                .await;
                assert_eq!(json(&a)["id"], 3, "{a}");
                p3.hang_up();
            },
        ),
    ));
}

#[test]
fn a_cancelled_listen_stream_ends_and_a_pipelined_request_is_answered_after_it() {
    let shared = shared();
    let (p1, p2) = (Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    let listening = Cell::new(false);
    block_on(join(
        join(
            device(&shared, d1, 4096, 2048, Limits::new()),
            device(&shared, d2, 4096, 2048, Limits::new()),
        ),
        join(
            async {
                use embedded_io_async::Write;
                let listen = stateless(
                    "subscriptions/listen",
                    None,
                    7,
                    r#""notifications":{"resourceSubscriptions":["led://state"]}"#,
                );
                // The listen request and, right behind it, another request.
                let both = listen + &read_humidity(8);
                c1.write(both.as_bytes()).await.unwrap();
                let ack = until(&mut c1, "subscriptions/acknowledged").await;
                listening.set(true);
                // The cancel ends the stream; then the other request is answered.
                let rest = ack + &until(&mut c1, r#""id":8,"result""#).await;
                // The stream's last chunk, its end, then the next answer's head.
                assert!(
                    rest.contains("\r\n\r\n\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n"),
                    "{rest}"
                );
                p1.hang_up();
            },
            async {
                while !listening.get() {
                    yield_now().await;
                }
                let cancel = post(
                    "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: notifications/cancelled\r\n",
                    &format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":7,{META}}}}}"#
                    ),
                );
                let a = ask(&mut c2, &cancel).await;
                assert_eq!(status(&a), "HTTP/1.1 202 Accepted", "{a}");
                p2.hang_up();
            },
        ),
    ));
    assert!(!shared.with(|s| s.server.is_listening(b"7")).unwrap());
}

#[test]
fn legacy_get_stream_carries_the_sessions_resource_updates() {
    let shared = shared();
    let (p1, p2) = (Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    let session = RefCell::new(String::new());
    let streaming = Cell::new(false);
    block_on(join(
        join(
            device(&shared, d1, 4096, 2048, Limits::new()),
            device(&shared, d2, 4096, 2048, Limits::new()),
        ),
        join(
            async {
                let init = ask(
                    &mut c1,
                    &post("", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#),
                )
                .await;
                let id = header(&init, "Mcp-Session-Id").unwrap().to_string();
                let s = format!("Mcp-Session-Id: {id}\r\n");
                *session.borrow_mut() = id;
                let a = ask(
                    &mut c1,
                    &post(&s, r#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"led://state"}}"#),
                )
                .await;
                assert_eq!(json(&a)["id"], 2, "{a}");
                use embedded_io_async::Write;
                let get = format!(
                    "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n{s}\r\n"
                );
                c1.write(get.as_bytes()).await.unwrap();
                let head = until(&mut c1, "\r\n\r\n").await;
                assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
                assert!(head.contains("text/event-stream"), "{head}");
                streaming.set(true);
                let text = until(&mut c1, "resources/updated").await;
                assert!(text.contains(r#""uri":"led://state""#), "{text}");
                p1.hang_up();
            },
            async {
                while !streaming.get() {
                    yield_now().await;
                }
                let s = format!("Mcp-Session-Id: {}\r\n", session.borrow());
                let a = ask(
                    &mut c2,
                    &post(&s, r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"set_led","arguments":{"color":"green"}}}"#),
                )
                .await;
                assert_eq!(json(&a)["id"], 3, "{a}");
                p2.hang_up();
            },
        ),
    ));
}

#[test]
fn a_get_stream_ends_when_its_session_is_deleted_and_the_connection_goes_on() {
    let shared = shared();
    let (p1, p2) = (Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    let session = RefCell::new(String::new());
    let streaming = Cell::new(false);
    block_on(join(
        join(
            device(&shared, d1, 4096, 2048, Limits::new()),
            device(&shared, d2, 4096, 2048, Limits::new()),
        ),
        join(
            async {
                use embedded_io_async::Write;
                let init = ask(
                    &mut c1,
                    &post("", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#),
                )
                .await;
                let id = header(&init, "Mcp-Session-Id").unwrap().to_string();
                let get = format!(
                    "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\n\r\n"
                );
                *session.borrow_mut() = id;
                c1.write(get.as_bytes()).await.unwrap();
                until(&mut c1, "\r\n\r\n").await;
                streaming.set(true);
                // The DELETE on the other connection ends the stream's chunked body…
                until(&mut c1, "0\r\n\r\n").await;
                // …and this connection serves the next request.
                let a = ask(&mut c1, &read_humidity(4)).await;
                assert_eq!(json(&a)["id"], 4, "{a}");
                assert_eq!(json(&a)["result"]["structuredContent"]["unit"], "%", "{a}");
                p1.hang_up();
            },
            async {
                while !streaming.get() {
                    yield_now().await;
                }
                let delete = format!(
                    "DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {}\r\n\r\n",
                    session.borrow()
                );
                let a = ask(&mut c2, &delete).await;
                assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
                p2.hang_up();
            },
        ),
    ));
}

#[test]
fn legacy_response_too_large_is_200_with_32603() {
    let shared = shared();
    let pipe = Pipe::default();
    let (dev, mut client) = pipe.ends();
    block_on(join(
        device(&shared, dev, 4096, 1024, Limits::new()),
        async {
            let init = ask(
                &mut client,
                &post("", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#),
            )
            .await;
            let s = format!(
                "Mcp-Session-Id: {}\r\n",
                header(&init, "Mcp-Session-Id").unwrap()
            );
            let a = ask(
                &mut client,
                &post(&s, r#"{"jsonrpc":"2.0","id":"big","method":"resources/read","params":{"uri":"log://samples"}}"#),
            )
            .await;
            assert_eq!(status(&a), "HTTP/1.1 200 OK", "{a}");
            let v = json(&a);
            assert_eq!(v["id"], "big");
            assert_eq!(v["error"]["code"], -32603);
            pipe.hang_up();
        },
    ));
}

static GREET: [emcp::model::registry::Tool<'static>; 1] = [emcp::model::registry::Tool::new(
    "greet",
    r#"{"type":"object"}"#,
)];

/// A question longer than the status scratch of a 2 KiB transmit buffer: the request
/// to the client goes out as an event all the same.
const LONG_QUESTION: &str = "Name? (Whatever you would like to be called: a first name, a nickname, a handle; it is only used in the greeting that this tool sends back, and is not kept anywhere once the call is over. Answer with the name alone, without quotes or punctuation.)";

/// Asks the client for a name (elicitation), then greets with it.
struct Greeter;

impl emcp::Device for Greeter {
    fn tool(&self, i: usize) -> Option<emcp::model::registry::Tool<'static>> {
        GREET.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut emcp::device::ToolCall<'_>) -> emcp::Step {
        let name = call
            .input("who")
            .and_then(|v| v.get("content"))
            .and_then(|c| c.get("name"))
            .and_then(|n| n.as_str())
            .and_then(|n| n.as_plain().map(str::to_owned));
        match name {
            Some(name) => {
                call.text(&format!("Hello, {name}!"));
            }
            None => {
                call.ask("who", emcp::device::input::Capability::Elicitation, &|w| {
                    w.begin_object();
                    w.key("message");
                    w.str(LONG_QUESTION);
                    w.end_object();
                });
            }
        }
        emcp::Step::Done
    }
}

#[test]
fn a_legacy_call_waiting_for_input_is_answered_on_its_stream_after_another_posts_the_input() {
    let shared: Shared<NoopRawMutex, HttpState<Greeter, 2, 2, 1>> = Shared::new(HttpState::new(
        Server::new(Greeter, emcp::Config::new("g", "1")).unwrap(),
        9,
    ));
    let (p1, p2) = (Pipe::default(), Pipe::default());
    let (d1, mut c1) = p1.ends();
    let (d2, mut c2) = p2.ends();
    let session = RefCell::new(String::new());
    let asked = RefCell::new(None::<serde_json::Value>);
    let conn = |end| {
        let shared = &shared;
        async move {
            let (mut end, mut rx, mut tx) = (end, vec![0u8; 4096], vec![0u8; 2048]);
            serve_http_connection(
                shared,
                &mut end,
                &mut rx,
                &mut tx,
                &Policy::default(),
                &Limits::new(),
                &mut yield_now,
            )
            .await
            .unwrap();
        }
    };
    block_on(join(
        join(conn(d1), conn(d2)),
        join(
            async {
                use embedded_io_async::Write;
                let init = ask(
                    &mut c1,
                    &post("", r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#),
                )
                .await;
                let id = header(&init, "Mcp-Session-Id").unwrap().to_string();
                let s = format!("Mcp-Session-Id: {id}\r\n");
                *session.borrow_mut() = id;
                let call = post(
                    &s,
                    r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"greet","arguments":{}}}"#,
                );
                c1.write(call.as_bytes()).await.unwrap();
                // The request to the client comes on the call's own stream…
                let first = until(&mut c1, "elicitation/create").await;
                let data = dechunked(&first);
                let line = data.lines().find(|l| l.contains("elicitation/create"));
                let line = line.unwrap().strip_prefix("data: ").unwrap();
                let request: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(request["params"]["message"], LONG_QUESTION);
                *asked.borrow_mut() = Some(request["id"].clone());
                // …and, once the answer was posted elsewhere, the result ends it.
                let rest = answer_tail(&mut c1).await;
                assert!(rest.contains(r#""id":"c1","result""#), "{rest}");
                assert!(rest.contains("Hello, Ada!"), "{rest}");
                p1.hang_up();
            },
            async {
                let id = loop {
                    if let Some(id) = asked.borrow().clone() {
                        break id;
                    }
                    yield_now().await;
                };
                let s = format!("Mcp-Session-Id: {}\r\n", session.borrow());
                let response = serde_json::json!({"jsonrpc": "2.0", "id": id,
                    "result": {"action": "accept", "content": {"name": "Ada"}}});
                let a = ask(&mut c2, &post(&s, &response.to_string())).await;
                assert_eq!(status(&a), "HTTP/1.1 202 Accepted", "{a}");
                p2.hang_up();
            },
        ),
    ));
}

/// The complete chunks of a chunked body so far (head skipped), joined.
fn dechunked(answer: &str) -> String {
    let mut rest = answer.split_once("\r\n\r\n").unwrap().1;
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size, 16).unwrap();
        if n == 0 || tail.len() < n + 2 {
            break;
        }
        out.push_str(&tail[..n]);
        rest = &tail[n + 2..];
    }
    out
}

/// Read to the end of a chunked body already under way.
async fn answer_tail(end: &mut End<'_>) -> String {
    until(end, "\r\n0\r\n\r\n").await
}

#[test]
fn byte_stream_answers_lines_runs_jobs_while_waiting_and_ends_at_end_of_input() {
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).unwrap();
    let mut framer: Framer<1024> = Framer::new();
    let pipe = Pipe::default();
    let unused = Half::default();
    // The device's two halves (a UART's `split()`), and the client's end.
    let mut rx = End {
        rx: &pipe.0,
        tx: &unused,
    };
    let mut writer = End {
        rx: &unused,
        tx: &pipe.1,
    };
    let (_, mut client) = pipe.ends();
    let mut tx_buf = [0u8; 1024];
    let lines = std::cell::RefCell::new(Vec::<String>::new());
    block_on(join(
        async {
            let mut tick = yield_now;
            asynch::serve(
                &mut server,
                &mut framer,
                &mut rx,
                &mut writer,
                &mut tx_buf,
                &mut tick,
            )
            .await
            .unwrap();
            pipe.1.close();
        },
        async {
            use embedded_io_async::{Read, Write};
            client
                .write(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"move_servo","arguments":{"angle":5},"_meta":{"progressToken":"s"}}}
"#)
                .await
                .unwrap();
            // The job's progress and result come while no more input arrives.
            let mut got = Vec::new();
            let mut buf = [0u8; 256];
            while !String::from_utf8_lossy(&got).contains(r#""id":2,"result""#) {
                let n = client.read(&mut buf).await.unwrap();
                assert!(n > 0);
                got.extend_from_slice(&buf[..n]);
            }
            // The last line, without its newline, and end of input.
            client
                .write(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
                .await
                .unwrap();
            pipe.hang_up();
            loop {
                let n = client.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            lines
                .borrow_mut()
                .extend(String::from_utf8(got).unwrap().lines().map(String::from));
        },
    ));
    let lines = lines.into_inner();
    let ids: Vec<_> = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["id"].clone(), v["method"].clone()))
        .collect();
    assert_eq!(ids[0].0, 1, "{lines:?}");
    let progress = ids
        .iter()
        .filter(|(_, m)| m == "notifications/progress")
        .count();
    assert_eq!(progress, 3, "{lines:?}");
    assert_eq!(ids[ids.len() - 2].0, 2, "{lines:?}");
    assert_eq!(ids[ids.len() - 1].0, 3, "{lines:?}");
}
