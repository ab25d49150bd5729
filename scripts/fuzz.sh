#!/usr/bin/env bash
# Run emcp's fuzz targets (fuzz/, cargo-fuzz + libFuzzer) for SECONDS each.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # default: 60 s, every target
#
# Installs cargo-fuzz when missing (`cargo install cargo-fuzz --locked`), uses the
# nightly toolchain when rustup has one, else stable with RUSTC_BOOTSTRAP=1 (stable
# ships the ASan runtime cargo-fuzz links). Seeds come from the transcripts
# (`cargo run -p emcp-tests --bin fuzz-seeds`, written to fuzz/seeds/); what a run
# adds is kept in fuzz/corpus/TARGET (both ignored by git). A crash leaves its input in
# fuzz/artifacts/TARGET/; reproduce it with
#   (cd fuzz && cargo +nightly fuzz run -O TARGET artifacts/TARGET/crash-...)
#
# stdout: one line per target — executions, seconds, and `clean` or `CRASH <file>`;
# build output and libFuzzer's log go to stderr (the log also to fuzz/target/TARGET.log).
# Inputs in fuzz/regressions/TARGET-* (found earlier, fixed since) are replayed first.
# Exits non-zero when any target crashed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(framer json server ffi_feed http)
fi

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    if ! curl -fsS --max-time 10 -o /dev/null https://index.crates.io/config.json; then
        echo "fuzz.sh: cargo-fuzz is missing and crates.io is not reachable" >&2
        exit 1
    fi
    echo "fuzz.sh: installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked >&2
fi

if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    toolchain=(+stable)
    export RUSTC_BOOTSTRAP=1
fi

echo "fuzz.sh: seeds from tests/transcripts" >&2
rm -rf fuzz/seeds
cargo run -q -p emcp-tests --bin fuzz-seeds -- fuzz/seeds >&2

cd fuzz
echo "fuzz.sh: building ${targets[*]} (cargo ${toolchain[*]} fuzz build -O)" >&2
for t in "${targets[@]}"; do
    cargo "${toolchain[@]}" fuzz build -O "$t" >&2
done

failed=0
for t in "${targets[@]}"; do
    # Inputs that once failed (fuzz/regressions/TARGET-*) must pass, every run.
    for r in regressions/"$t"-*; do
        [ -e "$r" ] || continue
        if cargo "${toolchain[@]}" fuzz run -O "$t" "$r" >"target/$t.regression.log" 2>&1; then
            echo "$t: regression $(basename "$r"): passes"
        else
            cat "target/$t.regression.log" >&2
            echo "$t: regression $(basename "$r"): FAILS"
            failed=1
        fi
    done
    mkdir -p "corpus/$t" "artifacts/$t"
    log="target/$t.log"
    status=0
    # -max_len: room for several requests; -timeout: a slow input is a finding too.
    cargo "${toolchain[@]}" fuzz run -O "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1 || status=$?
    cat "$log" >&2
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    if [ "$status" -eq 0 ] && [ -z "$crash" ]; then
        echo "$t: ${execs:-0} executions in ${seconds} s: clean"
    else
        echo "$t: ${execs:-?} executions: CRASH ${crash:-(exit status $status, see fuzz/$log)}"
        failed=1
    fi
done
cd "$root"
exit "$failed"
