//! emcp on a Raspberry Pi Pico W (RP2040) or Pico 2 W (RP2350, feature `pico2-w`):
//! the sensor board served over MCP's Streamable HTTP on Wi-Fi.
//!
//! This crate brings up the board and hands the application a network stack:
//! the clocks (embassy-rp's defaults: 125 MHz on the RP2040, 150 MHz on the RP2350),
//! the CYW43439 radio on PIO0 (`cyw43` + `cyw43-pio`, its firmware from the
//! `cyw43-firmware` crate, its NVRAM table from `firmware/`), the Wi-Fi join (SSID and
//! password from the build environment, `WIFI_SSID` and `WIFI_PASSWORD`), embassy-net
//! with DHCP, and the board's hardware behind the sensor board's hooks
//! ([`hardware`]). What runs on the network is `examples/net-app`, the same
//! application the QEMU networked firmware runs.
//!
//! Logs go out as defmt over RTT (`probe-rs run`); a panic prints over RTT and halts
//! (panic-probe).
#![no_std]
#![no_main]

mod hardware;

use cyw43::{Control, JoinOptions};
use cyw43_pio::PioSpi;
use defmt::{error, info, unwrap, warn};
use embassy_executor::Spawner;
use embassy_futures::select::{select, Either};
use embassy_net::{Stack, StackResources};
use embassy_rp::clocks::RoscRng;
use embassy_rp::gpio::{Level, Output};
use embassy_rp::peripherals::{DMA_CH0, PIO0};
use embassy_rp::pio::{self, Pio};
use embassy_rp::{adc, bind_interrupts, dma};
use embassy_time::Timer;
use static_cell::StaticCell;
use {defmt_rtt as _, panic_probe as _};

bind_interrupts!(struct Irqs {
    PIO0_IRQ_0 => pio::InterruptHandler<PIO0>;
    DMA_IRQ_0 => dma::InterruptHandler<DMA_CH0>;
    ADC_IRQ_FIFO => adc::InterruptHandler;
});

/// The network to join, from the build environment: never in the repository.
const WIFI_SSID: &str = env!("WIFI_SSID");
const WIFI_PASSWORD: &str = env!("WIFI_PASSWORD");

/// The radio's firmware (the `cyw43-firmware` crate; docs/boards.md has its
/// licence), 4-byte aligned as the radio's loader wants it.
static FIRMWARE: cyw43::Aligned<cyw43::A4, [u8; cyw43_firmware::CYW43_43439A0.len()]> =
    cyw43::Aligned(*cyw43_firmware::CYW43_43439A0);

/// The radio's NVRAM table for the Pico W's module (`firmware/nvram_rp2040.txt`,
/// built into the binary form by build.rs).
const NVRAM_LEN: usize = include_bytes!(concat!(env!("OUT_DIR"), "/nvram_rp2040.bin")).len();
static NVRAM: cyw43::Aligned<cyw43::A4, [u8; NVRAM_LEN]> = cyw43::Aligned(*include_bytes!(
    concat!(env!("OUT_DIR"), "/nvram_rp2040.bin")
));

type RadioSpi = cyw43::SpiBus<Output<'static>, PioSpi<'static, PIO0, 0>>;

/// The radio's driver: moves frames and events between the radio and the stack.
#[embassy_executor::task]
async fn radio_task(runner: cyw43::Runner<'static, RadioSpi>) -> ! {
    runner.run().await
}

/// The network stack (embassy-net over smoltcp): DHCP, ARP, TCP, UDP.
#[embassy_executor::task]
async fn net_task(mut runner: embassy_net::Runner<'static, cyw43::NetDriver<'static>>) -> ! {
    runner.run().await
}

/// Joins the network, again whenever the link goes down, and in between drives the
/// LED as `set_led` asks (the radio's GPIO 0): both go through the radio's control.
#[embassy_executor::task]
async fn control_task(mut control: Control<'static>, stack: Stack<'static>) -> ! {
    loop {
        join(&mut control).await;
        loop {
            match select(stack.wait_link_down(), hardware::LED.wait()).await {
                Either::First(()) => {
                    warn!("Wi-Fi: link down, joining again");
                    break;
                }
                Either::Second(on) => control.gpio_set(0, on).await,
            }
        }
    }
}

/// Tries to join `WIFI_SSID` until it succeeds, 5 s apart.
async fn join(control: &mut Control<'static>) {
    loop {
        info!("Wi-Fi: joining {=str}", WIFI_SSID);
        match control
            .join(WIFI_SSID, JoinOptions::new(WIFI_PASSWORD.as_bytes()))
            .await
        {
            Ok(()) => {
                info!("Wi-Fi: joined");
                return;
            }
            Err(e) => warn!("Wi-Fi: join failed ({}), again in 5 s", e),
        }
        Timer::after_secs(5).await;
    }
}

#[embassy_executor::main]
async fn main(spawner: Spawner) {
    let p = embassy_rp::init(Default::default());
    info!("emcp on the {=str}", BOARD);

    // The radio: power, SPI over PIO0 (data on GPIO 24, clock on 29, select on 25).
    let pwr = Output::new(p.PIN_23, Level::Low);
    let cs = Output::new(p.PIN_25, Level::High);
    let mut pio = Pio::new(p.PIO0, Irqs);
    let spi = PioSpi::new(
        &mut pio.common,
        pio.sm0,
        RADIO_CLOCK_DIVIDER,
        pio.irq0,
        cs,
        p.PIN_24,
        p.PIN_29,
        dma::Channel::new(p.DMA_CH0, Irqs),
    );
    static RADIO: StaticCell<cyw43::State> = StaticCell::new();
    let (device, mut control, runner) =
        cyw43::new(RADIO.init(cyw43::State::new()), pwr, spi, &FIRMWARE, &NVRAM).await;
    spawner.spawn(unwrap!(radio_task(runner)));
    control.init(cyw43_firmware::CYW43_43439A0_CLM).await;
    control
        .set_power_management(cyw43::PowerManagementMode::PowerSave)
        .await;
    control.gpio_set(0, false).await;
    // mDNS's group, 224.0.0.251: the radio hands the stack only the multicast frames
    // of the groups it lists (the stack joins the group itself, in the application).
    if control.add_multicast_address(MDNS_MAC).await.is_err() {
        warn!("mDNS: the radio's multicast list is full: no mDNS");
    }

    // The stack, its address from DHCP; its seeds from the ROSC's random bits.
    let mut rng = RoscRng;
    static RESOURCES: StaticCell<StackResources<SOCKETS>> = StaticCell::new();
    let (stack, runner) = embassy_net::new(
        device,
        embassy_net::Config::dhcpv4(Default::default()),
        RESOURCES.init(StackResources::new()),
        rng.next_u64(),
    );
    spawner.spawn(unwrap!(net_task(runner)));
    spawner.spawn(unwrap!(control_task(control, stack)));

    // The chip's temperature sensor.
    let adc = adc::Adc::new(p.ADC, Irqs, adc::Config::default());
    let sensor = adc::Channel::new_temp_sensor(p.ADC_TEMP_SENSOR);
    spawner.spawn(unwrap!(hardware::temperature_task(adc, sensor)));

    // The application: the sensor board with this board's hooks, served over HTTP
    // once DHCP has given the stack an address, and found by mDNS as `NAME.local`.
    sensor_board::Hardware::install(&hardware::HARDWARE);
    if let Err(e) = emcp_net_app::start(spawner, stack, &APP, rng.next_u64()) {
        error!("the application did not start: {}", e);
    }
}

/// What the application serves and to whom: `http://NAME.local/mcp` (the name from
/// `EMCP_NAME` at build time, else `emcp-pico`), and an optional bearer token from
/// `EMCP_BEARER` at build time.
static APP: emcp_net_app::Config = emcp_net_app::Config {
    name: match option_env!("EMCP_NAME") {
        Some(name) => name,
        None => "emcp-pico",
    },
    hosts: &[],
    bearer: option_env!("EMCP_BEARER"),
    port: 80,
};

/// The Ethernet address of mDNS's IPv4 group, 224.0.0.251 (RFC 1112: 01:00:5e and
/// the group's low 23 bits).
const MDNS_MAC: [u8; 6] = [0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb];

/// The radio's SPI clock: the system clock over 2 on the Pico W (62.5 MHz)...
#[cfg(feature = "pico-w")]
const RADIO_CLOCK_DIVIDER: fixed::FixedU32<fixed::types::extra::U8> =
    cyw43_pio::DEFAULT_CLOCK_DIVIDER;
/// ...and over 3 on the Pico 2 W (50 MHz), as Embassy's Pico 2 W example: faster
/// fails there (embassy-rs/embassy#3960).
#[cfg(feature = "pico2-w")]
const RADIO_CLOCK_DIVIDER: fixed::FixedU32<fixed::types::extra::U8> = cyw43_pio::RM2_CLOCK_DIVIDER;

/// The board's name in logs.
#[cfg(feature = "pico-w")]
const BOARD: &str = "Raspberry Pi Pico W (RP2040)";
/// The board's name in logs.
#[cfg(feature = "pico2-w")]
const BOARD: &str = "Raspberry Pi Pico 2 W (RP2350)";

#[cfg(all(feature = "pico-w", feature = "pico2-w"))]
compile_error!("choose one board: `--no-default-features --features pico2-w` for the Pico 2 W");

/// The stack's sockets: the application's, and the DHCP client's.
const SOCKETS: usize = emcp_net_app::SOCKETS + 1;
