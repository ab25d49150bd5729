//! `conformance-server`: the fixtures the official MCP conformance suite calls, served
//! over Streamable HTTP by emcp (`--listen 127.0.0.1:PORT` → `http://…/mcp`).
//!
//! The fixtures use the same public API as every device: static descriptors and a
//! [`Device`] implementation. Their texts and data are the suite's reference values.

use std::net::TcpListener;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use emcp::device::{
    Completion, LogLevel, PromptGet, ReadError, ResourceRead, Role, Target, ToolCall,
};
use emcp::http::Policy;
use emcp::registry::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use emcp::{Config, Device, Server, Step};

const CONFIG: Config = Config::new("emcp-conformance-server", "0.1.0");

const NO_ARGS: &str = r#"{"type":"object","properties":{}}"#;

/// The tools, in the order `tools/list` gives them.
static TOOLS: [Tool<'static>; 9] = [
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

static PROMPTS: [Prompt<'static>; 4] = [
    Prompt::new("test_simple_prompt").description("A prompt without arguments"),
    Prompt::new("test_prompt_with_arguments")
        .description("A prompt with two arguments")
        .arguments(&PROMPT_ARGS),
    Prompt::new("test_prompt_with_embedded_resource")
        .description("A prompt embedding a resource")
        .arguments(&EMBED_ARGS),
    Prompt::new("test_prompt_with_image").description("A prompt with an image"),
];

/// A 1×1 red PNG (the suite's reference image), base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV clip (the suite's reference audio), base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

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
            _ => {
                call.error("Unknown tool");
            }
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

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut listen = String::from("127.0.0.1:3000");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--listen" => match args.next() {
                Some(v) => listen = v,
                None => {
                    eprintln!("conformance-server: --listen needs ADDR");
                    return ExitCode::FAILURE;
                }
            },
            _ => {
                eprintln!("usage: conformance-server [--listen ADDR]");
                return ExitCode::FAILURE;
            }
        }
    }
    let fixtures = Fixtures {
        png: decode(PNG),
        wav: decode(WAV),
    };
    let server: Server<Fixtures, 8, 2> = match Server::new(fixtures, CONFIG) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("conformance-server: invalid fixtures: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match TcpListener::bind(&listen) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("conformance-server: bind {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("conformance-server: serving http://{listen}/mcp");
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    match emcp_host::serve_http(listener, server, Policy::default(), seed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            ExitCode::FAILURE
        }
    }
}
