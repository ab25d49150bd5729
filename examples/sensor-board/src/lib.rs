//! The simulated sensor board: the device every emcp example implements
//! (`docs/board.md` is its specification).
//!
//! It is `no_std` and uses exactly the core API a firmware uses: static descriptors,
//! a [`Device`] implementation, values kept as integer tenths (no float formatting),
//! text assembled by hand (no `core::fmt`).
#![no_std]

mod hardware;

pub use hardware::Hardware;

use emcp::device::{
    Completion, LogLevel, PromptGet, ReadError, Reference, ResourceRead, Role, Target, ToolCall,
};
#[cfg(feature = "tasks")]
use emcp::model::registry::TaskSupport;
use emcp::model::registry::{
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations,
};
use emcp::state::policy::Verdict;
use emcp::{Config, Device, Step};

/// The board's server configuration.
pub const CONFIG: Config = Config::new("emcp-sensor-board", "0.1.0")
    .title("emcp simulated sensor board")
    .instructions(
        "Simulated sensor board: read sensors with read_sensor or the sensor:// resources; \
         set_led and move_servo drive the actuators.",
    );

const ACTUATOR: ToolAnnotations<'static> = ToolAnnotations::new()
    .read_only(false)
    .destructive(false)
    .idempotent(true)
    .open_world(false);

/// How many tools the board has: `calibrate` is the 4th, in the tasks build only.
#[cfg(not(feature = "tasks"))]
pub const TOOL_COUNT: usize = 3;
/// How many tools the board has: `calibrate` is the 4th, in the tasks build only.
#[cfg(feature = "tasks")]
pub const TOOL_COUNT: usize = 4;

/// Index of `move_servo` in [`TOOLS`].
pub const MOVE_SERVO: usize = 2;
/// Index of `calibrate` in [`TOOLS`] (tasks build).
#[cfg(feature = "tasks")]
pub const CALIBRATE: usize = 3;

/// How long a calibration takes, in milliseconds of device time.
#[cfg(feature = "tasks")]
pub const CALIBRATE_MS: u64 = 2_000;

/// `move_servo` as the build runs it: in the tasks build it may run as a task.
#[cfg(feature = "tasks")]
const fn servo_execution(tool: Tool<'static>) -> Tool<'static> {
    tool.task_support(TaskSupport::Optional)
}
/// `move_servo` as the build runs it: without tasks, as it is.
#[cfg(not(feature = "tasks"))]
const fn servo_execution(tool: Tool<'static>) -> Tool<'static> {
    tool
}

/// `read_sensor`, as [`TOOLS`] lists it (a board with hardware describes it anew).
const READ_SENSOR: Tool<'static> = emcp::tool!(
    "read_sensor",
    r#"{"type":"object","properties":{"sensor":{"type":"string","enum":["temperature","humidity","pressure"],"description":"Which sensor to read"}},"required":["sensor"],"additionalProperties":false}"#,
)
.title("Read sensor")
.description("Read the current value of one on-board sensor.")
.output_schema(
    r#"{"type":"object","properties":{"sensor":{"type":"string"},"value":{"type":"number"},"unit":{"type":"string"}},"required":["sensor","value","unit"]}"#,
)
.annotations(ToolAnnotations::new().read_only(true).open_world(false));

/// `set_led`, as [`TOOLS`] lists it.
const SET_LED: Tool<'static> = emcp::tool!(
    "set_led",
    r#"{"type":"object","properties":{"color":{"type":"string","enum":["off","red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["color"],"additionalProperties":false}"#,
)
.title("Set LED")
.description("Set the status LED colour and brightness (0-100 %).")
.annotations(ACTUATOR);

/// `move_servo`, as [`TOOLS`] lists it.
const MOVE_SERVO_TOOL: Tool<'static> = servo_execution(
    emcp::tool!(
        "move_servo",
        r#"{"type":"object","properties":{"angle":{"type":"number","minimum":-90,"maximum":90}},"required":["angle"],"additionalProperties":false}"#,
    )
    .title("Move servo")
    .description("Move the servo to an angle in degrees; reports progress in 3 steps and can be cancelled.")
    .annotations(ACTUATOR),
);

/// The board's tools (their input schemas compiled at compile time: `emcp::tool!`).
pub static TOOLS: [Tool<'static>; TOOL_COUNT] = [
    READ_SENSOR,
    SET_LED,
    MOVE_SERVO_TOOL,
    #[cfg(feature = "tasks")]
    emcp::tool!(
        "calibrate",
        r#"{"type":"object","properties":{"sensor":{"type":"string","enum":["temperature","humidity","pressure"],"description":"Which sensor to calibrate"}},"required":["sensor"],"additionalProperties":false}"#,
    )
    .title("Calibrate sensor")
    .description("Calibrate one on-board sensor; takes about two seconds and runs only as a task.")
    .annotations(ACTUATOR)
    .task_support(TaskSupport::Required),
];

/// Index of `led://state` in [`RESOURCES`].
pub const LED_RESOURCE: usize = 3;

/// Size of the `log://samples` blob.
pub const SAMPLES_LEN: usize = 4096;

/// The board's resources.
pub static RESOURCES: [Resource<'static>; 5] = [
    Resource::new("sensor://temperature", "temperature")
        .title("Temperature")
        .description("Air temperature in degrees Celsius")
        .mime_type("application/json"),
    Resource::new("sensor://humidity", "humidity")
        .title("Humidity")
        .description("Relative humidity in percent")
        .mime_type("application/json"),
    Resource::new("sensor://pressure", "pressure")
        .title("Pressure")
        .description("Air pressure in hectopascal")
        .mime_type("application/json"),
    Resource::new("led://state", "led")
        .title("LED state")
        .description("Colour and brightness of the status LED")
        .mime_type("application/json"),
    Resource::new("log://samples", "samples")
        .title("Sample log")
        .description("Raw sample log (4096 bytes)")
        .mime_type("application/octet-stream")
        .size(SAMPLES_LEN as u64),
];

/// The board's resource templates.
pub static TEMPLATES: [ResourceTemplate<'static>; 1] =
    [
        ResourceTemplate::new("sensor://{name}/history", "sensor-history")
            .title("Sensor history")
            .description("The last 8 readings of a sensor")
            .mime_type("text/csv"),
    ];

static DIAGNOSE_ARGS: [PromptArgument<'static>; 1] = [PromptArgument::new("symptom")
    .description("What is wrong with the board")
    .required()];

/// The board's prompts.
pub static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("diagnose_board")
    .title("Diagnose board")
    .description("Ask the assistant to diagnose a board problem from the current readings.")
    .arguments(&DIAGNOSE_ARGS)];

/// A sensor of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sensor {
    /// Air temperature.
    Temperature,
    /// Relative humidity.
    Humidity,
    /// Air pressure.
    Pressure,
}

impl Sensor {
    const ALL: [Sensor; 3] = [Sensor::Temperature, Sensor::Humidity, Sensor::Pressure];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Sensor::Temperature => "temperature",
            Sensor::Humidity => "humidity",
            Sensor::Pressure => "pressure",
        }
    }
    fn unit(self) -> &'static str {
        match self {
            Sensor::Temperature => "C",
            Sensor::Humidity => "%",
            Sensor::Pressure => "hPa",
        }
    }
    fn json_key(self) -> &'static str {
        match self {
            Sensor::Temperature => "celsius",
            Sensor::Humidity => "percent",
            Sensor::Pressure => "hpa",
        }
    }
    fn by_name(name: &str) -> Option<Sensor> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// LED colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// Off.
    Off,
    /// Red.
    Red,
    /// Green.
    Green,
    /// Blue.
    Blue,
}

impl Color {
    const ALL: [Color; 4] = [Color::Off, Color::Red, Color::Green, Color::Blue];

    fn name(self) -> &'static str {
        match self {
            Color::Off => "off",
            Color::Red => "red",
            Color::Green => "green",
            Color::Blue => "blue",
        }
    }
}

/// A line of text assembled without `core::fmt` (longer text is cut off).
type Line = heapless::String<40>;

/// `n` in decimal (`0`, `100`) appended to `out`: digits by hand, no `core::fmt`.
fn push_u32(out: &mut Line, n: u32) {
    // The digits, last first, then in order.
    let mut digits = [0u8; 10];
    let mut len = 0;
    let mut rest = n;
    for d in digits.iter_mut() {
        *d = b'0' + (rest % 10) as u8;
        len += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in digits.iter().take(len).rev() {
        let _ = out.push(char::from(d));
    }
}

/// `tenths` with one decimal (`21.5`, `-0.3`, `40.0`) appended to `out`.
fn push_tenths(out: &mut Line, tenths: i32) {
    if tenths < 0 {
        let _ = out.push('-');
    }
    let v = tenths.unsigned_abs();
    push_u32(out, v / 10);
    let _ = out.push('.');
    let _ = out.push(char::from(b'0' + (v % 10) as u8));
}

/// A reading in tenths with one decimal, as a line of its own (`no reading` for none).
fn tenths_line(tenths: Option<i32>) -> Line {
    let mut line = Line::new();
    match tenths {
        Some(tenths) => push_tenths(&mut line, tenths),
        None => {
            let _ = line.push_str("no reading");
        }
    }
    line
}

/// The result text of a servo move to `tenths` of a degree: `servo: 45.0 deg`.
fn servo_text(call: &mut ToolCall<'_>, tenths: i32) {
    let mut text = Line::new();
    let _ = text.push_str("servo: ");
    push_tenths(&mut text, tenths);
    let _ = text.push_str(" deg");
    call.text(&text);
}

/// The board: sensor registers, the LED, the servo; simulated, but for the
/// [`Hardware`] a firmware hands it ([`Board::with_hardware`]).
#[derive(Debug)]
pub struct Board {
    /// The real hardware's hooks (none: all simulated).
    hardware: Hardware,
    led: Color,
    brightness: u8,
    /// Servo angle in tenths of a degree.
    servo: i32,
    /// Servo moves cancelled by the client.
    cancelled: u32,
    changes: u32,
    /// The arm switch: the servo may move only while it is closed.
    armed: bool,
    /// The device clock in milliseconds (tasks build): the host binary gives the time
    /// since the Unix epoch, a firmware the time since boot.
    #[cfg(feature = "tasks")]
    clock: fn() -> u64,
}

/// The clock of a board given none: time stands still (tasks never expire, and a
/// calibration never ends).
#[cfg(feature = "tasks")]
fn stopped_clock() -> u64 {
    0
}

impl Default for Board {
    fn default() -> Self {
        Self::new()
    }
}

const SERVO_STEPS: u32 = 3;
const SERVO_OFFSET: i32 = 1000;
const SERVO_MESSAGES: [&str; 3] = ["servo step 1/3", "servo step 2/3", "servo step 3/3"];

impl Board {
    /// The board at power-on.
    pub const fn new() -> Self {
        Self {
            hardware: Hardware::NONE,
            led: Color::Off,
            brightness: 0,
            servo: 0,
            cancelled: 0,
            changes: 0,
            armed: true,
            #[cfg(feature = "tasks")]
            clock: stopped_clock,
        }
    }

    /// The board with its clock (tasks build): `clock` returns milliseconds, since the
    /// Unix epoch on a host, since boot on a firmware. The board library reads no clock
    /// of its own (it is `no_std`).
    #[cfg(feature = "tasks")]
    pub const fn with_clock(mut self, clock: fn() -> u64) -> Self {
        self.clock = clock;
        self
    }

    /// The board with real hardware where `hardware` has a hook: the temperature
    /// sensor read by `read_sensor` and the `sensor://temperature` resource, the
    /// status LED driven by `set_led`. The rest stays simulated, and the tools'
    /// descriptions say so. (A firmware whose application builds the board installs
    /// its hooks instead: [`Hardware::install`].)
    pub const fn with_hardware(mut self, hardware: Hardware) -> Self {
        self.hardware = hardware;
        self
    }

    /// The hooks in force: the board's own ([`Board::with_hardware`]), else those
    /// installed for the firmware ([`Hardware::install`]), else none.
    fn hardware(&self) -> Hardware {
        if self.hardware.any() {
            self.hardware
        } else {
            Hardware::installed()
        }
    }

    /// Open or close the arm switch (a physical input on a real board): while it is
    /// open, `move_servo` is refused before it runs.
    pub fn set_armed(&mut self, armed: bool) {
        self.armed = armed;
    }

    /// A sensor register, in tenths: the hardware's temperature where the board has a
    /// sensor (`None` while it has no reading), else the simulated value.
    fn reading(&self, sensor: Sensor) -> Option<i32> {
        match sensor {
            Sensor::Temperature => match self.hardware().temperature {
                Some(read) => read(),
                None => Some(215),
            },
            Sensor::Humidity => Some(400),
            Sensor::Pressure => Some(10132),
        }
    }

    /// The current servo angle in tenths of a degree.
    pub fn servo(&self) -> i32 {
        self.servo
    }

    /// How many servo moves the client cancelled.
    pub fn cancelled(&self) -> u32 {
        self.cancelled
    }

    fn read_sensor(&mut self, call: &mut ToolCall<'_>) {
        // The schema has already checked the argument: one of the names, given once.
        // Read it in place (escapes decoded as it compares), no deserialiser needed.
        let sensor = call.arg("sensor").and_then(|v| v.as_str());
        let Some(s) = sensor.and_then(|n| Sensor::ALL.into_iter().find(|s| n.eq_str(s.name())))
        else {
            call.error("sensor must be one of temperature, humidity, pressure");
            return;
        };
        let Some(value) = self.reading(s) else {
            call.error("the sensor has no reading yet");
            return;
        };
        // "temperature: 21.5 C", the value with one decimal.
        let mut text = Line::new();
        let _ = text.push_str(s.name());
        let _ = text.push_str(": ");
        let start = text.len();
        push_tenths(&mut text, value);
        let end = text.len();
        let _ = text.push(' ');
        let _ = text.push_str(s.unit());
        call.text(&text);
        // The value as a JSON number: the same digits, which are the shortest form of
        // the float `value / 10` (without a `.0`, as a float prints an integer).
        let digits = text.get(start..end).unwrap_or("0");
        let number = digits.strip_suffix(".0").unwrap_or(digits);
        call.structured(|w| {
            w.begin_object();
            w.key("sensor");
            w.str(s.name());
            w.key("value");
            w.raw_value(number.as_bytes());
            w.key("unit");
            w.str(s.unit());
            w.end_object();
        });
    }

    fn set_led(&mut self, call: &mut ToolCall<'_>) {
        // The schema has already checked the arguments: a colour of the enum, and a
        // brightness, if given, integral within 0..=100, written as any JSON number
        // (`1e2`, `50.0`): read from its decimal digits, exactly, no float parsing.
        let color = call.arg("color").and_then(|v| v.as_str());
        let color = color.and_then(|n| Color::ALL.into_iter().find(|c| n.eq_str(c.name())));
        let brightness = match call.arg("brightness") {
            None => Some(100),
            Some(v) => v
                .as_i64_scaled(0)
                .and_then(|b| u8::try_from(b).ok())
                .filter(|&b| b <= 100),
        };
        let (Some(color), Some(brightness)) = (color, brightness) else {
            call.error("invalid set_led arguments");
            return;
        };
        self.led = color;
        self.brightness = match color {
            Color::Off => 0,
            _ => brightness,
        };
        self.changes |= 1 << LED_RESOURCE;
        if let Some(set) = self.hardware().led {
            set(self.brightness > 0);
        }
        // "led: green 100%"
        let mut text = Line::new();
        let _ = text.push_str("led: ");
        let _ = text.push_str(self.led.name());
        let _ = text.push(' ');
        push_u32(&mut text, u32::from(self.brightness));
        let _ = text.push('%');
        call.log(LogLevel::Info, "led", &text);
        call.text(&text);
    }

    fn start_servo(&mut self, call: &mut ToolCall<'_>) -> Step {
        // Tenths of a degree, truncated toward zero, exact from the decimal digits.
        let Some(tenths) = call.arg("angle").and_then(|a| a.as_i64_scaled(1)) else {
            call.error("angle must be a number");
            return Step::Done;
        };
        // The job's state word holds the target (schema-bounded to -90..90 degrees, so
        // 100..=1900 after the offset) above the step count in the low byte.
        let target = tenths.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        call.set_state(((target + SERVO_OFFSET) as u32) << 8);
        if call.can_defer() {
            return Step::Pending;
        }
        // No job slot free: move in one go.
        let mut step = Step::Pending;
        while step == Step::Pending {
            step = self.servo_step(call);
        }
        step
    }

    fn servo_step(&mut self, call: &mut ToolCall<'_>) -> Step {
        let state = call.state();
        let step = (state & 0xff) + 1;
        let msg = SERVO_MESSAGES.get(step as usize - 1).copied();
        call.progress_u64(u64::from(step), Some(u64::from(SERVO_STEPS)), msg);
        if step < SERVO_STEPS {
            call.set_state(state + 1);
            return Step::Pending;
        }
        self.servo = (state >> 8) as i32 - SERVO_OFFSET;
        servo_text(call, self.servo);
        Step::Done
    }
}

/// `calibrate` (tasks build): the sensor's index in the job's state word, the start
/// time (8 bytes, little-endian milliseconds) kept with the task.
#[cfg(feature = "tasks")]
impl Board {
    fn start_calibration(&mut self, call: &mut ToolCall<'_>) -> Step {
        let sensor = call.arg("sensor").and_then(|v| v.as_str());
        let Some(i) = sensor.and_then(|n| Sensor::ALL.iter().position(|s| n.eq_str(s.name())))
        else {
            call.error("sensor must be one of temperature, humidity, pressure");
            return Step::Done;
        };
        if !call.can_defer() {
            // The core runs a `Required` tool only as a task, which can always wait.
            call.error("calibrate runs only as a task");
            return Step::Done;
        }
        call.set_state(i as u32);
        call.set_request_state(&(self.clock)().to_le_bytes());
        Step::Pending
    }

    /// Done once [`CALIBRATE_MS`] have passed since the start.
    fn calibration_step(&mut self, call: &mut ToolCall<'_>) -> Step {
        let start = call
            .request_state()
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes);
        if (self.clock)().saturating_sub(start) < CALIBRATE_MS {
            return Step::Pending;
        }
        Step::Done
    }
}

fn decoded<'b>(s: emcp::wire::json::Str<'_>, buf: &'b mut [u8]) -> Option<&'b str> {
    s.unescape_into(buf).ok()
}

impl Device for Board {
    fn tool(&self, index: usize) -> Option<Tool<'static>> {
        let tool = TOOLS.get(index).copied()?;
        Some(self.hardware().describe(index, tool))
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

    fn authorize(&mut self, tool: usize, _args: Option<emcp::wire::json::Value<'_>>) -> Verdict {
        // move_servo drives a motor: only while the arm switch is closed.
        if tool == MOVE_SERVO && !self.armed {
            return Verdict::Deny("move_servo refused: the arm switch is off");
        }
        Verdict::Allow
    }

    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.tool() {
            0 => self.read_sensor(call),
            1 => self.set_led(call),
            MOVE_SERVO => return self.start_servo(call),
            #[cfg(feature = "tasks")]
            CALIBRATE => return self.start_calibration(call),
            _ => {
                call.error("unknown tool");
            }
        }
        Step::Done
    }

    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.tool() {
            #[cfg(feature = "tasks")]
            CALIBRATE => self.calibration_step(call),
            _ => self.servo_step(call),
        }
    }

    fn cancel_tool(&mut self, _tool: usize, _state: u32) {
        // A calibration cancelled leaves the sensor as it was (tasks build; without it
        // only the servo can be pending, and the default build's code stays as it was).
        #[cfg(feature = "tasks")]
        if _tool != MOVE_SERVO {
            return;
        }
        // The servo stops where it is: it never reaches the target.
        self.cancelled += 1;
    }

    /// A completed task's result, written again from its state word: the servo's
    /// target above the step count, or the calibrated sensor's index.
    #[cfg(feature = "tasks")]
    fn task_result(&mut self, call: &mut ToolCall<'_>) {
        match call.tool() {
            MOVE_SERVO => {
                let angle = (call.state() >> 8) as i32 - SERVO_OFFSET;
                servo_text(call, angle);
            }
            CALIBRATE => {
                let sensor = Sensor::ALL.get(call.state() as usize).copied();
                let mut text = Line::new();
                let _ = text.push_str("calibrated: ");
                let _ = text.push_str(sensor.map_or("unknown", Sensor::name));
                call.text(&text);
            }
            _ => {}
        }
    }

    #[cfg(feature = "tasks")]
    fn now_ms(&self) -> u64 {
        (self.clock)()
    }

    fn read_resource(&mut self, read: &mut ResourceRead<'_>) -> Result<(), ReadError> {
        let json = Some("application/json");
        match read.target() {
            Target::Resource(i @ 0..=2) => {
                let s = Sensor::ALL.get(i).copied().ok_or(ReadError::NotFound)?;
                // {"celsius":21.5}
                let mut text = Line::new();
                let _ = text.push_str("{\"");
                let _ = text.push_str(s.json_key());
                let _ = text.push_str("\":");
                push_tenths(&mut text, self.reading(s).ok_or(ReadError::Failed)?);
                let _ = text.push('}');
                read.text(json, &text);
            }
            Target::Resource(LED_RESOURCE) => {
                // {"color":"green","brightness":100}
                let mut text = Line::new();
                let _ = text.push_str("{\"color\":\"");
                let _ = text.push_str(self.led.name());
                let _ = text.push_str("\",\"brightness\":");
                push_u32(&mut text, u32::from(self.brightness));
                let _ = text.push('}');
                read.text(json, &text);
            }
            Target::Resource(4) => {
                read.blob_begin(Some("application/octet-stream"));
                // Generated on the fly, 64 bytes at a time: no 4 KiB buffer.
                let mut chunk = [0u8; 64];
                for start in (0..SAMPLES_LEN).step_by(chunk.len()) {
                    for (k, b) in chunk.iter_mut().enumerate() {
                        *b = ((start + k) * 31 + 7) as u8;
                    }
                    read.data(&chunk);
                }
            }
            Target::Template(0) => {
                let s = read
                    .var("name")
                    .and_then(Sensor::by_name)
                    .ok_or(ReadError::NotFound)?;
                let now = self.reading(s).ok_or(ReadError::Failed)?;
                read.text_begin(Some("text/csv"));
                read.part("sample,value\n");
                for i in 0..8 {
                    // "3,21.1\n"
                    let mut row = Line::new();
                    push_u32(&mut row, i as u32);
                    let _ = row.push(',');
                    push_tenths(&mut row, now - (7 - i));
                    let _ = row.push('\n');
                    read.part(&row);
                }
            }
            _ => return Err(ReadError::NotFound),
        }
        Ok(())
    }

    fn get_prompt(&mut self, get: &mut PromptGet<'_>) -> Result<(), ReadError> {
        let Some(symptom) = get.arg("symptom") else {
            return Err(ReadError::Failed);
        };
        get.description("Diagnose the sensor board");
        get.text_begin(Role::User);
        get.part("The sensor board shows this symptom: ");
        get.part_str(symptom);
        get.part("\nCurrent readings: temperature ");
        get.part(&tenths_line(self.reading(Sensor::Temperature)));
        get.part(" C, humidity ");
        get.part(&tenths_line(self.reading(Sensor::Humidity)));
        get.part(" %, pressure ");
        get.part(&tenths_line(self.reading(Sensor::Pressure)));
        get.part(" hPa, LED ");
        get.part(self.led.name());
        let mut brightness = Line::new();
        let _ = brightness.push(' ');
        push_u32(&mut brightness, u32::from(self.brightness));
        get.part(&brightness);
        get.part("%.\n");
        get.part("What is the likely cause and what should I check first?");
        Ok(())
    }

    fn complete(&mut self, c: &mut Completion<'_>) {
        let mut buf = [0u8; 64];
        let Some(prefix) = decoded(c.value(), &mut buf) else {
            return;
        };
        let mut name = [0u8; 16];
        let arg = decoded(c.argument(), &mut name).unwrap_or("");
        let candidates: &[&str] = match c.reference() {
            Reference::Resource(uri) if uri.eq_str("sensor://{name}/history") && arg == "name" => {
                &["temperature", "humidity", "pressure"]
            }
            Reference::Prompt(0) if arg == "symptom" => &["no reading", "wrong value", "led stuck"],
            _ => &[],
        };
        for v in candidates.iter().filter(|v| v.starts_with(prefix)) {
            c.offer(v);
        }
    }

    fn take_changes(&mut self) -> u32 {
        core::mem::take(&mut self.changes)
    }
}
