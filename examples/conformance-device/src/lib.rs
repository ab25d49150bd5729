//! The fixtures the official MCP conformance suite calls, as an emcp [`Device`]: its
//! tools, resources, prompts and completions, with the suite's reference texts and
//! data.
//!
//! The crate is `no_std` and allocates nothing: static descriptors, media decoded at
//! compile time ([`media`]), and client data unescaped into stack buffers. The host
//! binary `conformance-server` serves it over stdio or Streamable HTTP; a firmware
//! serves the same fixtures from a microcontroller. The caller owns what the device
//! cannot make itself: the key that seals `requestState` between input rounds
//! ([`emcp::Server::set_state_key`], from a random source) and the transport.
#![no_std]
#![forbid(unsafe_code)]

use emcp::device::input::Capability;
use emcp::device::{
    Completion, LogLevel, PromptGet, ReadError, ResourceRead, Role, Target, ToolCall,
};
use emcp::model::registry::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use emcp::{Config, Device, Step};

mod input;
pub mod media;
#[cfg(feature = "tasks")]
mod tasks;

/// The fixtures' server configuration.
pub const CONFIG: Config = Config::new("emcp-conformance-server", "0.1.0");

/// The server shape the suite needs: 8 listen streams, 4 pending jobs, 2 tools
/// waiting for input.
#[cfg(not(feature = "tasks"))]
pub type Conformance = emcp::Server<Fixtures, 8, 4, 2>;
/// The server shape the suite needs: 8 listen streams, 4 pending jobs, 2 tools
/// waiting for input, 32 tasks (feature `tasks`: the `tasks-*` scenarios make about
/// twenty within a task time to live).
#[cfg(feature = "tasks")]
pub type Conformance = emcp::Server<Fixtures, 8, 4, 2, 32>;

pub(crate) const NO_ARGS: &str = r#"{"type":"object","properties":{}}"#;

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
pub(crate) mod tool {
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

/// The conformance fixtures. They keep no state of their own: what a multi-round tool
/// remembers travels in the sealed `requestState`.
pub struct Fixtures;

impl Device for Fixtures {
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        #[cfg(feature = "tasks")]
        if let Some(i) = index.checked_sub(TOOLS.len()) {
            return tasks::TOOLS.get(i).copied();
        }
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
        #[cfg(feature = "tasks")]
        if let Some(t) = call.tool().checked_sub(TOOLS.len()) {
            return tasks::call(t, call);
        }
        match call.tool() {
            tool::SIMPLE_TEXT => {
                call.text("This is a simple text response for testing.");
            }
            tool::IMAGE => {
                call.image("image/png", &media::PNG);
            }
            tool::AUDIO => {
                call.audio("audio/wav", &media::WAV);
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
                call.image("image/png", &media::PNG);
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
            t => input::tool(t, call),
        }
        Step::Done
    }

    #[cfg(feature = "tasks")]
    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.tool().checked_sub(TOOLS.len()) {
            Some(t) => tasks::poll(t, call),
            None => Step::Done,
        }
    }

    #[cfg(feature = "tasks")]
    fn task_result(&mut self, call: &mut ToolCall<'_>) {
        if let Some(t) = call.tool().checked_sub(TOOLS.len()) {
            tasks::result(t, call);
        }
    }

    #[cfg(feature = "tasks")]
    fn now_ms(&self) -> u64 {
        tasks::now_ms()
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
                read.blob(Some("image/png"), &media::PNG);
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
                get.image(Role::User, "image/png", &media::PNG);
                get.text(Role::User, "Please analyze the image above.");
            }
            4 => {
                let mut buf = [0u8; 256];
                match input::content_field(get.input("context"), "context", &mut buf) {
                    Some(context) => {
                        get.text_begin(Role::User);
                        get.part("Context provided: ");
                        get.part(context);
                    }
                    None => {
                        get.ask("context", Capability::Elicitation, &|w| {
                            input::elicit(w, "Please provide context", &[("context", "string")])
                        });
                    }
                }
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
