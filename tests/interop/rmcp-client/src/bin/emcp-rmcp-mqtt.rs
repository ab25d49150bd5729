//! The official Rust MCP SDK (`rmcp` 3.11.0) as a client of the MQTT gateway
//! (`emcp-bridge mqtt`), in either shape: the tool list (waited for, as devices come
//! online behind the broker) holds TOOL, calling it with the arguments ARGS (a JSON
//! object) answers text containing TEXT, and a tool no device has is -32602.
//!
//! ```text
//! emcp-rmcp-mqtt TOOL ARGS TEXT GATEWAY [ARG...]   # the gateway on stdin/stdout
//! emcp-rmcp-mqtt TOOL ARGS TEXT --url URL          # a gateway serving Streamable HTTP
//! ```
//!
//! tests/mqtt/test_gateway.py starts the broker, the devices and the gateway around it.
//! Prints one line per check and exits 1 when any failed, 2 on bad usage.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use emcp_rmcp_client::{connect, REQUEST_TIMEOUT};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, JsonObject,
    ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use tokio::process::Command;

/// How long the fleet may take to list TOOL.
const FIND: Duration = Duration::from_secs(20);

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("emcp-rmcp-mqtt", "0.1.0"),
        );
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

type Service = RunningService<RoleClient, Client>;

async fn checks(s: &Service, tool: &str, args: JsonObject, text: &str, r: &mut (usize, usize)) {
    let mut check = |what: &str, ok: bool, detail: String| {
        if ok {
            r.0 += 1;
            println!("ok   rmcp mqtt: {what}");
        } else {
            r.1 += 1;
            println!("FAIL rmcp mqtt: {what}: {detail}");
        }
    };
    let deadline = Instant::now() + FIND;
    let mut names = Vec::new();
    while Instant::now() < deadline {
        if let Ok(Ok(tools)) =
            tokio::time::timeout(REQUEST_TIMEOUT, s.peer().list_all_tools()).await
        {
            names = tools.iter().map(|t| t.name.to_string()).collect();
            if names.iter().any(|n| n == tool) {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    check(
        &format!("tools/list holds {tool}"),
        names.iter().any(|n| n == tool),
        format!("{names:?}"),
    );
    let called = tokio::time::timeout(
        REQUEST_TIMEOUT,
        s.peer()
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)),
    )
    .await;
    let got = match &called {
        Ok(Ok(result)) => serde_json::to_string(result).unwrap_or_default(),
        other => format!("{other:?}"),
    };
    check(
        &format!("tools/call {tool}: text with {text:?}"),
        matches!(&called, Ok(Ok(_))) && got.contains(text),
        got,
    );
    let unknown = tokio::time::timeout(
        REQUEST_TIMEOUT,
        s.peer().call_tool(CallToolRequestParams::new(
            "no-such-device.tool".to_string(),
        )),
    )
    .await;
    let code = match &unknown {
        Ok(Err(ServiceError::McpError(e))) => Some(e.code.0),
        _ => None,
    };
    check(
        "tools/call of a tool no device has: -32602",
        code == Some(-32602),
        format!("{unknown:?}"),
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (tool, args, text, rest) = match argv.as_slice() {
        [tool, args, text, rest @ ..] if !rest.is_empty() => {
            match serde_json::from_str::<JsonObject>(args) {
                Ok(args) => (tool, args, text, rest),
                Err(e) => {
                    eprintln!("emcp-rmcp-mqtt: ARGS is not a JSON object: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        _ => {
            eprintln!("usage: emcp-rmcp-mqtt TOOL ARGS TEXT GATEWAY [ARG...] | emcp-rmcp-mqtt TOOL ARGS TEXT --url URL");
            return ExitCode::from(2);
        }
    };
    let version = ProtocolVersion::V_2025_11_25;
    let service = match rest {
        [flag, url] if flag == "--url" => {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            connect(Client, transport, &version).await
        }
        [program, args @ ..] => {
            let mut cmd = Command::new(program);
            cmd.args(args);
            match TokioChildProcess::new(cmd) {
                Ok(transport) => connect(Client, transport, &version).await,
                Err(e) => Err(format!("cannot start the gateway: {e}")),
            }
        }
        [] => return ExitCode::from(2),
    };
    let mut r = (0, 0);
    match service {
        Ok(s) => {
            checks(&s, tool, args, text, &mut r).await;
            let _ = s.cancel().await;
        }
        Err(e) => {
            println!("FAIL rmcp mqtt: {e}");
            r.1 += 1;
        }
    }
    println!(
        "rmcp 3.11.0 client through {}: {} checks passed, {} failed",
        rest.join(" "),
        r.0,
        r.1
    );
    match r.1 {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
