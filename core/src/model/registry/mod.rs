//! Registry: static, const-constructible descriptors of what a device offers.
//!
//! A device describes its tools, resources, resource templates and prompts with these
//! descriptors (usually in `static` arrays) and serves them through
//! [`crate::Device`]. Schemas are JSON text, checked once by [`crate::Server::new`] and
//! then copied to the wire verbatim.
//!
//! ```
//! use emcp::model::registry::{Tool, ToolAnnotations};
//! static TOOLS: [Tool<'static>; 1] = [Tool::new(
//!     "read_sensor",
//!     r#"{"type":"object","properties":{"sensor":{"type":"string"}},"required":["sensor"]}"#,
//! )
//! .title("Read sensor")
//! .annotations(ToolAnnotations::new().read_only(true))];
//! assert_eq!(TOOLS[0].name, "read_sensor");
//! ```

use crate::model::schema::Plan;
use crate::wire::json::writer::member_key;
use crate::wire::json::JsonWriter;

mod fast;
mod plain;

// The serialisers, chosen once: `fast` on hosts, `plain` on small targets (see
// core/build.rs). Both are compiled everywhere and tested against each other.
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

// A member whose key the crate spells as a literal ([`member_key!`]), when present.
// With the plain writer such a key is a bare name, which `opt_str` writes: one copy.
#[cfg(emcp_fast)]
pub(crate) use fast::opt_member;
#[cfg(not(emcp_fast))]
pub(crate) use opt_str as opt_member;

/// Hints about a tool's behaviour (all optional; absent means the spec's default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations<'a> {
    /// A human-readable title.
    pub title: Option<&'a str>,
    /// The tool does not modify its environment (default false).
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates (default true).
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    pub open_world: Option<bool>,
}

impl<'a> ToolAnnotations<'a> {
    /// No annotations.
    pub const fn new() -> Self {
        Self {
            title: None,
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
        }
    }
    /// Set `readOnlyHint`.
    pub const fn read_only(mut self, v: bool) -> Self {
        self.read_only = Some(v);
        self
    }
    /// Set `destructiveHint`.
    pub const fn destructive(mut self, v: bool) -> Self {
        self.destructive = Some(v);
        self
    }
    /// Set `idempotentHint`.
    pub const fn idempotent(mut self, v: bool) -> Self {
        self.idempotent = Some(v);
        self
    }
    /// Set `openWorldHint`.
    pub const fn open_world(mut self, v: bool) -> Self {
        self.open_world = Some(v);
        self
    }
    fn is_empty(&self) -> bool {
        *self == Self::new()
    }
}

/// [`Tool::new`] with the input schema checked and compiled at compile time
/// ([`Tool::plan`]): arguments are then checked without walking the schema's text.
/// `schema` must be a constant expression (a literal, a `const`).
///
/// ```
/// use emcp::model::registry::Tool;
///
/// static TOOLS: [Tool<'static>; 1] = [emcp::tool!(
///     "switch",
///     r#"{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}"#
/// )
/// .title("Switch")];
/// assert!(TOOLS[0].plan.is_some_and(|p| p.is_compiled()));
/// ```
///
/// A schema that is not a JSON object ([`is_object`](crate::wire::json::is_object),
/// what [`Server::new`](crate::Server::new) would refuse) does not compile:
///
/// ```compile_fail
/// static BAD: emcp::model::registry::Tool<'static> =
///     emcp::tool!("switch", r#"{"type":"object","properties":{"on":{"type":"boolean"}},}"#);
/// ```
///
/// Nor, in a build without the schema walker (feature `schema-walk`), does a schema the
/// plan cannot hold (more than [`MAX_PLAN_PROPERTIES`](crate::model::schema::MAX_PLAN_PROPERTIES)
/// properties, keywords spelled with escapes): [`Server::new`](crate::Server::new)
/// would refuse the tool.
#[macro_export]
macro_rules! tool {
    ($name:expr, $schema:expr $(,)?) => {
        $crate::model::registry::Tool::new($name, $schema).plan(&const {
            assert!(
                $crate::wire::json::is_object($schema),
                "emcp::tool!: the input schema is not a JSON object (RFC 8259 text, nested at most 32 deep)"
            );
            let plan = $crate::model::schema::Plan::compile($schema);
            assert!(
                $crate::model::schema::WALKS || plan.is_compiled(),
                "emcp::tool!: the input schema does not fit a plan, and emcp is built without `schema-walk`"
            );
            plan
        })
    };
}

/// A tool: an action the device performs (an actuator command, a measurement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool<'a> {
    /// Unique name (`[A-Za-z0-9_.-]`, 1..128 characters).
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What the tool does, for the model.
    pub description: Option<&'a str>,
    /// JSON Schema of the arguments; the root must be `{"type":"object",...}`.
    pub input_schema: &'a str,
    /// JSON Schema of `structuredContent`, when the tool returns it.
    pub output_schema: Option<&'a str>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations<'a>,
    /// The input schema compiled ahead of time ([`Plan`]): arguments are checked
    /// without walking the schema's text. `None`: the text is walked on every call.
    pub plan: Option<&'a Plan<'a>>,
    /// Whether a call may or must run as a task (default [`TaskSupport::Forbidden`]).
    /// Read only with the `tasks` feature: without it the server offers no tasks,
    /// lists no `execution`, and runs every call as an ordinary one.
    pub task_support: TaskSupport,
}

/// Whether a tool's calls may run as tasks (served with the `tasks` feature): answered
/// at once with a task the client polls, while the device works
/// ([`crate::Device::poll_tool`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskSupport {
    /// Never a task (a 2025-11-25 request for one is -32601).
    #[default]
    Forbidden,
    /// A task when the client accepts tasks and the call takes long
    /// ([`crate::Step::Pending`]); otherwise an ordinary call.
    Optional,
    /// Only as a task: a client that does not accept tasks gets -32021 (2026-07-28)
    /// or -32601 (2025-11-25).
    Required,
}

impl TaskSupport {
    /// The 2025-11-25 wire name (`execution.taskSupport`).
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

impl<'a> Tool<'a> {
    /// A tool with a name and an input schema.
    pub const fn new(name: &'a str, input_schema: &'a str) -> Self {
        Self {
            name,
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: ToolAnnotations::new(),
            plan: None,
            task_support: TaskSupport::Forbidden,
        }
    }
    /// Set the title.
    pub const fn title(mut self, v: &'a str) -> Self {
        self.title = Some(v);
        self
    }
    /// Set the description.
    pub const fn description(mut self, v: &'a str) -> Self {
        self.description = Some(v);
        self
    }
    /// Set the output schema.
    pub const fn output_schema(mut self, v: &'a str) -> Self {
        self.output_schema = Some(v);
        self
    }
    /// Set the annotations.
    pub const fn annotations(mut self, v: ToolAnnotations<'a>) -> Self {
        self.annotations = v;
        self
    }
    /// Attach the input schema compiled ahead of time; it must be compiled from
    /// `input_schema` ([`Server::new`](crate::Server::new) refuses the tool otherwise).
    ///
    /// ```
    /// use emcp::model::registry::Tool;
    /// use emcp::model::schema::Plan;
    ///
    /// const SCHEMA: &str = r#"{"type":"object","properties":{"on":{"type":"boolean"}}}"#;
    /// static TOOLS: [Tool<'static>; 1] =
    ///     [Tool::new("switch", SCHEMA).plan(&const { Plan::compile(SCHEMA) })];
    /// assert!(TOOLS[0].plan.is_some_and(|p| p.is_compiled()));
    /// ```
    pub const fn plan(mut self, v: &'a Plan<'a>) -> Self {
        self.plan = Some(v);
        self
    }

    /// Whether calls may or must run as tasks (read with the `tasks` feature; see
    /// [`Tool::task_support`]).
    ///
    /// ```
    /// use emcp::model::registry::{TaskSupport, Tool};
    /// const CALIBRATE: Tool<'static> = Tool::new("calibrate", r#"{"type":"object"}"#)
    ///     .task_support(TaskSupport::Optional);
    /// assert_eq!(CALIBRATE.task_support, TaskSupport::Optional);
    /// ```
    pub const fn task_support(mut self, v: TaskSupport) -> Self {
        self.task_support = v;
        self
    }

    /// The `Tool` object of a 2025-11-25 `tools/list` with `execution.taskSupport`
    /// (written only when not forbidden; a server lists it so only with `tasks`).
    pub fn write_with_execution(&self, w: &mut JsonWriter<'_>) {
        let execution = Some(self.task_support).filter(|t| *t != TaskSupport::Forbidden);
        plain::write_tool_as(self, w, execution);
    }

    /// Write the `Tool` object of `tools/list`. Not inlined, as [`Resource::write`].
    #[inline(never)]
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        form::write_tool(self, w);
    }
}

/// A resource: data the device exposes at a fixed URI (a sensor reading, a state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource<'a> {
    /// The URI, e.g. `sensor://temperature`.
    pub uri: &'a str,
    /// Programmatic name.
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What the resource holds.
    pub description: Option<&'a str>,
    /// MIME type of its contents.
    pub mime_type: Option<&'a str>,
    /// Size in bytes (before base64), when known.
    pub size: Option<u64>,
}

impl<'a> Resource<'a> {
    /// A resource with a URI and a name.
    pub const fn new(uri: &'a str, name: &'a str) -> Self {
        Self {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }
    /// Set the title.
    pub const fn title(mut self, v: &'a str) -> Self {
        self.title = Some(v);
        self
    }
    /// Set the description.
    pub const fn description(mut self, v: &'a str) -> Self {
        self.description = Some(v);
        self
    }
    /// Set the MIME type.
    pub const fn mime_type(mut self, v: &'a str) -> Self {
        self.mime_type = Some(v);
        self
    }
    /// Set the size in bytes.
    pub const fn size(mut self, v: u64) -> Self {
        self.size = Some(v);
        self
    }

    /// Write the `Resource` object of `resources/list`. Not inlined: in the list's
    /// closure it costs more code than a call.
    #[inline(never)]
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        w.begin(b",{\"uri\":");
        w.str(self.uri);
        write_names(w, self.name, self.title, self.description);
        opt_member(w, member_key!("mimeType"), self.mime_type);
        if let Some(size) = self.size {
            w.key_raw(member_key!("size"));
            w.u64(size);
        }
        w.end_object();
    }
}

/// A resource template: a family of resources, e.g. `sensor://{name}/history`.
///
/// Templates use RFC 6570 level-1 expressions (`{var}`), matched by
/// [`crate::model::template`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceTemplate<'a> {
    /// The URI template.
    pub uri_template: &'a str,
    /// Programmatic name.
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What the resources hold.
    pub description: Option<&'a str>,
    /// MIME type of their contents.
    pub mime_type: Option<&'a str>,
}

impl<'a> ResourceTemplate<'a> {
    /// A template with a URI template and a name.
    pub const fn new(uri_template: &'a str, name: &'a str) -> Self {
        Self {
            uri_template,
            name,
            title: None,
            description: None,
            mime_type: None,
        }
    }
    /// Set the title.
    pub const fn title(mut self, v: &'a str) -> Self {
        self.title = Some(v);
        self
    }
    /// Set the description.
    pub const fn description(mut self, v: &'a str) -> Self {
        self.description = Some(v);
        self
    }
    /// Set the MIME type.
    pub const fn mime_type(mut self, v: &'a str) -> Self {
        self.mime_type = Some(v);
        self
    }

    /// Write the `ResourceTemplate` object of `resources/templates/list`. Not inlined,
    /// as [`Resource::write`].
    #[inline(never)]
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        w.begin(b",{\"uriTemplate\":");
        w.str(self.uri_template);
        write_names(w, self.name, self.title, self.description);
        opt_member(w, member_key!("mimeType"), self.mime_type);
        w.end_object();
    }
}

/// One argument of a prompt (a string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptArgument<'a> {
    /// Argument name.
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What to pass.
    pub description: Option<&'a str>,
    /// Must be given; checked by the server before the device sees the request.
    pub required: bool,
}

impl<'a> PromptArgument<'a> {
    /// An optional argument.
    pub const fn new(name: &'a str) -> Self {
        Self {
            name,
            title: None,
            description: None,
            required: false,
        }
    }
    /// Set the description.
    pub const fn description(mut self, v: &'a str) -> Self {
        self.description = Some(v);
        self
    }
    /// Mark it required.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Write the argument object of a `Prompt`'s `arguments`. Out of line on small
    /// targets (smaller there).
    #[cfg_attr(not(emcp_fast), inline(never))]
    fn write(&self, w: &mut JsonWriter<'_>) {
        form::open_names(w, || (self.name, self.title, self.description));
        if self.required {
            w.member_lit(b",\"required\":true");
        }
        w.end_object();
    }
}

/// A prompt: canned instructions with string arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt<'a> {
    /// Unique name.
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What the prompt is for.
    pub description: Option<&'a str>,
    /// Its arguments.
    pub arguments: &'a [PromptArgument<'a>],
}

impl<'a> Prompt<'a> {
    /// A prompt without arguments.
    pub const fn new(name: &'a str) -> Self {
        Self {
            name,
            title: None,
            description: None,
            arguments: &[],
        }
    }
    /// Set the title.
    pub const fn title(mut self, v: &'a str) -> Self {
        self.title = Some(v);
        self
    }
    /// Set the description.
    pub const fn description(mut self, v: &'a str) -> Self {
        self.description = Some(v);
        self
    }
    /// Set the arguments.
    pub const fn arguments(mut self, v: &'a [PromptArgument<'a>]) -> Self {
        self.arguments = v;
        self
    }

    /// Write the `Prompt` object of `prompts/list`.
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        self.write_with(w, self.arguments.iter().copied());
    }

    /// Write the `Prompt` object with arguments from elsewhere (see
    /// [`crate::Device::prompt_argument`]).
    pub fn write_with<'b>(
        &self,
        w: &mut JsonWriter<'_>,
        arguments: impl Iterator<Item = PromptArgument<'b>>,
    ) {
        form::open_names(w, || (self.name, self.title, self.description));
        let mut listed = false;
        for a in arguments {
            if !listed {
                w.key_raw(member_key!("arguments"));
                w.begin_array();
                listed = true;
            }
            a.write(w);
        }
        if listed {
            w.end_array();
        }
        w.end_object();
    }
}

/// Write `"key":"value"` when the value is present.
pub(crate) fn opt_str(w: &mut JsonWriter<'_>, key: &'static str, value: Option<&str>) {
    if let Some(v) = value {
        w.key_lit(key);
        w.str(v);
    }
}

/// A descriptor's `name`, `title` and `description`, read when needed (see
/// `open_names` of each form).
type Names<'n> = (&'n str, Option<&'n str>, Option<&'n str>);

/// Write the members every descriptor starts with: `name`, then `title` and
/// `description` when present.
pub(super) fn write_names(
    w: &mut JsonWriter<'_>,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) {
    w.key_raw(member_key!("name"));
    write_titles(w, name, title, description);
}

/// The name's value after its key, then `title` and `description` when present.
#[cfg_attr(not(emcp_fast), inline(always))]
pub(super) fn write_titles(
    w: &mut JsonWriter<'_>,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) {
    w.str(name);
    opt_member(w, member_key!("title"), title);
    opt_member(w, member_key!("description"), description);
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::String;

    /// What `f` writes as the second of an array of three (the others `null`).
    fn in_array(f: impl FnOnce(&mut JsonWriter<'_>)) -> String {
        crate::wire::json::writer::tests::out(|w| {
            w.begin_array();
            w.null();
            f(w);
            w.null();
            w.end_array();
        })
    }

    /// `tool` written by [`Tool::write`] as the second of an array.
    fn written(tool: &Tool<'_>) -> String {
        in_array(|w| tool.write(w))
    }

    /// The same through the writer's public calls, one piece at a time.
    fn expected(t: &Tool<'_>) -> String {
        in_array(|w| pieces(w, t))
    }

    /// [`Tool::write`] through the writer's public calls.
    fn pieces(w: &mut JsonWriter<'_>, t: &Tool<'_>) {
        w.begin_object();
        w.key("name");
        w.str(t.name);
        for (k, v) in [("title", t.title), ("description", t.description)] {
            if let Some(v) = v {
                w.key(k);
                w.str(v);
            }
        }
        w.key("inputSchema");
        w.raw_value(t.input_schema.as_bytes());
        if let Some(s) = t.output_schema {
            w.key("outputSchema");
            w.raw_value(s.as_bytes());
        }
        let a = &t.annotations;
        if *a != ToolAnnotations::new() {
            w.key("annotations");
            w.begin_object();
            if let Some(v) = a.title {
                w.key("title");
                w.str(v);
            }
            let hints = [
                ("readOnlyHint", a.read_only),
                ("destructiveHint", a.destructive),
                ("idempotentHint", a.idempotent),
                ("openWorldHint", a.open_world),
            ];
            for (k, v) in hints {
                if let Some(v) = v {
                    w.key(k);
                    w.bool(v);
                }
            }
            w.end_object();
        }
        w.end_object();
    }

    /// Every shape of tool (strings to escape, long ones, each annotation) is written
    /// as the writer's pieces would write it.
    #[test]
    fn tools_are_written_as_their_pieces() {
        let long = "a long description \"quoted\" ".repeat(12);
        let plain_long = "x".repeat(300);
        let strings: [&str; 6] = ["", "s", "Read sensor", "tab\there", &long, &plain_long];
        let schema = r#"{"type":"object"}"#;
        let mut n = 0;
        for name in ["read_sensor", "n\"q"] {
            for title in [None, Some(strings[2]), Some(strings[3])] {
                for description in strings.iter().map(|s| Some(*s)).chain([None]) {
                    for output in [None, Some(r#"{"type":"object","properties":{}}"#)] {
                        for bits in 0u32..(3u32.pow(4) * 3) {
                            let tri = |i: u32| match bits / 3u32.pow(i) % 3 {
                                0 => None,
                                1 => Some(false),
                                _ => Some(true),
                            };
                            let annotations = ToolAnnotations {
                                title: [None, Some("T"), Some(strings[4])]
                                    .get((bits / 81) as usize)
                                    .copied()
                                    .flatten(),
                                read_only: tri(0),
                                destructive: tri(1),
                                idempotent: tri(2),
                                open_world: tri(3),
                            };
                            let tool = Tool {
                                name,
                                title,
                                description,
                                input_schema: schema,
                                output_schema: output,
                                annotations,
                                plan: None,
                                task_support: TaskSupport::Forbidden,
                            };
                            let want = expected(&tool);
                            assert_eq!(written(&tool), want, "{tool:?}");
                            // Both forms, whichever `write` runs.
                            let fast = in_array(|w| fast::write_tool(&tool, w));
                            let plain = in_array(|w| plain::write_tool(&tool, w));
                            assert_eq!(fast, want, "{tool:?}");
                            assert_eq!(plain, want, "{tool:?}");
                            n += 1;
                        }
                    }
                }
            }
        }
        assert!(n > 1000);
    }

    /// The opening of every other descriptor (its brace, `name`, `title`,
    /// `description`), both forms, as the writer's pieces write it.
    #[test]
    fn names_open_the_same_in_both_forms() {
        let long = "a long title \"quoted\" ".repeat(12);
        let strings = ["", "s", "Read sensor", "tab\there", long.as_str()];
        for name in ["n", "n\"q", long.as_str()] {
            for title in strings.iter().map(|s| Some(*s)).chain([None]) {
                for description in strings.iter().map(|s| Some(*s)).chain([None]) {
                    let open = |form: u8| {
                        in_array(|w| {
                            match form {
                                0 => fast::open_names(w, || (name, title, description)),
                                1 => plain::open_names(w, || (name, title, description)),
                                _ => {
                                    w.begin_object();
                                    w.key("name");
                                    w.str(name);
                                    for (k, v) in [("title", title), ("description", description)] {
                                        if let Some(v) = v {
                                            w.key(k);
                                            w.str(v);
                                        }
                                    }
                                }
                            }
                            w.member_lit(b",\"required\":true");
                            w.end_object();
                        })
                    };
                    assert_eq!(open(0), open(2), "{name:?} {title:?} {description:?}");
                    assert_eq!(open(1), open(2), "{name:?} {title:?} {description:?}");
                }
            }
        }
    }
}
