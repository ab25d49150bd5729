//! Criterion timings of `Server::handle` on one complete line, output discarded.
//!
//! - `read_sensor`, `read_text`, `read_blob_4k`, `tools_list`: the sensor board's
//!   messages, one bench per era (`2025-11-25`: after `initialize`; `2026-07-28`:
//!   stateless, `_meta` on every request). Throughput: request bytes.
//! - `echo`: a request of 256 B … 64 KiB (the scaling device's `echo` tool), per
//!   size, 2025-11-25 (a 2026-07-28 request is longer than 256 B). Throughput:
//!   request bytes.
//! - `blob`: `resources/read` of a generated 4 KiB, 64 KiB, 1 MiB blob, 2026-07-28.
//!   Throughput: response bytes.
//!
//! Every case's first response is checked (a successful result with the expected
//! text) before it is timed. `cargo bench -p emcp-bench -- --test` runs each once
//! (CI); `-- --quick` gives rough figures fast.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use emcp_bench::{
    blob_case, board_case, echo_case, CountSink, Era, Message, BLOB_SIZES, ECHO_SIZES,
};

fn board(c: &mut Criterion) {
    for m in Message::ALL {
        let mut g = c.benchmark_group(m.name());
        for era in Era::ALL {
            let mut case = board_case(m, era);
            g.throughput(Throughput::Bytes(case.line.len() as u64));
            let mut out = CountSink::default();
            g.bench_function(era.name(), |b| b.iter(|| case.run(&mut out)));
        }
        g.finish();
    }
}

fn echo(c: &mut Criterion) {
    let mut g = c.benchmark_group("echo");
    for size in ECHO_SIZES {
        let mut case = echo_case(Era::Legacy, size);
        g.throughput(Throughput::Bytes(size as u64));
        let mut out = CountSink::default();
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| case.run(&mut out))
        });
    }
    g.finish();
}

fn blob(c: &mut Criterion) {
    let mut g = c.benchmark_group("blob");
    for size in BLOB_SIZES {
        let mut case = blob_case(Era::Stateless, size);
        g.throughput(Throughput::Bytes(case.response_len as u64));
        let mut out = CountSink::default();
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| case.run(&mut out))
        });
    }
    g.finish();
}

fn config() -> Criterion {
    // Shorter than the defaults (3 s + 5 s per bench): 22 benches on a shared
    // machine. The command line still overrides these.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = board, echo, blob
}
criterion_main!(benches);
