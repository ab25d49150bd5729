#!/usr/bin/env bash
# Run emcp's fuzz targets (fuzz/, cargo-fuzz + libFuzzer) for SECONDS each.
#
#   scripts/fuzz.sh [--record] [--runs N] [SECONDS] [TARGET...]
#                                             # default: 60 s, every target
#
# --runs N: each target runs N executions instead of SECONDS (libFuzzer -runs).
# --record: each target's totals — executions, seconds, corpus size, result, the
# commit, the date and this command — replace its row in docs/fuzz-runs.md (written
# by this script only; without --record, a run records nothing).
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
command="scripts/fuzz.sh $*"
record=0
runs=
while [ $# -gt 0 ]; do
    case $1 in
        --record) record=1 ;;
        --runs)
            runs=${2:?--runs needs a number}
            shift
            ;;
        *) break ;;
    esac
    shift
done
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(framer json server ffi_feed http relay bridge_http mqtt)
fi
if [ -n "$runs" ]; then
    limit=(-runs="$runs")
else
    limit=(-max_total_time="$seconds")
fi
# What a recorded row names: the commit, and whether the tree differed from it.
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . ':!docs/fuzz-runs.md' || commit="$commit+changes"

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
    mkdir -p "seeds/$t"
    started=$SECONDS
    # -max_len: room for several requests (relay, bridge_http: each byte or two is an
    # operation, so longer inputs are slower, not deeper); -timeout: a slow input is a
    # finding too.
    max_len=8192
    [ "$t" != relay ] && [ "$t" != bridge_http ] || max_len=2048
    cargo "${toolchain[@]}" fuzz run -O "$t" "corpus/$t" "seeds/$t" -- \
        "${limit[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1 || status=$?
    took=$((SECONDS - started))
    cat "$log" >&2
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # libFuzzer's own time when it printed one (a rebuild is not fuzzing time).
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1 | grep . || echo "$took")
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    if [ "$status" -eq 0 ] && [ -z "$crash" ]; then
        result=clean
        echo "$t: ${execs:-0} executions in ${took} s: clean"
    else
        result="CRASH ${crash:-(exit status $status)}"
        echo "$t: ${execs:-?} executions: CRASH ${crash:-(exit status $status, see fuzz/$log)}"
        failed=1
    fi
    if [ "$record" -eq 1 ]; then
        files=$(find "corpus/$t" -type f | wc -l)
        bytes=$(du -sb "corpus/$t" | cut -f1)
        python3 "$root/scripts/fuzz-record.py" "$root/docs/fuzz-runs.md" "$t" "${execs:-?}" "$took" \
            "$files files, $bytes bytes" "$result" "$commit" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$command"
    fi
done
cd "$root"
exit "$failed"
