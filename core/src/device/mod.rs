//! The device side: the [`Device`] trait a firmware implements, and the request
//! contexts its handlers read arguments from and write results through.
//!
//! Every context writes straight into the output [`Sink`](crate::wire::json::Sink) as the
//! handler produces content — a 1 MiB blob needs no 1 MiB buffer. The response envelope
//! is opened lazily at the first content, so a handler may still decline (e.g. a
//! resource that does not exist) before writing anything.

use crate::model::registry::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
use crate::wire::json::{Str, Value};

mod completion;
mod exchange;
mod forms;
#[cfg(feature = "input")]
pub mod input;
// Without `input`, the same crate-internal names as empty types (input/off.rs), so that
// the request path reads the same in every build.
#[cfg(not(feature = "input"))]
#[path = "input/off.rs"]
pub(crate) mod input;
mod prompt_get;
mod resource_read;
#[cfg(test)]
mod tests;
mod tool_call;

pub use completion::{Completion, Reference, MAX_COMPLETIONS};
pub(crate) use exchange::Exchange;
pub use prompt_get::{PromptGet, Role};
pub use resource_read::{ResourceRead, Target};
pub use tool_call::ToolCall;

/// What a tool handler did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use]
pub enum Step {
    /// The result is complete (whatever was written is the result).
    Done,
    /// The work goes on: the server keeps the request as a job and calls
    /// [`Device::poll_tool`] again. Only allowed when [`ToolCall::can_defer`] is true and
    /// before anything was written; otherwise it counts as `Done`.
    Pending,
}

/// Why a resource could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ReadError {
    /// No such resource (answered with the era's not-found error).
    NotFound,
    /// The device failed to read it (-32603).
    Failed,
}

/// Severity of a log message (RFC 5424 order, least severe first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LogLevel {
    /// debug
    Debug,
    /// info
    Info,
    /// notice
    Notice,
    /// warning
    Warning,
    /// error
    Error,
    /// critical
    Critical,
    /// alert
    Alert,
    /// emergency
    Emergency,
}

impl LogLevel {
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: Str<'_>) -> Option<Self> {
        Self::ALL.into_iter().find(|l| s.eq_str(l.as_str()))
    }
}

/// A device: what it offers and the handlers that serve it.
///
/// Descriptors are looked up by index (`0..` until `None`), so they can live in `static`
/// arrays, in flash, or behind a C ABI. Every method has a default: a device implements
/// only the primitives it has.
pub trait Device {
    /// Tool number `index`.
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        let _ = index;
        None
    }
    /// The compiled input schema of tool number `index` ([`Tool::plan`]). The default
    /// reads it from [`Device::tool`]; a device may also put one together from parts
    /// kept elsewhere ([`PlanRef::from_parts`](crate::model::schema::PlanRef::from_parts):
    /// the C ABI's generated plans). A device whose tools never carry one returns
    /// `None` here: its image then holds no code for plans.
    fn tool_plan(&self, index: usize) -> Option<crate::model::schema::PlanRef<'static>> {
        self.tool(index)
            .and_then(|t| t.plan)
            .map(crate::model::schema::Plan::as_ref)
    }
    /// The name of tool number `index`, which `tools/call` looks tools up by. The
    /// default reads it from [`Device::tool`]; a device that puts its descriptors
    /// together on each call (the C ABI) answers it without building the rest.
    fn tool_name(&self, index: usize) -> Option<&'static str> {
        self.tool(index).map(|t| t.name)
    }
    /// Resource number `index`.
    fn resource(&self, index: usize) -> Option<Resource<'static>> {
        let _ = index;
        None
    }
    /// Resource template number `index`.
    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'static>> {
        let _ = index;
        None
    }
    /// Prompt number `index`.
    fn prompt(&self, index: usize) -> Option<Prompt<'static>> {
        let _ = index;
        None
    }
    /// Argument `index` of prompt `prompt`. The default reads
    /// [`Prompt::arguments`]; a device whose descriptors are not Rust slices (a C
    /// array) overrides this instead.
    fn prompt_argument(&self, prompt: usize, index: usize) -> Option<PromptArgument<'static>> {
        self.prompt(prompt)?.arguments.get(index).copied()
    }
    /// Whether the device answers `completion/complete`.
    fn completions(&self) -> bool {
        false
    }

    /// May tool `tool` run now, with these (already validated) arguments? Asked before
    /// every call ([`crate::state::policy`]); a refusal becomes a tool result with
    /// `isError: true` and the reason. The default allows everything.
    fn authorize(&mut self, tool: usize, args: Option<Value<'_>>) -> crate::state::policy::Verdict {
        let _ = (tool, args);
        crate::state::policy::Verdict::Allow
    }

    /// Run a tool. Arguments were already validated against its input schema.
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        call.error("tool not implemented");
        Step::Done
    }
    /// Continue a job that [`Device::call_tool`] left [`Step::Pending`]
    /// (`call.args()` is `None` now: keep what you need in the device or in
    /// [`ToolCall::set_state`]).
    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        let _ = call;
        Step::Done
    }
    /// The client cancelled a pending job (`tool` index, job `state`). No result is sent.
    fn cancel_tool(&mut self, tool: usize, state: u32) {
        let _ = (tool, state);
    }
    /// Read a resource (a static one, or one matching a template).
    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        let _ = read;
        Err(ReadError::NotFound)
    }
    /// Render a prompt. Required arguments were already checked. An error before
    /// anything was written is answered as for a read (`NotFound`: the prompt's
    /// not-found error; `Failed`: -32603).
    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        let _ = get;
        Ok(())
    }
    /// Suggest completions.
    fn complete(&mut self, completion: &mut Completion<'_>) {
        let _ = completion;
    }
    /// Milliseconds on the device's clock (feature `tasks`): a task's `createdAt`,
    /// `lastUpdatedAt` and its expiry. With a real-time clock, milliseconds since the
    /// Unix epoch; without one, milliseconds since boot — timestamps then read as
    /// early 1970 (epoch-relative), which clients accept and compare correctly. The
    /// default, 0, stops time: tasks then never expire.
    #[cfg(feature = "tasks")]
    fn now_ms(&self) -> u64 {
        0
    }
    /// Write the result of a completed task (feature `tasks`), each time a client
    /// fetches it (`tasks/get`, `tasks/result`): the server keeps no copy. `call`
    /// carries the job's last [`ToolCall::state`] and the bytes kept with
    /// [`ToolCall::set_request_state`] ([`ToolCall::request_state`]); content written
    /// here is the tool's result, as in [`Device::call_tool`]. The default writes an
    /// empty result.
    #[cfg(feature = "tasks")]
    fn task_result(&mut self, call: &mut ToolCall<'_>) {
        let _ = call;
    }
    /// Bit mask of resource indices changed since the last call (e.g. set from an
    /// interrupt through a [`crate::state::subscription::ChangeFlags`]). Called by
    /// [`crate::Server::poll`] and after every request.
    fn take_changes(&mut self) -> u32 {
        0
    }
}

impl core::fmt::Display for ReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ReadError::NotFound => "no such resource",
            ReadError::Failed => "the device failed to read the resource",
        })
    }
}

impl core::error::Error for ReadError {}
