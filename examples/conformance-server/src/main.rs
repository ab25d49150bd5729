//! `conformance-server`: the fixtures the official MCP conformance suite calls, served
//! over Streamable HTTP by emcp (`--listen 127.0.0.1:PORT` → `http://…/mcp`), or with
//! `--stdio` as newline-delimited JSON-RPC on stdin/stdout (as a device behind
//! `emcp-bridge --http ADDR exec -- conformance-server --stdio`).
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. On stdio it exits 0
//! at end of input.
//!
//! The fixtures use the same public API as every device: static descriptors and a
//! [`Device`] implementation. Their texts and data are the suite's reference values.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use emcp::device::input::Capability;
use emcp::device::{
    Completion, LogLevel, PromptGet, ReadError, ResourceRead, Role, Target, ToolCall,
};
use emcp::model::registry::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use emcp::state::seal::StateKey;
use emcp::transport::http::Policy;
use emcp::wire::json::{JsonWriter, Value};
use emcp::{Config, Device, Server, Step};

const CONFIG: Config = Config::new("emcp-conformance-server", "0.1.0");

const NO_ARGS: &str = r#"{"type":"object","properties":{}}"#;

const PROMPT_ARG: &str = r#"{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to sample"}},"required":["prompt"]}"#;
const MESSAGE_ARG: &str = r#"{"type":"object","properties":{"message":{"type":"string","description":"What to ask the user"}},"required":["message"]}"#;

/// The tools, in the order `tools/list` gives them.
static TOOLS: [Tool<'static>; 24] = [
    Tool::new("test_simple_text", NO_ARGS).description("Returns a simple text response"),
    Tool::new("test_image_content", NO_ARGS).description("Returns a PNG image"),
    Tool::new("test_audio_content", NO_ARGS).description("Returns a WAV audio clip"),
    Tool::new("test_embedded_resource", NO_ARGS).description("Returns an embedded text resource"),
    Tool::new("test_multiple_content_types", NO_ARGS)
        .description("Returns text, an image and an embedded resource"),
    Tool::new("test_tool_with_logging", NO_ARGS)
        .description("Sends three log messages while it runs"),
    Tool::new("test_error_handling", NO_ARGS).description("Always fails with a tool error"),
    Tool::new("test_tool_with_progress", NO_ARGS)
        .description("Reports progress 0, 50 and 100 of 100 when asked for progress"),
    Tool::new("test_logging_tool", NO_ARGS)
        .description("Logs one message when the request asks for logging"),
    Tool::new("test_sampling", PROMPT_ARG)
        .description("Asks the client's model to complete a prompt"),
    Tool::new("test_elicitation", MESSAGE_ARG)
        .description("Asks the user for a username and email"),
    Tool::new("test_elicitation_sep1034_defaults", NO_ARGS)
        .description("Asks the user for a form whose fields have defaults"),
    Tool::new("test_elicitation_sep1330_enums", NO_ARGS)
        .description("Asks the user to pick from enum fields"),
    Tool::new("test_missing_capability", NO_ARGS)
        .description("Needs the client's sampling capability"),
    Tool::new("test_streaming_elicitation", NO_ARGS).description("Asks the user for confirmation"),
    Tool::new("test_input_required_result_elicitation", NO_ARGS)
        .description("Asks for the user's name, then greets them"),
    Tool::new("test_input_required_result_sampling", NO_ARGS)
        .description("Asks the client's model a question"),
    Tool::new("test_input_required_result_list_roots", NO_ARGS)
        .description("Asks for the client's roots"),
    Tool::new("test_input_required_result_request_state", NO_ARGS)
        .description("Asks for confirmation, keeping state between rounds"),
    Tool::new("test_input_required_result_multiple_inputs", NO_ARGS)
        .description("Asks for a name, a greeting and the roots at once"),
    Tool::new("test_input_required_result_multi_round", NO_ARGS)
        .description("Asks for a name, then a colour, over two rounds"),
    Tool::new("test_input_required_result_tampered_state", NO_ARGS)
        .description("Asks for confirmation; refuses altered state"),
    Tool::new("test_input_required_result_capabilities", NO_ARGS)
        .description("Asks only for input the client can give"),
    Tool::new("test_reconnection", NO_ARGS).description("Answers with a short text"),
];

/// Index of each tool in [`TOOLS`].
mod tool {
    pub const SIMPLE_TEXT: usize = 0;
    pub const IMAGE: usize = 1;
    pub const AUDIO: usize = 2;
    pub const EMBEDDED: usize = 3;
    pub const MIXED: usize = 4;
    pub const WITH_LOGGING: usize = 5;
    pub const ERROR: usize = 6;
    pub const PROGRESS: usize = 7;
    pub const LOGGING: usize = 8;
    pub const SAMPLING: usize = 9;
    pub const ELICITATION: usize = 10;
    pub const SEP1034: usize = 11;
    pub const SEP1330: usize = 12;
    pub const MISSING_CAPABILITY: usize = 13;
    pub const STREAMING_ELICITATION: usize = 14;
    pub const IRR_ELICITATION: usize = 15;
    pub const IRR_SAMPLING: usize = 16;
    pub const IRR_ROOTS: usize = 17;
    pub const IRR_STATE: usize = 18;
    pub const IRR_MULTIPLE: usize = 19;
    pub const IRR_MULTI_ROUND: usize = 20;
    pub const IRR_TAMPERED: usize = 21;
    pub const IRR_CAPABILITIES: usize = 22;
    pub const RECONNECTION: usize = 23;
}

static RESOURCES: [Resource<'static>; 3] = [
    Resource::new("test://static-text", "static-text")
        .description("A static text resource")
        .mime_type("text/plain"),
    Resource::new("test://static-binary", "static-binary")
        .description("A static binary resource (a PNG image)")
        .mime_type("image/png"),
    Resource::new("test://watched-resource", "watched-resource")
        .description("A resource to subscribe to")
        .mime_type("text/plain"),
];

static TEMPLATES: [ResourceTemplate<'static>; 1] =
    [
        ResourceTemplate::new("test://template/{id}/data", "template-data")
            .description("Data for an id")
            .mime_type("application/json"),
    ];

static PROMPT_ARGS: [PromptArgument<'static>; 2] = [
    PromptArgument::new("arg1")
        .description("First argument")
        .required(),
    PromptArgument::new("arg2")
        .description("Second argument")
        .required(),
];

static EMBED_ARGS: [PromptArgument<'static>; 1] = [PromptArgument::new("resourceUri")
    .description("URI of the resource to embed")
    .required()];

static PROMPTS: [Prompt<'static>; 5] = [
    Prompt::new("test_simple_prompt").description("A prompt without arguments"),
    Prompt::new("test_prompt_with_arguments")
        .description("A prompt with two arguments")
        .arguments(&PROMPT_ARGS),
    Prompt::new("test_prompt_with_embedded_resource")
        .description("A prompt embedding a resource")
        .arguments(&EMBED_ARGS),
    Prompt::new("test_prompt_with_image").description("A prompt with an image"),
    Prompt::new("test_input_required_result_prompt")
        .description("A prompt that asks the user for context first"),
];

/// A 1×1 red PNG (the suite's reference image), base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV clip (the suite's reference audio), base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// 32 bytes from the operating system's random source (the clock if it has none).
fn random_key() -> [u8; 32] {
    use std::io::Read as _;
    let mut key = [0u8; 32];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut key));
    if read.is_err() {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        key[..16].copy_from_slice(&t.to_le_bytes());
    }
    key
}

fn decode(b64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap_or_default()
}

/// The conformance fixtures.
struct Fixtures {
    png: Vec<u8>,
    wav: Vec<u8>,
}

impl Device for Fixtures {
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        TOOLS.get(index).copied()
    }
    fn resource(&self, index: usize) -> Option<Resource<'static>> {
        RESOURCES.get(index).copied()
    }
    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'static>> {
        TEMPLATES.get(index).copied()
    }
    fn prompt(&self, index: usize) -> Option<Prompt<'static>> {
        PROMPTS.get(index).copied()
    }
    fn completions(&self) -> bool {
        true
    }

    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.tool() {
            tool::SIMPLE_TEXT => {
                call.text("This is a simple text response for testing.");
            }
            tool::IMAGE => {
                call.image("image/png", &self.png);
            }
            tool::AUDIO => {
                call.audio("audio/wav", &self.wav);
            }
            tool::EMBEDDED => {
                call.embedded_text(
                    "test://embedded-resource",
                    Some("text/plain"),
                    "This is an embedded resource content.",
                );
            }
            tool::MIXED => {
                call.text("Multiple content types test:");
                call.image("image/png", &self.png);
                call.embedded_text(
                    "test://mixed-content-resource",
                    Some("application/json"),
                    r#"{"test":"data","value":123}"#,
                );
            }
            tool::WITH_LOGGING => {
                for data in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ] {
                    call.log(LogLevel::Info, "conformance", data);
                }
                call.text("Tool with logging executed successfully");
            }
            tool::ERROR => {
                call.error("This tool intentionally returns an error for testing");
            }
            tool::PROGRESS => {
                for (step, message) in [
                    (0, "Completed step 0 of 100"),
                    (50, "Completed step 50 of 100"),
                    (100, "Completed step 100 of 100"),
                ] {
                    call.progress_u64(step, Some(100), Some(message));
                }
                call.text("Progress test completed");
            }
            tool::LOGGING => {
                call.log(LogLevel::Info, "conformance", "Logging tool called");
                call.text("Logging tool executed");
            }
            tool::RECONNECTION => {
                call.text("Reconnection test completed");
            }
            t => input_tool(t, call),
        }
        Step::Done
    }

    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        match read.target() {
            Target::Resource(0) => {
                read.text(
                    Some("text/plain"),
                    "This is the content of the static text resource.",
                );
            }
            Target::Resource(1) => {
                read.blob(Some("image/png"), &self.png);
            }
            Target::Resource(2) => {
                read.text(Some("text/plain"), "Watched resource content");
            }
            Target::Template(0) => {
                let id = read.var("id").ok_or(ReadError::NotFound)?;
                read.text_begin(Some("application/json"));
                read.part("{\"id\":\"");
                read.part(id);
                read.part("\",\"templateTest\":true,\"data\":\"Data for ID: ");
                read.part(id);
                read.part("\"}");
            }
            _ => return Err(ReadError::NotFound),
        }
        Ok(())
    }

    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        match get.prompt() {
            0 => {
                get.text(Role::User, "This is a simple prompt for testing.");
            }
            1 => {
                let (Some(a1), Some(a2)) = (get.arg("arg1"), get.arg("arg2")) else {
                    return Err(ReadError::Failed);
                };
                get.text_begin(Role::User);
                get.part("Prompt with arguments: arg1='");
                get.part_str(a1);
                get.part("', arg2='");
                get.part_str(a2);
                get.part("'");
            }
            2 => {
                let Some(uri) = get.arg("resourceUri") else {
                    return Err(ReadError::Failed);
                };
                let mut buf = [0u8; 256];
                let uri = uri
                    .unescape_into(&mut buf)
                    .unwrap_or("test://example-resource");
                get.embedded_text(
                    Role::User,
                    uri,
                    Some("text/plain"),
                    "Embedded resource content for testing.",
                );
                get.text(Role::User, "Please process the embedded resource above.");
            }
            3 => {
                get.image(Role::User, "image/png", &self.png);
                get.text(Role::User, "Please analyze the image above.");
            }
            4 => match content_field(get.input("context"), "context") {
                Some(context) => {
                    get.text_begin(Role::User);
                    get.part("Context provided: ");
                    get.part(&context);
                }
                None => {
                    get.ask("context", Capability::Elicitation, &|w| {
                        elicit(w, "Please provide context", &[("context", "string")])
                    });
                }
            },
            _ => return Err(ReadError::NotFound),
        }
        Ok(())
    }

    fn complete(&mut self, c: &mut Completion<'_>) {
        for v in ["paris", "park", "party"] {
            let mut buf = [0u8; 64];
            let prefix = c.value().unescape_into(&mut buf).unwrap_or("");
            if v.starts_with(prefix) {
                c.offer(v);
            }
        }
    }
}

/// The tools that need input from the client (elicitation, sampling, roots): one
/// handler for both eras — a round either has the responses it asked for, or asks.
fn input_tool(t: usize, call: &mut ToolCall<'_>) {
    match t {
        tool::SAMPLING => match sampled_text(call.input("sample")) {
            Some(text) => {
                call.text(&format!("LLM response: {text}"));
            }
            None => {
                let prompt = plain_arg(call, "prompt").unwrap_or_default();
                let asked = call.ask("sample", Capability::Sampling, &|w| {
                    sampling(w, &prompt, 100)
                });
                if !asked && call.require(Capability::Sampling) {
                    call.error("Cannot ask for input now");
                }
            }
        },
        tool::ELICITATION | tool::SEP1034 | tool::SEP1330 => match call.input("response") {
            Some(answer) => {
                let action = answer
                    .get("action")
                    .and_then(|a| a.as_str())
                    .and_then(|a| a.as_plain())
                    .unwrap_or("")
                    .to_owned();
                let content = answer
                    .get("content")
                    .map_or("{}", |c| std::str::from_utf8(c.raw()).unwrap_or("{}"));
                let text = if t == tool::ELICITATION {
                    format!("User response: action={action}, content={content}")
                } else {
                    format!("Elicitation completed: action={action}, content={content}")
                };
                call.text(&text);
            }
            None => {
                let message = plain_arg(call, "message")
                    .unwrap_or_else(|| "Please provide your information".into());
                let asked = call.ask("response", Capability::Elicitation, &|w| match t {
                    tool::SEP1034 => elicit_raw(
                        w,
                        "Please review and update the form fields with defaults",
                        SEP1034_SCHEMA,
                    ),
                    tool::SEP1330 => elicit_raw(
                        w,
                        "Please select options from the enum fields",
                        SEP1330_SCHEMA,
                    ),
                    _ => elicit_raw(w, &message, USER_SCHEMA),
                });
                if !asked && call.require(Capability::Elicitation) {
                    call.error("Cannot ask for input now");
                }
            }
        },
        tool::MISSING_CAPABILITY => {
            if call.require(Capability::Sampling) {
                call.text("Success");
            }
        }
        tool::STREAMING_ELICITATION => {
            if call.input("confirm").is_some()
                || !call.ask("confirm", Capability::Elicitation, &|w| {
                    elicit(w, "Please confirm", &[("ok", "boolean")])
                })
            {
                call.text("Streaming elicitation completed");
            }
        }
        tool::IRR_ELICITATION => match content_field(call.input("user_name"), "name") {
            Some(name) => {
                call.text(&format!("Hello, {name}!"));
            }
            None => {
                call.ask("user_name", Capability::Elicitation, &|w| {
                    elicit(w, "What is your name?", &[("name", "string")])
                });
            }
        },
        tool::IRR_SAMPLING => match sampled_text(call.input("capital_question")) {
            Some(text) => {
                call.text(&format!("The model answered: {text}"));
            }
            None => {
                call.ask("capital_question", Capability::Sampling, &|w| {
                    sampling(w, "What is the capital of France?", 100)
                });
            }
        },
        tool::IRR_ROOTS => match call.input("client_roots").and_then(|r| r.get("roots")) {
            Some(roots) => {
                call.text(&format!("Found {} root(s)", roots.items().count()));
            }
            None => {
                call.ask("client_roots", Capability::Roots, &|w| {
                    w.begin_object();
                    w.end_object();
                });
            }
        },
        tool::IRR_STATE | tool::IRR_TAMPERED => {
            let confirmed =
                call.request_state() == Some(b"confirm") && call.input("confirm").is_some();
            if confirmed {
                call.text("state-ok: confirmed with the state of round 1");
            } else {
                call.ask("confirm", Capability::Elicitation, &|w| {
                    elicit(w, "Please confirm", &[("ok", "boolean")])
                });
                call.set_request_state(b"confirm");
            }
        }
        tool::IRR_MULTIPLE => {
            let name = content_field(call.input("user_name"), "name");
            let greeting = sampled_text(call.input("greeting"));
            let roots = call.input("client_roots").and_then(|r| r.get("roots"));
            match (
                call.request_state() == Some(b"multiple"),
                name,
                greeting,
                roots,
            ) {
                (true, Some(name), Some(greeting), Some(roots)) => {
                    call.text(&format!(
                        "{greeting} {name}; {} root(s)",
                        roots.items().count()
                    ));
                }
                _ => {
                    call.ask("user_name", Capability::Elicitation, &|w| {
                        elicit(w, "What is your name?", &[("name", "string")])
                    });
                    call.ask("greeting", Capability::Sampling, &|w| {
                        sampling(w, "Generate a greeting", 50)
                    });
                    call.ask("client_roots", Capability::Roots, &|w| {
                        w.begin_object();
                        w.end_object();
                    });
                    call.set_request_state(b"multiple");
                }
            }
        }
        tool::IRR_MULTI_ROUND => {
            let state = call.request_state().map(<[u8]>::to_vec);
            match state.as_deref() {
                Some(b"round1") => match content_field(call.input("step1"), "name") {
                    Some(name) if name.len() <= 48 => {
                        call.ask("step2", Capability::Elicitation, &|w| {
                            elicit(
                                w,
                                "Step 2: What is your favorite color?",
                                &[("color", "string")],
                            )
                        });
                        call.set_request_state(format!("round2:{name}").as_bytes());
                    }
                    _ => ask_step1(call),
                },
                Some(s) if s.starts_with(b"round2:") => {
                    let name = String::from_utf8_lossy(&s[7..]).into_owned();
                    match content_field(call.input("step2"), "color") {
                        Some(color) => {
                            call.text(&format!(
                                "Multi-round complete for {name} who likes {color}"
                            ));
                        }
                        None => ask_step1(call),
                    }
                }
                _ => ask_step1(call),
            }
        }
        tool::IRR_CAPABILITIES => {
            let elicited = content_field(call.input("elicit_input"), "value");
            let sampled = sampled_text(call.input("sample_input"));
            if call.request_state() == Some(b"capabilities")
                && (elicited.is_some() || sampled.is_some())
            {
                call.text("Received the input the client could give");
            } else {
                let e = call.ask("elicit_input", Capability::Elicitation, &|w| {
                    elicit(w, "Please provide a value", &[("value", "string")])
                });
                let s = call.ask("sample_input", Capability::Sampling, &|w| {
                    sampling(w, "Sample request", 50)
                });
                if e || s {
                    call.set_request_state(b"capabilities");
                } else {
                    call.require(Capability::Elicitation);
                }
            }
        }
        _ => {
            call.error("Unknown tool");
        }
    }
}

fn ask_step1(call: &mut ToolCall<'_>) {
    call.ask("step1", Capability::Elicitation, &|w| {
        elicit(w, "Step 1: What is your name?", &[("name", "string")])
    });
    call.set_request_state(b"round1");
}

/// A string argument without escapes, owned.
fn plain_arg(call: &ToolCall<'_>, name: &str) -> Option<String> {
    let v = call.arg(name)?.as_str()?;
    let mut buf = [0u8; 1024];
    v.unescape_into(&mut buf).ok().map(str::to_owned)
}

const USER_SCHEMA: &str = r#"{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}"#;

const SEP1034_SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}"#;

const SEP1330_SCHEMA: &str = r#"{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Pick one option","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Pick one titled option","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Pick one legacy option","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Pick several options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Pick several titled options","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}"#;

/// `elicitation/create` params: a message and a flat form of required fields.
fn elicit(w: &mut JsonWriter<'_>, message: &str, fields: &[(&str, &str)]) {
    w.begin_object();
    w.key("message");
    w.str(message);
    w.key("requestedSchema");
    w.begin_object();
    w.key("type");
    w.str("object");
    w.key("properties");
    w.begin_object();
    for (name, kind) in fields {
        w.key(name);
        w.begin_object();
        w.key("type");
        w.str(kind);
        w.end_object();
    }
    w.end_object();
    w.key("required");
    w.begin_array();
    for (name, _) in fields {
        w.str(name);
    }
    w.end_array();
    w.end_object();
    w.end_object();
}

/// `elicitation/create` params with a ready-made schema.
fn elicit_raw(w: &mut JsonWriter<'_>, message: &str, schema: &str) {
    w.begin_object();
    w.key("message");
    w.str(message);
    w.key("requestedSchema");
    w.raw_value(schema.as_bytes());
    w.end_object();
}

/// `sampling/createMessage` params: one user message.
fn sampling(w: &mut JsonWriter<'_>, text: &str, max_tokens: u64) {
    w.begin_object();
    w.key("messages");
    w.begin_array();
    w.begin_object();
    w.key("role");
    w.str("user");
    w.key("content");
    w.begin_object();
    w.key("type");
    w.str("text");
    w.key("text");
    w.str(text);
    w.end_object();
    w.end_object();
    w.end_array();
    w.key("maxTokens");
    w.u64(max_tokens);
    w.end_object();
}

/// A string field of an accepted elicitation's `content` (client data: checked).
fn content_field(answer: Option<Value<'_>>, field: &str) -> Option<String> {
    let answer = answer?;
    if answer.get("action")?.as_str()?.as_plain()? != "accept" {
        return None;
    }
    let v = answer.get("content")?.get(field)?.as_str()?;
    let mut buf = [0u8; 256];
    v.unescape_into(&mut buf).ok().map(str::to_owned)
}

/// The text of a sampling result (`content.text`).
fn sampled_text(answer: Option<Value<'_>>) -> Option<String> {
    let v = answer?.get("content")?.get("text")?.as_str()?;
    let mut buf = [0u8; 512];
    v.unescape_into(&mut buf).ok().map(str::to_owned)
}

/// The server's shape: 8 pending jobs, 4 listen streams, 2 tools waiting for input.
type Conformance = Server<Fixtures, 8, 4, 2>;

/// Serve on stdin/stdout until end of input.
fn serve_stdio(mut server: Conformance) -> ExitCode {
    eprintln!("conformance-server: serving MCP on stdin/stdout");
    match emcp_host::serve_stdio(&mut server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    const USAGE: &str = "usage: conformance-server [--listen ADDR | --stdio]";
    let mut args = std::env::args().skip(1);
    let mut listen = None;
    let mut stdio = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--listen" => match args.next() {
                Some(v) => listen = Some(v),
                None => {
                    eprintln!("conformance-server: --listen needs ADDR");
                    return ExitCode::FAILURE;
                }
            },
            "--stdio" => stdio = true,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    if stdio && listen.is_some() {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    }
    let fixtures = Fixtures {
        png: decode(PNG),
        wav: decode(WAV),
    };
    let mut server: Conformance = match Server::new(fixtures, CONFIG) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("conformance-server: invalid fixtures: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    server.set_state_key(StateKey::new(random_key()));
    if stdio {
        serve_stdio(server)
    } else {
        let addr = listen.as_deref().unwrap_or("127.0.0.1:3000");
        emcp_host::run_http("conformance-server", addr, server, Policy::default())
    }
}
