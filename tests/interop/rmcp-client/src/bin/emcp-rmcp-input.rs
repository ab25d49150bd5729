//! Asking the client for input, with the official Rust SDK (`rmcp` 3.11.0) as the
//! client: the conformance server's tools that need an elicitation, a sampling or the
//! client's roots, over Streamable HTTP, in both eras — at 2026-07-28 as
//! `input_required` results that rmcp answers by retrying the call with
//! `inputResponses` and `requestState` (multi-round included), at 2025-11-25 as
//! server-to-client requests on the tool call's stream.
//!
//! ```text
//! emcp-rmcp-input SERVER      # SERVER --listen 127.0.0.1:PORT (examples/conformance-server)
//! ```
//!
//! The client answers as a user and a model would: every string field of a form with
//! `rmcp` (`color`: `blue`), every boolean with `true`; a sampling with `Paris`; roots
//! with one root. Prints one line per check; exits 1 when any failed.

// Roots are deprecated in rmcp for 2026-07-28 (SEP-2577); the conformance server asks
// for them, so they are answered.
#![allow(deprecated)]

use std::process::ExitCode;

use emcp_rmcp_client::{connect, Listening, REQUEST_TIMEOUT};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
    ListRootsResult, ProtocolVersion, Root, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData};
use serde_json::{json, Value};

/// The client: a user who fills in every form, a model that answers `Paris`, one root.
#[derive(Clone)]
struct Client {
    version: ProtocolVersion,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities = serde_json::from_value(json!({
            "elicitation": {"form": {}}, "sampling": {}, "roots": {}
        }))
        .unwrap_or_default();
        let mut info = ClientConfig::new(caps, Implementation::new("emcp-rmcp-input", "0.1.0"));
        info.protocol_version = self.version.clone();
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(requested_schema).unwrap_or_default();
        let mut content = serde_json::Map::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, p) in properties {
                let v = match p.get("type").and_then(Value::as_str) {
                    Some("boolean") => json!(true),
                    Some("integer" | "number") => json!(1),
                    _ if name == "color" => json!("blue"),
                    _ => json!("rmcp"),
                };
                content.insert(name.clone(), v);
            }
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Paris"),
            "rmcp-test-model".into(),
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new("file:///board")]))
    }
}

/// Each tool, its arguments, and the text it must end with.
fn cases() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "test_input_required_result_elicitation",
            json!({}),
            "Hello, rmcp!",
        ),
        (
            "test_input_required_result_sampling",
            json!({}),
            "The model answered: Paris",
        ),
        (
            "test_input_required_result_list_roots",
            json!({}),
            "Found 1 root(s)",
        ),
        (
            "test_input_required_result_request_state",
            json!({}),
            "state-ok: confirmed with the state of round 1",
        ),
        (
            "test_input_required_result_multiple_inputs",
            json!({}),
            "Paris rmcp; 1 root(s)",
        ),
        (
            "test_input_required_result_multi_round",
            json!({}),
            "Multi-round complete for rmcp who likes blue",
        ),
        (
            "test_elicitation",
            json!({"message": "Who are you?"}),
            r#"User response: action=accept, content={"email":"rmcp","username":"rmcp"}"#,
        ),
        (
            "test_sampling",
            json!({"prompt": "Capital of France?"}),
            "LLM response: Paris",
        ),
    ]
}

async fn run(binary: &str, version: ProtocolVersion) -> (usize, usize) {
    let (mut passed, mut failed) = (0, 0);
    let mut check = |what: &str, ok: bool, detail: String| {
        if ok {
            passed += 1;
            println!("ok   {version}: {what}");
        } else {
            failed += 1;
            println!("FAIL {version}: {what}: {detail}");
        }
    };
    let server = match Listening::start(binary, "--listen") {
        Ok(s) => s,
        Err(e) => {
            check("start", false, e);
            return (passed, failed);
        }
    };
    let client = Client {
        version: version.clone(),
    };
    let transport = StreamableHttpClientTransport::from_uri(server.url.as_str());
    let service = match connect(client, transport, &version).await {
        Ok(s) => s,
        Err(e) => {
            check("handshake", false, e);
            return (passed, failed);
        }
    };
    for (tool, args, want) in cases() {
        let params = CallToolRequestParams::new(tool).with_arguments(match args {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        });
        // `RunningService::call_tool` answers `input_required` results through this
        // client's handlers and retries (rmcp's multi-round helper).
        let got = tokio::time::timeout(REQUEST_TIMEOUT, service.call_tool(params)).await;
        let text = match &got {
            Ok(Ok(r)) => serde_json::to_value(r)
                .ok()
                .and_then(|v| v.pointer("/content/0/text").cloned()),
            _ => None,
        };
        check(
            &format!("{tool}: {want}"),
            text == Some(json!(want)),
            format!("got {got:?}"),
        );
    }
    let closed = tokio::time::timeout(REQUEST_TIMEOUT, service.cancel()).await;
    check(
        "the client closes the session",
        matches!(closed, Ok(Ok(_))),
        format!("{closed:?}"),
    );
    drop(server);
    (passed, failed)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(binary) = std::env::args().nth(1) else {
        eprintln!("usage: emcp-rmcp-input SERVER   (started as SERVER --listen 127.0.0.1:PORT)");
        return ExitCode::from(2);
    };
    let (mut passed, mut failed) = (0, 0);
    for version in [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25] {
        let (p, f) = run(&binary, version).await;
        passed += p;
        failed += f;
    }
    println!(
        "rmcp 3.11.0 client asked for input by {binary}: {passed} checks passed, {failed} failed"
    );
    match failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
