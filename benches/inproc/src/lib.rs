//! In-process benchmarks of emcp: the messages, servers and sinks that the criterion
//! bench (`benches/handle.rs`), the callgrind driver (`src/bin/instr.rs`) and the RAM
//! measurement (`src/bin/scaling.rs`) share, so that all three measure the same thing.
//!
//! Everything measured is one call of [`Server::handle`] on one complete line (no
//! framing, no transport): parse, validate, dispatch, run the device's handler, write
//! the response into a [`CountSink`] that discards it (counting its bytes).
//!
//! Two devices:
//! - the sensor board ([`sensor_board::Board`], `docs/board.md`) for the per-message
//!   rows ([`Message`]);
//! - [`ScaleDevice`], a bench-local device for the scaling rows: a tool `echo` whose
//!   request grows with its `text` argument ([`echo_request`]) and blob resources of
//!   4 KiB, 64 KiB and 1 MiB generated on the fly ([`blob_request`]).
//!
//! Beside them, [`parsers`]: what validating a request line alone costs in emcp, in a
//! [`minimal`] validating scanner written as a reference, and in serde_json.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use emcp::device::{ReadError, ResourceRead, Target, ToolCall};
use emcp::model::registry::{Resource, Tool};
use emcp::wire::json::{Sink, SinkError};
use emcp::{Device, Server, Step};
use sensor_board::{Board, CONFIG};

pub mod minimal;
pub mod parsers;

/// The client's `initialize` (initialize era), sent once at set-up.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
/// The client's `notifications/initialized`, sent once at set-up.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
/// The per-request `_meta` of a 2026-07-28 request (version, client info,
/// capabilities: what a real stateless client sends every time).
pub const STATELESS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The protocol era a request is sent in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// Initialize era: `initialize` (2025-11-25) and `notifications/initialized` at
    /// set-up, then plain requests.
    Legacy,
    /// 2026-07-28: no set-up; every request carries [`STATELESS_META`].
    Stateless,
}

impl Era {
    /// Both eras.
    pub const ALL: [Era; 2] = [Era::Legacy, Era::Stateless];

    /// The protocol version it speaks (also its command-line name).
    pub fn name(self) -> &'static str {
        match self {
            Era::Legacy => "2025-11-25",
            Era::Stateless => "2026-07-28",
        }
    }

    /// By [`Era::name`], or `legacy` / `stateless`.
    pub fn parse(s: &str) -> Option<Era> {
        match s {
            "legacy" | "2025-11-25" => Some(Era::Legacy),
            "stateless" | "2026-07-28" => Some(Era::Stateless),
            _ => None,
        }
    }
}

/// A JSON-RPC request line (no newline) for `method` with `params` members (JSON
/// object members without braces, may be empty), in `era`.
pub fn request(era: Era, method: &str, params: &str) -> Vec<u8> {
    let params = match (era, params.is_empty()) {
        (Era::Legacy, true) => String::new(),
        (Era::Legacy, false) => format!(r#","params":{{{params}}}"#),
        (Era::Stateless, true) => format!(r#","params":{{{STATELESS_META}}}"#),
        (Era::Stateless, false) => format!(r#","params":{{{params},{STATELESS_META}}}"#),
    };
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}"{params}}}"#).into_bytes()
}

/// A sink that discards what it is given and counts the bytes.
#[derive(Debug, Default)]
pub struct CountSink {
    /// Bytes written so far.
    pub bytes: usize,
}

impl Sink for CountSink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.bytes += bytes.len();
        Ok(())
    }
}

/// A sink that keeps what it is given (for checking a response once, outside any
/// measured loop).
#[derive(Debug, Default)]
pub struct VecSink(pub Vec<u8>);

impl Sink for VecSink {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// A server around `device`, set up for `era`: for the initialize era, `initialize`
/// and `notifications/initialized` have been handled (their output discarded).
pub fn server_for<D: Device>(device: D, config: emcp::Config, era: Era) -> Server<D> {
    let Ok(mut server) = Server::new(device, config) else {
        panic!("the bench device's descriptors are valid");
    };
    if era == Era::Legacy {
        let mut out = VecSink::default();
        server.handle(INITIALIZE.as_bytes(), &mut out);
        server.handle(INITIALIZED.as_bytes(), &mut out);
        let text = String::from_utf8_lossy(&out.0);
        assert!(
            text.contains(r#""protocolVersion":"2025-11-25""#),
            "initialize failed: {text}"
        );
    }
    server
}

/// A sensor-board server set up for `era`.
pub fn board_server(era: Era) -> Server<Board> {
    server_for(Board::new(), CONFIG, era)
}

/// Handle `line` once into a [`VecSink`]; the response text.
pub fn answer<D: Device>(server: &mut Server<D>, line: &[u8]) -> String {
    let mut out = VecSink::default();
    server.handle(line, &mut out);
    String::from_utf8(out.0).expect("responses are UTF-8")
}

/// Check that `response` is one line of JSON, a successful result, containing `expect`.
pub fn check(response: &str, expect: &str) -> Result<(), String> {
    let one_line = response.ends_with('\n') && response.matches('\n').count() == 1;
    if !one_line {
        return Err(format!("not one line: {response:?}"));
    }
    if let Err(e) = serde_json::from_str::<serde_json::Value>(response) {
        return Err(format!("not JSON ({e}): {response}"));
    }
    if !response.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"#) {
        return Err(format!("not a result: {response}"));
    }
    if response.contains(r#""isError":true"#) {
        return Err(format!("a tool error: {response}"));
    }
    if !response.contains(expect) {
        return Err(format!("{expect:?} missing from {response}"));
    }
    Ok(())
}

/// A benchmarked sensor-board message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// `tools/call read_sensor {"sensor":"temperature"}`.
    ReadSensor,
    /// `resources/read sensor://temperature` (a short JSON text resource).
    ReadText,
    /// `resources/read log://samples` (the board's 4 KiB blob, base64 on the fly).
    ReadBlob,
    /// `tools/list` (the board's 3 tools with schemas and annotations).
    ToolsList,
}

impl Message {
    /// Every message.
    pub const ALL: [Message; 4] = [
        Message::ReadSensor,
        Message::ReadText,
        Message::ReadBlob,
        Message::ToolsList,
    ];

    /// Its name (bench ids, command line).
    pub fn name(self) -> &'static str {
        match self {
            Message::ReadSensor => "read_sensor",
            Message::ReadText => "read_text",
            Message::ReadBlob => "read_blob_4k",
            Message::ToolsList => "tools_list",
        }
    }

    /// By [`Message::name`].
    pub fn parse(s: &str) -> Option<Message> {
        Self::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Its request line in `era`.
    pub fn request(self, era: Era) -> Vec<u8> {
        match self {
            Message::ReadSensor => request(
                era,
                "tools/call",
                r#""name":"read_sensor","arguments":{"sensor":"temperature"}"#,
            ),
            Message::ReadText => request(era, "resources/read", r#""uri":"sensor://temperature""#),
            Message::ReadBlob => request(era, "resources/read", r#""uri":"log://samples""#),
            Message::ToolsList => request(era, "tools/list", ""),
        }
    }

    /// Text its successful response contains.
    pub fn expect(self) -> &'static str {
        match self {
            Message::ReadSensor => {
                r#""text":"temperature: 21.5 C"}],"structuredContent":{"sensor":"temperature","value":21.5,"unit":"C"}"#
            }
            Message::ReadText => r#""text":"{\"celsius\":21.5}""#,
            // The blob's first bytes are 7, 38, 69, …: base64 "ByZF…".
            Message::ReadBlob => r#""blob":"ByZFZIOiweD/"#,
            Message::ToolsList => r#""name":"move_servo""#,
        }
    }
}

/// A server and a request line, checked once: the response is a successful result.
pub struct Case<D: Device> {
    /// The server (set up for the era).
    pub server: Server<D>,
    /// The request line.
    pub line: Vec<u8>,
    /// Bytes of the (checked) response line, newline included.
    pub response_len: usize,
}

impl<D: Device> Case<D> {
    /// Check the first response (panics with the response when it is not a result
    /// containing `expect`).
    pub fn new(mut server: Server<D>, line: Vec<u8>, expect: &str) -> Self {
        let response = answer(&mut server, &line);
        if let Err(e) = check(&response, expect) {
            panic!("{e}");
        }
        Case {
            server,
            line,
            response_len: response.len(),
        }
    }

    /// Handle the request once more into `out`.
    #[inline]
    pub fn run(&mut self, out: &mut CountSink) {
        self.server.handle(std::hint::black_box(&self.line), out);
    }
}

/// A checked sensor-board case.
pub fn board_case(message: Message, era: Era) -> Case<Board> {
    Case::new(board_server(era), message.request(era), message.expect())
}

// ---------------------------------------------------------------------------
// The scaling device
// ---------------------------------------------------------------------------

/// Most bytes of `echo`'s `text` (its schema's `maxLength`, so validation counts the
/// characters of every request: the per-byte work a real bounded argument costs).
pub const ECHO_MAX: usize = 1 << 20;

/// The scaling device's tools: `echo`, answering with the length of its text.
pub static SCALE_TOOLS: [Tool<'static>; 1] = [Tool::new(
    "echo",
    r#"{"type":"object","properties":{"text":{"type":"string","maxLength":1048576}},"required":["text"],"additionalProperties":false}"#,
)
.description("Answer with the length of the text.")];

/// Sizes of the scaling device's blob resources.
pub const BLOB_SIZES: [usize; 3] = [4 << 10, 64 << 10, 1 << 20];

/// The scaling device's resources: `bench://blob/4k`, `…/64k`, `…/1m` (octet
/// streams of [`BLOB_SIZES`] bytes).
pub static SCALE_RESOURCES: [Resource<'static>; 3] = [
    Resource::new("bench://blob/4k", "blob-4k")
        .mime_type("application/octet-stream")
        .size(4 << 10),
    Resource::new("bench://blob/64k", "blob-64k")
        .mime_type("application/octet-stream")
        .size(64 << 10),
    Resource::new("bench://blob/1m", "blob-1m")
        .mime_type("application/octet-stream")
        .size(1 << 20),
];

/// Byte `i` of every bench blob (a counter pattern, as the board's sample log).
pub fn blob_byte(i: usize) -> u8 {
    (i.wrapping_mul(31).wrapping_add(7)) as u8
}

/// Bytes of a blob generated per chunk: the only buffer the handler has.
pub const BLOB_CHUNK: usize = 64;

/// A bench-local device: the `echo` tool and the generated blobs. No state.
#[derive(Debug, Default, Clone, Copy)]
pub struct ScaleDevice;

/// The scaling device's configuration.
pub const SCALE_CONFIG: emcp::Config = emcp::Config::new("emcp-bench-scale", "0.1.0");

impl Device for ScaleDevice {
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        SCALE_TOOLS.get(index).copied()
    }
    fn resource(&self, index: usize) -> Option<Resource<'static>> {
        SCALE_RESOURCES.get(index).copied()
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.arg("text").and_then(|t| t.as_str()) {
            Some(text) => {
                call.text_fmt(format_args!("echo: {} bytes", text.decoded_len()));
            }
            None => {
                call.error("text must be a string");
            }
        }
        Step::Done
    }
    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        let Target::Resource(i) = read.target() else {
            return Err(ReadError::NotFound);
        };
        let len = *BLOB_SIZES.get(i).ok_or(ReadError::NotFound)?;
        read.blob_begin(Some("application/octet-stream"));
        let mut chunk = [0u8; BLOB_CHUNK];
        for start in (0..len).step_by(BLOB_CHUNK) {
            for (k, b) in chunk.iter_mut().enumerate() {
                *b = blob_byte(start + k);
            }
            read.data(&chunk);
        }
        Ok(())
    }
}

/// A scaling-device server set up for `era`.
pub fn scale_server(era: Era) -> Server<ScaleDevice> {
    server_for(ScaleDevice, SCALE_CONFIG, era)
}

/// Request sizes of the echo scaling rows, bytes of the whole line (256 B only in the
/// initialize era: a 2026-07-28 request's fixed part is longer).
pub const ECHO_SIZES: [usize; 5] = [256, 1 << 10, 4 << 10, 16 << 10, 64 << 10];

/// A `tools/call echo` line of exactly `size` bytes in `era` (its `text` is ASCII
/// letters, padded to make up the size), and the text length; `None` when `size` is
/// below the request's fixed part.
pub fn echo_request(era: Era, size: usize) -> Option<(Vec<u8>, usize)> {
    let empty = request(
        era,
        "tools/call",
        r#""name":"echo","arguments":{"text":""}"#,
    )
    .len();
    let n = size.checked_sub(empty)?;
    let text: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let params = format!(r#""name":"echo","arguments":{{"text":"{text}"}}"#);
    let line = request(era, "tools/call", &params);
    debug_assert_eq!(line.len(), size);
    Some((line, n))
}

/// A checked echo case of `size` request bytes.
pub fn echo_case(era: Era, size: usize) -> Case<ScaleDevice> {
    let Some((line, n)) = echo_request(era, size) else {
        panic!("{size} bytes is too small for an echo request");
    };
    Case::new(scale_server(era), line, &format!("echo: {n} bytes"))
}

/// A `resources/read` line of the bench blob of `size` bytes (one of [`BLOB_SIZES`]).
pub fn blob_request(era: Era, size: usize) -> Option<Vec<u8>> {
    let i = BLOB_SIZES.iter().position(|&s| s == size)?;
    let uri = SCALE_RESOURCES.get(i)?.uri;
    Some(request(era, "resources/read", &format!(r#""uri":"{uri}""#)))
}

/// The base64 of the bench blob's first three bytes.
pub const BLOB_PREFIX: &str = r#""blob":"ByZF"#;

/// A checked blob case of `size` bytes (one of [`BLOB_SIZES`]).
pub fn blob_case(era: Era, size: usize) -> Case<ScaleDevice> {
    let Some(line) = blob_request(era, size) else {
        panic!("no bench blob of {size} bytes");
    };
    let case = Case::new(scale_server(era), line, BLOB_PREFIX);
    // Base64 of `size` bytes, plus the envelope.
    assert!(case.response_len > size.div_ceil(3) * 4);
    case
}

// ---------------------------------------------------------------------------
// Every case by name
// ---------------------------------------------------------------------------

/// A checked case of any device, behind one interface (for the binaries).
pub trait Bench: Send {
    /// Handle the request once more into `out`.
    fn run(&mut self, out: &mut CountSink);
    /// Bytes of the request line (no newline).
    fn request_len(&self) -> usize;
    /// Bytes of the response line (newline included).
    fn response_len(&self) -> usize;
    /// `size_of` the server (device included).
    fn server_size(&self) -> usize;
}

impl<D: Device + Send> Bench for Case<D> {
    fn run(&mut self, out: &mut CountSink) {
        Case::run(self, out);
    }
    fn request_len(&self) -> usize {
        self.line.len()
    }
    fn response_len(&self) -> usize {
        self.response_len
    }
    fn server_size(&self) -> usize {
        core::mem::size_of::<Server<D>>()
    }
}

/// The names of every case: the board messages ([`Message::name`]), `echo_<bytes>`
/// for [`ECHO_SIZES`] and `blob_<bytes>` for [`BLOB_SIZES`], of the cases that exist
/// in `era` (a 2026-07-28 request's `_meta` alone is longer than the 256-byte echo).
pub fn case_names(era: Era) -> Vec<String> {
    let mut names: Vec<String> = Message::ALL.iter().map(|m| m.name().to_owned()).collect();
    names.extend(
        ECHO_SIZES
            .iter()
            .filter(|&&s| echo_request(era, s).is_some())
            .map(|s| format!("echo_{s}")),
    );
    names.extend(BLOB_SIZES.iter().map(|s| format!("blob_{s}")));
    names
}

/// The checked case `name` (one of [`case_names`]) in `era`.
pub fn case_named(name: &str, era: Era) -> Option<Box<dyn Bench>> {
    if let Some(m) = Message::parse(name) {
        return Some(Box::new(board_case(m, era)));
    }
    if let Some(size) = name.strip_prefix("echo_").and_then(|s| s.parse().ok()) {
        if !ECHO_SIZES.contains(&size) || echo_request(era, size).is_none() {
            return None;
        }
        return Some(Box::new(echo_case(era, size)));
    }
    if let Some(size) = name.strip_prefix("blob_").and_then(|s| s.parse().ok()) {
        return BLOB_SIZES
            .contains(&size)
            .then(|| Box::new(blob_case(era, size)) as Box<dyn Bench>);
    }
    None
}

// ---------------------------------------------------------------------------
// Heap accounting
// ---------------------------------------------------------------------------

/// A global allocator that counts allocations (for a binary's `#[global_allocator]`):
/// serving must allocate nothing.
pub struct CountingAlloc;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

impl CountingAlloc {
    /// Allocations (and reallocations) so far.
    pub fn count() -> usize {
        ALLOCATIONS.load(Ordering::Relaxed)
    }
}

// SAFETY: forwards to the system allocator unchanged.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_messages_are_answered_in_both_eras() {
        for era in Era::ALL {
            for m in Message::ALL {
                let mut case = board_case(m, era);
                // Again, as the measured loop does: the same bytes every time.
                let mut out = CountSink::default();
                case.run(&mut out);
                case.run(&mut out);
                assert_eq!(out.bytes, 2 * case.response_len, "{m:?} {era:?}");
            }
        }
    }

    #[test]
    fn stateless_responses_carry_the_result_type() {
        let r = answer(
            &mut board_server(Era::Stateless),
            &Message::ReadSensor.request(Era::Stateless),
        );
        assert!(r.contains(r#""resultType":"complete""#), "{r}");
        let r = answer(
            &mut board_server(Era::Legacy),
            &Message::ReadSensor.request(Era::Legacy),
        );
        assert!(!r.contains("resultType"), "{r}");
    }

    #[test]
    fn a_failed_answer_is_caught() {
        let mut server = board_server(Era::Stateless);
        // An unknown tool (a JSON-RPC error), a bad argument (a tool error).
        let bad = request(Era::Stateless, "tools/call", r#""name":"nope""#);
        assert!(check(&answer(&mut server, &bad), "").is_err());
        let bad = request(
            Era::Legacy,
            "tools/call",
            r#""name":"read_sensor","arguments":{"sensor":"wind"}"#,
        );
        assert!(check(&answer(&mut server, &bad), "").is_err());
    }

    #[test]
    fn every_named_case_is_answered() {
        for era in Era::ALL {
            for name in case_names(era) {
                let mut case = case_named(&name, era).expect("a case");
                let mut out = CountSink::default();
                case.run(&mut out);
                assert_eq!(out.bytes, case.response_len(), "{name} {era:?}");
            }
        }
        assert!(case_named("echo_7", Era::Legacy).is_none());
        assert!(case_named("echo_256", Era::Legacy).is_some());
        assert!(case_named("echo_256", Era::Stateless).is_none());
        assert!(case_named("nope", Era::Legacy).is_none());
    }

    #[test]
    fn echo_requests_have_the_exact_size() {
        for era in Era::ALL {
            for size in ECHO_SIZES {
                if era == Era::Stateless && size == 256 {
                    assert!(echo_request(era, size).is_none());
                    continue;
                }
                let case = echo_case(era, size);
                assert_eq!(case.line.len(), size);
            }
        }
        assert!(echo_request(Era::Stateless, 10).is_none());
    }

    #[test]
    fn blobs_are_served_whole() {
        for size in BLOB_SIZES {
            let mut case = blob_case(Era::Legacy, size);
            let text = answer(&mut case.server, &case.line);
            let start = text.find(BLOB_PREFIX).unwrap() + r#""blob":""#.len();
            let b64 = &text[start..start + text[start..].find('"').unwrap()];
            assert_eq!(b64.len(), size.div_ceil(3) * 4, "{size}");
            let bytes = unbase64(b64);
            assert_eq!(bytes.len(), size);
            assert!(bytes.iter().enumerate().all(|(i, &b)| b == blob_byte(i)));
        }
    }

    fn unbase64(s: &str) -> Vec<u8> {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = Vec::new();
        for q in s.as_bytes().chunks(4) {
            let v: Vec<u32> = q
                .iter()
                .filter(|&&c| c != b'=')
                .map(|c| A.iter().position(|a| a == c).unwrap() as u32)
                .collect();
            let n = v.iter().fold(0u32, |n, d| n << 6 | d) << (6 * (4 - v.len()));
            out.extend_from_slice(&n.to_be_bytes()[1..v.len()]);
        }
        out
    }
}
