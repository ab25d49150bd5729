//! The task fixtures of the conformance suite's `tasks-*` scenarios (feature `tasks`):
//! `greet`, `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
//! `multi_input` and `test_tool_with_task`.
//!
//! A task keeps what its result needs in its state word and in the bytes kept with
//! [`ToolCall::set_request_state`]; [`result`] writes the result from them each time
//! the client fetches it. The clock is the host's monotonic clock (this feature links
//! `std`: the task fixtures are for the host's conformance server).

extern crate std;

use emcp::device::input::Capability;
use emcp::device::ToolCall;
use emcp::model::registry::{TaskSupport, Tool};
use emcp::Step;

use crate::input::{content_field, elicit};

/// The task fixtures, after the other tools.
pub(crate) static TOOLS: [Tool<'static>; 7] = [
    Tool::new(
        "greet",
        r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
    )
    .description("Greets by name, at once"),
    Tool::new(
        "slow_compute",
        r#"{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}"#,
    )
    .description("Works for `seconds` seconds, then answers")
    .task_support(TaskSupport::Optional),
    Tool::new("failing_job", crate::NO_ARGS)
        .description("Fails with a tool error after about a second")
        .task_support(TaskSupport::Required),
    Tool::new("protocol_error_job", crate::NO_ARGS)
        .description("Ends with a protocol-level error")
        .task_support(TaskSupport::Optional),
    Tool::new(
        "confirm_delete",
        r#"{"type":"object","properties":{"filename":{"type":"string"}}}"#,
    )
    .description("Asks the user to confirm, then deletes (nothing)")
    .task_support(TaskSupport::Optional),
    Tool::new("multi_input", crate::NO_ARGS)
        .description("Asks two questions at once")
        .task_support(TaskSupport::Optional),
    Tool::new("test_tool_with_task", crate::NO_ARGS)
        .description("Asks for a name, then greets as a task")
        .task_support(TaskSupport::Required),
];

/// Index of each task fixture in [`TOOLS`], offset by the tools before them.
mod tool {
    pub const GREET: usize = 0;
    pub const SLOW: usize = 1;
    pub const FAILING: usize = 2;
    pub const PROTOCOL_ERROR: usize = 3;
    pub const CONFIRM: usize = 4;
    pub const MULTI: usize = 5;
    pub const WITH_TASK: usize = 6;
}

/// Milliseconds since the process started.
pub(crate) fn now_ms() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = START.get_or_init(std::time::Instant::now);
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A deadline `ms` from now, as a state word (milliseconds since start; the conformance
/// server does not run for 49 days).
fn deadline(ms: u64) -> u32 {
    u32::try_from(now_ms().saturating_add(ms)).unwrap_or(u32::MAX)
}

fn due(call: &ToolCall<'_>) -> bool {
    now_ms() >= u64::from(call.state())
}

/// A string argument, unescaped into `buf`.
fn str_arg<'b>(call: &ToolCall<'_>, name: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    call.arg(name)?.as_str()?.unescape_into(buf).ok()
}

/// The first round of task fixture `t`.
pub(crate) fn call(t: usize, call: &mut ToolCall<'_>) -> Step {
    let mut buf = [0u8; 64];
    match t {
        tool::GREET => {
            let name = str_arg(call, "name", &mut buf).unwrap_or("there");
            call.text_fmt(format_args!("Hello, {name}!"));
            Step::Done
        }
        tool::SLOW => {
            let seconds = call.arg("seconds").and_then(|s| s.as_f64()).unwrap_or(0.0);
            let label = str_arg(call, "label", &mut buf).unwrap_or("");
            call.set_request_state(label.as_bytes());
            if seconds <= 0.0 {
                call.text_fmt(format_args!("Computed {label} at once"));
                return Step::Done;
            }
            call.set_state(deadline((seconds * 1000.0) as u64));
            Step::Pending
        }
        tool::FAILING => {
            call.set_state(deadline(1000));
            Step::Pending
        }
        tool::PROTOCOL_ERROR => {
            call.set_state(deadline(300));
            Step::Pending
        }
        tool::CONFIRM => {
            let name = str_arg(call, "filename", &mut buf).unwrap_or("the file");
            call.set_request_state(name.as_bytes());
            call.set_state(0);
            Step::Pending
        }
        tool::MULTI => {
            call.set_state(0);
            Step::Pending
        }
        tool::WITH_TASK => match content_field(call.input("user_name"), "name", &mut buf) {
            Some(name) => {
                // The name gathered in the input round goes with the task.
                call.set_request_state(name.as_bytes());
                Step::Pending
            }
            None => {
                if !call.ask("user_name", Capability::Elicitation, &|w| {
                    elicit(w, "What is your name?", &[("name", "string")])
                }) && call.require(Capability::Elicitation)
                {
                    call.error("Cannot ask for input now");
                }
                Step::Done
            }
        },
        _ => {
            call.error("unknown tool");
            Step::Done
        }
    }
}

/// A later round of task fixture `t` (a task's, or a long call's).
pub(crate) fn poll(t: usize, call: &mut ToolCall<'_>) -> Step {
    match t {
        tool::SLOW | tool::FAILING | tool::PROTOCOL_ERROR if !due(call) => Step::Pending,
        tool::SLOW | tool::FAILING => {
            // An ordinary call's answer (a task's is written by `result`).
            result(t, call);
            Step::Done
        }
        tool::PROTOCOL_ERROR => {
            call.fail("protocol_error_job: the device failed");
            Step::Done
        }
        tool::CONFIRM => match call.input("confirm") {
            Some(answer) => {
                let accepted = answer
                    .get("action")
                    .and_then(|a| a.as_str())
                    .is_some_and(|a| a.eq_str("accept"));
                call.set_state(if accepted { 1 } else { 2 });
                Step::Done
            }
            None => {
                if !call.ask("confirm", Capability::Elicitation, &|w| {
                    elicit(w, "Delete the file?", &[("confirm", "boolean")])
                }) {
                    call.require(Capability::Elicitation);
                    call.fail("confirm_delete: cannot ask for confirmation");
                    return Step::Done;
                }
                Step::Pending
            }
        },
        tool::MULTI => {
            let mut have = call.state();
            for (bit, key) in [(1, "first"), (2, "second")] {
                if call.input(key).is_some() {
                    have |= bit;
                }
            }
            call.set_state(have);
            if have == 3 {
                return Step::Done;
            }
            for (bit, key, question) in
                [(1, "first", "Your name?"), (2, "second", "Do you confirm?")]
            {
                if have & bit == 0 {
                    call.ask(key, Capability::Elicitation, &|w| {
                        elicit(w, question, &[("name", "string")])
                    });
                }
            }
            Step::Pending
        }
        tool::WITH_TASK => Step::Done,
        _ => Step::Done,
    }
}

/// The result of task fixture `t`, from its state word and kept bytes.
pub(crate) fn result(t: usize, call: &mut ToolCall<'_>) {
    let kept = call.request_state().unwrap_or(b"");
    let kept = core::str::from_utf8(kept).unwrap_or("");
    match t {
        tool::SLOW => {
            call.text_fmt(format_args!("Computed {kept}"));
        }
        tool::FAILING => {
            call.error("failing_job failed, as it always does");
        }
        tool::CONFIRM if call.state() == 1 => {
            call.text_fmt(format_args!("Deleted {kept}"));
        }
        tool::CONFIRM => {
            call.text_fmt(format_args!("Kept {kept}"));
        }
        tool::MULTI => {
            call.text("Received both inputs");
        }
        tool::WITH_TASK => {
            call.text_fmt(format_args!("Hello, {kept}! (from a task)"));
        }
        _ => {
            call.text("Done");
        }
    }
}
