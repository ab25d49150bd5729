//! `instr CASE ERA COUNT`: set up a server for CASE (the sensor board, or the scaling
//! device) in ERA (`2025-11-25`/`legacy` or `2026-07-28`/`stateless`), check its answer
//! once, then handle the same request COUNT more times into a sink that discards the
//! output. Run under callgrind by `callgrind.sh`: the instructions of two runs with
//! different COUNTs differ by exactly the instructions of the extra messages, so
//! set-up (process start, server, `initialize`, building the request) cancels out.
//!
//! `instr --list` prints every case and era with its request and response sizes and
//! a COUNT that keeps a callgrind run short (tab-separated).
//!
//! `instr --lines MESSAGE ERA` prints the lines a client sends for a sensor-board
//! MESSAGE (`read_sensor`, `read_text`, `read_blob_4k`, `tools_list`): the set-up
//! (`initialize` and `notifications/initialized` in the initialize era, nothing in
//! 2026-07-28), then the request, one per line. The firmware's instruction count
//! (`benches/firmware/instr.sh`) feeds them to the image.
//!
//! Exits non-zero when the measured loop allocated (serving must not touch the heap).

use std::hint::black_box;
use std::process::ExitCode;

use emcp_bench::parsers::Parser;
use emcp_bench::{
    case_named, case_names, CountSink, CountingAlloc, Era, Message, INITIALIZE, INITIALIZED,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Request and response bytes one callgrind run may handle (keeps each run to
/// seconds: about 10 to 30 instructions a byte).
const BUDGET_BYTES: usize = 4 << 20;

fn list() -> ExitCode {
    for era in Era::ALL {
        for name in case_names(era) {
            let Some(case) = case_named(&name, era) else {
                return ExitCode::FAILURE;
            };
            let bytes = case.request_len() + case.response_len();
            let count = (BUDGET_BYTES / bytes).clamp(10, 1000);
            println!(
                "{name}\t{}\t{}\t{}\t{count}",
                era.name(),
                case.request_len(),
                case.response_len()
            );
        }
    }
    ExitCode::SUCCESS
}

/// The set-up lines and the request line of `message` in `era`.
fn lines(message: &str, era: &str) -> ExitCode {
    let (Some(m), Some(era)) = (Message::parse(message), Era::parse(era)) else {
        eprintln!("instr: --lines takes a sensor-board message and an era");
        return ExitCode::FAILURE;
    };
    if era == Era::Legacy {
        println!("{INITIALIZE}\n{INITIALIZED}");
    }
    println!("{}", String::from_utf8_lossy(&m.request(era)));
    ExitCode::SUCCESS
}

/// Validate the `read_sensor` request line of `era` `count` times with `parser`.
fn parse(parser: &str, era: &str, count: &str) -> ExitCode {
    let (Some(parser), Some(era), Ok(count)) = (
        Parser::parse(parser),
        Era::parse(era),
        count.parse::<usize>(),
    ) else {
        eprintln!("instr: --parse takes a parser (instr --parsers), an era and a count");
        return ExitCode::FAILURE;
    };
    let line = Message::ReadSensor.request(era);
    for _ in 0..count {
        if !parser.validate(black_box(&line)) {
            eprintln!("instr: {} refused the request line", parser.name());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => return list(),
        [flag] if flag == "--parsers" => {
            for p in Parser::ALL {
                println!("{}\t{}", p.name(), p.label());
            }
            return ExitCode::SUCCESS;
        }
        [flag, message, era] if flag == "--lines" => return lines(message, era),
        [flag, parser, era, count] if flag == "--parse" => return parse(parser, era, count),
        _ => {}
    }
    let [name, era, count] = args.as_slice() else {
        eprintln!(
            "usage: instr CASE ERA COUNT | instr --list | instr --lines MESSAGE ERA | \
             instr --parse PARSER ERA COUNT | instr --parsers"
        );
        return ExitCode::FAILURE;
    };
    let (Some(era), Ok(count)) = (Era::parse(era), count.parse::<usize>()) else {
        eprintln!("instr: bad era or count");
        return ExitCode::FAILURE;
    };
    let Some(mut case) = case_named(name, era) else {
        eprintln!("instr: no case {name}; cases: {:?}", case_names(era));
        return ExitCode::FAILURE;
    };
    let mut out = CountSink::default();
    let before = CountingAlloc::count();
    for _ in 0..count {
        case.run(black_box(&mut out));
    }
    let allocations = CountingAlloc::count() - before;
    black_box(out.bytes);
    if out.bytes != count * case.response_len() {
        eprintln!("instr: {name}: responses changed size");
        return ExitCode::FAILURE;
    }
    if allocations != 0 {
        eprintln!("instr: {name}: {allocations} heap allocations while serving");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
