//! Unit tests of the server with a small device of every kind.

extern crate std;
use super::method::Method;
use super::*;
use crate::device::{PromptGet, ResourceRead, Step, Target, ToolCall};
use crate::device::{ReadError, Role};
use crate::model::registry::{Prompt, Resource, Tool};
use crate::wire::json::{self, Sink};
use std::string::String;
use std::vec::Vec;

static TOOLS: [Tool<'static>; 3] = [
    Tool::new("kinds", r#"{"type":"object"}"#),
    Tool::new("stream", r#"{"type":"object"}"#),
    Tool::new("wait", r#"{"type":"object"}"#),
];
static RESOURCES: [Resource<'static>; 2] = [
    Resource::new("mem://big", "big").mime_type("application/octet-stream"),
    Resource::new("mem://broken", "broken"),
];
static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("media")];

/// A device that uses every content kind.
#[derive(Default)]
struct Kinds {
    cancelled: Vec<(usize, u32)>,
}

impl Device for Kinds {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }
    fn resource(&self, i: usize) -> Option<Resource<'static>> {
        RESOURCES.get(i).copied()
    }
    fn prompt(&self, i: usize) -> Option<Prompt<'static>> {
        PROMPTS.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.tool() {
            0 => {
                call.image("image/png", b"\x89PNG");
                call.audio("audio/wav", b"RIFF!");
                call.resource_link(&RESOURCES[0]);
                call.embedded_text("mem://t", Some("text/plain"), "hi\n");
                call.embedded_blob("mem://b", None, &[0, 1, 2]);
                call.structured(|w| {
                    w.begin_object();
                    w.key_lit("ok");
                    w.bool(true);
                    w.end_object();
                });
                call.text("dropped: after structuredContent");
                Step::Done
            }
            1 => {
                call.text_begin();
                call.part("a\"");
                call.part("b");
                call.image_begin("image/gif");
                call.data(b"G");
                call.data(b"IF");
                call.error("then it failed");
                Step::Done
            }
            _ => {
                call.set_state(7);
                // Pending is honoured only when a slot is free.
                Step::Pending
            }
        }
    }
    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        call.text_fmt(format_args!("waited {}", call.state()));
        Step::Done
    }
    fn cancel_tool(&mut self, tool: usize, state: u32) {
        self.cancelled.push((tool, state));
    }
    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        match read.target() {
            Target::Resource(0) => {
                read.blob_begin(Some("application/octet-stream"));
                for _ in 0..1000 {
                    read.data(&[0xff; 30]);
                }
                read.text(None, "second");
                Ok(())
            }
            _ => Err(ReadError::Failed),
        }
    }
    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        get.text(Role::Assistant, "look:");
        get.image(Role::User, "image/png", b"abc");
        get.embedded_text(Role::User, "mem://t", None, "t");
        Ok(())
    }
}

fn run(server: &mut Server<Kinds, 1, 1>, line: &str) -> Vec<String> {
    let mut out = Vec::new();
    struct S<'a>(&'a mut Vec<u8>);
    impl Sink for S<'_> {
        fn write(&mut self, b: &[u8]) -> Result<(), crate::wire::json::SinkError> {
            self.0.extend_from_slice(b);
            Ok(())
        }
    }
    server.handle(line.as_bytes(), &mut S(&mut out));
    while server.poll(&mut S(&mut out)) {}
    let text = String::from_utf8(out).unwrap();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["jsonrpc"], "2.0");
    }
    text.lines().map(String::from).collect()
}

fn server() -> Server<Kinds, 1, 1> {
    Server::new(Kinds::default(), Config::new("k", "1")).unwrap()
}

/// Every 2026-07-28 result ends with `_meta.serverInfo`, escaped as needed, whether
/// the server keeps it written (short) or writes it each time (too long to keep).
// Uses a capability a build may leave out (core/tests/capabilities.rs tests those builds).
#[cfg(feature = "prompts")]
#[test]
fn stateless_results_carry_server_info() {
    // Longer than `SERVER_INFO_LEN` with the other members.
    const LONG: &str = concat!(
        "tttttttttttttttttttttttttttttttttttttttt",
        "tttttttttttttttttttttttttttttttttttttttt",
        "tttttttttttttttttttttttttttttttttttttttt"
    );
    let long = LONG;
    for (config, info) in [
        (
            Config::new("k", "1"),
            String::from(r#"{"name":"k","version":"1"}"#),
        ),
        (
            Config::new("k\"q", "1").title("T"),
            String::from(r#"{"name":"k\"q","title":"T","version":"1"}"#),
        ),
        (
            Config::new("k", "1").title(long),
            std::format!(r#"{{"name":"k","title":"{long}","version":"1"}}"#),
        ),
    ] {
        let mut s: Server<Kinds, 1, 1> = Server::new(Kinds::default(), config).unwrap();
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        for method in ["tools/list", "prompts/list"] {
            let line = std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{meta}}}}}"#
            );
            let out = run(&mut s, &line);
            let want =
                std::format!(r#","_meta":{{"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#);
            assert!(out.len() == 1 && out[0].ends_with(&want), "{out:?}");
        }
    }
}

#[test]
fn every_content_kind() {
    let mut s = server();
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kinds"}}"#,
    );
    assert_eq!(
        out,
        [concat!(
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":["#,
            r#"{"type":"image","mimeType":"image/png","data":"iVBORw=="},"#,
            r#"{"type":"audio","mimeType":"audio/wav","data":"UklGRiE="},"#,
            r#"{"type":"resource_link","uri":"mem://big","name":"big","mimeType":"application/octet-stream"},"#,
            r#"{"type":"resource","resource":{"uri":"mem://t","mimeType":"text/plain","text":"hi\n"}},"#,
            r#"{"type":"resource","resource":{"uri":"mem://b","blob":"AAEC"}}],"#,
            r#""structuredContent":{"ok":true}}}"#
        )]
    );
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stream"}}"#,
    );
    assert_eq!(
        out,
        [concat!(
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":["#,
            r#"{"type":"text","text":"a\"b"},"#,
            r#"{"type":"image","mimeType":"image/gif","data":"R0lG"},"#,
            r#"{"type":"text","text":"then it failed"}],"isError":true}}"#
        )]
    );
}

// Uses a capability a build may leave out (core/tests/capabilities.rs tests those builds).
#[cfg(feature = "resources")]
#[test]
fn big_blob_streams_and_failed_read_is_internal_error() {
    let mut s = server();
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mem://big"}}"#,
    );
    let v: serde_json::Value = serde_json::from_str(&out[0]).unwrap();
    let blob = v["result"]["contents"][0]["blob"].as_str().unwrap();
    assert_eq!(blob.len(), 40_000);
    assert!(blob.bytes().all(|b| b == b'/'));
    assert_eq!(v["result"]["contents"][1]["text"], "second");
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mem://broken"}}"#,
    );
    assert_eq!(
        out,
        [r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Failed to read resource"}}"#]
    );
}

// Uses a capability a build may leave out (core/tests/capabilities.rs tests those builds).
#[cfg(feature = "prompts")]
#[test]
fn prompt_messages_of_every_kind() {
    let mut s = server();
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"media"}}"#,
    );
    assert_eq!(
        out,
        [concat!(
            r#"{"jsonrpc":"2.0","id":1,"result":{"messages":["#,
            r#"{"role":"assistant","content":{"type":"text","text":"look:"}},"#,
            r#"{"role":"user","content":{"type":"image","mimeType":"image/png","data":"YWJj"}},"#,
            r#"{"role":"user","content":{"type":"resource","resource":{"uri":"mem://t","text":"t"}}}]}}"#
        )]
    );
}

#[test]
fn jobs_table_full_then_frees_and_cancel_reaches_device() {
    let mut s = server();
    let mut out = Vec::new();
    let mut sink = heapless::Vec::<u8, 4096>::new();
    s.handle(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}"#,
        &mut sink,
    );
    assert!(sink.is_empty() && s.busy());
    // The only slot is taken: the second call cannot defer and completes empty.
    s.handle(
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}"#,
        &mut sink,
    );
    out.extend_from_slice(&sink);
    assert_eq!(
        core::str::from_utf8(&out).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n"
    );
    sink.clear();
    s.handle(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        &mut sink,
    );
    assert!(sink.is_empty() && !s.busy());
    assert_eq!(s.device().cancelled, [(2, 7)]);
    // The slot is free again.
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait"}}"#,
    );
    assert_eq!(
        out,
        [r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"waited 7"}]}}"#]
    );
}

#[test]
fn a_finished_job_whose_answer_does_not_fit_is_answered_at_a_later_poll() {
    // Found by the ffi_feed fuzz target: two jobs finish in one poll, the first
    // answer fills a fixed buffer, and neither the second answer nor its -32603
    // error fit. The error is owed, not lost.
    use crate::wire::json::SliceSink;
    let mut s: Server<Kinds, 1, 2> = Server::new(Kinds::default(), Config::new("k", "1")).unwrap();
    let mut staging = heapless::Vec::<u8, 512>::new();
    for id in [1, 2] {
        let line = std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"wait"}}}}"#
        );
        s.handle(line.as_bytes(), &mut staging);
    }
    assert!(staging.is_empty() && s.busy());
    let mut buf = [0u8; 120];
    let mut sink = SliceSink::new(&mut buf);
    s.poll(&mut sink);
    let first = String::from(core::str::from_utf8(sink.written()).unwrap());
    assert_eq!(first.lines().count(), 1, "{first}");
    assert!(
        s.busy() || !s.jobs.is_empty(),
        "the second answer is still owed"
    );
    sink.clear();
    s.poll(&mut sink);
    let second = String::from(core::str::from_utf8(sink.written()).unwrap());
    let mut ids: Vec<&str> = [first.as_str(), second.as_str()]
        .iter()
        .map(|l| {
            if l.contains(r#""id":1,"#) {
                "1"
            } else if l.contains(r#""id":2,"#) {
                "2"
            } else {
                "?"
            }
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["1", "2"], "{first} / {second}");
    assert!(s.jobs.is_empty());
}

#[test]
fn method_names_pair_with_methods() {
    // Each name parses to the method at its position, and every method is there once.
    for (i, name) in Method::NAMES.iter().enumerate() {
        let text = std::format!("\"{name}\"");
        let v = json::parse(text.as_bytes()).unwrap();
        assert_eq!(
            Method::parse(v.as_str().unwrap()),
            Method::ALL.get(i).copied()
        );
    }
    for (i, m) in Method::ALL.iter().enumerate() {
        assert_eq!(
            Method::ALL.iter().position(|x| x == m),
            Some(i),
            "{m:?} twice"
        );
    }
    // Spelled with escapes: decoded; a name that is none of them: none.
    for (text, method) in [
        (r#""tools\/call""#, Some(Method::ToolsCall)),
        (r#""\u0070ing""#, Some(Method::Ping)),
        (r#""tools/cal""#, None),
        (r#""tools\/calls""#, None),
    ] {
        let v = json::parse(text.as_bytes()).unwrap();
        assert_eq!(Method::parse(v.as_str().unwrap()), method, "{text}");
    }
}

// Uses a capability a build may leave out (core/tests/capabilities.rs tests those builds).
#[cfg(all(feature = "resources", feature = "prompts", feature = "logging"))]
#[test]
fn capabilities_follow_primitives() {
    let mut s = server();
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
    );
    assert!(out[0].contains(
        r#""capabilities":{"tools":{},"resources":{"subscribe":true},"prompts":{},"logging":{}}"#
    ));
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{}}"#,
    );
    assert_eq!(
        out,
        [std::format!(
            r#"{{"jsonrpc":"2.0","id":2,"error":{{"code":-32601,"message":"Method not found"{}}}}}"#,
            data(r#"{"method":"completion/complete"}"#)
        )]
    );
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}"#,
    );
    assert_eq!(
        out,
        [r#"{"jsonrpc":"2.0","id":3,"result":{"resourceTemplates":[]}}"#]
    );
}

#[test]
fn listen_refuses_a_non_string_uri_and_opens_nothing() {
    let mut s = server();
    let listen = |uris: &str| {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":{uris}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let out = run(&mut s, &listen(r#"["mem://big",1]"#));
    assert_eq!(
        out,
        [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"resourceSubscriptions must be an array of strings"}}"#
        ]
    );
    // The only listen slot is still free.
    let out = run(&mut s, &listen(r#"["mem://big","mem://none"]"#));
    assert_eq!(
        out,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":["mem://big"]}}}"#
        ]
    );
}

#[test]
fn bad_descriptors_are_refused() {
    struct Bad;
    static BAD: [Tool<'static>; 1] = [Tool::new("x", r#"{"type":"object""#)];
    impl Device for Bad {
        fn tool(&self, i: usize) -> Option<Tool<'static>> {
            BAD.get(i).copied()
        }
    }
    assert_eq!(
        Server::<Bad>::new(Bad, Config::new("b", "1")).err(),
        Some(ConfigError::InvalidSchema { tool: 0 })
    );
    struct NoPrimitives;
    impl Device for NoPrimitives {}
    let mut s: Server<NoPrimitives> = Server::new(NoPrimitives, Config::new("n", "1")).unwrap();
    let mut sink = heapless::Vec::<u8, 256>::new();
    s.handle(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        &mut sink,
    );
    assert_eq!(
        core::str::from_utf8(&sink).unwrap(),
        std::format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{{\"code\":-32601,\"message\":\"Method not found\"{}}}}}\n",
            data(r#"{"method":"tools/list"}"#)
        )
    );
}

// Uses a capability a build may leave out (core/tests/capabilities.rs tests those builds).
#[cfg(feature = "resources")]
#[test]
fn change_by_uri_and_reset() {
    let mut s = server();
    let mut sink = heapless::Vec::<u8, 512>::new();
    s.handle(
        br#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"mem://big"}}"#,
        &mut sink,
    );
    sink.clear();
    assert!(s.resource_changed("mem://big"));
    assert!(!s.resource_changed("mem://none"));
    s.poll(&mut sink);
    assert_eq!(&sink[..], b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://big\"}}\n");
    sink.clear();
    s.reset();
    assert!(s.resource_changed("mem://big"));
    s.poll(&mut sink);
    assert!(sink.is_empty(), "subscriptions are gone after reset");
}

// Uses a capability a build may leave out (core/tests/capabilities.rs tests those builds).
#[cfg(feature = "resources")]
#[test]
fn response_too_large_for_a_fixed_buffer_becomes_an_error_with_its_id() {
    use crate::wire::json::SliceSink;
    let mut s = server();
    let mut buf = [0u8; 120];
    let mut sink = SliceSink::new(&mut buf);
    s.handle(
        br#"{"jsonrpc":"2.0","id":"big","method":"resources/read","params":{"uri":"mem://big"}}"#,
        &mut sink,
    );
    assert_eq!(
        sink.written(),
        b"{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"error\":{\"code\":-32603,\"message\":\"Response too large for the output buffer\"}}\n"
    );
    // A subscription notification that does not fit waits for room.
    sink.clear();
    s.handle(
        br#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"mem://big"}}"#,
        &mut sink,
    );
    assert_eq!(
        sink.written(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
    );
    s.resource_changed("mem://big");
    sink.write(&[b' '; 60]).unwrap();
    let before = sink.len();
    s.poll(&mut sink);
    assert_eq!(
        sink.len(),
        before,
        "the notification did not fit and was taken back"
    );
    sink.clear();
    s.poll(&mut sink);
    assert_eq!(
        sink.written(),
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"mem://big\"}}\n"
    );
    // Even the error does not fit: nothing partial is left behind.
    let mut tiny = [0u8; 10];
    let mut sink = SliceSink::new(&mut tiny);
    s.handle(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, &mut sink);
    assert!(sink.is_empty());
    s.handle(b"nonsense", &mut sink);
    assert!(sink.is_empty());
}

/// Collects what is written.
struct Collect(Vec<u8>);

impl Sink for Collect {
    fn write(&mut self, b: &[u8]) -> Result<(), crate::wire::json::SinkError> {
        self.0.extend_from_slice(b);
        Ok(())
    }
}

impl Collect {
    fn take(&mut self) -> String {
        String::from_utf8(core::mem::take(&mut self.0)).unwrap()
    }
}

/// One stream's share of the change notifications goes out; the others' stay
/// pending for their own calls, and a global poll finds nothing more.
#[cfg(feature = "routes")]
#[test]
fn poll_changes_sends_one_streams_share_and_keeps_the_rest() {
    let mut s: Server<Kinds, 2, 1> = Server::new(Kinds::default(), Config::new("k", "1")).unwrap();
    let mut out = Collect(Vec::new());
    for id in [1, 2] {
        let listen = std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":["mem://big"]}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        );
        s.handle(listen.as_bytes(), &mut out);
    }
    assert!(out.take().contains("subscriptions/acknowledged"));
    assert!(s.is_listening(b"1") && s.is_listening(b"2"));
    assert!(s.resource_changed("mem://big"));
    s.poll_changes(Some(b"2"), &mut out);
    let two = out.take();
    assert_eq!(two.lines().count(), 1, "{two}");
    assert!(two.contains(r#"/subscriptionId":2}"#), "{two}");
    s.poll_changes(Some(b"2"), &mut out);
    assert_eq!(out.take(), "");
    s.poll_changes(Some(b"1"), &mut out);
    let one = out.take();
    assert_eq!(one.lines().count(), 1, "{one}");
    assert!(one.contains(r#"/subscriptionId":1}"#), "{one}");
    s.poll(&mut out);
    assert_eq!(out.take(), "");
    // Nobody in the legacy session subscribed: its stream has nothing.
    assert!(s.resource_changed("mem://big"));
    s.poll_changes(None, &mut out);
    assert_eq!(out.take(), "");
    assert!(s.close_listen(b"1"));
    assert!(!s.is_listening(b"1"));
}

/// `poll_job` continues only the job of its request; `cancel` ends a job.
#[test]
fn poll_job_steps_one_request_and_cancel_ends_it() {
    let mut s = server();
    let mut out = Collect(Vec::new());
    s.handle(
        br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait"}}"#,
        &mut out,
    );
    assert_eq!(out.take(), "");
    assert!(!s.poll_job(b"8", &mut out)); // no such request: nothing done
    assert_eq!(out.take(), "");
    assert!(!s.poll_job(b"9", &mut out));
    let done = out.take();
    assert!(
        done.starts_with(r#"{"jsonrpc":"2.0","id":9,"result""#),
        "{done}"
    );
    assert!(done.contains("waited 7"), "{done}");
    s.handle(
        br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"wait"}}"#,
        &mut out,
    );
    assert!(s.is_pending(b"10"));
    assert!(s.cancel(b"10"));
    assert!(!s.cancel(b"10"));
    assert!(!s.is_pending(b"10"));
    assert_eq!(s.device().cancelled, [(2, 7)]);
    assert_eq!(out.take(), "");
}

/// `,"data":` and `member` as this build writes an error naming what it refuses: with
/// feature `error-data`; without it, nothing.
fn data(member: &str) -> String {
    match cfg!(feature = "error-data") {
        true => std::format!(r#","data":{member}"#),
        false => String::new(),
    }
}

/// Errors name what they refuse (feature `error-data`): the method, the tool or prompt
/// (its first `MAX_ECHO` bytes, escapes kept whole), where a line stopped being JSON,
/// the limit of a line too long.
#[cfg(feature = "error-data")]
#[test]
fn errors_name_what_they_refuse() {
    let mut s = server();
    let out = run(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"no/\"such\u00e9"}"#,
    );
    assert_eq!(
        out,
        [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"no/\"such\u00e9"}}}"#
        ]
    );
    // 62 bytes, then an escape that would end past 64: left out whole.
    let long = std::format!("{}\\u00e9tail", "x".repeat(62));
    let out = run(
        &mut s,
        &std::format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{long}"}}}}"#
        ),
    );
    let named = std::format!(r#""data":{{"name":"{}"}}"#, "x".repeat(62));
    assert!(
        out[0].contains(r#""code":-32602,"message":"Unknown tool""#),
        "{out:?}"
    );
    assert!(out[0].contains(&named), "{out:?}");
    let out = run(&mut s, r#"{"jsonrpc":"2.0","id":3,"method":"tools/list" "#);
    assert_eq!(
        out,
        [
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"offset":46}}}"#
        ]
    );
    let mut sink = Vec::new();
    struct S<'a>(&'a mut Vec<u8>);
    impl Sink for S<'_> {
        fn write(&mut self, b: &[u8]) -> Result<(), crate::wire::json::SinkError> {
            self.0.extend_from_slice(b);
            Ok(())
        }
    }
    s.handle_frame_limit(
        crate::wire::framing::Frame::TooLong,
        1024,
        &mut S(&mut sink),
    );
    s.handle_frame(crate::wire::framing::Frame::TooLong, &mut S(&mut sink));
    assert_eq!(
        String::from_utf8(sink).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: line too long\",\"data\":{\"limit\":1024}}}\n\
         {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: line too long\"}}\n"
    );
}

/// Without feature `error-data` the same errors carry their code and message only.
#[cfg(not(feature = "error-data"))]
#[test]
fn errors_name_nothing_without_error_data() {
    let mut s = server();
    for (line, error) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"none"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list" "#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        ),
    ] {
        assert_eq!(run(&mut s, line), [error]);
    }
    let mut sink = heapless::Vec::<u8, 256>::new();
    s.handle_frame_limit(crate::wire::framing::Frame::TooLong, 1024, &mut sink);
    assert_eq!(
        &sink[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: line too long\"}}\n"
    );
}
