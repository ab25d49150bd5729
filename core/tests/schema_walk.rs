//! The schema walker chosen at compile time (feature `schema-walk`, on by default): with
//! it, a tool without a compiled plan — or whose schema does not fit one — has its
//! arguments checked by walking the schema's text; without it, `Server::new` refuses
//! such a tool, and a tool with a compiled plan is checked as before. CI runs it both
//! ways:
//!
//! ```text
//! cargo test -p emcp --test schema_walk
//! cargo test -p emcp --no-default-features --features legacy --test schema_walk
//! ```

use emcp::device::{Step, ToolCall};
use emcp::model::registry::Tool;
use emcp::model::schema::{Plan, WALKS};
use emcp::wire::error::ConfigError;
use emcp::{Config, Device, Server};

const SCHEMA: &str = r#"{"type":"object","properties":{"level":{"type":"integer","maximum":9}},"required":["level"]}"#;

/// Nine properties: one more than a plan holds.
const WIDE: &str = r#"{"type":"object","properties":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{"type":"integer"}}}"#;

/// Not compiled (too many properties), built outside `emcp::tool!`, which refuses it
/// at compile time in a build without the walker.
static WIDE_PLAN: Plan<'static> = Plan::compile(WIDE);

struct Board(&'static [Tool<'static>]);

impl Device for Board {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        self.0.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        call.text("set");
        Step::Done
    }
}

static PLANNED: [Tool<'static>; 1] = [emcp::tool!("dim", SCHEMA)];
static UNPLANNED: [Tool<'static>; 2] = [emcp::tool!("dim", SCHEMA), Tool::new("raw", SCHEMA)];
static UNCOMPILED: [Tool<'static>; 2] = [
    emcp::tool!("dim", SCHEMA),
    Tool::new("wide", WIDE).plan(&WIDE_PLAN),
];

/// A 2024-11-05 call in a build with that era, else a 2026-07-28 one.
fn call(name: &str, args: &str) -> String {
    let meta = if cfg!(feature = "legacy") {
        String::new()
    } else {
        r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#.into()
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{args}{meta}}}}}"#
    )
}

fn answer(server: &mut Server<Board>, line: &str) -> String {
    let mut out = heapless::Vec::<u8, 1024>::new();
    server.handle(line.as_bytes(), &mut out);
    String::from_utf8(out.to_vec()).unwrap()
}

#[test]
fn the_macro_compiles_every_schema_it_accepts() {
    assert!(PLANNED[0].plan.is_some_and(|p| p.is_compiled()));
    assert!(!WIDE_PLAN.is_compiled());
}

#[test]
fn compiled_plans_check_arguments_either_way() {
    let mut s = Server::new(Board(&PLANNED), Config::new("b", "1")).unwrap();
    assert!(answer(&mut s, &call("dim", r#"{"level":3}"#)).contains(r#""text":"set""#));
    let refused = answer(&mut s, &call("dim", r#"{"level":12}"#));
    assert!(refused.contains(r#""isError":true"#), "{refused}");
    assert!(
        refused.contains(r#"Invalid argument \"level\": must be <= 9"#),
        "{refused}"
    );
}

/// A server of `tools`, whose second tool the walker must check: with the walker it is
/// built and refuses `args` for `name` with a message holding `expect`; without, it is
/// not built (`NoPlan`, tool 1).
fn needs_the_walker(tools: &'static [Tool<'static>], name: &str, args: &str, expect: &str) {
    let built = Server::new(Board(tools), Config::new("b", "1"));
    assert_eq!(built.is_ok(), WALKS, "{:?}", built.as_ref().err());
    match built {
        Ok(mut s) => {
            let refused = answer(&mut s, &call(name, args));
            assert!(refused.contains(expect), "{refused}");
        }
        Err(e) => {
            assert_eq!(e, ConfigError::NoPlan { tool: 1 });
            assert_eq!(
                e.to_string(),
                "tool 1: it has no compiled plan, and the schema walker is not built in \
                 (feature `schema-walk`)"
            );
        }
    }
}

#[test]
fn a_tool_without_a_plan_needs_the_walker() {
    needs_the_walker(&UNPLANNED, "raw", r#"{"level":12}"#, "must be <= 9");
}

#[test]
fn a_schema_that_does_not_fit_a_plan_needs_the_walker() {
    needs_the_walker(&UNCOMPILED, "wide", r#"{"i":"x"}"#, "expected type");
}

#[test]
fn an_uncompiled_plan_checked_directly_refuses_without_the_walker() {
    let checked = WIDE_PLAN.validate(Some(emcp::wire::json::parse(br#"{"i":1}"#).unwrap()));
    assert_eq!(checked.is_ok(), WALKS, "{checked:?}");
}
