//! The board's own hardware behind the sensor board's hooks
//! (`sensor_board::Hardware`): `read_sensor temperature` and `sensor://temperature`
//! read the chip's temperature sensor, `set_led` lights the addressable RGB LED
//! (WS2812) of Espressif's DevKitM-1 / DevKitC-02 (ESP32-C3) and DevKitC-1
//! (ESP32-C6) on GPIO8. Humidity, pressure and the servo stay simulated, and the
//! tools' descriptions say so.
//!
//! The hooks are plain functions called inside a request; the peripherals belong to
//! two tasks here: one reads the sensor every [`PERIOD`] and keeps the latest
//! reading, the other sends the LED the colour the last `set_led` asked for.

use core::sync::atomic::{AtomicI32, Ordering};

use embassy_executor::{SpawnError, SpawnToken, Spawner};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Timer};
use esp_hal::Async;
use esp_hal::gpio::Level;
use esp_hal::peripherals::{GPIO8, RMT, TSENS};
use esp_hal::rmt::{Channel, PulseCode, Rmt, Tx, TxChannelConfig, TxChannelCreator};
use esp_hal::time::Rate;
use esp_hal::tsens::{self, TemperatureSensor};
use sensor_board::Hardware;

/// The hooks the sensor board calls: both, or the sensor's alone where the LED's
/// peripheral could not be set up.
static BOTH: Hardware = Hardware::NONE.temperature(temperature).led(led);
static SENSOR_ONLY: Hardware = Hardware::NONE.temperature(temperature);

/// How often the temperature is read.
const PERIOD: Duration = Duration::from_secs(1);

/// The latest temperature in tenths of a degree Celsius, or [`NO_READING`].
static TENTHS: AtomicI32 = AtomicI32::new(NO_READING);
const NO_READING: i32 = i32::MIN;

/// What the last `set_led` asked of the LED (on or off), for the LED task.
static LED: Signal<CriticalSectionRawMutex, bool> = Signal::new();

/// The colour a lit LED shows (green, red, blue: the WS2812's order), dim: the
/// sensor board's LED has one colour ([`Hardware::led`]).
const LIT: [u8; 3] = [24, 24, 24];

/// Starts the sensor and LED tasks and installs the hooks for the application's
/// board. Where the LED's peripheral cannot be set up, `set_led` stays simulated
/// (logged).
pub fn start(
    spawner: Spawner,
    tsens: TSENS<'static>,
    rmt: RMT<'static>,
    led_pin: GPIO8<'static>,
) -> Result<(), SpawnError> {
    // The sensor's configuration error type has no values: this always starts it.
    if let Ok(sensor) = TemperatureSensor::new(tsens, tsens::Config::default()) {
        spawn(spawner, temperature_task(sensor))?;
    }
    match led_channel(rmt, led_pin) {
        Some(channel) => {
            spawn(spawner, led_task(channel))?;
            Hardware::install(&BOTH);
        }
        None => {
            defmt::warn!("LED: RMT not configured; set_led stays simulated");
            Hardware::install(&SENSOR_ONLY);
        }
    }
    Ok(())
}

fn spawn<S>(spawner: Spawner, token: Result<SpawnToken<S>, SpawnError>) -> Result<(), SpawnError> {
    spawner.spawn(token?);
    Ok(())
}

/// The temperature hook: the latest reading.
fn temperature() -> Option<i32> {
    let tenths = TENTHS.load(Ordering::Relaxed);
    (tenths != NO_READING).then_some(tenths)
}

/// The LED hook: a wish for the LED task.
fn led(on: bool) {
    LED.signal(on);
}

/// Reads the chip's temperature sensor every [`PERIOD`].
#[embassy_executor::task]
async fn temperature_task(sensor: TemperatureSensor<'static>) -> ! {
    // The sensor settles for a few hundred microseconds after power-up.
    Timer::after(Duration::from_millis(1)).await;
    loop {
        let reading = sensor.get_temperature();
        TENTHS.store(tenths(reading.raw_value, reading.offset), Ordering::Relaxed);
        Timer::after(PERIOD).await;
    }
}

/// esp-hal's conversion (`raw × 0.4386 − offset × 27.88 − 20.52` °C) in integer
/// tenths of a degree, rounded: no floating point on a core without an FPU.
fn tenths(raw: u8, offset: i8) -> i32 {
    let milli_tenths = i32::from(raw) * 4386 - i32::from(offset) * 278_800 - 205_200;
    (milli_tenths + 500).div_euclid(1000)
}

/// RMT channel 0 on the LED's pin, clocked at 80 MHz (12.5 ns a tick), the line low
/// when idle.
fn led_channel(rmt: RMT<'static>, pin: GPIO8<'static>) -> Option<Channel<'static, Async, Tx>> {
    let rmt = Rmt::new(rmt, Rate::from_mhz(80)).ok()?.into_async();
    let config = TxChannelConfig::default()
        .with_clk_divider(1)
        .with_idle_output(true)
        .with_idle_output_level(Level::Low);
    Some(rmt.channel0.configure_tx(&config).ok()?.with_pin(pin))
}

/// Sends the LED each colour asked for (off at start).
#[embassy_executor::task]
async fn led_task(mut channel: Channel<'static, Async, Tx>) -> ! {
    let mut on = false;
    loop {
        let frame = ws2812_frame(if on { LIT } else { [0; 3] });
        if let Err(e) = channel.transmit(&frame).await {
            defmt::warn!("LED: {}", e);
        }
        on = LED.wait().await;
    }
}

/// A WS2812 frame: 24 bits, most significant first, then the end marker (the line
/// then stays low, which latches the colour). At 12.5 ns a tick: a 0 is high 0.4 µs,
/// low 0.85 µs; a 1 high 0.8 µs, low 0.45 µs.
fn ws2812_frame(grb: [u8; 3]) -> [PulseCode; 25] {
    const ZERO: PulseCode = PulseCode::new(Level::High, 32, Level::Low, 68);
    const ONE: PulseCode = PulseCode::new(Level::High, 64, Level::Low, 36);
    let mut frame = [PulseCode::end_marker(); 25];
    let bits = grb
        .iter()
        .flat_map(|byte| (0..8).rev().map(move |bit| byte >> bit & 1 == 1));
    for (code, bit) in frame.iter_mut().zip(bits) {
        *code = if bit { ONE } else { ZERO };
    }
    frame
}
