//! `fleet-sim`: N simulated sensor boards in one process, each an MCP-over-MQTT
//! device with its own connection to the broker — the fleet of the scale benchmark
//! (`benches/fleet/scale.py`).
//!
//! ```sh
//! fleet-sim --broker 127.0.0.1:1883 --n 100 [--id-prefix sim] [--name-prefix fleet/dev]
//! ```
//!
//! Device `i` is the host sensor board (`sensor_board::Board`, served exactly as
//! `sensor-board --mqtt` serves it: `emcp_host::run_mqtt`) on a thread of its own,
//! server id `{id-prefix}-{i}`, server name `{name-prefix}-{i}`. It runs until its
//! standard input ends (the driver closes it, or dies), then exits 0 without goodbyes:
//! the broker publishes each device's will.

use std::io::Read as _;
use std::process::ExitCode;
use std::thread;

use emcp::transport::mqtt::MqttConfig;
use emcp::Server;
use sensor_board::{Board, CONFIG};

/// Stack of one device's thread: the server and the serve loop's future live on it.
/// Only the pages it touches count in the process's RSS.
const STACK: usize = 512 * 1024;

const USAGE: &str =
    "usage: fleet-sim --broker HOST:PORT --n N [--id-prefix P] [--name-prefix TYPE/NAME]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut broker, mut n) = (None, None);
    let (mut id_prefix, mut name_prefix) = (String::from("sim"), String::from("fleet/dev"));
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let Some(value) = it.next() else {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        };
        match flag.as_str() {
            "--broker" => broker = Some(value.clone()),
            "--n" => n = value.parse::<usize>().ok(),
            "--id-prefix" => id_prefix = value.clone(),
            "--name-prefix" => name_prefix = value.clone(),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    let (Some(broker), Some(n)) = (broker, n) else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    for i in 0..n {
        let broker = broker.clone();
        let id = format!("{id_prefix}-{i}");
        let name = format!("{name_prefix}-{i}");
        let spawned = thread::Builder::new()
            .name(id.clone())
            .stack_size(STACK)
            .spawn(move || {
                let server: Server<Board> = match Server::new(Board::new(), CONFIG) {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("fleet-sim: {id}: invalid configuration: {e:?}");
                        std::process::exit(1);
                    }
                };
                let config = MqttConfig::new(&id, &name, "A simulated sensor board");
                // Returns only for a configuration that cannot be served.
                let _ = emcp_host::run_mqtt(&id, &broker, server, config);
                std::process::exit(1);
            });
        if let Err(e) = spawned {
            eprintln!("fleet-sim: device {i}: no thread: {e}");
            return ExitCode::FAILURE;
        }
    }
    eprintln!("fleet-sim: {n} devices on {broker}; serving until stdin ends");
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    ExitCode::SUCCESS
}
