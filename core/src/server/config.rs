use crate::model::registry::Tool;
use crate::model::schema::PlanRef;
use crate::wire::error::ConfigError;
use crate::wire::json;
use crate::wire::json::{JsonWriter, Kind};

/// Static facts about the server. Every field has a documented default.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// `serverInfo.name`.
    pub name: &'static str,
    /// `serverInfo.version`.
    pub version: &'static str,
    /// `serverInfo.title` (default none).
    pub title: Option<&'static str>,
    /// Instructions for the model (default none).
    pub instructions: Option<&'static str>,
    /// Items per page of `*/list` results (default 16; 0 is taken as 1).
    pub page_size: usize,
    /// `ttlMs` of discover and list results (default 3 600 000: descriptors are static).
    pub list_ttl_ms: u32,
    /// `ttlMs` of `resources/read` results (default 0: sensor data is always fresh).
    pub read_ttl_ms: u32,
    /// How long a task is kept after its creation, in milliseconds of
    /// `Device::now_ms` (feature `tasks`; default 60 000); a 2025-11-25
    /// client's `task.ttl` may ask for less. Read only with the cargo feature `tasks`;
    /// without it there are no tasks and the field is inert (it exists in every build,
    /// so that a configuration compiles the same whatever the features).
    pub task_ttl_ms: u32,
    /// The poll interval suggested to clients (`pollIntervalMs`, default 500). Read
    /// only with the cargo feature `tasks`, inert without it, as
    /// [`task_ttl_ms`](Config::task_ttl_ms).
    pub task_poll_ms: u32,
}

impl Config {
    /// A configuration with defaults.
    pub const fn new(name: &'static str, version: &'static str) -> Self {
        Self {
            name,
            version,
            title: None,
            instructions: None,
            page_size: 16,
            list_ttl_ms: 3_600_000,
            read_ttl_ms: 0,
            task_ttl_ms: 60_000,
            task_poll_ms: 500,
        }
    }
    /// Set the title.
    pub const fn title(mut self, v: &'static str) -> Self {
        self.title = Some(v);
        self
    }
    /// Set the instructions.
    pub const fn instructions(mut self, v: &'static str) -> Self {
        self.instructions = Some(v);
        self
    }
    /// Set the page size.
    pub const fn page_size(mut self, v: usize) -> Self {
        self.page_size = v;
        self
    }

    /// Whether `name`, `title` and `version` hold nothing to escape (checked once, by
    /// [`Server::new`]): [`Config::write_info`] then writes them as they are.
    pub(super) fn info_plain(&self) -> bool {
        [self.name, self.version, self.title.unwrap_or_default()]
            .iter()
            .all(|s| !json::writer::needs_escape(s))
    }

    /// `serverInfo`: the strings escaped unless `plain` ([`Config::info_plain`]).
    pub(super) fn write_info(&self, w: &mut JsonWriter<'_>, plain: bool) {
        w.begin_object();
        w.key_lit("name");
        w.str_as(self.name, plain);
        if let Some(title) = self.title {
            w.key_lit("title");
            w.str_as(title, plain);
        }
        w.key_lit("version");
        w.str_as(self.version, plain);
        w.end_object();
    }
}

/// What [`Server::check_device`](super::Server::check_device) checks of tool `index`:
/// both schemas are JSON objects, a plan is of the input schema, and without the walker
/// (feature `schema-walk`) there is one, and compiled.
pub(super) fn check_tool(
    index: usize,
    tool: &Tool<'_>,
    plan: Option<PlanRef<'_>>,
) -> Result<(), ConfigError> {
    let object =
        |schema: &str| json::parse(schema.as_bytes()).is_ok_and(|v| v.kind() == Kind::Object);
    let walker = crate::features::SCHEMA_WALK;
    if !object(tool.input_schema) {
        Err(ConfigError::InvalidSchema { tool: index })
    } else if !tool.output_schema.is_none_or(object) {
        Err(ConfigError::InvalidOutputSchema { tool: index })
    } else {
        match plan {
            Some(p) if p.source() != tool.input_schema || !p.fits() => {
                Err(ConfigError::InvalidPlan { tool: index })
            }
            Some(p) if !walker && !p.is_compiled() => Err(ConfigError::NoPlan { tool: index }),
            None if !walker => Err(ConfigError::NoPlan { tool: index }),
            _ => Ok(()),
        }
    }
}
