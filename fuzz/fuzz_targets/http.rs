//! The Streamable HTTP transport (`emcp::transport::http::serve`, sans-IO) with the Rust sensor
//! board, driven as a connection: bytes arrive in chunks into a receive buffer of
//! 2048 bytes (`Policy::max_body` 1024), and `serve` is called until `Incomplete`.
//!
//! Input: two knob bytes (the chunk-size seed, 0 = as much as fits; the scratch size,
//! 16–2056 bytes), then the bytes the client sends. Invariants:
//! - `Incomplete` writes nothing; every other outcome consumed at least one and at
//!   most the buffered bytes, and wrote exactly one answer head: a status line of
//!   one of the transport's statuses, `Name: value` header lines, a blank line;
//! - a `Content-Length` body is exactly that long; a chunked body is well formed and,
//!   unless the answer is an open stream, terminated; a JSON body is one JSON-RPC 2.0
//!   message and every SSE `data:` line is one (`emcp_fuzz::message`);
//! - a full buffer without a complete request is answered 431 (`http::reject`);
//! - the same bytes give the same answers whether they arrive at once or in chunks.
#![no_main]

use emcp::transport::http::{self, Policy, Served, Sessions, Status};
use emcp::Server;
use emcp_fuzz::{knobs, message, Collected};
use libfuzzer_sys::fuzz_target;
use sensor_board::{Board, CONFIG};

const CAP: usize = 2048;

const STATUSES: [Status; 13] = [
    Status::Ok,
    Status::Accepted,
    Status::BadRequest,
    Status::Forbidden,
    Status::NotFound,
    Status::MethodNotAllowed,
    Status::NotAcceptable,
    Status::LengthRequired,
    Status::PayloadTooLarge,
    Status::UnsupportedMediaType,
    Status::HeadersTooLarge,
    Status::InternalError,
    Status::NotImplemented,
];

fuzz_target!(|data: &[u8]| {
    if emcp_fuzz::serde_refuses(data) {
        return; // the JSON oracle cannot read such output (emcp_fuzz::RAW_VALUE_TOKEN)
    }
    let (k, data) = knobs::<2>(data);
    let scratch = 16 + usize::from(k[1]) * 8;
    let whole = connection(data, scratch, &mut || CAP);
    let mut seed = u32::from(k[0]) | 0x100;
    let split = connection(data, scratch, &mut || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        1 + (seed % 64) as usize
    });
    assert_eq!(
        String::from_utf8_lossy(&whole),
        String::from_utf8_lossy(&split),
        "answers depend on how the bytes arrive"
    );
});

/// Serve one connection; returns everything written to it.
fn connection(mut data: &[u8], scratch: usize, chunk: &mut dyn FnMut() -> usize) -> Vec<u8> {
    let mut server: Server<Board> = Server::new(Board::new(), CONFIG).expect("the board");
    let mut sessions = Sessions::new(7);
    let policy = Policy {
        max_body: 1024,
        ..Policy::default()
    };
    let mut scratch = vec![0u8; scratch];
    let mut buf: Vec<u8> = Vec::new();
    let mut all = Vec::new();
    loop {
        let n = chunk().min(CAP - buf.len()).min(data.len());
        buf.extend_from_slice(&data[..n]);
        data = &data[n..];
        loop {
            let mut out = Collected(Vec::new());
            let served = http::serve(
                &mut server,
                &mut sessions,
                &policy,
                &buf,
                &mut scratch,
                &mut out,
            );
            match served {
                Served::Incomplete => {
                    assert!(out.0.is_empty(), "Incomplete wrote an answer");
                    if buf.len() == CAP || data.is_empty() {
                        if buf.len() == CAP {
                            http::reject(&mut out, Status::HeadersTooLarge);
                            check(&out.0, true);
                            all.extend_from_slice(&out.0);
                        }
                        return all;
                    }
                    break;
                }
                Served::Done {
                    consumed,
                    keep_alive,
                } => {
                    assert!(
                        consumed >= 1 && consumed <= buf.len(),
                        "consumed {consumed} of {}",
                        buf.len()
                    );
                    check(&out.0, true);
                    all.extend_from_slice(&out.0);
                    buf.drain(..consumed);
                    if !keep_alive {
                        return all;
                    }
                }
                Served::Stream { consumed, .. } => {
                    assert!(
                        consumed >= 1 && consumed <= buf.len(),
                        "consumed {consumed} of {}",
                        buf.len()
                    );
                    check(&out.0, false);
                    all.extend_from_slice(&out.0);
                    // The connection now carries the stream: run the jobs out and stop.
                    for round in 0.. {
                        assert!(round < 10_000, "jobs never finish");
                        let mut polled = Collected(Vec::new());
                        let more = server.poll(&mut polled);
                        if !polled.0.is_empty() {
                            emcp_fuzz::messages(&polled.0);
                        }
                        if !more {
                            break;
                        }
                    }
                    return all;
                }
            }
            if buf.is_empty() {
                break;
            }
        }
    }
}

/// Check one answer (`complete`: not an open stream).
fn check(answer: &[u8], complete: bool) {
    let shown = String::from_utf8_lossy(answer);
    let end = memchr::memmem::find(answer, b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no end of head: {shown}"));
    let head =
        std::str::from_utf8(&answer[..end]).unwrap_or_else(|_| panic!("head not UTF-8: {shown}"));
    let body = &answer[end + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or("");
    let code = STATUSES
        .iter()
        .find(|s| status.as_bytes() == [&b"HTTP/1.1 "[..], s.line()].concat())
        .unwrap_or_else(|| panic!("bad status line: {shown}"));
    let mut length = None;
    let mut chunked = false;
    let mut kind = "";
    for line in lines {
        let (name, value) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("bad header line {line:?}: {shown}"));
        assert!(
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "bad header name: {shown}"
        );
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = Some(value.parse::<usize>().expect("a length")),
            "transfer-encoding" => chunked = value == "chunked",
            "content-type" => {
                kind = if value.starts_with("application/json") {
                    "json"
                } else if value.starts_with("text/event-stream") {
                    "sse"
                } else {
                    "other"
                }
            }
            _ => {}
        }
    }
    let body = if chunked {
        assert!(length.is_none(), "both Content-Length and chunked: {shown}");
        dechunk(body, complete, &shown)
    } else if let Some(n) = length {
        assert_eq!(body.len(), n, "Content-Length is not the body's: {shown}");
        body.to_vec()
    } else {
        assert!(
            body.is_empty() || !complete,
            "a body without framing: {shown}"
        );
        body.to_vec()
    };
    if code.code() == 202 || body.is_empty() {
        return;
    }
    match kind {
        "json" => {
            message(body.strip_suffix(b"\n").unwrap_or(&body));
        }
        "sse" => {
            let text = std::str::from_utf8(&body).expect("SSE is UTF-8");
            for line in text.lines() {
                if let Some(data) = line.strip_prefix("data: ") {
                    message(data.as_bytes());
                }
            }
        }
        _ => {}
    }
}

/// The payload of a chunked body; `complete`: it must end with the last chunk.
fn dechunk(mut rest: &[u8], complete: bool, shown: &str) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        if rest.is_empty() && !complete {
            return out;
        }
        let eol = memchr::memmem::find(rest, b"\r\n")
            .unwrap_or_else(|| panic!("bad chunk size line: {shown}"));
        let size = std::str::from_utf8(&rest[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s, 16).ok())
            .unwrap_or_else(|| panic!("bad chunk size: {shown}"));
        rest = &rest[eol + 2..];
        if size == 0 {
            assert_eq!(rest, b"\r\n", "bad last chunk: {shown}");
            return out;
        }
        assert!(
            rest.len() >= size + 2 && &rest[size..size + 2] == b"\r\n",
            "bad chunk: {shown}"
        );
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}
