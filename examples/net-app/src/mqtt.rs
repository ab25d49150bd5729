//! MQTT mode (feature `mqtt`): the device as an MCP server on an MQTT 5 broker,
//! EMQX's "MCP over MQTT", with the core's transport (`emcp::transport::mqtt`) on
//! one embassy-net TCP socket. One task connects to the broker, serves until the
//! link ends (a broker restart, a lost network), and connects again a second later;
//! each reconnect forgets the client sessions and publishes the presence again.
//!
//! Memory: the task's future holds the socket's buffers, one received packet
//! ([`RX`]) and one step's messages ([`TX`]); the server and the [`SESSIONS`]
//! client sessions sit in statics. No HTTP task runs in this mode.

use embassy_net::tcp::TcpSocket;
use embassy_net::{IpAddress, IpEndpoint, Stack};
use embassy_time::{Duration, Timer};
use emcp::transport::asynch::Tick;
use emcp::transport::mqtt::{serve_mqtt, Mqtt, MqttConfig, MqttError, HEAD_LEN};
use static_cell::StaticCell;

use crate::device::{self, AppServer};
use crate::fmt::{log_info, log_warn};
use crate::StartError;

/// Client sessions served at once.
pub const SESSIONS: usize = 2;

/// The sockets MQTT mode uses: the broker connection.
pub const SOCKETS: usize = 1;

/// One received packet: a longer request is answered -32600.
const RX: usize = 2048;

/// One step's messages: the board's longest response, the `log://samples` read,
/// is over 5 KiB (a longer one is answered -32603; the online notification carries
/// the tools when they fit).
const TX: usize = HEAD_LEN + 6400;

/// The socket's own rings.
const SOCKET_RX: usize = 1024;
const SOCKET_TX: usize = 1024;

/// How long one tick is.
const TICK_MS: u32 = 10;

/// Where the device finds its broker and how it appears there.
#[derive(Clone, Copy, Debug)]
pub struct MqttApp {
    /// The broker, `A.B.C.D:PORT` (on QEMU's user network the host is 10.0.2.2).
    pub broker: &'static str,
    /// The server id (the MQTT client id): unique on the broker.
    pub server_id: &'static str,
    /// The server name, hierarchical (`emcp/net-firmware`).
    pub server_name: &'static str,
    /// The online notification's description.
    pub description: &'static str,
    /// A user name and password for a broker that admits known clients only.
    pub login: Option<(&'static str, &'static [u8])>,
}

struct Ticks;

impl Tick for Ticks {
    fn tick(&mut self) -> impl core::future::Future<Output = ()> {
        Timer::after_millis(u64::from(TICK_MS))
    }
}

/// `A.B.C.D:PORT`, or `None`.
fn endpoint(s: &str) -> Option<IpEndpoint> {
    let (addr, port) = s.split_once(':')?;
    let mut octets = [0u8; 4];
    let mut parts = addr.split('.');
    for o in octets.iter_mut() {
        *o = parts.next()?.parse().ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    let [a, b, c, d] = octets;
    Some(IpEndpoint::new(
        IpAddress::v4(a, b, c, d),
        port.parse().ok()?,
    ))
}

/// Start MQTT mode on `stack`: build the server, spawn the broker task. The device
/// is served once the stack has an address and the broker answers.
///
/// # Errors
///
/// [`StartError`]: called twice, an invalid device, the task not spawned.
pub fn start_mqtt(
    spawner: embassy_executor::Spawner,
    stack: Stack<'static>,
    app: &'static MqttApp,
    seed: u64,
) -> Result<(), StartError> {
    static SERVER: StaticCell<AppServer> = StaticCell::new();
    static SESSIONS_CELL: StaticCell<Mqtt<SESSIONS>> = StaticCell::new();
    log_info!("emcp net app (MQTT): {}", device::NAME);
    let server = server_in(&SERVER, seed)?;
    let mqtt = SESSIONS_CELL
        .try_init(Mqtt::new())
        .ok_or(StartError::AlreadyStarted)?;
    crate::spawn(spawner, task(stack, app, server, mqtt), "mqtt")
}

/// Build the server into its static (not through the stack: see `crate::endpoint`).
#[inline(never)]
fn server_in(
    cell: &'static StaticCell<AppServer>,
    seed: u64,
) -> Result<&'static mut AppServer, StartError> {
    let slot = cell.try_uninit().ok_or(StartError::AlreadyStarted)?;
    let server = device::server(seed).map_err(StartError::Device)?;
    Ok(slot.write(server))
}

#[embassy_executor::task]
async fn task(
    stack: Stack<'static>,
    app: &'static MqttApp,
    server: &'static mut AppServer,
    mqtt: &'static mut Mqtt<SESSIONS>,
) -> ! {
    let mut socket_rx = [0u8; SOCKET_RX];
    let mut socket_tx = [0u8; SOCKET_TX];
    let mut rx_buf = [0u8; RX];
    let mut tx_buf = [0u8; TX];
    let config = MqttConfig {
        tick_ms: TICK_MS,
        ..MqttConfig::new(app.server_id, app.server_name, app.description)
    };
    let config = match app.login {
        Some((user, password)) => config.login(user, password),
        None => config,
    };
    let Some(broker) = endpoint(app.broker) else {
        log_warn!("mqtt: broker address {} is not A.B.C.D:PORT", app.broker);
        loop {
            Timer::after(Duration::from_secs(3600)).await;
        }
    };
    stack.wait_config_up().await;
    loop {
        let mut socket = TcpSocket::new(stack, &mut socket_rx, &mut socket_tx);
        if socket.connect(broker).await.is_err() {
            log_warn!("mqtt: broker {} unreachable; retrying", app.broker);
            Timer::after(Duration::from_secs(1)).await;
            continue;
        }
        log_info!("mqtt: connected to {} as {}", app.broker, app.server_id);
        let (mut reader, mut writer) = socket.split();
        let ended = serve_mqtt(
            server,
            mqtt,
            &config,
            &mut reader,
            &mut writer,
            &mut rx_buf,
            &mut tx_buf,
            &mut Ticks,
        )
        .await;
        match ended {
            Err(MqttError::Config) => log_warn!("mqtt: invalid server id or name"),
            Err(MqttError::Refused(code)) => log_warn!("mqtt: broker refused, reason {}", code),
            Err(MqttError::Timeout) => log_warn!("mqtt: broker silent; reconnecting"),
            Err(_) => log_warn!("mqtt: link ended; reconnecting"),
            Ok(never) => match never {},
        }
        socket.abort();
        let _ = socket.flush().await;
        Timer::after(Duration::from_secs(1)).await;
    }
}
