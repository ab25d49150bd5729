//! The Pico W's own hardware behind the sensor board's hooks
//! ([`sensor_board::Hardware`]): the chip's temperature sensor and the radio's LED.
//!
//! The hooks run inside a request, synchronously, so neither waits on hardware:
//! - `temperature` returns the latest reading of [`temperature_task`], which samples
//!   the RP2040's on-chip sensor (ADC channel 4) once a second;
//! - `led` records the wish in [`LED`]; the radio's control task drives the LED
//!   (GPIO 0 of the CYW43439, set over the radio's SPI bus, asynchronously).

use core::sync::atomic::{AtomicI32, Ordering};

use defmt::{debug, warn};
use embassy_rp::adc::{self, Adc, Async};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Timer;
use sensor_board::Hardware;

/// The hooks the sensor board is built with.
pub static HARDWARE: Hardware = Hardware::NONE.temperature(temperature).led(led);

/// No reading yet.
const NO_READING: i32 = i32::MIN;

/// The latest temperature, in tenths of a degree Celsius.
static TEMPERATURE: AtomicI32 = AtomicI32::new(NO_READING);

/// The LED as `set_led` last asked for it (on: `true`), until the radio's control
/// task takes it.
pub static LED: Signal<CriticalSectionRawMutex, bool> = Signal::new();

fn temperature() -> Option<i32> {
    Some(TEMPERATURE.load(Ordering::Relaxed)).filter(|&t| t != NO_READING)
}

fn led(on: bool) {
    LED.signal(on);
}

/// Tenths of a degree Celsius from a raw 12-bit reading of the temperature sensor:
/// the datasheet's T = 27 - (V - 0.706) / 0.001721 with V = raw × 3.3 V / 4096
/// (RP2040 datasheet 4.9.5, RP2350 datasheet 12.4.6; ADC reference 3.3 V), in
/// integers: no float code on the Cortex-M0+.
pub fn tenths(raw: u16) -> i32 {
    // Microvolts: raw × 3,300,000 / 4096 = raw × 825,000 / 1024 (below 2^32).
    let microvolts = (u32::from(raw & 0x0fff) * 825_000 / 1024) as i32;
    // Hundredths of a degree, then rounded to tenths (half away from zero).
    let centi = 2700 - (microvolts - 706_000) * 100 / 1721;
    (centi + if centi >= 0 { 5 } else { -5 }) / 10
}

/// Samples the temperature sensor once a second into [`TEMPERATURE`].
#[embassy_executor::task]
pub async fn temperature_task(
    mut adc: Adc<'static, Async>,
    mut sensor: adc::Channel<'static>,
) -> ! {
    loop {
        match adc.read(&mut sensor).await {
            Ok(raw) => {
                let t = tenths(raw);
                TEMPERATURE.store(t, Ordering::Relaxed);
                debug!("temperature: raw {} = {} tenths of a degree", raw, t);
            }
            Err(e) => warn!("temperature sensor: {}", e),
        }
        Timer::after_secs(1).await;
    }
}
