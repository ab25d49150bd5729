//! `sensor-board`: the simulated sensor board as an MCP server on stdin/stdout, or
//! with `--http ADDR` over Streamable HTTP at `http://ADDR/mcp`, or with `--mqtt
//! HOST:PORT --server-id ID --server-name NAME [--description TEXT] [--mqtt-user
//! NAME]` as an MCP-over-MQTT device on an MQTT 5 broker (reconnecting for ever);
//! with `--mqtt-user` it logs in with that user name and the password in the
//! environment variable `EMCP_MQTT_PASSWORD` (not an argument: every local user can
//! read a process's arguments).
//!
//! Nothing but protocol goes to stdout; diagnostics go to stderr. On stdio it exits 0
//! at end of input.
//!
//! The tasks build (feature `tasks`) gives the board its clock (milliseconds since the
//! Unix epoch) and a random state key from the operating system, from which the task
//! ids are derived.

use std::process::ExitCode;

use emcp::Server;
use sensor_board::{Board, CONFIG};

/// The board's server: the default shape.
#[cfg(not(feature = "tasks"))]
type BoardServer = Server<Board>;
/// The board's server: the default shape and 4 task slots.
#[cfg(feature = "tasks")]
type BoardServer = Server<Board, 4, 2, 0, 4>;

/// Milliseconds since the Unix epoch: the board's clock in the tasks build.
#[cfg(feature = "tasks")]
fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// 32 bytes from the operating system's random source: the key task ids are derived
/// from. None when there is no such source (the board then refuses to start).
#[cfg(feature = "tasks")]
fn random_key() -> Option<[u8; 32]> {
    use std::io::Read as _;
    let mut key = [0u8; 32];
    let mut urandom = std::fs::File::open("/dev/urandom").ok()?;
    urandom.read_exact(&mut key).ok()?;
    Some(key)
}

/// The board as the build makes it.
fn board() -> Board {
    #[cfg(feature = "tasks")]
    return Board::new().with_clock(epoch_ms);
    #[cfg(not(feature = "tasks"))]
    Board::new()
}

/// Where to serve.
enum Mode {
    Stdio,
    Http(String),
    Mqtt {
        broker: String,
        id: String,
        name: String,
        description: String,
        user: Option<String>,
    },
}

const USAGE: &str = "usage: sensor-board [--http ADDR | --mqtt HOST:PORT --server-id ID --server-name NAME [--description TEXT] [--mqtt-user NAME]] (with --mqtt-user, the password in EMCP_MQTT_PASSWORD)";

fn mode(args: &[String]) -> Option<Mode> {
    match args {
        [] => return Some(Mode::Stdio),
        [flag, addr] if flag == "--http" => return Some(Mode::Http(addr.clone())),
        _ => {}
    }
    let (mut broker, mut id, mut name, mut user) = (None, None, None, None);
    let mut description = String::from("The emcp simulated sensor board");
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next()?.clone();
        match flag.as_str() {
            "--mqtt" => broker = Some(value),
            "--server-id" => id = Some(value),
            "--server-name" => name = Some(value),
            "--description" => description = value,
            "--mqtt-user" => user = Some(value),
            _ => return None,
        }
    }
    Some(Mode::Mqtt {
        broker: broker?,
        id: id?,
        name: name?,
        description,
        user,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(mode) = mode(&args) else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    let mut server: BoardServer = match Server::new(board(), CONFIG) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sensor-board: invalid configuration: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    #[cfg(feature = "tasks")]
    match random_key() {
        Some(key) => server.set_state_key(emcp::state::seal::StateKey::new(key)),
        None => {
            eprintln!("sensor-board: no random source (/dev/urandom) for the task key");
            return ExitCode::FAILURE;
        }
    }
    match mode {
        Mode::Stdio => {}
        Mode::Http(addr) => {
            let policy = emcp::transport::http::Policy::default();
            return emcp_host::run_http("sensor-board", &addr, server, policy);
        }
        Mode::Mqtt {
            broker,
            id,
            name,
            description,
            user,
        } => {
            let config = emcp::transport::mqtt::MqttConfig::new(&id, &name, &description);
            let password = std::env::var("EMCP_MQTT_PASSWORD").unwrap_or_default();
            let config = match &user {
                Some(user) => config.login(user, password.as_bytes()),
                None => config,
            };
            return emcp_host::run_mqtt("sensor-board", &broker, server, config);
        }
    }
    eprintln!("sensor-board: serving MCP on stdin/stdout");
    match emcp_host::serve_stdio(&mut server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sensor-board: stdout: {e}");
            ExitCode::FAILURE
        }
    }
}
