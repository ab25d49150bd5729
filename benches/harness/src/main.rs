//! `stdio-harness [OPTIONS] -- CMD ARGS...`: see README.md and `--help`.

use std::process::ExitCode;
use std::time::Duration;

use emcp_harness::mix::{Era, Writer};
use emcp_harness::run::{self, Config, Mode, Stats};

const USAGE: &str = "\
usage: stdio-harness [OPTIONS] -- CMD ARGS...

Spawns CMD as an MCP server on stdin/stdout, does the handshake, sends N requests of
the sensor-board mix (read_sensor x3, set_led, resources/read sensor://temperature,
resources/read log://samples, tools/list), checks every response, and reports the
child's CPU per message (net of a run with N=0), messages per second and peak RSS.

options:
  --era legacy|stateless        protocol era (default legacy: initialize handshake)
  --protocol-version V       version to ask for (default 2025-06-18 legacy, 2026-07-28 stateless)
  --n N                      measured requests (default 10000)
  --warmup K                 requests sent one at a time before the measured ones,
                             in both the measured and the baseline run (default 7)
  --interactive              one request at a time (reports round-trip latency)
  --runs R                   repeat measured and baseline runs R times, report medians (default 1)
  --no-baseline              skip the N=0 run (CPU per message then includes start-up)
  --name NAME                name column (default: the command's file name)
  --json                     one JSON line on stdout instead of a Markdown table row
  --header                   print the Markdown table header first
  --quiet                    the child's stderr goes to /dev/null
  --timeout SECS             kill the child and fail when one run takes longer (default 300)";

struct Args {
    config: Config,
    n: u64,
    runs: usize,
    baseline: bool,
    name: String,
    json: bool,
    header: bool,
}

fn parse() -> Result<Args, String> {
    let mut argv = std::env::args().skip(1);
    let mut era = Era::Legacy;
    let mut version = None;
    let mut n = 10_000u64;
    let mut warmup = 7u64;
    let mut mode = Mode::Pipelined;
    let mut runs = 1usize;
    let mut baseline = true;
    let mut name = None;
    let (mut json, mut header, mut quiet) = (false, false, false);
    let mut timeout = 300u64;
    let mut command = Vec::new();
    fn value<T: std::str::FromStr>(
        argv: &mut impl Iterator<Item = String>,
        flag: &str,
    ) -> Result<T, String> {
        let v = argv.next().ok_or(format!("{flag} needs a value"))?;
        v.parse().map_err(|_| format!("{flag}: bad value {v:?}"))
    }
    while let Some(arg) = argv.next() {
        match arg.as_str() {
            "--" => {
                command.extend(argv.by_ref());
            }
            "--era" => {
                era = match value::<String>(&mut argv, "--era")?.as_str() {
                    "legacy" => Era::Legacy,
                    "stateless" => Era::Stateless,
                    other => return Err(format!("--era: {other:?} is not legacy or stateless")),
                }
            }
            "--protocol-version" => version = Some(value::<String>(&mut argv, &arg)?),
            "--n" => n = value(&mut argv, &arg)?,
            "--warmup" => warmup = value(&mut argv, &arg)?,
            "--interactive" => mode = Mode::Interactive,
            "--runs" => runs = value::<usize>(&mut argv, &arg)?.max(1),
            "--no-baseline" => baseline = false,
            "--name" => name = Some(value::<String>(&mut argv, &arg)?),
            "--json" => json = true,
            "--header" => header = true,
            "--quiet" => quiet = true,
            "--timeout" => timeout = value(&mut argv, &arg)?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if command.is_empty() {
        return Err("no command: put it after --".into());
    }
    if n == 0 {
        return Err("--n must be at least 1".into());
    }
    let name = name.unwrap_or_else(|| {
        std::path::Path::new(&command[0])
            .file_name()
            .map_or_else(|| command[0].clone(), |f| f.to_string_lossy().into_owned())
    });
    let version = version.unwrap_or_else(|| era.default_version().to_string());
    Ok(Args {
        config: Config {
            writer: Writer::new(era, &version),
            mode,
            warmup,
            quiet_child: quiet,
            timeout: Duration::from_secs(timeout),
            command,
        },
        n,
        runs,
        baseline,
        name,
        json,
        header,
    })
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

struct Report {
    cpu_us_per_msg: f64,
    cpu_us: u64,
    baseline_cpu_us: Option<u64>,
    wall_us: u64,
    msgs_per_s: f64,
    maxrss_kib: u64,
    baseline_maxrss_kib: Option<u64>,
    ru_maxrss_kib: u64,
    harness_cpu_us: u64,
    rtt: Option<[u64; 4]>, // p50, p90, p99, max
    last: Stats,
}

fn measure(args: &Args) -> Result<Report, String> {
    let mut measured = Vec::new();
    let mut baselines = Vec::new();
    let mut harness_cpu = Vec::new();
    for r in 0..args.runs {
        let before = run::self_cpu_us();
        let s = run::run(&args.config, args.n).map_err(|e| format!("run {}: {e}", r + 1))?;
        harness_cpu.push(run::self_cpu_us() - before);
        for note in &s.notes {
            eprintln!("stdio-harness: note: {note}");
        }
        measured.push(s);
        if args.baseline {
            let b = run::run(&args.config, 0).map_err(|e| format!("baseline run (N=0): {e}"))?;
            baselines.push(b);
        }
    }
    let cpu_us = median(measured.iter().map(|s| s.cpu_us).collect());
    let wall_us = median(measured.iter().map(|s| s.wall.as_micros() as u64).collect());
    let maxrss_kib = measured.iter().map(|s| s.peak_rss_kib).max().unwrap_or(0);
    let baseline_cpu_us =
        (!baselines.is_empty()).then(|| median(baselines.iter().map(|s| s.cpu_us).collect()));
    let baseline_maxrss_kib = baselines.iter().map(|s| s.peak_rss_kib).max();
    let ru_maxrss_kib = measured.iter().map(|s| s.ru_maxrss_kib).max().unwrap_or(0);
    let net = cpu_us.saturating_sub(baseline_cpu_us.unwrap_or(0));
    let rtt = (args.config.mode == Mode::Interactive).then(|| {
        let mut all: Vec<u64> = measured
            .iter()
            .flat_map(|s| s.latencies_us.iter().copied())
            .collect();
        all.sort_unstable();
        [
            percentile(&all, 0.5),
            percentile(&all, 0.9),
            percentile(&all, 0.99),
            *all.last().unwrap_or(&0),
        ]
    });
    Ok(Report {
        cpu_us_per_msg: net as f64 / args.n as f64,
        cpu_us,
        baseline_cpu_us,
        wall_us,
        msgs_per_s: args.n as f64 / (wall_us.max(1) as f64 / 1e6),
        maxrss_kib,
        baseline_maxrss_kib,
        ru_maxrss_kib,
        harness_cpu_us: median(harness_cpu),
        rtt,
        last: measured.pop().unwrap_or_default(),
    })
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("stdio-harness: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            };
        }
    };
    let era = args.config.writer.era().name();
    let mode = args.config.mode.name();
    if args.header && !args.json {
        println!("| name | era | mode | N | CPU µs/msg | msg/s | peak RSS KiB | RTT p50/p99 µs | check |");
        println!("|---|---|---|---:|---:|---:|---:|---:|---|");
    }
    eprintln!(
        "stdio-harness: {} ({era}, protocol {}, {mode}, N={}, warmup {}, runs {}): {}",
        args.name,
        args.config.writer.version(),
        args.n,
        args.config.warmup,
        args.runs,
        args.config.command.join(" ")
    );
    let report = match measure(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("stdio-harness: FAIL: {e}");
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({"name": args.name, "era": era, "mode": mode, "n": args.n,
                        "check": "FAIL", "error": e})
                );
            } else {
                println!(
                    "| {} | {era} | {mode} | {} | - | - | - | - | FAIL |",
                    args.name, args.n
                );
            }
            return ExitCode::FAILURE;
        }
    };
    let s = &report.last;
    eprintln!(
        "  check: ok ({} responses checked, {} notifications)",
        s.responses, s.notifications
    );
    match report.baseline_cpu_us {
        Some(b) => eprintln!(
            "  cpu: {} µs with N={}, {b} µs with N=0 -> {:.2} µs/msg",
            report.cpu_us, args.n, report.cpu_us_per_msg
        ),
        None => eprintln!(
            "  cpu: {} µs with N={} (no baseline) -> {:.2} µs/msg",
            report.cpu_us, args.n, report.cpu_us_per_msg
        ),
    }
    eprintln!(
        "  wall: {:.1} ms -> {:.0} msg/s (the harness itself used {:.2} µs/msg of CPU)",
        report.wall_us as f64 / 1e3,
        report.msgs_per_s,
        report.harness_cpu_us as f64 / args.n as f64
    );
    eprintln!(
        "  peak RSS: {} KiB (N=0: {}; wait4 ru_maxrss {} KiB)",
        report.maxrss_kib,
        report
            .baseline_maxrss_kib
            .map_or("-".into(), |k| format!("{k} KiB")),
        report.ru_maxrss_kib
    );
    eprintln!(
        "  bytes: {} to the server ({:.0}/msg), {} from it ({:.0}/msg)",
        s.bytes_out,
        s.bytes_out as f64 / args.n as f64,
        s.bytes_in,
        s.bytes_in as f64 / args.n as f64
    );
    if let Some([p50, p90, p99, max]) = report.rtt {
        eprintln!("  round trip: p50 {p50} µs, p90 {p90} µs, p99 {p99} µs, max {max} µs");
    }
    if args.json {
        let mut j = serde_json::json!({
            "name": args.name, "era": era, "protocol_version": args.config.writer.version(),
            "mode": mode, "n": args.n, "warmup": args.config.warmup, "runs": args.runs,
            "cpu_us_per_msg": (report.cpu_us_per_msg * 100.0).round() / 100.0,
            "cpu_us": report.cpu_us, "baseline_cpu_us": report.baseline_cpu_us,
            "wall_us": report.wall_us, "msgs_per_s": report.msgs_per_s.round(),
            "peak_rss_kib": report.maxrss_kib, "baseline_peak_rss_kib": report.baseline_maxrss_kib,
            "ru_maxrss_kib": report.ru_maxrss_kib,
            "harness_cpu_us": report.harness_cpu_us,
            "bytes_to_server": s.bytes_out, "bytes_from_server": s.bytes_in,
            "responses": s.responses, "notifications": s.notifications,
            "notes": s.notes, "check": "ok",
        });
        if let Some([p50, p90, p99, max]) = report.rtt {
            j["rtt_us"] = serde_json::json!({"p50": p50, "p90": p90, "p99": p99, "max": max});
        }
        println!("{j}");
    } else {
        let rtt = report
            .rtt
            .map_or("-".into(), |[p50, _, p99, _]| format!("{p50}/{p99}"));
        println!(
            "| {} | {era} | {mode} | {} | {:.2} | {:.0} | {} | {rtt} | ok |",
            args.name, args.n, report.cpu_us_per_msg, report.msgs_per_s, report.maxrss_kib
        );
    }
    ExitCode::SUCCESS
}
