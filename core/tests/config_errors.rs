//! What `Server::new` says when it refuses a device: each `ConfigError` names the
//! descriptor (by its index) or the limit at fault, in its `Display`; and the
//! fields of `Config`, the same in every build.

use emcp::model::registry::{Resource, ResourceTemplate, Tool};
use emcp::model::schema::{Plan, WALKS};
use emcp::state::subscription::MAX_RESOURCES;
use emcp::wire::error::ConfigError;
use emcp::{Config, Device, Server};

/// A device of these tools, templates and resources.
struct Board {
    tools: &'static [Tool<'static>],
    templates: &'static [ResourceTemplate<'static>],
    resources: usize,
}

impl Device for Board {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        self.tools.get(i).copied()
    }
    fn resource_template(&self, i: usize) -> Option<ResourceTemplate<'static>> {
        self.templates.get(i).copied()
    }
    fn resource(&self, i: usize) -> Option<Resource<'static>> {
        (i < self.resources).then(|| Resource::new("mem://r", "r"))
    }
}

/// `Server::new`'s error for a board, and its message.
fn refused(board: Board) -> (ConfigError, String) {
    match Server::<Board>::new(board, Config::new("b", "1")) {
        Ok(_) => panic!("the board was accepted"),
        Err(e) => (e, e.to_string()),
    }
}

fn tools(tools: &'static [Tool<'static>]) -> Board {
    Board {
        tools,
        templates: &[],
        resources: 0,
    }
}

const OBJECT: &str = r#"{"type":"object"}"#;
static COMPILED: Plan<'static> = Plan::compile(OBJECT);
static OTHER: Plan<'static> = Plan::compile(r#"{"type":"object","properties":{}}"#);

#[test]
fn an_input_schema_that_is_not_an_object() {
    static TOOLS: [Tool<'static>; 2] = [
        Tool::new("fine", OBJECT).plan(&COMPILED),
        Tool::new("set_led", r#"{"type":"object""#),
    ];
    let (e, shown) = refused(tools(&TOOLS));
    assert_eq!(e, ConfigError::InvalidSchema { tool: 1 });
    assert_eq!(shown, "tool 1: its input schema is not a JSON object");
}

#[test]
fn an_output_schema_that_is_not_an_object() {
    static TOOLS: [Tool<'static>; 1] = [Tool::new("read", OBJECT)
        .output_schema("[]")
        .plan(&COMPILED)];
    let (e, shown) = refused(tools(&TOOLS));
    assert_eq!(e, ConfigError::InvalidOutputSchema { tool: 0 });
    assert_eq!(shown, "tool 0: its output schema is not a JSON object");
}

#[test]
fn a_plan_of_another_schema() {
    static TOOLS: [Tool<'static>; 1] = [Tool::new("dim", OBJECT).plan(&OTHER)];
    let (e, shown) = refused(tools(&TOOLS));
    assert_eq!(e, ConfigError::InvalidPlan { tool: 0 });
    assert_eq!(
        shown,
        "tool 0: its compiled plan is not of its input schema"
    );
}

#[test]
fn a_tool_without_a_plan_is_refused_only_without_the_walker() {
    static TOOLS: [Tool<'static>; 1] = [Tool::new("raw", OBJECT)];
    let built = Server::<Board>::new(tools(&TOOLS), Config::new("b", "1"));
    assert_eq!(built.is_ok(), WALKS);
    if let Err(e) = built {
        assert_eq!(
            e.to_string(),
            "tool 0: it has no compiled plan, and the schema walker is not built in \
             (feature `schema-walk`)"
        );
    }
}

// Without `resources` templates are never served, nor checked.
#[cfg(feature = "resources")]
#[test]
fn a_template_that_is_not_one() {
    static TEMPLATES: [ResourceTemplate<'static>; 2] = [
        ResourceTemplate::new("sensor://{name}", "sensor"),
        ResourceTemplate::new("log://{day", "log"),
    ];
    let (e, shown) = refused(Board {
        tools: &[],
        templates: &TEMPLATES,
        resources: 0,
    });
    assert_eq!(e, ConfigError::InvalidTemplate { template: 1 });
    assert_eq!(
        shown,
        "resource template 1: not an RFC 6570 level-1 URI template"
    );
}

#[test]
fn more_resources_than_the_limit() {
    let (e, shown) = refused(Board {
        tools: &[],
        templates: &[],
        resources: MAX_RESOURCES + 1,
    });
    assert_eq!(
        e,
        ConfigError::TooManyResources {
            limit: MAX_RESOURCES
        }
    );
    assert_eq!(
        shown,
        format!(
            "more than {MAX_RESOURCES} resources (MAX_RESOURCES): they could not all be \
             subscribed to"
        )
    );
    // As many as the limit are served.
    assert!(Server::<Board>::new(
        Board {
            tools: &[],
            templates: &[],
            resources: MAX_RESOURCES,
        },
        Config::new("b", "1"),
    )
    .is_ok());
}

/// The task times are fields of every build (inert without the feature `tasks`), so a
/// configuration written as a struct literal compiles whatever the features.
#[test]
fn task_times_exist_in_every_build() {
    static CONFIG: Config = Config {
        task_ttl_ms: 5_000,
        task_poll_ms: 100,
        ..Config::new("b", "1")
    };
    assert_eq!(
        (
            Config::new("b", "1").task_ttl_ms,
            Config::new("b", "1").task_poll_ms
        ),
        (60_000, 500)
    );
    assert!(Server::<Board>::new(tools(&[]), CONFIG).is_ok());
}
