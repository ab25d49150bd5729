//! emcp on an ESP32-C3 (or, with the feature `esp32c6`, an ESP32-C6): the sensor
//! board as an MCP server on the Wi-Fi network, speaking Streamable HTTP at
//! `http://NAME.local/mcp` and at whatever address DHCP gives it.
//!
//! This crate only brings the chip up: the clocks, esp-rtos (the scheduler the
//! radio's blobs need, and the Embassy time driver), the Wi-Fi station with a task
//! that joins the network and rejoins it whenever it drops, and embassy-net with
//! DHCP. Everything MCP — the connection tasks, the policy, mDNS — is
//! `emcp_net_app`, the same application the QEMU networked firmware runs in CI.
//!
//! The network's name and password come from the build environment
//! (`WIFI_SSID=... WIFI_PASSWORD=... cargo build --release`), never from the
//! repository. Logs are defmt frames on the USB-Serial-JTAG (or UART0), which
//! `espflash flash --monitor --log-format defmt` decodes.
//!
//! Memory: emcp and the application allocate nothing; their buffers are statics
//! and task futures. Only the radio has a heap ([`RADIO_HEAP_RECLAIMED`],
//! [`RADIO_HEAP`]): esp-radio's Wi-Fi blobs allocate their frame buffers and
//! their tasks' stacks at run time.
#![no_std]
#![no_main]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod hardware;

use embassy_executor::Spawner;
use embassy_net::{Runner, StackResources};
use embassy_time::{Duration, Timer};
use esp_hal::clock::CpuClock;
use esp_hal::ram;
use esp_hal::rng::Rng;
use esp_hal::timer::timg::TimerGroup;
use esp_radio::wifi::sta::StationConfig;
use esp_radio::wifi::{
    AuthenticationMethodConfig, Config as WifiConfig, ControllerConfig, Interface, WifiController,
};
use static_cell::StaticCell;
use {esp_alloc as _, esp_backtrace as _, esp_println as _};

esp_bootloader_esp_idf::esp_app_desc!();

/// The Wi-Fi network to join, from the build environment.
const WIFI_SSID: &str = env!("WIFI_SSID");
/// Its WPA2 passphrase, from the build environment; empty for an open network.
const WIFI_PASSWORD: &str = env!("WIFI_PASSWORD");

const _: () = assert!(WIFI_SSID.len() <= 32, "WIFI_SSID is longer than 32 bytes");
const _: () = assert!(
    WIFI_PASSWORD.is_empty() || (WIFI_PASSWORD.len() >= 8 && WIFI_PASSWORD.len() <= 64),
    "WIFI_PASSWORD: a WPA2 passphrase has 8 to 63 characters (64 hex digits for a raw key)"
);

/// The device's mDNS name (without `.local`): `EMCP_NAME` at build time, else
/// the chip's ([`DEFAULT_NAME`]).
const NAME: &str = match option_env!("EMCP_NAME") {
    Some(name) => name,
    None => DEFAULT_NAME,
};

/// What the application serves: the sensor board on port 80, at the address DHCP
/// gives and at `NAME.local`. `EMCP_BEARER=<token>` at build time makes every
/// request need `Authorization: Bearer <token>`.
static APP: emcp_net_app::Config = emcp_net_app::Config {
    name: NAME,
    hosts: &[],
    bearer: option_env!("EMCP_BEARER"),
    port: 80,
};

/// The radio's heap in the RAM the second-stage bootloader used, which is free once
/// the application runs (esp-hal's `#[ram(reclaimed)]`): it costs no `.bss`.
pub const RADIO_HEAP_RECLAIMED: usize = 64 * 1024;
/// The rest of the radio's heap, in `.bss`. With [`RADIO_HEAP_RECLAIMED`], the
/// 100 KiB esp-radio's documentation and Wi-Fi examples give the station (its
/// frame buffers: 10 static receive buffers of about 1.6 KiB each, up to 32
/// dynamic ones each way; the blobs' task stacks; the supplicant's state).
pub const RADIO_HEAP: usize = 36 * 1024;

/// How long the connection task waits before joining again after a failure or a
/// disconnection.
const REJOIN: Duration = Duration::from_secs(5);

#[esp_hal::main]
async fn main(spawner: Spawner) -> ! {
    let peripherals = esp_hal::init(esp_hal::Config::default().with_cpu_clock(CpuClock::max()));
    esp_alloc::heap_allocator!(#[ram(reclaimed)] size: RADIO_HEAP_RECLAIMED);
    esp_alloc::heap_allocator!(size: RADIO_HEAP);
    defmt::info!("emcp on {}: {}.local", CHIP, NAME);

    // The scheduler first: the radio's blobs run tasks of their own on it.
    let timg0 = TimerGroup::new(peripherals.TIMG0);
    esp_rtos::start(timg0.timer0, peripherals.FROM_CPU_INTR0);

    let Some(interface) = Interface::try_station() else {
        fail("Wi-Fi station interface taken twice");
    };
    let Some(station) = station_config() else {
        fail("WIFI_SSID or WIFI_PASSWORD rejected by esp-radio");
    };
    let controller = match WifiController::new(
        peripherals.WIFI,
        ControllerConfig::default().with_initial_config(station),
    ) {
        Ok(controller) => controller,
        Err(e) => {
            defmt::error!("Wi-Fi: {}", e);
            fail("Wi-Fi controller not started");
        }
    };

    // The radio is on, so the RNG mixes in RF noise: its output is truly random.
    let rng = Rng::new();
    let seed = (u64::from(rng.random()) << 32) | u64::from(rng.random());

    // The application's sockets, and one for the DHCP client.
    static RESOURCES: StaticCell<StackResources<{ emcp_net_app::SOCKETS + 1 }>> = StaticCell::new();
    let Some(resources) = RESOURCES.try_init(StackResources::new()) else {
        fail("network resources taken twice");
    };
    let (stack, runner) = embassy_net::new(
        interface,
        embassy_net::Config::dhcpv4(Default::default()),
        resources,
        seed,
    );

    match connection(controller) {
        Ok(token) => spawner.spawn(token),
        Err(_) => fail("Wi-Fi connection task not spawned"),
    }
    match net_task(runner) {
        Ok(token) => spawner.spawn(token),
        Err(_) => fail("network task not spawned"),
    }
    if hardware::start(
        spawner,
        peripherals.TSENS,
        peripherals.RMT,
        peripherals.GPIO8,
    )
    .is_err()
    {
        fail("hardware task not spawned");
    }
    if let Err(e) = emcp_net_app::start(spawner, stack, &APP, seed) {
        defmt::error!("application: {}", e);
        fail("application not started");
    }

    // The application's tasks log the address DHCP gives (and wait for it: the
    // stack wakes one task waiting for its configuration, so none waits here).
    loop {
        core::future::pending::<()>().await;
    }
}

#[cfg(all(feature = "esp32c3", feature = "esp32c6"))]
compile_error!("choose one chip: `--no-default-features --features esp32c6` for the ESP32-C6");

/// The chip this image is for, in logs, and the device's name by default.
#[cfg(feature = "esp32c3")]
const CHIP: &str = "ESP32-C3";
#[cfg(feature = "esp32c3")]
const DEFAULT_NAME: &str = "emcp-esp32c3";
#[cfg(feature = "esp32c6")]
const CHIP: &str = "ESP32-C6";
#[cfg(feature = "esp32c6")]
const DEFAULT_NAME: &str = "emcp-esp32c6";

/// The station's configuration: the network from the build environment, WPA2
/// Personal (open when the password is empty).
fn station_config() -> Option<WifiConfig> {
    let ssid = WIFI_SSID.try_into().ok()?;
    let authentication = if WIFI_PASSWORD.is_empty() {
        AuthenticationMethodConfig::Open
    } else {
        AuthenticationMethodConfig::Wpa2Personal(WIFI_PASSWORD.try_into().ok()?)
    };
    Some(WifiConfig::Station(
        StationConfig::default()
            .with_ssid(ssid)
            .with_authentication(authentication),
    ))
}

/// Joins the network, waits for it to drop, and joins again, for ever.
#[embassy_executor::task]
async fn connection(mut controller: WifiController<'static>) -> ! {
    loop {
        defmt::info!("Wi-Fi: joining {=str}", WIFI_SSID);
        match controller.connect_async().await {
            Ok(info) => {
                defmt::info!(
                    "Wi-Fi: joined (channel {}, {}); radio heap {} B used, {} B free",
                    info.channel,
                    info.authmode,
                    esp_alloc::HEAP.used(),
                    esp_alloc::HEAP.free()
                );
                match controller.wait_for_disconnect_async().await {
                    Ok(info) => defmt::warn!("Wi-Fi: disconnected ({})", info.reason),
                    Err(e) => defmt::warn!("Wi-Fi: {}", e),
                }
            }
            Err(e) => defmt::warn!("Wi-Fi: not joined: {}", e),
        }
        Timer::after(REJOIN).await;
    }
}

/// Runs the network stack: moves frames between the radio and embassy-net.
#[embassy_executor::task]
async fn net_task(mut runner: Runner<'static, Interface>) -> ! {
    runner.run().await
}

/// Logs why the board cannot serve, then restarts the chip after a pause (long
/// enough to read the log, short enough that a transient fault heals by itself).
fn fail(why: &str) -> ! {
    defmt::error!("{=str}; restarting in 10 s", why);
    for _ in 0..10 {
        esp_hal::rom::ets_delay_us(1_000_000);
    }
    esp_hal::system::software_reset()
}
