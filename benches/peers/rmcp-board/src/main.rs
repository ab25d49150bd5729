//! `rmcp-board`: the emcp sensor board (`docs/board.md`) on the official Rust MCP SDK
//! (`rmcp`), served on stdin/stdout. A benchmark peer: it reproduces the board's
//! listings and results, using the SDK's plain `ServerHandler` API so that every
//! schema is exactly the board's.
//!
//! Nothing but protocol goes to stdout (rmcp logs through `tracing`, which has no
//! subscriber here).
#![allow(deprecated)] // logging and resources/subscribe are legacy in rmcp 3, not gone

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

const INSTRUCTIONS: &str = "Simulated sensor board: read sensors with read_sensor or the \
                            sensor:// resources; set_led and move_servo drive the actuators.";

/// Sensors: name, unit, resource JSON key, reading in tenths.
const SENSORS: [(&str, &str, &str, i32); 3] = [
    ("temperature", "C", "celsius", 215),
    ("humidity", "%", "percent", 400),
    ("pressure", "hPa", "hpa", 10132),
];

const SYMPTOMS: [&str; 3] = ["no reading", "wrong value", "led stuck"];

/// A value in tenths, printed with one decimal (`%.1f`).
fn tenths(v: i32) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!("{sign}{}.{}", a / 10, a % 10)
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("schemas are objects"),
    }
}

fn tools() -> Vec<Tool> {
    let actuator = ToolAnnotations::new()
        .read_only(false)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    vec![
        Tool::new(
            "read_sensor",
            "Read the current value of one on-board sensor.",
            object(json!({"type":"object","properties":{"sensor":{"type":"string","enum":["temperature","humidity","pressure"],"description":"Which sensor to read"}},"required":["sensor"],"additionalProperties":false})),
        )
        .with_title("Read sensor")
        .with_raw_output_schema(object(json!({"type":"object","properties":{"sensor":{"type":"string"},"value":{"type":"number"},"unit":{"type":"string"}},"required":["sensor","value","unit"]})))
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "set_led",
            "Set the status LED colour and brightness (0-100 %).",
            object(json!({"type":"object","properties":{"color":{"type":"string","enum":["off","red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["color"],"additionalProperties":false})),
        )
        .with_title("Set LED")
        .with_annotations(actuator.clone()),
        Tool::new(
            "move_servo",
            "Move the servo to an angle in degrees; reports progress in 3 steps and can be cancelled.",
            object(json!({"type":"object","properties":{"angle":{"type":"number","minimum":-90,"maximum":90}},"required":["angle"],"additionalProperties":false})),
        )
        .with_title("Move servo")
        .with_annotations(actuator),
    ]
}

fn resources() -> Vec<Resource> {
    let json = |uri: &str, name: &str, title: &str, description: &str| {
        Resource::new(uri, name)
            .with_title(title)
            .with_description(description)
            .with_mime_type("application/json")
    };
    vec![
        json(
            "sensor://temperature",
            "temperature",
            "Temperature",
            "Air temperature in degrees Celsius",
        ),
        json(
            "sensor://humidity",
            "humidity",
            "Humidity",
            "Relative humidity in percent",
        ),
        json(
            "sensor://pressure",
            "pressure",
            "Pressure",
            "Air pressure in hectopascal",
        ),
        json(
            "led://state",
            "led",
            "LED state",
            "Colour and brightness of the status LED",
        ),
        Resource::new("log://samples", "samples")
            .with_title("Sample log")
            .with_description("Raw sample log (4096 bytes)")
            .with_mime_type("application/octet-stream")
            .with_size(4096),
    ]
}

/// The core's argument check (emcp `schema.rs`) for the board's flat schemas: the same
/// rules and the same messages, so violations give the same `isError` texts.
fn validate(schema: &JsonObject, args: &Map<String, Value>) -> Result<(), String> {
    let props = schema["properties"].as_object().expect("properties");
    for (name, value) in args {
        let Some(p) = props.get(name) else {
            return Err(format!(
                "Unknown argument {name:?}: additional properties are not allowed"
            ));
        };
        let ok = match p["type"].as_str() {
            Some("string") => value.is_string(),
            Some("number") => value.is_number(),
            Some("integer") => value.as_f64().is_some_and(|f| f.fract() == 0.0),
            _ => true,
        };
        if !ok {
            return Err(format!(
                "Invalid argument {name:?}: expected type {}",
                p["type"].as_str().unwrap_or("")
            ));
        }
        if let Some(e) = p.get("enum").and_then(Value::as_array) {
            if !e.contains(value) {
                return Err(format!(
                    "Invalid argument {name:?}: must be one of {}",
                    p["enum"]
                ));
            }
        }
        let n = value.as_f64().unwrap_or(0.0);
        if let Some(min) = p.get("minimum").filter(|m| m.as_f64() > Some(n)) {
            return Err(format!("Invalid argument {name:?}: must be >= {min}"));
        }
        if let Some(max) = p.get("maximum").filter(|m| m.as_f64() < Some(n)) {
            return Err(format!("Invalid argument {name:?}: must be <= {max}"));
        }
    }
    for r in schema["required"].as_array().into_iter().flatten() {
        let r = r.as_str().unwrap_or("");
        if !args.contains_key(r) {
            return Err(format!("Missing required argument {r:?}"));
        }
    }
    Ok(())
}

/// A text result; `isError` is left out on success, as the board does.
fn text_result(text: String) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.is_error = None;
    r
}

fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

fn json_text(uri: &str, text: String) -> ResourceContents {
    ResourceContents::text(text, uri).with_mime_type("application/json")
}

/// Is this request on 2026-07-28 or later (stateless, with cache hints)?
fn stateless(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// Listings are static: on 2026-07-28 the board lets clients cache them for an hour,
/// publicly. (rmcp would send hints set here on older versions too.)
macro_rules! cached {
    ($list:expr, $ctx:expr) => {{
        let list = $list;
        if stateless(&$ctx) {
            list.with_ttl_ms(3_600_000)
                .with_cache_scope(CacheScope::Public)
        } else {
            list
        }
    }};
}

/// The simulated board's mutable state.
#[derive(Default)]
struct State {
    led: &'static str,
    brightness: u8,
    /// Servo angle in tenths of a degree.
    servo: i32,
    /// Level set by `logging/setLevel` (none: no log messages).
    log_level: Option<LoggingLevel>,
    led_subscribed: bool,
}

#[derive(Clone)]
struct Board {
    tools: Arc<Vec<Tool>>,
    state: Arc<Mutex<State>>,
}

impl Board {
    fn new() -> Self {
        let state = State {
            led: "off",
            ..State::default()
        };
        Self {
            tools: Arc::new(tools()),
            state: Arc::new(Mutex::new(state)),
        }
    }

    fn read_sensor(&self, args: &Map<String, Value>) -> CallToolResult {
        let name = args["sensor"].as_str().unwrap_or("");
        let Some(&(name, unit, _, v)) = SENSORS.iter().find(|s| s.0 == name) else {
            return error_result("sensor must be one of temperature, humidity, pressure".into());
        };
        let mut r = text_result(format!("{name}: {} {unit}", tenths(v)));
        // Shortest round-trip numbers, as the board writes them: 40 (not 40.0), 21.5.
        let value = if v % 10 == 0 {
            json!(v / 10)
        } else {
            json!(f64::from(v) / 10.0)
        };
        r.structured_content = Some(json!({"sensor": name, "value": value, "unit": unit}));
        r
    }

    async fn set_led(
        &self,
        args: &Map<String, Value>,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let color = match args["color"].as_str() {
            Some("off") => "off",
            Some("red") => "red",
            Some("green") => "green",
            Some("blue") => "blue",
            _ => return error_result("invalid set_led arguments".into()),
        };
        let brightness = match color {
            "off" => 0,
            _ => args
                .get("brightness")
                .and_then(Value::as_f64)
                .unwrap_or(100.0) as u8,
        };
        let text = format!("led: {color} {brightness}%");
        let (log, subscribed) = {
            let mut s = self.state.lock().unwrap();
            s.led = color;
            s.brightness = brightness;
            (
                matches!(s.log_level, Some(LoggingLevel::Debug | LoggingLevel::Info)),
                s.led_subscribed,
            )
        };
        if log {
            let msg = LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(text))
                .with_logger("led");
            let _ = ctx.peer.notify_logging_message(msg).await;
        }
        if subscribed {
            // The board sends this after the response; a handler can only send before.
            let _ = ctx
                .peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new("led://state"))
                .await;
        }
        text_result(text)
    }

    async fn move_servo(
        &self,
        args: &Map<String, Value>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let Some(angle) = args["angle"].as_f64() else {
            return Ok(error_result("angle must be a number".into()));
        };
        let token = ctx.meta.get_progress_token();
        for step in 1..=3u8 {
            // A step of the move; a cancelled move stops (rmcp drops its response).
            tokio::task::yield_now().await;
            if ctx.ct.is_cancelled() {
                return Err(McpError::internal_error("cancelled", None));
            }
            if let Some(token) = &token {
                let mut p = ProgressNotificationParam::new(token.clone(), f64::from(step));
                p.total = Some(3.0);
                p.message = Some(format!("servo step {step}/3"));
                let _ = ctx.peer.notify_progress(p).await;
            }
        }
        // Tenths of a degree, truncated toward zero.
        let target = (angle * 10.0) as i32;
        self.state.lock().unwrap().servo = target;
        Ok(text_result(format!("servo: {} deg", tenths(target))))
    }
}

impl ServerHandler for Board {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_completions()
            .enable_logging()
            .build();
        // The board advertises bare `{}` objects (no listChanged flags).
        caps.tools = Some(ToolsCapability::default());
        caps.prompts = Some(PromptsCapability::default());
        ServerConfig::new(caps)
            .with_server_info(
                Implementation::new("emcp-sensor-board", "0.1.0")
                    .with_title("emcp simulated sensor board"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = (*self.tools).clone();
        Ok(cached!(ListToolsResult::with_all_items(tools), ctx))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(tool) = self.tools.iter().find(|t| t.name == request.name) else {
            return Err(McpError::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        if let Err(msg) = validate(&tool.input_schema, &args) {
            return Ok(error_result(msg).into());
        }
        let result = match &*request.name {
            "read_sensor" => self.read_sensor(&args),
            "set_led" => self.set_led(&args, &ctx).await,
            _ => self.move_servo(&args, &ctx).await?,
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(cached!(
            ListResourcesResult::with_all_items(resources()),
            ctx
        ))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let t = ResourceTemplate::new("sensor://{name}/history", "sensor-history")
            .with_title("Sensor history")
            .with_description("The last 8 readings of a sensor")
            .with_mime_type("text/csv");
        Ok(cached!(
            ListResourceTemplatesResult::with_all_items(vec![t]),
            ctx
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.as_str();
        let contents = if let Some(&(_, _, key, v)) =
            SENSORS.iter().find(|s| uri == format!("sensor://{}", s.0))
        {
            json_text(uri, format!("{{\"{key}\":{}}}", tenths(v)))
        } else if uri == "led://state" {
            let s = self.state.lock().unwrap();
            let text = format!(
                "{{\"color\":\"{}\",\"brightness\":{}}}",
                s.led, s.brightness
            );
            json_text(uri, text)
        } else if uri == "log://samples" {
            let bytes: Vec<u8> = (0..4096usize).map(|i| (i * 31 + 7) as u8).collect();
            let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
            ResourceContents::blob(b64, uri).with_mime_type("application/octet-stream")
        } else if let Some(&(_, _, _, now)) = uri
            .strip_prefix("sensor://")
            .and_then(|rest| rest.strip_suffix("/history"))
            .and_then(|name| SENSORS.iter().find(|s| s.0 == name))
        {
            let mut csv = String::from("sample,value\n");
            for i in 0..8 {
                csv += &format!("{i},{}\n", tenths(now - (7 - i)));
            }
            ResourceContents::text(csv, uri).with_mime_type("text/csv")
        } else {
            return Err(McpError::resource_not_found(
                "Resource not found",
                Some(json!({ "uri": uri })),
            ));
        };
        let mut result = ReadResourceResult::new(vec![contents]);
        if stateless(&ctx) {
            // Live values: fresh for 0 ms, like the board.
            result = result.with_ttl_ms(0).with_cache_scope(CacheScope::Public);
        }
        Ok(result.into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri == "led://state" {
            self.state.lock().unwrap().led_subscribed = true;
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if request.uri == "led://state" {
            self.state.lock().unwrap().led_subscribed = false;
        }
        Ok(())
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.state.lock().unwrap().log_level = Some(request.level);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let arg = PromptArgument::new("symptom")
            .with_description("What is wrong with the board")
            .with_required(true);
        let prompt = Prompt::new(
            "diagnose_board",
            Some("Ask the assistant to diagnose a board problem from the current readings."),
            Some(vec![arg]),
        )
        .with_title("Diagnose board");
        Ok(cached!(
            ListPromptsResult::with_all_items(vec![prompt]),
            ctx
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "diagnose_board" {
            return Err(McpError::invalid_params("Unknown prompt", None));
        }
        let Some(symptom) = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("symptom"))
            .and_then(Value::as_str)
        else {
            return Err(McpError::invalid_params(
                "Missing required argument symptom",
                None,
            ));
        };
        let (led, brightness) = {
            let s = self.state.lock().unwrap();
            (s.led, s.brightness)
        };
        let [t, h, p] = SENSORS.map(|s| tenths(s.3));
        let text = format!(
            "The sensor board shows this symptom: {symptom}\nCurrent readings: temperature {t} C, \
             humidity {h} %, pressure {p} hPa, LED {led} {brightness}%.\n\
             What is the likely cause and what should I check first?"
        );
        let result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description("Diagnose the sensor board");
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let arg = request.argument.name.as_str();
        let candidates: &[&str] = match &request.r#ref {
            Reference::Resource(r) if r.uri == "sensor://{name}/history" && arg == "name" => {
                &["temperature", "humidity", "pressure"]
            }
            Reference::Prompt(p) if p.name == "diagnose_board" && arg == "symptom" => &SYMPTOMS,
            _ => &[],
        };
        let values = candidates
            .iter()
            .filter(|v| v.starts_with(&request.argument.value))
            .map(|v| v.to_string())
            .collect();
        let info = CompletionInfo::with_all_values(values)
            .map_err(|e| McpError::internal_error(e, None))?;
        Ok(CompleteResult::new(info))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Board::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
