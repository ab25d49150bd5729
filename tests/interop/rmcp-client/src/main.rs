//! The official Rust MCP SDK (`rmcp` 3.11.0) as a client of the sensor board of
//! `docs/board.md`: every tool, resource, template, prompt and completion of the board,
//! notifications included, in each lifecycle rmcp offers — `initialize` at 2025-11-25,
//! 2025-06-18, 2025-03-26 and 2024-11-05, and `server/discover` at 2026-07-28 — each
//! against a fresh board process.
//!
//! ```text
//! emcp-rmcp-client BOARD [ARG...]      # the board's MCP on its stdin/stdout
//! emcp-rmcp-client --http BOARD        # `BOARD --http 127.0.0.1:PORT`, Streamable HTTP
//! ```
//!
//! Over HTTP each run starts `BOARD --http 127.0.0.1:PORT` on a free loopback port (as
//! `EMCP_BOARD_HTTP` does for the Python tests) and connects to `/mcp`.
//!
//! Prints one line per check (`ok` or `FAIL` with what was expected and what came) and
//! exits 1 when any check failed, 2 when the board could not be started.
//! What rmcp parses is compared as the JSON it serializes back to, with numbers compared
//! by value (`40` and `40.0` are the same JSON number: the Rust and the C board differ
//! there).

// Logging (`logging/setLevel`, `notifications/message`) and `resources/subscribe` are
// deprecated in rmcp for 2026-07-28 (SEP-2577, SEP-2575); the board speaks the older
// revisions too, so they are tested there on purpose.
#![allow(deprecated)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use emcp_rmcp_client::{connect, Listening, REQUEST_TIMEOUT};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, GetPromptRequestParams,
    Implementation, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProtocolVersion, ReadResourceRequestParams, ResourceUpdatedNotificationParam,
    SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use serde_json::{json, Value};
use tokio::process::Command;

/// How long a notification that must come is waited for.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(5);

/// The notifications the board sends outside a subscription, in arrival order.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Value>>>);

impl Seen {
    fn push(&self, v: Value) {
        if let Ok(mut seen) = self.0.lock() {
            seen.push(v);
        }
    }

    fn take(&self) -> Vec<Value> {
        self.0
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default()
    }
}

/// The client: records progress, log messages and resource updates.
#[derive(Clone)]
struct Client {
    seen: Seen,
    version: ProtocolVersion,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("emcp-rmcp-client", "0.1.0"),
        );
        info.protocol_version = self.version.clone();
        info
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.push(json!({"progress": params}));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.push(json!({"log": params}));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.push(json!({"updated": params.uri}));
    }
}

/// The checks of one run.
struct Report {
    label: String,
    failed: usize,
    passed: usize,
}

impl Report {
    fn check(&mut self, what: &str, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
            println!("ok   {}: {what}", self.label);
        } else {
            self.failed += 1;
            println!("FAIL {}: {what}: {}", self.label, detail());
        }
    }

    /// `got` equals `want` as JSON, numbers by value.
    fn same(&mut self, what: &str, got: &Value, want: &Value) {
        self.check(what, same_json(got, want), || {
            format!("expected {want}, got {got}")
        });
    }

    /// A request that must succeed: its result as JSON, or `None` (a failed check).
    fn result<T: serde::Serialize>(
        &mut self,
        what: &str,
        r: Result<Result<T, ServiceError>, tokio::time::error::Elapsed>,
    ) -> Option<Value> {
        match r {
            Ok(Ok(v)) => match serde_json::to_value(v) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.check(what, false, || format!("result not serializable: {e}"));
                    None
                }
            },
            Ok(Err(e)) => {
                self.check(what, false, || format!("request failed: {e}"));
                None
            }
            Err(_) => {
                self.check(what, false, || "no response in time".into());
                None
            }
        }
    }

    /// A request that must fail with the JSON-RPC error `code`.
    fn error<T: std::fmt::Debug>(
        &mut self,
        what: &str,
        r: Result<Result<T, ServiceError>, tokio::time::error::Elapsed>,
        code: i32,
    ) {
        let got = match &r {
            Ok(Err(ServiceError::McpError(e))) => Some(e.code.0),
            _ => None,
        };
        self.check(what, got == Some(code), || {
            format!("expected error {code}, got {r:?}")
        });
    }
}

/// JSON equality with numbers compared by value.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// The value at JSON Pointer `path` in `v` (`Null` when there is none).
fn at<'v>(v: &'v Value, path: &str) -> &'v Value {
    v.pointer(path).unwrap_or(&Value::Null)
}

/// The members of `v` named `keys` (to compare a descriptor without the fields rmcp
/// adds or drops).
fn pick(v: &Value, keys: &[&str]) -> Value {
    let mut out = serde_json::Map::new();
    for k in keys {
        if let Some(x) = v.get(*k) {
            out.insert((*k).to_owned(), x.clone());
        }
    }
    Value::Object(out)
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

async fn timed<T>(
    f: impl std::future::Future<Output = Result<T, ServiceError>>,
) -> Result<Result<T, ServiceError>, tokio::time::error::Elapsed> {
    tokio::time::timeout(REQUEST_TIMEOUT, f).await
}

/// Wait until `seen` has a notification that `want` accepts; all seen so far.
async fn wait_for(seen: &Seen, mut got: Vec<Value>, want: impl Fn(&Value) -> bool) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + NOTIFY_TIMEOUT;
    while !got.iter().any(&want) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
        got.extend(seen.take());
    }
    got
}

const INSTRUCTIONS: &str = "Simulated sensor board: read sensors with read_sensor or the \
                            sensor:// resources; set_led and move_servo drive the actuators.";

fn tools() -> Value {
    let actuator = json!({"readOnlyHint": false, "destructiveHint": false,
                          "idempotentHint": true, "openWorldHint": false});
    json!([
        {"name": "read_sensor", "title": "Read sensor",
         "description": "Read the current value of one on-board sensor.",
         "inputSchema": {"type": "object", "properties": {"sensor": {"type": "string",
            "enum": ["temperature", "humidity", "pressure"], "description": "Which sensor to read"}},
            "required": ["sensor"], "additionalProperties": false},
         "outputSchema": {"type": "object", "properties": {"sensor": {"type": "string"},
            "value": {"type": "number"}, "unit": {"type": "string"}},
            "required": ["sensor", "value", "unit"]},
         "annotations": {"readOnlyHint": true, "openWorldHint": false}},
        {"name": "set_led", "title": "Set LED",
         "description": "Set the status LED colour and brightness (0-100 %).",
         "inputSchema": {"type": "object", "properties": {
            "color": {"type": "string", "enum": ["off", "red", "green", "blue"]},
            "brightness": {"type": "integer", "minimum": 0, "maximum": 100}},
            "required": ["color"], "additionalProperties": false},
         "annotations": actuator},
        {"name": "move_servo", "title": "Move servo",
         "description": "Move the servo to an angle in degrees; reports progress in 3 steps and can be cancelled.",
         "inputSchema": {"type": "object", "properties": {"angle": {"type": "number",
            "minimum": -90, "maximum": 90}}, "required": ["angle"], "additionalProperties": false},
         "annotations": actuator},
    ])
}

/// How the board is reached.
enum Board {
    /// A command serving MCP on its stdin/stdout.
    Stdio(Vec<String>),
    /// A binary taking `--http ADDR`.
    Http(String),
}

/// One run: a fresh board, one lifecycle, every check.
async fn run(board: &Board, version: ProtocolVersion) -> Result<Report, String> {
    let seen = Seen::default();
    let client = Client {
        seen: seen.clone(),
        version: version.clone(),
    };
    // Over HTTP, the board process lives until the checks are done.
    let mut http = None;
    let service = match board {
        Board::Stdio(argv) => {
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..]);
            let transport =
                TokioChildProcess::new(cmd).map_err(|e| format!("cannot start the board: {e}"))?;
            connect(client, transport, &version).await?
        }
        Board::Http(binary) => {
            let b = http.insert(Listening::start(binary, "--http")?);
            let transport = StreamableHttpClientTransport::from_uri(b.url.as_str());
            connect(client, transport, &version).await?
        }
    };
    let r = checks(service, seen, version).await;
    drop(http);
    Ok(r)
}

/// Every check, on a connected client.
async fn checks(
    service: RunningService<RoleClient, Client>,
    seen: Seen,
    version: ProtocolVersion,
) -> Report {
    let stateless = !version.has_initialize();
    let mut r = Report {
        label: version.to_string(),
        failed: 0,
        passed: 0,
    };
    let peer = service.peer().clone();

    // The handshake: server info, version, capabilities, instructions.
    let info = serde_json::to_value(peer.peer_info().as_deref()).unwrap_or_default();
    r.same(
        "handshake: protocol version",
        at(&info, "/protocolVersion"),
        &json!(version.to_string()),
    );
    r.same(
        "handshake: server info",
        &pick(at(&info, "/serverInfo"), &["name", "version", "title"]),
        &json!({"name": "emcp-sensor-board", "version": "0.1.0",
                "title": "emcp simulated sensor board"}),
    );
    let caps = at(&info, "/capabilities");
    r.check(
        "handshake: capabilities tools, resources (subscribe), prompts, completions, logging",
        ["tools", "prompts", "completions", "logging"]
            .iter()
            .all(|k| caps.get(*k).is_some())
            && at(caps, "/resources/subscribe") == &json!(true),
        || format!("got {caps}"),
    );
    r.same(
        "handshake: instructions",
        at(&info, "/instructions"),
        &json!(INSTRUCTIONS),
    );

    // Tools.
    if let Some(list) = r.result("tools/list", timed(peer.list_all_tools()).await) {
        let keys = [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ];
        let got: Vec<Value> = list
            .as_array()
            .map(|a| a.iter().map(|t| pick(t, &keys)).collect())
            .unwrap_or_default();
        r.same(
            "tools/list: the three tools as docs/board.md",
            &json!(got),
            &tools(),
        );
    }
    for (sensor, text, structured) in [
        (
            "temperature",
            "temperature: 21.5 C",
            json!({"sensor": "temperature", "value": 21.5, "unit": "C"}),
        ),
        (
            "humidity",
            "humidity: 40.0 %",
            json!({"sensor": "humidity", "value": 40, "unit": "%"}),
        ),
        (
            "pressure",
            "pressure: 1013.2 hPa",
            json!({"sensor": "pressure", "value": 1013.2, "unit": "hPa"}),
        ),
    ] {
        let call = CallToolRequestParams::new("read_sensor")
            .with_arguments(args(json!({"sensor": sensor})));
        if let Some(v) = r.result("tools/call read_sensor", timed(peer.call_tool(call)).await) {
            r.same(
                &format!("read_sensor {sensor}: content"),
                at(&v, "/content"),
                &json!([{"type": "text", "text": text}]),
            );
            r.same(
                &format!("read_sensor {sensor}: structuredContent"),
                at(&v, "/structuredContent"),
                &structured,
            );
            r.check(
                &format!("read_sensor {sensor}: not an error"),
                at(&v, "/isError") != &json!(true),
                || format!("got {v}"),
            );
        }
    }
    // An argument the schema refuses: a tool result with isError, not a JSON-RPC error.
    let call =
        CallToolRequestParams::new("read_sensor").with_arguments(args(json!({"sensor": "wind"})));
    if let Some(v) = r.result(
        "tools/call read_sensor wind",
        timed(peer.call_tool(call)).await,
    ) {
        r.same(
            "read_sensor wind: isError",
            at(&v, "/isError"),
            &json!(true),
        );
    }
    // An unknown tool: -32602.
    let call = CallToolRequestParams::new("fly");
    r.error(
        "tools/call fly: -32602",
        timed(peer.call_tool(call)).await,
        -32602,
    );

    // move_servo: three progress notifications before the result (rmcp puts a progress
    // token of its own, a number from a counter, on every request).
    let call = CallToolRequestParams::new("move_servo").with_arguments(args(json!({"angle": 45})));
    seen.take();
    if let Some(v) = r.result("tools/call move_servo", timed(peer.call_tool(call)).await) {
        r.same(
            "move_servo 45: content",
            at(&v, "/content"),
            &json!([{"type": "text", "text": "servo: 45.0 deg"}]),
        );
        let got = wait_for(&seen, Vec::new(), |n| {
            at(n, "/progress/progress").as_f64() == Some(3.0)
        })
        .await;
        let progress: Vec<&Value> = got.iter().filter_map(|n| n.get("progress")).collect();
        let steps: Vec<Value> = progress
            .iter()
            .map(|p| pick(p, &["progress", "total", "message"]))
            .collect();
        let want: Vec<Value> = (1..=3)
            .map(|i| json!({"progress": i, "total": 3, "message": format!("servo step {i}/3")}))
            .collect();
        r.same(
            "move_servo 45: progress 1, 2, 3 of 3",
            &json!(steps),
            &json!(want),
        );
        let token = progress.first().map(|p| at(p, "/progressToken"));
        r.check(
            "move_servo 45: every progress notification carries the request's token",
            token.is_some_and(|t| !t.is_null())
                && progress
                    .iter()
                    .all(|p| Some(at(p, "/progressToken")) == token),
            || format!("got {progress:?}"),
        );
    }

    // Resources.
    if let Some(list) = r.result("resources/list", timed(peer.list_all_resources()).await) {
        let uris: Vec<Value> = list
            .as_array()
            .map(|a| a.iter().map(|x| at(x, "/uri").clone()).collect())
            .unwrap_or_default();
        r.same(
            "resources/list: the five resources in order",
            &json!(uris),
            &json!([
                "sensor://temperature",
                "sensor://humidity",
                "sensor://pressure",
                "led://state",
                "log://samples"
            ]),
        );
        let first = list
            .get(0)
            .map(|t| pick(t, &["uri", "name", "title", "description", "mimeType"]));
        r.same(
            "resources/list: sensor://temperature described",
            &first.unwrap_or_default(),
            &json!({"uri": "sensor://temperature", "name": "temperature", "title": "Temperature",
                    "description": "Air temperature in degrees Celsius",
                    "mimeType": "application/json"}),
        );
    }
    let read = |uri: &str| peer.read_resource(ReadResourceRequestParams::new(uri));
    if let Some(v) = r.result(
        "resources/read temperature",
        timed(read("sensor://temperature")).await,
    ) {
        r.same(
            "resources/read sensor://temperature",
            at(&v, "/contents"),
            &json!([{"uri": "sensor://temperature", "mimeType": "application/json",
                     "text": "{\"celsius\":21.5}"}]),
        );
    }
    if let Some(v) = r.result("resources/read samples", timed(read("log://samples")).await) {
        let blob = at(&v, "/contents/0/blob").as_str().unwrap_or_default();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap_or_default();
        let want: Vec<u8> = (0..4096u32).map(|i| ((i * 31 + 7) % 256) as u8).collect();
        r.check(
            "resources/read log://samples: 4096 bytes, byte i = (i*31+7) mod 256",
            bytes == want,
            || format!("got {} bytes", bytes.len()),
        );
        r.same(
            "resources/read log://samples: mimeType",
            at(&v, "/contents/0/mimeType"),
            &json!("application/octet-stream"),
        );
    }
    let missing = match stateless {
        true => -32602,
        false => -32002,
    };
    r.error(
        &format!("resources/read sensor://wind/history: {missing}"),
        timed(read("sensor://wind/history")).await,
        missing,
    );
    if let Some(list) = r.result(
        "resources/templates/list",
        timed(peer.list_all_resource_templates()).await,
    ) {
        r.same(
            "resources/templates/list: sensor://{name}/history",
            &json!(list
                .as_array()
                .map(|a| a
                    .iter()
                    .map(|t| pick(t, &["uriTemplate", "name", "title", "mimeType"]))
                    .collect::<Vec<_>>())
                .unwrap_or_default()),
            &json!([{"uriTemplate": "sensor://{name}/history", "name": "sensor-history",
                     "title": "Sensor history", "mimeType": "text/csv"}]),
        );
    }
    if let Some(v) = r.result(
        "resources/read history",
        timed(read("sensor://temperature/history")).await,
    ) {
        let text: String = std::iter::once("sample,value\n".to_owned())
            .chain((0..8).map(|i| format!("{i},{:.1}\n", 21.5 - 0.1 * f64::from(7 - i))))
            .collect();
        r.same(
            "resources/read sensor://temperature/history",
            at(&v, "/contents/0/text"),
            &json!(text),
        );
    }

    // Prompts and completion.
    if let Some(list) = r.result("prompts/list", timed(peer.list_all_prompts()).await) {
        r.same(
            "prompts/list: diagnose_board",
            &json!(list
                .as_array()
                .map(|a| a
                    .iter()
                    .map(|p| pick(p, &["name", "title", "arguments"]))
                    .collect::<Vec<_>>())
                .unwrap_or_default()),
            &json!([{"name": "diagnose_board", "title": "Diagnose board",
                     "arguments": [{"name": "symptom",
                                    "description": "What is wrong with the board",
                                    "required": true}]}]),
        );
    }
    let get = GetPromptRequestParams::new("diagnose_board")
        .with_arguments(args(json!({"symptom": "no reading"})));
    if let Some(v) = r.result("prompts/get", timed(peer.get_prompt(get)).await) {
        r.same(
            "prompts/get diagnose_board",
            &pick(&v, &["description", "messages"]),
            &json!({"description": "Diagnose the sensor board", "messages": [{"role": "user",
                "content": {"type": "text", "text": "The sensor board shows this symptom: no reading\n\
                    Current readings: temperature 21.5 C, humidity 40.0 %, pressure 1013.2 hPa, LED off 0%.\n\
                    What is the likely cause and what should I check first?"}}]}),
        );
    }
    r.error(
        "prompts/get without its required argument: -32602",
        timed(peer.get_prompt(GetPromptRequestParams::new("diagnose_board"))).await,
        -32602,
    );
    let done = timed(peer.complete_prompt_simple("diagnose_board", "symptom", "l")).await;
    if let Some(v) = r.result("completion/complete (prompt)", done) {
        r.same("completion of symptom \"l\"", &v, &json!(["led stuck"]));
    }
    let done = timed(peer.complete_resource_simple("sensor://{name}/history", "name", "")).await;
    if let Some(v) = r.result("completion/complete (template)", done) {
        r.same(
            "completion of name \"\"",
            &v,
            &json!(["temperature", "humidity", "pressure"]),
        );
    }

    // Notifications on set_led: the log message (legacy: logging/setLevel), the update of
    // led://state (legacy: resources/subscribe; 2026-07-28: subscriptions/listen).
    let mut listen = None;
    if stateless {
        let filter = SubscriptionFilter::builder()
            .resource_subscription("led://state")
            .build();
        match timed(peer.listen(filter)).await {
            Ok(Ok(s)) => {
                r.check(
                    "subscriptions/listen led://state: acknowledged",
                    true,
                    String::new,
                );
                listen = Some(s);
            }
            other => r.check(
                "subscriptions/listen led://state: acknowledged",
                false,
                || format!("got {other:?}"),
            ),
        }
    } else {
        let set = timed(peer.set_level(SetLevelRequestParams::new(LoggingLevel::Info))).await;
        r.result("logging/setLevel info", set);
        let sub = timed(peer.subscribe(SubscribeRequestParams::new("led://state"))).await;
        r.result("resources/subscribe led://state", sub);
    }
    seen.take();
    let call = CallToolRequestParams::new("set_led")
        .with_arguments(args(json!({"color": "red", "brightness": 50})));
    if let Some(v) = r.result("tools/call set_led", timed(peer.call_tool(call)).await) {
        r.same(
            "set_led red 50: content",
            at(&v, "/content"),
            &json!([{"type": "text", "text": "led: red 50%"}]),
        );
    }
    if let Some(mut s) = listen {
        let got = tokio::time::timeout(NOTIFY_TIMEOUT, s.next()).await;
        let got = match got {
            Ok(Ok(Some(n))) => serde_json::to_value(n).unwrap_or_default(),
            other => json!(format!("{other:?}")),
        };
        r.same(
            "subscriptions/listen: notifications/resources/updated led://state",
            &pick(at(&got, "/params"), &["uri"]),
            &json!({"uri": "led://state"}),
        );
        let closed = timed(s.cancel()).await;
        r.check(
            "subscriptions/listen: cancelled",
            matches!(closed, Ok(Ok(()))),
            || format!("got {closed:?}"),
        );
    } else {
        let got = wait_for(&seen, Vec::new(), |n| n.get("updated").is_some()).await;
        r.same(
            "logging: notifications/message before the update",
            &json!(got
                .iter()
                .filter_map(|n| n.get("log"))
                .map(|l| pick(l, &["level", "logger", "data"]))
                .collect::<Vec<_>>()),
            &json!([{"level": "info", "logger": "led", "data": "led: red 50%"}]),
        );
        r.same(
            "resources/subscribe: notifications/resources/updated led://state",
            &json!(got
                .iter()
                .filter_map(|n| n.get("updated"))
                .collect::<Vec<_>>()),
            &json!(["led://state"]),
        );
    }
    if let Some(v) = r.result(
        "resources/read led://state",
        timed(read("led://state")).await,
    ) {
        r.same(
            "resources/read led://state after set_led",
            at(&v, "/contents/0/text"),
            &json!("{\"color\":\"red\",\"brightness\":50}"),
        );
    }

    let closed = tokio::time::timeout(REQUEST_TIMEOUT, service.cancel()).await;
    r.check(
        "the client closes the session",
        matches!(closed, Ok(Ok(_))),
        || format!("got {closed:?}"),
    );
    r
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let board = match argv.as_slice() {
        [flag, binary] if flag == "--http" => Board::Http(binary.clone()),
        [first, ..] if first != "--http" => Board::Stdio(argv.clone()),
        _ => {
            eprintln!("usage: emcp-rmcp-client BOARD [ARG...] | emcp-rmcp-client --http BOARD");
            return ExitCode::from(2);
        }
    };
    let versions = [
        ProtocolVersion::V_2026_07_28,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_03_26,
        ProtocolVersion::V_2024_11_05,
    ];
    let (mut passed, mut failed) = (0, 0);
    for version in versions {
        match run(&board, version.clone()).await {
            Ok(r) => {
                passed += r.passed;
                failed += r.failed;
            }
            Err(e) => {
                println!("FAIL {version}: {e}");
                failed += 1;
            }
        }
    }
    println!(
        "rmcp 3.11.0 client against {}: {passed} checks passed, {failed} failed",
        argv.join(" ")
    );
    match failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
