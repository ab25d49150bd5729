//! The tools that need input from the client: elicitation, sampling, roots, and the
//! multi-round tools that keep state in the sealed `requestState`.

use core::fmt::{self, Write as _};

use emcp::device::input::Capability;
use emcp::device::ToolCall;
use emcp::wire::json::{JsonWriter, Value};

use crate::tool;

/// The tools that need input from the client (elicitation, sampling, roots): one
/// handler for both eras — a round either has the responses it asked for, or asks.
pub(crate) fn tool(t: usize, call: &mut ToolCall<'_>) {
    match t {
        tool::SAMPLING => match sampled_text(call.input("sample"), &mut [0u8; 512]) {
            Some(text) => {
                call.text_fmt(format_args!("LLM response: {text}"));
            }
            None => {
                let mut buf = [0u8; 1024];
                let prompt = plain_arg(call, "prompt", &mut buf).unwrap_or("");
                let asked = call.ask("sample", Capability::Sampling, &|w| {
                    sampling(w, prompt, 100)
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
                    .unwrap_or("");
                let content = answer
                    .get("content")
                    .map_or("{}", |c| core::str::from_utf8(c.raw()).unwrap_or("{}"));
                if t == tool::ELICITATION {
                    call.text_fmt(format_args!(
                        "User response: action={action}, content={content}"
                    ));
                } else {
                    call.text_fmt(format_args!(
                        "Elicitation completed: action={action}, content={content}"
                    ));
                }
            }
            None => {
                let mut buf = [0u8; 1024];
                let message = plain_arg(call, "message", &mut buf)
                    .unwrap_or("Please provide your information");
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
                    _ => elicit_raw(w, message, USER_SCHEMA),
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
        tool::IRR_ELICITATION => {
            match content_field(call.input("user_name"), "name", &mut [0u8; 256]) {
                Some(name) => {
                    call.text_fmt(format_args!("Hello, {name}!"));
                }
                None => {
                    call.ask("user_name", Capability::Elicitation, &|w| {
                        elicit(w, "What is your name?", &[("name", "string")])
                    });
                }
            }
        }
        tool::IRR_SAMPLING => match sampled_text(call.input("capital_question"), &mut [0u8; 512]) {
            Some(text) => {
                call.text_fmt(format_args!("The model answered: {text}"));
            }
            None => {
                call.ask("capital_question", Capability::Sampling, &|w| {
                    sampling(w, "What is the capital of France?", 100)
                });
            }
        },
        tool::IRR_ROOTS => match call.input("client_roots").and_then(|r| r.get("roots")) {
            Some(roots) => {
                call.text_fmt(format_args!("Found {} root(s)", roots.items().count()));
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
            let (mut name_buf, mut greeting_buf) = ([0u8; 256], [0u8; 512]);
            let name = content_field(call.input("user_name"), "name", &mut name_buf);
            let greeting = sampled_text(call.input("greeting"), &mut greeting_buf);
            let roots = call.input("client_roots").and_then(|r| r.get("roots"));
            match (
                call.request_state() == Some(b"multiple"),
                name,
                greeting,
                roots,
            ) {
                (true, Some(name), Some(greeting), Some(roots)) => {
                    call.text_fmt(format_args!(
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
            let mut buf = [0u8; 256];
            match call.request_state() {
                Some(b"round1") => match content_field(call.input("step1"), "name", &mut buf) {
                    Some(name) if name.len() <= 48 => {
                        call.ask("step2", Capability::Elicitation, &|w| {
                            elicit(
                                w,
                                "Step 2: What is your favorite color?",
                                &[("color", "string")],
                            )
                        });
                        // "round2:" and a name of at most 48 bytes.
                        let mut state = heapless::String::<55>::new();
                        let _ = write!(state, "round2:{name}");
                        call.set_request_state(state.as_bytes());
                    }
                    _ => ask_step1(call),
                },
                Some(s) if s.starts_with(b"round2:") => {
                    let name = Lossy(&s[7..]);
                    match content_field(call.input("step2"), "color", &mut buf) {
                        Some(color) => {
                            call.text_fmt(format_args!(
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
            let (mut elicited_buf, mut sampled_buf) = ([0u8; 256], [0u8; 512]);
            let elicited = content_field(call.input("elicit_input"), "value", &mut elicited_buf);
            let sampled = sampled_text(call.input("sample_input"), &mut sampled_buf);
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

/// A string argument, unescaped into `buf`.
fn plain_arg<'b>(call: &ToolCall<'_>, name: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    call.arg(name)?.as_str()?.unescape_into(buf).ok()
}

/// Bytes shown as UTF-8, each invalid sequence as U+FFFD.
struct Lossy<'a>(&'a [u8]);

impl fmt::Display for Lossy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_char(char::REPLACEMENT_CHARACTER)?;
            }
        }
        Ok(())
    }
}

const USER_SCHEMA: &str = r#"{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}"#;

const SEP1034_SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}"#;

const SEP1330_SCHEMA: &str = r#"{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Pick one option","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Pick one titled option","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Pick one legacy option","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Pick several options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Pick several titled options","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}"#;

/// `elicitation/create` params: a message and a flat form of required fields.
pub(crate) fn elicit(w: &mut JsonWriter<'_>, message: &str, fields: &[(&str, &str)]) {
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

/// A string field of an accepted elicitation's `content` (client data: checked),
/// unescaped into `buf`.
pub(crate) fn content_field<'b>(
    answer: Option<Value<'_>>,
    field: &str,
    buf: &'b mut [u8],
) -> Option<&'b str> {
    let answer = answer?;
    if answer.get("action")?.as_str()?.as_plain()? != "accept" {
        return None;
    }
    let v = answer.get("content")?.get(field)?.as_str()?;
    v.unescape_into(buf).ok()
}

/// The text of a sampling result (`content.text`), unescaped into `buf`.
fn sampled_text<'b>(answer: Option<Value<'_>>, buf: &'b mut [u8]) -> Option<&'b str> {
    let v = answer?.get("content")?.get("text")?.as_str()?;
    v.unescape_into(buf).ok()
}
