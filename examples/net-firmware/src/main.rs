//! emcp on the network: the sensor board as an MCP server speaking Streamable HTTP
//! at `http://10.0.2.15/mcp`, on QEMU's `mps2-an385` board (Cortex-M3, SMSC
//! LAN9118 Ethernet).
//!
//! Embassy runs everything on one thread-mode executor: the network stack
//! (embassy-net over smoltcp, static address 10.0.2.15/24 on QEMU's user network),
//! and [`device::CONNECTIONS`] connection tasks sharing one `emcp::Server`
//! ([`conn`]). Time comes from SysTick ([`time`]); logs are `defmt` frames over
//! semihosting, decoded on the host by `defmt-print` (`run.sh`), never on the network.
#![no_std]
#![no_main]

mod conn;
mod device;
mod executor;
mod stack;
mod time;

use cortex_m::peripheral::NVIC;
use cortex_m_rt::{entry, exception};
use defmt_semihosting as _;
use embassy_executor::Spawner;
use embassy_net::{Ipv4Address, Ipv4Cidr, StackResources, StaticConfigV4};
use emcp::transport::asynch::{HttpState, Shared};
use lan9118::Lan9118;
use static_cell::{ConstStaticCell, StaticCell};

use device::CONNECTIONS;

/// The device's address on QEMU's user network (its DHCP server would hand out the
/// same), and the host side of that network.
const ADDRESS: Ipv4Address = Ipv4Address::new(10, 0, 2, 15);
const GATEWAY: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);

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
    executor::run(|spawner| {
        init(spawner);
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

/// Bring up the controller, the network stack and the server, and spawn the tasks.
/// A plain function rather than part of `main`'s future, so that the values built
/// here are moved to their statics from the stack and take no room in the future.
#[inline(never)]
fn init(spawner: Spawner) {
    time::init();
    defmt::info!("emcp net firmware: {}", device::NAME);

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

    let config = embassy_net::Config::ipv4_static(StaticConfigV4 {
        address: Ipv4Cidr::new(ADDRESS, 24),
        gateway: Some(GATEWAY),
        dns_servers: heapless::Vec::new(),
    });
    // A socket per connection task and one for the overflow task.
    static RESOURCES: StaticCell<StackResources<{ CONNECTIONS + 1 }>> = StaticCell::new();
    let seed = seed(&eth);
    let (stack, runner) = match RESOURCES.try_init(StackResources::new()) {
        Some(resources) => embassy_net::new(eth, config, resources, seed),
        None => fail("network resources taken twice"),
    };
    match net_task(runner) {
        Ok(token) => spawner.spawn(token),
        Err(_) => fail("network task not spawned"),
    }

    static ENDPOINT: StaticCell<conn::Endpoint> = StaticCell::new();
    let Ok(server) = device::server(seed) else {
        fail("invalid server configuration");
    };
    let Some(shared) = ENDPOINT.try_init(Shared::new(HttpState::new(server, seed))) else {
        fail("endpoint built twice");
    };
    let shared: &'static conn::Endpoint = shared;
    for slot in 0..CONNECTIONS {
        match conn::task(stack, shared, slot) {
            Ok(token) => spawner.spawn(token),
            Err(_) => fail("connection task not spawned"),
        }
    }
    match conn::overflow(stack) {
        Ok(token) => spawner.spawn(token),
        Err(_) => fail("overflow task not spawned"),
    }
    defmt::info!(
        "serving MCP at http://{}:{}/mcp ({} connections)",
        ADDRESS,
        conn::PORT,
        CONNECTIONS
    );
}

#[embassy_executor::task]
async fn net_task(mut runner: embassy_net::Runner<'static, Lan9118<'static>>) -> ! {
    runner.run().await
}

/// A seed for TCP sequence numbers and session ids. QEMU's board has no random
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
