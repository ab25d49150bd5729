//! One-era builds: what a server compiled with only `legacy` or only `stateless` answers
//! to the other era's requests. CI runs
//!
//! ```text
//! cargo test -p emcp --no-default-features --features legacy --test one_era
//! cargo test -p emcp --no-default-features --features stateless --test one_era
//! ```
//!
//! (with both eras, the default, the transcripts cover every case).

use emcp::device::{Step, ToolCall};
use emcp::model::registry::Tool;
use emcp::{Config, Device, Server};

struct Board;

static TOOLS: [Tool<'static>; 1] = [emcp::tool!("ping_led", r#"{"type":"object"}"#)];

impl Device for Board {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        call.text("on");
        Step::Done
    }
}

/// The server's answer to one line.
fn answer(server: &mut Server<Board>, line: &str) -> String {
    let mut out = heapless::Vec::<u8, 1024>::new();
    server.handle(line.as_bytes(), &mut out);
    String::from_utf8(out.to_vec()).unwrap()
}

fn server() -> Server<Board> {
    Server::new(Board, Config::new("b", "1")).unwrap()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const MODERN_CALL: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ping_led","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const PLAIN_CALL: &str =
    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ping_led"}}"#;

#[cfg(all(feature = "legacy", not(feature = "stateless")))]
#[test]
fn legacy_only_ignores_meta_claims_and_has_no_discover() {
    let mut s = server();
    assert!(answer(&mut s, INITIALIZE).contains(r#""protocolVersion":"2025-11-25""#));
    assert_eq!(
        answer(&mut s, DISCOVER),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{{\"code\":-32601,\"message\":\"Method not found\"{}}}}}\n",
            match cfg!(feature = "error-data") {
                true => ",\"data\":{\"method\":\"server/discover\"}",
                false => "",
            }
        )
    );
    // Served as an initialize-era request: no resultType, no serverInfo stamp.
    assert_eq!(
        answer(&mut s, MODERN_CALL),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"on\"}]}}\n"
    );
    assert_eq!(
        answer(&mut s, PLAIN_CALL),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"on\"}]}}\n"
    );
}

#[cfg(all(feature = "stateless", not(feature = "legacy")))]
#[test]
fn stateless_only_refuses_initialize_with_the_versions_spoken() {
    let mut s = server();
    assert_eq!(
        answer(&mut s, INITIALIZE),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\",\
         \"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"2025-11-25\"}}}\n"
    );
    assert!(answer(&mut s, DISCOVER).contains(r#""supportedVersions":["2026-07-28"]"#));
    assert!(answer(&mut s, MODERN_CALL).contains(r#""resultType":"complete""#));
    // Without the 2026-07-28 `_meta`: the request is incomplete, not initialize-era.
    assert!(answer(&mut s, PLAIN_CALL).contains(
        r#""code":-32602,"message":"Missing _meta io.modelcontextprotocol/protocolVersion""#
    ));
}

#[cfg(all(feature = "legacy", feature = "stateless"))]
#[test]
fn both_eras_answer_each_in_its_own() {
    let mut s = server();
    assert!(answer(&mut s, INITIALIZE).contains(r#""protocolVersion":"2025-11-25""#));
    assert!(answer(&mut s, DISCOVER).contains(r#""supportedVersions":["2026-07-28"]"#));
    assert!(answer(&mut s, MODERN_CALL).contains(r#""resultType":"complete""#));
    assert!(!answer(&mut s, PLAIN_CALL).contains("resultType"));
}
