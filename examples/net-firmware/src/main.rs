//! emcp on the network: the sensor board as an MCP server speaking Streamable HTTP
//! at `http://ADDRESS/mcp`, ADDRESS being what DHCP gives (10.0.2.15 on QEMU's user
//! network), on QEMU's `mps2-an385` board (Cortex-M3, SMSC LAN9118 Ethernet).
//!
//! This crate is the board: the clock ([`time`]), the Ethernet controller, the
//! network stack (embassy-net over smoltcp, DHCP) and the executor ([`executor`]).
//! What runs on the network is `emcp_net_app`, the application every board runs:
//! its connection tasks, listeners and policy, started by
//! [`emcp_net_app::start`]. Logs are `defmt` frames over semihosting, decoded on the
//! host by `defmt-print` (`run.sh`), never on the network.
#![no_std]
#![no_main]

mod executor;
mod stack;
mod time;

use cortex_m::peripheral::NVIC;
use cortex_m_rt::{entry, exception};
use defmt_semihosting as _;
use embassy_executor::Spawner;
use embassy_net::StackResources;
use lan9118::Lan9118;
use static_cell::ConstStaticCell;

/// What the application serves: the port, the device's mDNS name (`EMCP_NAME` at
/// build time, else `emcp-qemu`), and the bearer token every request must carry,
/// set when the image is built (`EMCP_BEARER=<token> run.sh …`; none when unset or
/// empty: a product provisions it per device rather than per build). Besides
/// loopback (the host side of QEMU's port forward), `Host` may name the address
/// DHCP gave or `NAME.local`.
static APP: emcp_net_app::Config = emcp_net_app::Config {
    name: match option_env!("EMCP_NAME") {
        Some(name) => name,
        None => "emcp-qemu",
    },
    hosts: &[],
    bearer: option_env!("EMCP_BEARER"),
    port: 80,
};

/// MQTT mode (feature `mqtt`): the broker (`EMCP_MQTT_BROKER` at build time, else
/// the host's port 1883 as QEMU's user network shows it) and how the device appears
/// there (`EMCP_MQTT_SERVER_ID`, else `emcp-net-firmware`), logging in with
/// `EMCP_MQTT_USER` and `EMCP_MQTT_PASSWORD` when the first is set.
#[cfg(feature = "mqtt")]
static MQTT: emcp_net_app::MqttApp = emcp_net_app::MqttApp {
    broker: match option_env!("EMCP_MQTT_BROKER") {
        Some(b) => b,
        None => "10.0.2.2:1883",
    },
    server_id: match option_env!("EMCP_MQTT_SERVER_ID") {
        Some(id) => id,
        None => "emcp-net-firmware",
    },
    server_name: "emcp/net-firmware",
    description: "emcp's networked firmware (QEMU mps2-an385): the simulated sensor board",
    login: match (option_env!("EMCP_MQTT_USER"), option_env!("EMCP_MQTT_PASSWORD")) {
        (Some(user), Some(password)) => Some((user, password.as_bytes())),
        (Some(user), None) => Some((user, b"")),
        _ => None,
    },
};

/// The application's sockets: HTTP's, or MQTT mode's one.
#[cfg(not(feature = "mqtt"))]
const APP_SOCKETS: usize = emcp_net_app::SOCKETS;
/// The application's sockets: HTTP's, or MQTT mode's one.
#[cfg(feature = "mqtt")]
const APP_SOCKETS: usize = emcp_net_app::MQTT_SOCKETS;

/// Start the application: HTTP (and mDNS).
#[cfg(not(feature = "mqtt"))]
fn start_app(
    spawner: Spawner,
    stack: embassy_net::Stack<'static>,
    seed: u64,
) -> Result<(), emcp_net_app::StartError> {
    emcp_net_app::start(spawner, stack, &APP, seed)
}

/// Start the application: MQTT mode.
#[cfg(feature = "mqtt")]
fn start_app(
    spawner: Spawner,
    stack: embassy_net::Stack<'static>,
    seed: u64,
) -> Result<(), emcp_net_app::StartError> {
    let _ = &APP;
    emcp_net_app::start_mqtt(spawner, stack, &MQTT, seed)
}

defmt::timestamp!("{=u64:ms}", embassy_time::Instant::now().as_millis());

/// An external interrupt of the board: the Ethernet controller's or the alarm's.
#[derive(Clone, Copy)]
struct Irq(u16);

// SAFETY: only built from lan9118::MPS2_IRQ (13) and time::ALARM_IRQ (9), the
// LAN9118's and CMSDK timer 1's lines on mps2-an385 (QEMU hw/arm/mps2.c), valid
// external interrupt numbers of the board's NVIC.
unsafe impl cortex_m::interrupt::InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

#[entry]
fn main() -> ! {
    executor::run(|spawner, net_spawner| {
        init(spawner, net_spawner);
        defmt::info!("stack high-water {} bytes at start-up", stack::high_water());
        stack::repaint();
        match watch() {
            Ok(token) => spawner.spawn(token),
            Err(_) => fail("watch task not spawned"),
        }
    })
}

#[embassy_executor::task]
async fn watch() -> ! {
    stack::watch().await
}

/// Bring up the controller and the network stack, and start the application. A
/// plain function rather than part of `main`'s future, so that the values built
/// here are moved to their statics from the stack and take no room in the future.
/// The network runner goes on `net_spawner`'s executor, polled only when no task of
/// `spawner`'s (the application's) is ready ([`executor`]).
#[inline(never)]
fn init(spawner: Spawner, net_spawner: Spawner) {
    time::init();
    defmt::info!("emcp net firmware on mps2-an385");

    static ETH_BUFFERS: ConstStaticCell<lan9118::Buffers> =
        ConstStaticCell::new(lan9118::Buffers::new());
    let Some(buffers) = ETH_BUFFERS.try_take() else {
        fail("frame buffers taken twice");
    };
    // SAFETY: MPS2_BASE is the controller's register window on this board, and
    // nothing else in the program touches it.
    let eth = match unsafe { Lan9118::new(lan9118::MPS2_BASE, buffers) } {
        Ok(eth) => eth,
        Err(e) => fail(match e {
            lan9118::Error::NotFound => "no LAN9118 at 0x40200000",
            lan9118::Error::Timeout => "LAN9118 did not come out of reset",
        }),
    };
    defmt::info!("lan9118 id {=u32:#x}, mac {=[u8]:02x}", eth.id(), eth.mac());
    // SAFETY: the handlers (DefaultHandler below) are ready; no critical section
    // depends on these interrupts being masked.
    unsafe {
        NVIC::unmask(Irq(lan9118::MPS2_IRQ));
        NVIC::unmask(Irq(time::ALARM_IRQ));
    }

    // The address from DHCP: QEMU's user network hands out 10.0.2.15.
    let config = embassy_net::Config::dhcpv4(Default::default());
    // The application's sockets, and one for the DHCP client: built in place (they
    // would take a kilobyte or more of the stack on their way to a StaticCell).
    static RESOURCES: ConstStaticCell<StackResources<{ APP_SOCKETS + 1 }>> =
        ConstStaticCell::new(StackResources::new());
    let seed = seed(&eth);
    let (stack, runner) = match RESOURCES.try_take() {
        Some(resources) => embassy_net::new(eth, config, resources, seed),
        None => fail("network resources taken twice"),
    };
    match net_task(runner) {
        Ok(token) => net_spawner.spawn(token),
        Err(_) => fail("network task not spawned"),
    }
    // The application logs where it serves once DHCP has answered.
    if let Err(e) = start_app(spawner, stack, seed) {
        defmt::error!("application: {}", e);
        fail("application not started");
    }
}

#[embassy_executor::task]
async fn net_task(mut runner: embassy_net::Runner<'static, Lan9118<'static>>) -> ! {
    runner.run().await
}

/// A seed for TCP sequence numbers, DHCP and session ids. QEMU's board has no random
/// source; the clock's cycle count at this point depends on host timing. A product
/// takes its seed from the chip's TRNG.
fn seed(eth: &Lan9118<'_>) -> u64 {
    let mac = eth.mac();
    let mac = u64::from_le_bytes([mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], 0, 0]);
    (u64::from(time::cycles()) << 40)
        ^ mac
        ^ embassy_time::Instant::now().as_ticks().rotate_left(17)
}

/// Interrupts without their own handler: the Ethernet controller's, and any other
/// (logged).
#[exception]
unsafe fn DefaultHandler(irq: i16) {
    if irq == lan9118::MPS2_IRQ as i16 {
        // SAFETY: the controller's window, as given to `Lan9118::new`.
        unsafe { lan9118::on_interrupt(lan9118::MPS2_BASE) };
    } else if irq == time::ALARM_IRQ as i16 {
        time::on_alarm();
    } else {
        defmt::error!("unexpected exception {}", irq);
    }
}

/// A fault (a bus error, an undefined instruction): log it and end the program. A
/// stack overflow faults while entering this handler and locks the core up instead.
#[exception]
unsafe fn HardFault(_frame: &cortex_m_rt::ExceptionFrame) -> ! {
    fail("hard fault")
}

/// Log and end the program (QEMU exits with status 1).
fn fail(why: &str) -> ! {
    defmt::error!("{}", why);
    semihosting::process::exit(1)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    fail("panic")
}
