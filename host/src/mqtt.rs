//! [`run_mqtt`]: an emcp server as an MCP-over-MQTT device on a broker, over `std`
//! TCP (feature `mqtt`): the core's async transport ([`emcp::transport::mqtt`]) on
//! a blocking socket, reconnecting whenever the link ends.

use std::io::{self, Read as _, Write as _};
use std::net::TcpStream;
use std::process::ExitCode;
use std::task::Poll;
use std::thread;
use std::time::{Duration, Instant};

use emcp::device::Device;
use emcp::transport::asynch::Tick;
use emcp::transport::mqtt::{serve_mqtt, Mqtt, MqttConfig, HEAD_LEN};
use emcp::Server;

/// Client sessions a host device keeps at once.
pub const MQTT_SESSIONS: usize = 8;

/// Bytes of one received packet (a longer PUBLISH is answered -32600) and of the
/// messages one step sends.
pub const MQTT_BUF: usize = 16 * 1024;

/// How long a tick is (and the longest a read waits before the next tick).
const TICK: Duration = Duration::from_millis(10);

/// Pause between connection attempts.
const RETRY: Duration = Duration::from_millis(500);

/// One TCP stream as `embedded-io-async`: blocking calls, a read waiting at most one
/// tick (then `Pending`, so that the serve loop's tick runs).
struct Link(TcpStream);

impl embedded_io_async::ErrorType for Link {
    type Error = io::Error;
}

impl embedded_io_async::Read for Link {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, io::Error> {
        core::future::poll_fn(|cx| match self.0.read(buf) {
            Ok(n) => Poll::Ready(Ok(n)),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Err(e) => Poll::Ready(Err(e)),
        })
        .await
    }
}

impl embedded_io_async::Write for Link {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, io::Error> {
        self.0.write(buf)
    }
    async fn flush(&mut self) -> Result<(), io::Error> {
        self.0.flush()
    }
}

/// Ticks of [`TICK`] on the host's clock.
struct Ticks;

impl Tick for Ticks {
    fn tick(&mut self) -> impl core::future::Future<Output = ()> {
        let deadline = Instant::now() + TICK;
        core::future::poll_fn(move |cx| {
            if Instant::now() >= deadline {
                Poll::Ready(())
            } else {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
    }
}

/// Serve `server` on the broker at `broker` (`HOST:PORT`) for ever: connect, serve
/// until the link ends (broker restart, network loss), say why on stderr, and
/// connect again after a pause; every reconnect forgets the client sessions and
/// publishes the presence again. Returns only for a configuration that cannot be
/// served (an invalid server id or name).
pub fn run_mqtt<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>(
    name: &str,
    broker: &str,
    mut server: Server<D, L, J, W, K>,
    config: MqttConfig<'_>,
) -> ExitCode {
    let config = MqttConfig {
        tick_ms: u32::try_from(TICK.as_millis()).unwrap_or(10),
        ..config
    };
    let mut mqtt: Box<Mqtt<MQTT_SESSIONS>> = Box::default();
    let mut rx = vec![0u8; MQTT_BUF];
    let mut tx = vec![0u8; MQTT_BUF + HEAD_LEN];
    let mut announced = false;
    loop {
        let stream = match TcpStream::connect(broker) {
            Ok(s) => s,
            Err(e) => {
                if !announced {
                    eprintln!("{name}: broker {broker}: {e}; retrying");
                    announced = true;
                }
                thread::sleep(RETRY);
                continue;
            }
        };
        announced = false;
        let _ = stream.set_nodelay(true);
        let _ = stream.set_read_timeout(Some(TICK));
        let Ok(writer) = stream.try_clone() else {
            thread::sleep(RETRY);
            continue;
        };
        let (mut reader, mut writer) = (Link(stream), Link(writer));
        eprintln!(
            "{name}: MQTT broker {broker}, server id {}",
            config.server_id
        );
        let ended = embassy_futures::block_on(serve_mqtt(
            &mut server,
            &mut mqtt,
            &config,
            &mut reader,
            &mut writer,
            &mut rx,
            &mut tx,
            &mut Ticks,
        ));
        match ended {
            Err(emcp::transport::mqtt::MqttError::Config) => {
                eprintln!(
                    "{name}: invalid server id or name (no '/', '+', '#' in the id; a name like type/name)"
                );
                return ExitCode::FAILURE;
            }
            Err(e) => eprintln!("{name}: broker link ended: {e}; reconnecting"),
            Ok(never) => match never {},
        }
        let _ = reader.0.shutdown(std::net::Shutdown::Both);
        thread::sleep(RETRY);
    }
}
