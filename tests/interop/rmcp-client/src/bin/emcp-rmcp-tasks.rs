//! Tasks with the official Rust SDK (`rmcp` 3.11.0) as the client: the sensor board's
//! tasks build (docs/board.md, "The tasks build") at 2026-07-28, the era whose tasks
//! rmcp speaks (the `io.modelcontextprotocol/tasks` extension, SEP-2663; rmcp has no
//! 2025-11-25 tasks client).
//!
//! ```text
//! emcp-rmcp-tasks BOARD [ARG...]      # the board's MCP on its stdin/stdout
//! emcp-rmcp-tasks --http BOARD        # `BOARD --http 127.0.0.1:PORT`, Streamable HTTP
//! ```
//!
//! The client declares the extension (`ClientCapabilities.extensions`); `call_tool_once`
//! gets `CallToolResponse::Task` for `calibrate` and `move_servo`, `get_task` polls until
//! the task is terminal, `cancel_task` cancels one. `update_task` is not exercised: no
//! tool of the board asks for input. A second client, without the extension, gets
//! -32021 for `calibrate` and an ordinary result for `move_servo`. Prints one line per
//! check; exits 1 when any failed, 2 when the board could not be started.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use emcp_rmcp_client::{connect, Listening, REQUEST_TIMEOUT};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, JsonObject, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use serde_json::{json, Value};
use tokio::process::Command;

const EXT: &str = "io.modelcontextprotocol/tasks";

/// The client: declares the tasks extension, or not.
#[derive(Clone)]
struct Client {
    tasks: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if self.tasks {
            caps.extensions = Some([(EXT.to_string(), JsonObject::new())].into());
        }
        let mut info = ClientConfig::new(caps, Implementation::new("emcp-rmcp-tasks", "0.1.0"));
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}

/// How the board is reached.
enum Board {
    Stdio(Vec<String>),
    Http(String),
}

/// The checks of one run.
struct Report {
    label: &'static str,
    passed: usize,
    failed: usize,
}

impl Report {
    fn check(&mut self, what: &str, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
            println!("ok   rmcp tasks {}: {what}", self.label);
        } else {
            self.failed += 1;
            println!("FAIL rmcp tasks {}: {what}: {}", self.label, detail());
        }
    }
}

type Service = RunningService<RoleClient, Client>;

/// A connected client (the board process lives as long as the returned guard).
async fn start(board: &Board, tasks: bool) -> Result<(Service, Option<Listening>), String> {
    let client = Client { tasks };
    let version = ProtocolVersion::V_2026_07_28;
    match board {
        Board::Stdio(argv) => {
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..]);
            let transport =
                TokioChildProcess::new(cmd).map_err(|e| format!("cannot start the board: {e}"))?;
            Ok((connect(client, transport, &version).await?, None))
        }
        Board::Http(binary) => {
            let b = Listening::start(binary, "--http")?;
            let transport = StreamableHttpClientTransport::from_uri(b.url.as_str());
            Ok((connect(client, transport, &version).await?, Some(b)))
        }
    }
}

fn call(tool: &str, args: Value) -> CallToolRequestParams {
    let args = match args {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    CallToolRequestParams::new(tool.to_string()).with_arguments(args)
}

/// `tools/call` through `call_tool_once`: the response, or why not.
async fn call_once(s: &Service, tool: &str, args: Value) -> Result<CallToolResponse, String> {
    match tokio::time::timeout(REQUEST_TIMEOUT, s.peer().call_tool_once(call(tool, args))).await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(format!("request failed: {e}")),
        Err(_) => Err("no response in time".into()),
    }
}

/// The task a call made (its id), or why not.
fn task_id(r: &Result<CallToolResponse, String>) -> Result<String, String> {
    match r {
        Ok(CallToolResponse::Task(t)) => {
            let v = serde_json::to_value(t).map_err(|e| e.to_string())?;
            match (v["taskId"].as_str(), v["status"].as_str()) {
                (Some(id), Some("working")) if id.len() == 32 => Ok(id.to_string()),
                _ => Err(format!("not a working task: {v}")),
            }
        }
        other => Err(format!("not a task: {other:?}")),
    }
}

/// `tasks/get` as JSON.
async fn get(s: &Service, id: &str) -> Result<Value, String> {
    match tokio::time::timeout(REQUEST_TIMEOUT, s.peer().get_task(GetTaskParams::new(id))).await {
        Ok(Ok(r)) => serde_json::to_value(r).map_err(|e| e.to_string()),
        Ok(Err(e)) => Err(format!("tasks/get failed: {e}")),
        Err(_) => Err("no response in time".into()),
    }
}

/// `get_task` until the task is terminal (polling at its `pollIntervalMs`, at most
/// 10 s): the last `tasks/get` and the statuses seen.
async fn until_terminal(s: &Service, id: &str) -> Result<(Value, Vec<String>), String> {
    let end = Instant::now() + Duration::from_secs(10);
    let mut seen: Vec<String> = Vec::new();
    loop {
        let v = get(s, id).await?;
        let status = v["status"].as_str().unwrap_or("?").to_string();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if matches!(status.as_str(), "completed" | "failed" | "cancelled") {
            return Ok((v, seen));
        }
        if Instant::now() > end {
            return Err(format!("still {status} after 10 s"));
        }
        let wait = v["pollIntervalMs"].as_u64().unwrap_or(500).min(500);
        tokio::time::sleep(Duration::from_millis(wait)).await;
    }
}

fn text(v: &Value) -> Option<&str> {
    v.pointer("/result/content/0/text").and_then(Value::as_str)
}

/// The checks with a client that declared the extension.
async fn with_tasks(board: &Board, r: &mut Report) -> Result<(), String> {
    let (s, _guard) = start(board, true).await?;
    let started = Instant::now();
    let created = call_once(&s, "calibrate", json!({"sensor": "humidity"})).await;
    let id = task_id(&created);
    r.check(
        "call_tool_once calibrate: CallToolResponse::Task, working",
        id.is_ok(),
        || format!("{id:?}"),
    );
    if let Ok(id) = id {
        let first = get(&s, &id).await;
        let working = first.as_ref().is_ok_and(|v| v["status"] == "working");
        r.check("get_task at once: working", working, || {
            format!("{first:?}")
        });
        let done = until_terminal(&s, &id).await;
        let took = started.elapsed();
        let ok = done.as_ref().is_ok_and(|(v, _)| {
            v["status"] == "completed" && text(v) == Some("calibrated: humidity")
        }) && took >= Duration::from_millis(1900);
        r.check(
            "get_task until terminal: completed after ~2 s, 'calibrated: humidity'",
            ok,
            || format!("after {took:?}: {done:?}"),
        );
        if let Ok((_, seen)) = &done {
            println!("     statuses seen: {seen:?}, {:.1} s", took.as_secs_f64());
        }
    }

    let created = call_once(&s, "calibrate", json!({"sensor": "pressure"})).await;
    match task_id(&created) {
        Ok(id) => {
            let ack = tokio::time::timeout(
                REQUEST_TIMEOUT,
                s.peer().cancel_task(CancelTaskParams::new(id.as_str())),
            )
            .await;
            r.check(
                "cancel_task: acknowledged",
                matches!(ack, Ok(Ok(()))),
                || format!("{ack:?}"),
            );
            tokio::time::sleep(Duration::from_millis(2100)).await;
            let after = get(&s, &id).await;
            let ok = after.as_ref().is_ok_and(|v| v["status"] == "cancelled");
            r.check(
                "get_task after cancel_task (and 2 s): cancelled",
                ok,
                || format!("{after:?}"),
            );
        }
        Err(e) => r.check("call_tool_once calibrate (to cancel): a task", false, || e),
    }

    let created = call_once(&s, "move_servo", json!({"angle": 45})).await;
    match task_id(&created) {
        Ok(id) => {
            let done = until_terminal(&s, &id).await;
            let ok = done.as_ref().is_ok_and(|(v, _)| {
                v["status"] == "completed" && text(v) == Some("servo: 45.0 deg")
            });
            r.check(
                "call_tool_once move_servo (optional): a task, completed 'servo: 45.0 deg'",
                ok,
                || format!("{done:?}"),
            );
        }
        Err(e) => r.check("call_tool_once move_servo: a task", false, || e),
    }

    let unknown = tokio::time::timeout(
        REQUEST_TIMEOUT,
        s.peer().get_task(GetTaskParams::new("0".repeat(32))),
    )
    .await;
    let code = match &unknown {
        Ok(Err(ServiceError::McpError(e))) => Some(e.code.0),
        _ => None,
    };
    r.check(
        "get_task of an unknown id: -32602",
        code == Some(-32602),
        || format!("{unknown:?}"),
    );
    let _ = s.cancel().await;
    Ok(())
}

/// The checks with a client that did not declare the extension.
async fn without_tasks(board: &Board, r: &mut Report) -> Result<(), String> {
    let (s, _guard) = start(board, false).await?;
    let refused = tokio::time::timeout(
        REQUEST_TIMEOUT,
        s.peer()
            .call_tool(call("calibrate", json!({"sensor": "humidity"}))),
    )
    .await;
    let code = match &refused {
        Ok(Err(ServiceError::McpError(e))) => Some(e.code.0),
        _ => None,
    };
    r.check(
        "without the extension: calibrate is -32021",
        code == Some(-32021),
        || format!("{refused:?}"),
    );
    let plain = call_once(&s, "move_servo", json!({"angle": -30})).await;
    let ok = match &plain {
        Ok(CallToolResponse::Complete(res)) => serde_json::to_value(res).is_ok_and(|v| {
            v.pointer("/content/0/text").and_then(Value::as_str) == Some("servo: -30.0 deg")
        }),
        _ => false,
    };
    r.check(
        "without the extension: move_servo an ordinary result 'servo: -30.0 deg'",
        ok,
        || format!("{plain:?}"),
    );
    let _ = s.cancel().await;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (board, label) = match argv.as_slice() {
        [flag, binary] if flag == "--http" => (Board::Http(binary.clone()), "http"),
        [first, ..] if first != "--http" => (Board::Stdio(argv.clone()), "stdio"),
        _ => {
            eprintln!("usage: emcp-rmcp-tasks BOARD [ARG...] | emcp-rmcp-tasks --http BOARD");
            return ExitCode::from(2);
        }
    };
    let mut r = Report {
        label,
        passed: 0,
        failed: 0,
    };
    for result in [
        with_tasks(&board, &mut r).await,
        without_tasks(&board, &mut r).await,
    ] {
        if let Err(e) = result {
            println!("FAIL rmcp tasks {label}: {e}");
            r.failed += 1;
        }
    }
    println!(
        "rmcp 3.11.0 tasks client against {}: {} checks passed, {} failed",
        argv.join(" "),
        r.passed,
        r.failed
    );
    match r.failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
