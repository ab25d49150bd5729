//! emcp's networked application: the device served as MCP's Streamable HTTP on any
//! `embassy-net` [`Stack`], the same on every board. A board crate brings up its
//! clocks, its network interface (an Ethernet MAC, a Wi-Fi radio) and the stack,
//! then calls [`start`]; everything on the network is here:
//!
//! - [`CONNECTIONS`] connection tasks, each serving one connection at a time with
//!   `emcp::transport::asynch`, all sharing one `emcp::Server` (`conn`);
//! - the listeners: every TCP socket not in use listens on [`Config::port`] (one
//!   per connection task and [`BACKLOG`] more, so that a client's next SYN, which
//!   often comes before the device has seen its last connection end, is never
//!   reset while there are no more clients than connection tasks); a connection
//!   accepted goes to the first task free, or, if none is within half a second, is
//!   answered `503 Service Unavailable: all N connections busy, retry after 1 s`;
//! - the policy: the endpoint `/mcp`, `Host`/`Origin` allowed when loopback, the
//!   address the stack holds now (DHCP), `NAME.local` ([`Config::name`]) or one of
//!   [`Config::hosts`] (else 403, DNS rebinding), and [`Config::bearer`] (else 401);
//!   every refusal says why in its body;
//! - a task that keeps the policy's own address current and logs where MCP is
//!   served once the stack has an address (`address`).
//! - the mDNS / DNS-SD responder (feature `mdns`, on by default; `mdns`): answers
//!   for `NAME.local` with the stack's current address and advertises `_mcp._tcp`
//!   with TXT `path=/mcp` and the protocol revisions served; one UDP socket.
//!
//! MQTT mode (feature `mqtt`, `mqtt`): [`start_mqtt`] instead of [`start`] serves
//! the device as an MCP server on an MQTT 5 broker (EMQX's "MCP over MQTT"), one
//! task and one socket ([`MQTT_SOCKETS`]), no HTTP task.
//!
//! The device is chosen by cargo feature: `sensor` (default, the sensor board of
//! `examples/sensor-board`) or `conformance` (the official conformance suite's
//! fixtures). Logs go to `defmt` (feature `defmt`), `log` (feature `log`) or
//! nowhere.
//!
//! # On a board
//!
//! ```ignore
//! static APP: emcp_net_app::Config = emcp_net_app::Config {
//!     name: "emcp-sensor", // answers http://emcp-sensor.local/mcp
//!     hosts: &[],
//!     bearer: None,
//!     port: 80,
//! };
//! // The application's sockets and the DHCP client's.
//! static RESOURCES: StaticCell<StackResources<{ emcp_net_app::SOCKETS + 1 }>> = StaticCell::new();
//! let (stack, runner) = embassy_net::new(driver, embassy_net::Config::dhcpv4(Default::default()),
//!     RESOURCES.init(StackResources::new()), seed);
//! spawner.spawn(net_task(runner).unwrap());
//! emcp_net_app::start(spawner, stack, &APP, seed)?;
//! ```
//!
//! All of the application's tasks must run on one executor (the server is shared
//! through a `NoopRawMutex`). The stack's runner is best below them: a socket freed
//! listens again only once the runner has sent its reset and its listener has run,
//! and a runner that takes in the next packets first resets a SYN that finds every
//! socket on its way back (embassy's run queue is last-woken-first, and the runner
//! is woken by every socket call). `examples/net-firmware` polls it on an executor
//! of its own only when no task of the application's is ready (its `executor.rs`).
//! The stack needs the `tcp` and `proto-ipv4` features (and
//! `dhcpv4` for DHCP); the target needs a `critical-section` implementation (where
//! it has no atomic compare-and-swap, Cortex-M0+ and RV32IMC, `emcp`'s change flags
//! take it; `static_cell` there needs `portable-atomic` with a backend the firmware or
//! its HAL chooses: embassy-rp leaves it to the firmware, esp-hal chooses it).
//!
//! # Memory
//!
//! Every buffer is static: each connection task's future holds its request and
//! response buffers, and the sockets' rings are statics (per device, `device`),
//! sized at compile time; nothing is allocated.
#![no_std]

mod address;
mod conn;
mod device;
mod fmt;
#[cfg(feature = "mdns")]
mod mdns;
#[cfg(feature = "mqtt")]
mod mqtt;
mod queue;
/// Without the feature `mdns`: no responder, no socket for it.
#[cfg(not(feature = "mdns"))]
mod mdns {
    /// The UDP sockets the responder takes.
    pub const SOCKETS: usize = 0;

    /// Spawns nothing.
    pub(crate) fn spawn(
        _: embassy_executor::Spawner,
        _: embassy_net::Stack<'static>,
        _: &'static crate::Config,
    ) -> Result<(), crate::StartError> {
        Ok(())
    }
}

use embassy_executor::Spawner;
use embassy_net::Stack;
use emcp::transport::asynch::{HttpState, Shared};
use emcp::transport::http::{OwnHost, Policy};
use emcp::wire::error::ConfigError;
use static_cell::StaticCell;

use device::MAX_BODY;
pub use device::{BACKLOG, CONNECTIONS};
#[cfg(feature = "mqtt")]
pub use mqtt::{start_mqtt, MqttApp, SESSIONS as MQTT_SESSIONS, SOCKETS as MQTT_SOCKETS};

/// The sockets the application uses: a TCP socket per connection task
/// ([`CONNECTIONS`]), [`BACKLOG`] more, and one UDP socket for the mDNS responder
/// (feature `mdns`). Size the stack's resources
/// `StackResources<{ SOCKETS + 1 }>`: the one more is the DHCP client's (add one
/// more for each socket of the board's own, such as a DNS client's).
pub const SOCKETS: usize = CONNECTIONS + BACKLOG + mdns::SOCKETS;

/// What the application serves and to whom.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The device's mDNS host name without `.local` (`"emcp-sensor"`): `Host:
    /// emcp-sensor.local` is allowed, and the mDNS responder answers for it. Empty
    /// for none.
    pub name: &'static str,
    /// More names allowed in `Host` and `Origin` (a DNS name the network gives the
    /// device, a fixed address), besides loopback, the stack's current address and
    /// `NAME.local`.
    pub hosts: &'static [&'static str],
    /// A bearer token every request must carry (`Authorization: Bearer <token>`),
    /// else 401; `None` (or empty) for none. A product provisions it per device.
    pub bearer: Option<&'static str>,
    /// The TCP port served (80).
    pub port: u16,
}

/// Why [`start`] did not start the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum StartError {
    /// `start` ran before: the application runs once per boot.
    AlreadyStarted,
    /// The device's descriptors are not a valid server configuration.
    Device(ConfigError),
    /// A task could not be spawned (its pool is full): which one.
    Spawn(&'static str),
}

/// Start the application on `stack`: build the server (its session ids seeded from
/// `seed`: take it from the chip's random source), spawn the [`CONNECTIONS`]
/// connection tasks, the listeners and the address task on `spawner`, and
/// return. The tasks run for ever; the device is served once the stack has an
/// address (DHCP) and logs `serving MCP at http://ADDRESS:PORT/mcp` then.
///
/// # Errors
///
/// [`StartError`]: called twice, an invalid device, a task pool full.
pub fn start(
    spawner: Spawner,
    stack: Stack<'static>,
    config: &'static Config,
    seed: u64,
) -> Result<(), StartError> {
    static OWN: StaticCell<OwnHost> = StaticCell::new();
    static POLICY: StaticCell<Policy> = StaticCell::new();
    static ENDPOINT: StaticCell<conn::Endpoint> = StaticCell::new();

    fmt::log_info!("emcp net app: {}", device::NAME);
    let own: &'static OwnHost = OWN
        .try_init(OwnHost::new(config.name))
        .ok_or(StartError::AlreadyStarted)?;
    let policy: &'static Policy = POLICY
        .try_init(Policy {
            hosts: config.hosts,
            own: Some(own),
            max_body: MAX_BODY,
            bearer: config.bearer.filter(|token| !token.is_empty()),
            ..Policy::new()
        })
        .ok_or(StartError::AlreadyStarted)?;
    let endpoint = endpoint(&ENDPOINT, seed)?;

    spawn(spawner, address::watch(stack, own, config.port), "address")?;
    let sockets = conn::sockets(stack).ok_or(StartError::AlreadyStarted)?;
    for slot in 0..CONNECTIONS {
        spawn(
            spawner,
            conn::task(sockets, endpoint, policy, slot),
            "connection",
        )?;
    }
    for _ in 0..conn::SOCKETS {
        spawn(spawner, conn::listener(sockets, config.port), "listener")?;
    }
    mdns::spawn(spawner, stack, config)?;
    fmt::log_info!("{} connections on port {}", CONNECTIONS, config.port);
    Ok(())
}

/// Build the shared server into its static. Not inlined into [`start`], so that
/// the server is on the stack only for this call, and written into the claimed
/// static at once (`try_init` of the whole value would take a second copy on the
/// stack: the conformance server is 5 KiB).
#[inline(never)]
fn endpoint(
    cell: &'static StaticCell<conn::Endpoint>,
    seed: u64,
) -> Result<&'static conn::Endpoint, StartError> {
    let slot = cell.try_uninit().ok_or(StartError::AlreadyStarted)?;
    let server = device::server(seed).map_err(StartError::Device)?;
    Ok(slot.write(Shared::new(HttpState::new(server, seed))))
}

/// Spawn a task, or say which could not be.
fn spawn<S>(
    spawner: Spawner,
    token: Result<embassy_executor::SpawnToken<S>, embassy_executor::SpawnError>,
    name: &'static str,
) -> Result<(), StartError> {
    match token {
        Ok(token) => {
            spawner.spawn(token);
            Ok(())
        }
        Err(_) => Err(StartError::Spawn(name)),
    }
}
