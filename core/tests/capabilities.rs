//! Capabilities chosen at compile time (features `resources`, `prompts`, `completions`,
//! `logging`, `pagination`): a device that declares everything, served by whatever this
//! build compiled in. What is compiled in answers and is advertised; what is not answers
//! -32601 (a cursor: -32602) and is not advertised. CI runs it with every feature on (the
//! default), with none of them (tools only), with `resources` alone, and for each era
//! alone:
//!
//! ```text
//! cargo test -p emcp --test capabilities
//! cargo test -p emcp --no-default-features --features legacy,stateless --test capabilities
//! ```

use emcp::device::{Completion, PromptGet, ResourceRead, Step, ToolCall};
use emcp::device::{LogLevel, ReadError, Role};
use emcp::model::registry::{Prompt, Resource, ResourceTemplate, Tool};
use emcp::{Config, Device, Server};

struct Board;

static TOOLS: [Tool<'static>; 1] = [emcp::tool!("blink", r#"{"type":"object"}"#)];

impl Device for Board {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }
    fn resource(&self, i: usize) -> Option<Resource<'static>> {
        (i == 0).then(|| Resource::new("led://state", "led"))
    }
    fn resource_template(&self, i: usize) -> Option<ResourceTemplate<'static>> {
        (i == 0).then(|| ResourceTemplate::new("sensor://{name}", "sensor"))
    }
    fn prompt(&self, i: usize) -> Option<Prompt<'static>> {
        (i == 0).then(|| Prompt::new("status"))
    }
    fn completions(&self) -> bool {
        true
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        call.log(LogLevel::Info, "led", "blinked");
        call.text("on");
        Step::Done
    }
    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        read.text(None, "off");
        Ok(())
    }
    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        get.text(Role::User, "status?");
        Ok(())
    }
    fn complete(&mut self, completion: &mut Completion<'_>) {
        completion.offer("temperature");
    }
}

/// The server's answer to one line.
fn answer(server: &mut Server<Board>, line: &str) -> String {
    let mut out = heapless::Vec::<u8, 2048>::new();
    server.handle(line.as_bytes(), &mut out);
    String::from_utf8(out.to_vec()).unwrap()
}

fn server() -> Server<Board> {
    let mut config = Config::new("b", "1");
    config.page_size = 1;
    Server::new(Board, config).unwrap()
}

/// A request of this build's era (the initialize era when compiled in, after
/// `initialize`), `params` without its closing brace.
fn request(s: &mut Server<Board>, id: u32, method: &str, params: &str) -> String {
    let params = if cfg!(feature = "legacy") {
        format!("{params}}}")
    } else {
        let sep = if params == "{" { "" } else { "," };
        format!(
            r#"{params}{sep}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}"#
        )
    };
    answer(
        s,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#),
    )
}

/// A server past the handshake (`initialize` when the initialize era is compiled in),
/// and its capabilities as the handshake or `server/discover` gives them.
fn started() -> (Server<Board>, String) {
    let mut s = server();
    let caps = if cfg!(feature = "legacy") {
        request(
            &mut s,
            1,
            "initialize",
            r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
        )
    } else {
        request(&mut s, 1, "server/discover", "{")
    };
    (s, caps)
}

/// -32601 for `method`, naming it with feature `error-data`.
fn not_found(id: u32, method: &str) -> String {
    let data = match cfg!(feature = "error-data") {
        true => format!(",\"data\":{{\"method\":\"{method}\"}}"),
        false => String::new(),
    };
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32601,\"message\":\"Method not found\"{data}}}}}\n")
}

#[test]
fn tools_are_always_served() {
    let (mut s, caps) = started();
    assert!(caps.contains(r#""tools":{}"#), "{caps}");
    let out = request(&mut s, 2, "tools/call", r#"{"name":"blink""#);
    assert!(out.contains(r#""text":"on""#), "{out}");
}

#[test]
fn resources_as_compiled() {
    let (mut s, caps) = started();
    let calls = [
        ("resources/list", "{"),
        ("resources/templates/list", "{"),
        ("resources/read", r#"{"uri":"led://state""#),
    ];
    if cfg!(feature = "resources") {
        assert!(caps.contains(r#""resources":{"subscribe":true}"#), "{caps}");
        for (i, (method, params)) in calls.iter().enumerate() {
            let out = request(&mut s, 10 + i as u32, method, params);
            assert!(out.contains(r#""result""#), "{method}: {out}");
        }
    } else {
        assert!(!caps.contains(r#""resources""#), "{caps}");
        for (i, (method, params)) in calls.iter().enumerate() {
            let id = 10 + i as u32;
            assert_eq!(
                request(&mut s, id, method, params),
                not_found(id, method),
                "{method}"
            );
        }
    }
    if cfg!(feature = "legacy") {
        let out = request(&mut s, 20, "resources/subscribe", r#"{"uri":"led://state""#);
        assert_eq!(
            out.contains(r#""result":{}"#),
            cfg!(feature = "resources"),
            "{out}"
        );
    }
}

#[test]
fn prompts_as_compiled() {
    let (mut s, caps) = started();
    let list = request(&mut s, 2, "prompts/list", "{");
    let get = request(&mut s, 3, "prompts/get", r#"{"name":"status""#);
    if cfg!(feature = "prompts") {
        assert!(caps.contains(r#""prompts":{}"#), "{caps}");
        assert!(list.contains(r#""name":"status""#), "{list}");
        assert!(get.contains(r#""text":"status?""#), "{get}");
    } else {
        assert!(!caps.contains(r#""prompts""#), "{caps}");
        assert_eq!(list, not_found(2, "prompts/list"));
        assert_eq!(get, not_found(3, "prompts/get"));
    }
}

#[test]
fn completions_as_compiled() {
    let (mut s, caps) = started();
    let out = request(
        &mut s,
        2,
        "completion/complete",
        r#"{"ref":{"type":"ref/prompt","name":"status"},"argument":{"name":"x","value":"t"}"#,
    );
    if cfg!(feature = "completions") {
        assert!(caps.contains(r#""completions":{}"#), "{caps}");
        assert!(out.contains(r#""values":["temperature"]"#), "{out}");
    } else {
        assert!(!caps.contains(r#""completions""#), "{caps}");
        assert_eq!(out, not_found(2, "completion/complete"));
    }
}

#[cfg(feature = "legacy")]
#[test]
fn logging_as_compiled() {
    let (mut s, caps) = started();
    let set = request(&mut s, 2, "logging/setLevel", r#"{"level":"info""#);
    let call = request(&mut s, 3, "tools/call", r#"{"name":"blink""#);
    if cfg!(feature = "logging") {
        assert!(caps.contains(r#""logging":{}"#), "{caps}");
        assert!(set.contains(r#""result":{}"#), "{set}");
        assert!(call.contains(r#""data":"blinked""#), "{call}");
    } else {
        assert!(!caps.contains(r#""logging""#), "{caps}");
        assert_eq!(set, not_found(2, "logging/setLevel"));
        assert!(!call.contains("notifications/message"), "{call}");
    }
}

#[test]
fn pagination_as_compiled() {
    // Page size 1 and one tool: a second tool would need a page of its own; with one,
    // the list ends at once either way, so ask with a cursor.
    let (mut s, _) = started();
    let out = request(&mut s, 2, "tools/list", r#"{"cursor":"0""#);
    if cfg!(feature = "pagination") {
        assert!(out.contains(r#""name":"blink""#), "{out}");
    } else {
        assert!(out.contains(r#""code":-32602"#), "{out}");
    }
}
