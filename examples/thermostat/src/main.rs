//! The thermostat of `docs/first-device.md`: a device of your own in Rust, served as
//! an MCP server on stdin/stdout.
//!
//! Two tools (one with structured results), a resource, and a change notification
//! when the target changes. Run it with `cargo run -p thermostat`; connect any MCP
//! client to that command.

use std::process::ExitCode;

use emcp::{
    Config, Device, ReadError, Resource, ResourceRead, Server, Step, Target, Tool, ToolAnnotations,
    ToolCall,
};

/// What the device offers: `static` descriptors, the schemas checked and compiled
/// when the program is built (`emcp::tool!`).
static TOOLS: [Tool<'static>; 2] = [
    emcp::tool!("read_temperature", r#"{"type":"object","additionalProperties":false}"#)
        .description("The room temperature and the target, in degrees Celsius.")
        .output_schema(
            r#"{"type":"object","properties":{"celsius":{"type":"number"},"target":{"type":"number"}},"required":["celsius","target"]}"#,
        )
        .annotations(ToolAnnotations::new().read_only(true)),
    emcp::tool!(
        "set_target",
        r#"{"type":"object","properties":{"celsius":{"type":"number","minimum":5,"maximum":30}},"required":["celsius"],"additionalProperties":false}"#
    )
    .description("Set the target temperature (5 to 30 degrees Celsius)."),
];

static RESOURCES: [Resource<'static>; 1] = [Resource::new("thermostat://state", "state")
    .description("The temperature and the target, as JSON")
    .mime_type("application/json")];

/// The device's state; on hardware, its sensor and its heater.
struct Thermostat {
    /// Tenths of a degree.
    celsius: i64,
    target: i64,
    /// Resources changed since the server last asked (bit i: `RESOURCES[i]`).
    changes: u32,
}

impl Device for Thermostat {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }

    fn resource(&self, i: usize) -> Option<Resource<'static>> {
        RESOURCES.get(i).copied()
    }

    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        // The arguments were checked against the schema before this runs.
        match call.tool() {
            0 => {
                let (celsius, target) = (self.celsius, self.target);
                // A text block for clients that read no structured content, then the
                // structured result its output schema describes.
                call.text_fmt(format_args!(
                    "{} C, target {} C",
                    Tenths(celsius),
                    Tenths(target)
                ));
                call.structured(|w| {
                    w.begin_object();
                    w.key("celsius");
                    w.f64(celsius as f64 / 10.0);
                    w.key("target");
                    w.f64(target as f64 / 10.0);
                    w.end_object();
                });
            }
            _ => {
                // A number, in tenths, exact from its decimal digits.
                let Some(target) = call.arg("celsius").and_then(|v| v.as_i64_scaled(1)) else {
                    call.error("celsius must be a number");
                    return Step::Done;
                };
                self.target = target;
                self.changes |= 1; // thermostat://state: subscribers are told
                call.text_fmt(format_args!("target set to {} C", Tenths(target)));
            }
        }
        Step::Done
    }

    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        match read.target() {
            Target::Resource(0) => {
                read.text_fmt(
                    Some("application/json"),
                    format_args!(
                        "{{\"celsius\":{},\"target\":{}}}",
                        Tenths(self.celsius),
                        Tenths(self.target)
                    ),
                );
                Ok(())
            }
            _ => Err(ReadError::NotFound),
        }
    }

    fn take_changes(&mut self) -> u32 {
        core::mem::take(&mut self.changes)
    }
}

/// Tenths of a degree, written as a decimal number (`215` as `21.5`).
struct Tenths(i64);

impl core::fmt::Display for Tenths {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let v = self.0.unsigned_abs();
        write!(f, "{sign}{}.{}", v / 10, v % 10)
    }
}

fn main() -> ExitCode {
    let device = Thermostat {
        celsius: 215,
        target: 200,
        changes: 0,
    };
    let config = Config::new("thermostat", "0.1.0")
        .instructions("A thermostat: read_temperature, set_target, thermostat://state.");
    let mut server: Server<Thermostat> = match Server::new(device, config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("thermostat: invalid configuration: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    // MCP on stdin/stdout until end of input; only protocol goes to stdout.
    match emcp_host::serve_stdio(&mut server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("thermostat: stdout: {e}");
            ExitCode::FAILURE
        }
    }
}
