//! `emcp-bridge`: a serial-port or child-process MCP device on stdio or Streamable
//! HTTP, or a networked device (Streamable HTTP) on stdio, surviving device resets;
//! or devices behind an MQTT 5 broker, one or the whole fleet.
//! stdout carries only protocol; progress and state go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use emcp_bridge::link::exec::Exec;
use emcp_bridge::link::serial::Serial;
use emcp_bridge::link::Link;
use emcp_bridge::mqtt::client::Broker;
use emcp_bridge::mqtt::device::MqttDevice;
use emcp_bridge::mqtt::fleet::Fleet;
use emcp_bridge::{http, net, pump, relay};

/// Connect an MCP device (serial port or child process speaking newline-delimited
/// JSON-RPC) to MCP hosts over stdio, or over Streamable HTTP with --http; or a
/// networked device serving Streamable HTTP to hosts on stdio (`http URL`).
#[derive(Parser, Debug)]
#[command(name = "emcp-bridge", version)]
struct Cli {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080).
    #[arg(long, global = true, value_name = "ADDR")]
    http: Option<String>,
    /// With --http: a host name clients may use besides loopback (Host/Origin check;
    /// repeatable).
    #[arg(long = "allow-host", global = true, value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// Answer a request the device leaves unanswered this long with error -32001
    /// (e.g. 30, 500ms, 2s; 0: never).
    #[arg(long, global = true, value_name = "DURATION", default_value = "60s", value_parser = duration)]
    timeout: Duration,
    /// The device's line buffer in bytes: a longer request is answered with the
    /// core's "line too long" error (id null) instead of being sent (the firmware
    /// example: 1024).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = emcp::wire::framing::DEFAULT_LINE_LEN)]
    line_max: usize,
    #[command(subcommand)]
    device: Device,
}

#[derive(Subcommand, Debug)]
enum Device {
    /// A serial port (reopened when it comes back after a reset).
    Serial {
        /// The port, e.g. /dev/ttyACM0 or /dev/serial/by-id/...
        path: PathBuf,
        /// Baud rate.
        #[arg(long, default_value_t = 115_200)]
        baud: u32,
    },
    /// A child process on stdin/stdout (restarted when it exits).
    Exec {
        /// Delay before the first restart; doubled per quick restart up to --restart-max.
        #[arg(long, value_name = "DURATION", default_value = "100ms", value_parser = duration)]
        restart_delay: Duration,
        /// Longest restart delay.
        #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = duration)]
        restart_max: Duration,
        /// The command and its arguments (after --).
        #[arg(
            required = true,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "CMD"
        )]
        command: Vec<String>,
    },
    /// Devices behind an MQTT 5 broker (MCP over MQTT): one by its server name, or the
    /// whole fleet as one MCP server (--fleet).
    Mqtt {
        /// The broker, HOST:PORT (e.g. 127.0.0.1:1883).
        #[arg(long, value_name = "HOST:PORT")]
        broker: String,
        /// The device's server name (e.g. greenhouse/bed-3).
        #[arg(
            long,
            value_name = "NAME",
            required_unless_present = "fleet",
            conflicts_with = "fleet"
        )]
        server_name: Option<String>,
        /// Serve every device online as one MCP server, names prefixed by device.
        #[arg(long)]
        fleet: bool,
        /// With --fleet: the server names to take, as an MQTT topic filter.
        #[arg(long, value_name = "FILTER", default_value = "#", requires = "fleet")]
        filter: String,
        /// Log in to the broker with this user name and the password in the
        /// environment variable EMCP_MQTT_PASSWORD (not an argument: every local
        /// user can read a process's arguments).
        #[arg(long, value_name = "NAME")]
        user: Option<String>,
    },
    /// A networked device serving MCP's Streamable HTTP at URL (e.g.
    /// http://192.168.1.50/mcp), on stdio.
    Http {
        /// The device's endpoint: http://HOST[:PORT]/PATH.
        url: String,
    },
}

/// `500ms`, `2s`, or plain seconds (`30`, `0.5`).
fn duration(text: &str) -> Result<Duration, String> {
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 0.001)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        (text, 1.0)
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .map(|n| Duration::from_secs_f64(n * scale))
        .ok_or_else(|| format!("not a duration: {text} (try 500ms, 2s or 30)"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let timeout = (!cli.timeout.is_zero()).then_some(cli.timeout);
    if let Device::Http { url } = &cli.device {
        if cli.http.is_some() {
            eprintln!(
                "emcp-bridge: `http URL` serves a networked device on stdio; --http does not apply"
            );
            return ExitCode::from(2);
        }
        eprintln!("emcp-bridge: {url} on stdio");
        let options = net::Options {
            timeout,
            line_max: cli.line_max,
        };
        let stdout = std::io::stdout();
        return match net::run(url, std::io::stdin(), stdout, options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("emcp-bridge: {e}");
                ExitCode::from(2)
            }
        };
    }
    let link: Box<dyn Link> = match cli.device {
        Device::Serial { path, baud } => Box::new(Serial::new(path, baud)),
        Device::Exec {
            restart_delay,
            restart_max,
            mut command,
        } => {
            let program = command.remove(0);
            Box::new(Exec::new(program, command, restart_delay, restart_max))
        }
        Device::Mqtt {
            broker,
            server_name,
            fleet,
            filter,
            user,
        } => {
            let password = std::env::var("EMCP_MQTT_PASSWORD").unwrap_or_default();
            let broker = Broker {
                addr: broker,
                login: user.map(|u| (u, password.into_bytes())),
            };
            match server_name {
                Some(name) if !fleet => Box::new(MqttDevice::new(broker, name)),
                _ => Box::new(Fleet::new(broker, filter)),
            }
        }
        Device::Http { .. } => return ExitCode::FAILURE, // served above
    };
    let options = pump::Options {
        relay: relay::Config {
            timeout,
            line_max: cli.line_max,
            ..relay::Config::default()
        },
    };
    let result = match &cli.http {
        Some(addr) => http::serve(link, addr, cli.allow_hosts.clone(), options),
        None => {
            eprintln!("emcp-bridge: {} on stdio", link.describe());
            pump::run(link, std::io::stdin(), std::io::stdout().lock(), options)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("emcp-bridge: {e}");
            ExitCode::FAILURE
        }
    }
}
