//! The board's real hardware, where a firmware has some: plain function pointers, no
//! heap, no generics (the server's type stays `emcp::Server<sensor_board::Board>`,
//! which non-generic tasks can name). Two ways in:
//! - [`Board::with_hardware`](crate::Board::with_hardware), where the firmware builds
//!   the board itself;
//! - [`Hardware::install`], where an application builds it: `examples/net-app`, which
//!   every networked board runs, builds `Board::new()` and knows nothing of any
//!   board's hardware, so a board crate installs its hooks before it starts the
//!   application, and the application's configuration stays the same for every
//!   device it can serve. A board's own hooks ([`Board::with_hardware`](crate::Board::with_hardware))
//!   come before installed ones.
//!
//! Without hooks (the host binary, the QEMU images) the board is simulated exactly
//! as `docs/board.md` specifies. With a hook, that part of the board is the
//! hardware's, and the tool descriptions say which parts stay simulated.
//!
//! The hooks are called from inside a request, synchronously: a temperature hook
//! returns the latest reading a board task took (an ADC conversion is not waited
//! for), an LED hook records the wish for a board task to apply (a radio's GPIO is
//! driven over SPI, asynchronously).

use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};

use emcp::model::registry::Tool;

/// The hooks [`Hardware::install`] installed: null for none.
static INSTALLED: AtomicPtr<Hardware> = AtomicPtr::new(ptr::null_mut());

/// Hooks into a board's hardware; the parts with none stay simulated.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hardware {
    /// The temperature in tenths of a degree Celsius (`215` is 21.5 °C), or `None`
    /// while the sensor has no reading (a read then fails with a tool error).
    pub temperature: Option<fn() -> Option<i32>>,
    /// Lights the status LED (`true`) or puts it out: called with `true` for any
    /// colour but `off` at a brightness above 0. One colour, on or off: colour and
    /// brightness are kept and reported as set.
    pub led: Option<fn(bool)>,
}

impl Hardware {
    /// No hardware: everything simulated.
    pub const NONE: Self = Self {
        temperature: None,
        led: None,
    };

    /// With a temperature sensor: `read` returns tenths of a degree Celsius.
    pub const fn temperature(mut self, read: fn() -> Option<i32>) -> Self {
        self.temperature = Some(read);
        self
    }

    /// With a status LED: `set` lights it (`true`) or puts it out.
    pub const fn led(mut self, set: fn(bool)) -> Self {
        self.led = Some(set);
        self
    }

    /// Installs `hardware` for every board built without hooks of its own: call it
    /// before starting an application that builds the board (`examples/net-app`).
    /// Only stored: one atomic word, on every target (no compare-and-swap needed).
    pub fn install(hardware: &'static Hardware) {
        INSTALLED.store(ptr::from_ref(hardware).cast_mut(), Ordering::Release);
    }

    /// The installed hooks ([`Hardware::install`]), or none.
    pub fn installed() -> Hardware {
        let installed = INSTALLED.load(Ordering::Acquire);
        // SAFETY: INSTALLED holds null or what `install` stored: a pointer made from a
        // `&'static Hardware`, valid for ever and never written through.
        unsafe { installed.as_ref() }
            .copied()
            .unwrap_or(Hardware::NONE)
    }

    /// Whether the board has any hardware (then the simulated parts say so).
    pub const fn any(&self) -> bool {
        self.temperature.is_some() || self.led.is_some()
    }

    /// Tool `index` as this board serves it: the descriptor of [`crate::TOOLS`],
    /// with a description saying what is measured or driven and what is simulated
    /// when the board has hardware.
    pub(crate) fn describe(&self, index: usize, tool: Tool<'static>) -> Tool<'static> {
        if !self.any() {
            return tool;
        }
        match index {
            0 if self.temperature.is_some() => READ_SENSOR_MEASURED,
            0 => READ_SENSOR_SIMULATED,
            1 if self.led.is_some() => SET_LED_DRIVEN,
            1 => SET_LED_SIMULATED,
            crate::MOVE_SERVO => MOVE_SERVO_SIMULATED,
            _ => tool,
        }
    }
}

const READ_SENSOR_MEASURED: Tool<'static> = crate::READ_SENSOR.description(
    "Read the current value of one on-board sensor. temperature is measured by the \
     board's own sensor; humidity and pressure are simulated (fixed values).",
);
const READ_SENSOR_SIMULATED: Tool<'static> = crate::READ_SENSOR.description(
    "Read the current value of one on-board sensor (simulated on this board: fixed values).",
);
const SET_LED_DRIVEN: Tool<'static> = crate::SET_LED.description(
    "Set the status LED colour and brightness (0-100 %). The board's LED has one colour \
     and no dimming: any colour but off, at a brightness above 0, lights it; the colour \
     and brightness are kept as set (led://state).",
);
const SET_LED_SIMULATED: Tool<'static> = crate::SET_LED.description(
    "Set the status LED colour and brightness (0-100 %) (simulated on this board: no LED is driven).",
);
const MOVE_SERVO_SIMULATED: Tool<'static> = crate::MOVE_SERVO_TOOL.description(
    "Move the servo to an angle in degrees; reports progress in 3 steps and can be \
     cancelled (simulated: this board has no servo).",
);

#[cfg(test)]
mod tests {
    extern crate std;

    use super::Hardware;
    use crate::{Board, CONFIG};
    use core::sync::atomic::{AtomicI32, AtomicU32, Ordering};
    use emcp::wire::json::SliceSink;
    use emcp::Server;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// The server's answer to one 2026-07-28 request (`params` without `_meta`).
    fn ask<'o>(board: Board, method: &str, params: &str, out: &'o mut [u8]) -> &'o str {
        let mut server: Server<Board> = Server::new(board, CONFIG).unwrap();
        let mut line = [0u8; 512];
        let mut w = SliceSink::new(&mut line);
        let sep = if params.is_empty() { "" } else { "," };
        for part in [
            r#"{"jsonrpc":"2.0","id":1,"method":""#,
            method,
            r#"","params":{"#,
            params,
            sep,
            META,
            "}}",
        ] {
            emcp::wire::json::Sink::write(&mut w, part.as_bytes()).unwrap();
        }
        let n = w.len();
        let mut sink = SliceSink::new(out);
        server.handle(&line[..n], &mut sink);
        let n = sink.len();
        core::str::from_utf8(&out[..n]).unwrap()
    }

    /// Held by each test: the hooks below and the installed ones are shared.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
    }

    static TEMPERATURE: AtomicI32 = AtomicI32::new(i32::MIN);
    fn temperature() -> Option<i32> {
        Some(TEMPERATURE.load(Ordering::Relaxed)).filter(|&t| t != i32::MIN)
    }
    static LED_CALLS: AtomicU32 = AtomicU32::new(0);
    static LED_ON: AtomicU32 = AtomicU32::new(0);
    fn led(on: bool) {
        LED_CALLS.fetch_add(1, Ordering::Relaxed);
        LED_ON.store(u32::from(on), Ordering::Relaxed);
    }

    #[test]
    fn the_hardware_temperature_is_read_and_a_missing_one_is_an_error() {
        let _one = one_at_a_time();
        TEMPERATURE.store(i32::MIN, Ordering::Relaxed);
        let board = || Board::new().with_hardware(Hardware::NONE.temperature(temperature));
        let mut out = [0u8; 1024];
        let call = r#""name":"read_sensor","arguments":{"sensor":"temperature"}"#;
        let got = ask(board(), "tools/call", call, &mut out);
        assert!(
            got.contains(r#""text":"the sensor has no reading yet""#),
            "{got}"
        );
        assert!(got.contains(r#""isError":true"#), "{got}");
        TEMPERATURE.store(-53, Ordering::Relaxed);
        let got = ask(board(), "tools/call", call, &mut out);
        assert!(got.contains(r#""text":"temperature: -5.3 C""#), "{got}");
        assert!(got.contains(r#""value":-5.3"#), "{got}");
        let got = ask(
            board(),
            "resources/read",
            r#""uri":"sensor://temperature""#,
            &mut out,
        );
        assert!(got.contains(r#"{\"celsius\":-5.3}"#), "{got}");
        // The other sensors stay simulated.
        let humidity = r#""name":"read_sensor","arguments":{"sensor":"humidity"}"#;
        let got = ask(board(), "tools/call", humidity, &mut out);
        assert!(got.contains(r#""text":"humidity: 40.0 %""#), "{got}");
    }

    #[test]
    fn the_led_hook_gets_on_or_off() {
        let _one = one_at_a_time();
        LED_CALLS.store(0, Ordering::Relaxed);
        let board = || Board::new().with_hardware(Hardware::NONE.led(led));
        let mut out = [0u8; 1024];
        let red = r#""name":"set_led","arguments":{"color":"red","brightness":50}"#;
        let got = ask(board(), "tools/call", red, &mut out);
        assert!(got.contains(r#""text":"led: red 50%""#), "{got}");
        assert_eq!(
            (
                LED_CALLS.load(Ordering::Relaxed),
                LED_ON.load(Ordering::Relaxed)
            ),
            (1, 1)
        );
        let dark = r#""name":"set_led","arguments":{"color":"green","brightness":0}"#;
        ask(board(), "tools/call", dark, &mut out);
        assert_eq!(
            (
                LED_CALLS.load(Ordering::Relaxed),
                LED_ON.load(Ordering::Relaxed)
            ),
            (2, 0)
        );
    }

    #[test]
    fn installed_hooks_serve_a_board_built_without_any() {
        let _one = one_at_a_time();
        static HW: Hardware = Hardware::NONE.temperature(temperature);
        static NONE: Hardware = Hardware::NONE;
        TEMPERATURE.store(312, Ordering::Relaxed);
        Hardware::install(&HW);
        let mut out = [0u8; 1024];
        let call = r#""name":"read_sensor","arguments":{"sensor":"temperature"}"#;
        let got = ask(Board::new(), "tools/call", call, &mut out);
        Hardware::install(&NONE);
        assert!(got.contains(r#""text":"temperature: 31.2 C""#), "{got}");
        // A board's own hooks come first; none installed, the board is simulated.
        let own = Board::new().with_hardware(Hardware::NONE.led(led));
        Hardware::install(&HW);
        let got = ask(own, "tools/call", call, &mut out);
        Hardware::install(&NONE);
        assert!(got.contains(r#""text":"temperature: 21.5 C""#), "{got}");
        let got = ask(Board::new(), "tools/call", call, &mut out);
        assert!(got.contains(r#""text":"temperature: 21.5 C""#), "{got}");
    }

    #[test]
    fn descriptions_say_what_is_simulated_only_on_a_board_with_hardware() {
        let _one = one_at_a_time();
        let mut out = [0u8; 4096];
        let plain = ask(Board::new(), "tools/list", "", &mut out);
        // The serverInfo title says "simulated sensor board"; the tools say nothing.
        assert!(
            !plain.contains("description\":\"Read the current value of one on-board sensor. "),
            "{plain}"
        );
        assert!(!plain.contains("(simulated"), "{plain}");
        let hw = Hardware::NONE.temperature(temperature).led(led);
        let mut out = [0u8; 4096];
        let got = ask(Board::new().with_hardware(hw), "tools/list", "", &mut out);
        assert!(got.contains("temperature is measured by the board's own sensor; humidity and pressure are simulated"), "{got}");
        assert!(
            got.contains("any colour but off, at a brightness above 0, lights it"),
            "{got}"
        );
        assert!(
            got.contains("(simulated: this board has no servo)"),
            "{got}"
        );
        let mut out = [0u8; 4096];
        let led_only = ask(
            Board::new().with_hardware(Hardware::NONE.led(led)),
            "tools/list",
            "",
            &mut out,
        );
        assert!(
            led_only.contains("(simulated on this board: fixed values)"),
            "{led_only}"
        );
    }
}
