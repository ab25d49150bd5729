//! `scaling [CASE…]`: the RAM serving one message takes, per case and era, as a
//! Markdown table on stdout: the request and response bytes, the static RAM (`size_of`
//! the server, and of the `Framer<DEFAULT_LINE_LEN>` a stdio transport keeps), the
//! peak stack of one `Server::handle`, and the heap allocations per message (must be
//! 0). Without arguments, every case of `emcp_bench::case_names`.
//!
//! Peak stack is measured as `tests/rust/stack.rs` does: the message is handled on a
//! thread of [`PROBE_STACK`] bytes below a ballast of stack already used, and a binary
//! search (each probe a child process — `scaling --probe CASE ERA BALLAST` — since an
//! overflow aborts the process) finds the largest ballast it still runs below. The
//! peak is that of an empty run minus that of the case, within [`STEP`] bytes.
//!
//! Build with `--release` for the figures of an optimised firmware build.

use std::hint::black_box;
use std::process::{Command, ExitCode, Stdio};

use emcp::wire::framing::{Framer, DEFAULT_LINE_LEN};
use emcp_bench::{case_named, case_names, Bench, CountSink, CountingAlloc, Era};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The thread stack of a probe: far above what serving takes, so the ballast decides
/// what is left for it.
const PROBE_STACK: usize = 256 << 10;

/// Resolution of the search, bytes.
const STEP: usize = 64;

/// Messages handled to count heap allocations.
const HEAP_RUNS: usize = 10;

/// The address of a local: where the stack is now.
#[inline(never)]
fn stack_here() -> usize {
    let marker = 0u8;
    black_box(&marker) as *const u8 as usize
}

/// Use `bytes` of stack below `top` (in frames of about 100 bytes), then run `work`.
#[inline(never)]
fn ballast(bytes: usize, top: usize, work: &mut dyn FnMut()) {
    let pad = [0u8; 64];
    let here = black_box(&pad) as *const _ as usize;
    if top.saturating_sub(here) < bytes {
        ballast(bytes, top, work);
    } else {
        work();
    }
    black_box(&pad); // no tail call: the frame stays
}

/// Child mode: handle `case` once (nothing for `empty`) below `bytes` of ballast.
fn probe(case: Option<Box<dyn Bench>>, bytes: usize) -> ExitCode {
    let mut case = case;
    let ran = std::thread::Builder::new()
        .stack_size(PROBE_STACK)
        .spawn(move || {
            // The thread's first allocation sets up its allocator arena: not serving.
            black_box(vec![0u8; 64]);
            let mut out = CountSink::default();
            ballast(bytes, stack_here(), &mut || {
                if let Some(case) = case.as_mut() {
                    case.run(&mut out);
                }
            });
            black_box(out.bytes);
        })
        .map(|t| t.join().is_ok());
    if ran.unwrap_or(false) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The most ballast `name` still runs below (`None`: not even without ballast).
fn max_ballast(name: &str, era: Era) -> Option<usize> {
    let exe = std::env::current_exe().ok()?;
    let runs = |bytes: usize| {
        Command::new(&exe)
            .args(["--probe", name, era.name(), &bytes.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !runs(0) {
        return None;
    }
    let (mut lo, mut hi) = (0, PROBE_STACK / STEP); // lo runs, hi overflows
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if runs(mid * STEP) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo * STEP)
}

/// Heap allocations of [`HEAP_RUNS`] messages.
fn allocations(case: &mut dyn Bench) -> usize {
    let mut out = CountSink::default();
    let before = CountingAlloc::count();
    for _ in 0..HEAP_RUNS {
        case.run(&mut out);
    }
    let n = CountingAlloc::count() - before;
    black_box(out.bytes);
    n
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, name, era, bytes] = args.as_slice() {
        if flag == "--probe" {
            let (Some(era), Ok(bytes)) = (Era::parse(era), bytes.parse()) else {
                return ExitCode::FAILURE;
            };
            let case = if name == "empty" {
                None
            } else {
                match case_named(name, era) {
                    Some(c) => Some(c),
                    None => return ExitCode::FAILURE,
                }
            };
            return probe(case, bytes);
        }
    }
    let framer = std::mem::size_of::<Framer<DEFAULT_LINE_LEN>>();
    println!(
        "| case | era | request B | response B | size_of Server B | Framer<{DEFAULT_LINE_LEN}> B | peak stack B (±{STEP}) | heap allocs / msg |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let mut failed = false;
    for era in Era::ALL {
        let Some(empty) = max_ballast("empty", era) else {
            eprintln!("scaling: an empty probe fails");
            return ExitCode::FAILURE;
        };
        let names = if args.is_empty() {
            case_names(era)
        } else {
            args.clone()
        };
        for name in &names {
            let Some(mut case) = case_named(name, era) else {
                eprintln!("scaling: no case {name}; cases: {:?}", case_names(era));
                return ExitCode::FAILURE;
            };
            let heap = allocations(case.as_mut());
            let stack = match max_ballast(name, era) {
                Some(b) => empty.saturating_sub(b).to_string(),
                None => {
                    failed = true;
                    format!("> {PROBE_STACK}")
                }
            };
            failed |= heap != 0;
            println!(
                "| {name} | {} | {} | {} | {} | {framer} | {stack} | {} |",
                era.name(),
                case.request_len(),
                case.response_len(),
                case.server_size(),
                heap as f64 / HEAP_RUNS as f64
            );
        }
    }
    if failed {
        eprintln!("scaling: a case allocated or overflowed the probe stack");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
