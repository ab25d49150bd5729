#!/usr/bin/env bash
# Run emcp's fuzz targets (fuzz/, cargo-fuzz + libFuzzer) for SECONDS each.
#
#   scripts/fuzz.sh [--record] [--runs N] [SECONDS] [TARGET...]
#                                             # default: 60 s, every target
#   scripts/fuzz.sh --report                  # docs/fuzz-runs.md's summary for HEAD
#
# --runs N: each target runs N executions instead of SECONDS (libFuzzer -runs).
# --record: each target's run — executions, seconds, CPU seconds, executions per second
# and per CPU second, libFuzzer's coverage and features, corpus size, result, the
# sources hash, the commit, the date, the load and this command — is added to docs/fuzz-runs.md (written by this script only; without
# --record, a run records nothing), whose summary adds up, per target, the runs on
# the sources of that run; --report rewrites the summary for HEAD's sources.
#
# The sources hash names what the targets are built from: the git trees of the paths
# in `sources` below (everything the fuzz crate compiles, its path dependencies and
# the C board) as they are in the working tree, uncommitted changes included (hashed
# through a throw-away index; the real index is not touched). It equals the hash of
# any commit with the same content there, so a run counts for every such commit. A
# run whose sources changed while it built or ran is not recorded.
#
# Installs cargo-fuzz when missing (`cargo install cargo-fuzz --locked`), uses the
# nightly toolchain when rustup has one, else stable with RUSTC_BOOTSTRAP=1 (stable
# ships the ASan runtime cargo-fuzz links). Seeds come from the transcripts
# (`cargo run -p emcp-tests --bin fuzz-seeds`, written to fuzz/seeds/); what a run
# adds is kept in fuzz/corpus/TARGET (both ignored by git). A crash leaves its input in
# fuzz/artifacts/TARGET/; reproduce it with
#   (cd fuzz && cargo +nightly fuzz run -O TARGET artifacts/TARGET/crash-...)
# (under ASan; the targets fuzz without it, `fast` below: add
# `--sanitizer none --target-dir target/none` to run that build).
#
# stdout: one line per target — executions, seconds, CPU seconds, and `clean` or
# `CRASH <file>`;
# build output and libFuzzer's log go to stderr (the log also to fuzz/target/TARGET.log).
# Inputs in fuzz/regressions/TARGET-* (found earlier, fixed since) are replayed first,
# under ASan.
# Exits non-zero when any target crashed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
command="scripts/fuzz.sh $*"
all_targets=(bridge_http ffi_feed framer http json mqtt relay server)
record=0
report=0
runs=
while [ $# -gt 0 ]; do
    case $1 in
        --record) record=1 ;;
        --report) report=1 ;;
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
    targets=("${all_targets[@]}")
fi
if [ -n "$runs" ]; then
    limit=(-runs="$runs")
else
    limit=(-max_total_time="$seconds")
fi
# What the fuzz targets are built from (README.md, which host/ includes as rustdoc
# only, is left out: it changes no code).
sources=(Cargo.toml core ffi host bridge examples/sensor-board examples/c-sensor-board
    include fuzz)

# The hash of `sources` in the working tree: their git trees (`git ls-tree`) as a
# throw-away index holding HEAD plus the working tree's changes gives them, hashed.
sources_hash() {
    local dir tree
    dir=$(mktemp -d)
    GIT_INDEX_FILE=$dir/index git read-tree HEAD
    GIT_INDEX_FILE=$dir/index git add -A -- "${sources[@]}"
    tree=$(GIT_INDEX_FILE=$dir/index git write-tree)
    rm -rf "$dir"
    git ls-tree "$tree" -- "${sources[@]}" | git hash-object --stdin | cut -c1-12
}

# What a recorded row names besides: the commit, `+changes` when the sources `$1`
# differ from it.
commit_of() {
    local head
    head=$(git rev-parse --short HEAD)
    if [ "$1" = "$(git ls-tree HEAD -- "${sources[@]}" | git hash-object --stdin | cut -c1-12)" ]; then
        echo "$head"
    else
        echo "$head+changes"
    fi
}
hash=$(sources_hash)
commit=$(commit_of "$hash")
if [ "$report" -eq 1 ]; then
    # The summary for HEAD's sources (committed: the working tree is not looked at).
    python3 scripts/fuzz-record.py docs/fuzz-runs.md \
        "$(git ls-tree HEAD -- "${sources[@]}" | git hash-object --stdin | cut -c1-12)" \
        "$(git rev-parse --short HEAD)" "${all_targets[*]}"
    exit 0
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

echo "fuzz.sh: sources $hash (commit $commit)" >&2
echo "fuzz.sh: seeds from tests/transcripts" >&2
rm -rf fuzz/seeds
cargo run -q -p emcp-tests --bin fuzz-seeds -- fuzz/seeds >&2

cd fuzz
# AddressSanitizer finds memory errors of unsafe code, at four to five times the cost
# of an execution (docs/fuzz-runs.md has runs with and without). Every target fuzzes
# without it (built in fuzz/target/none), the invariants it asserts unchanged, and the
# inputs its corpus holds after the run are replayed once under ASan: for the unsafe
# code of the dependencies (heapless, httparse, embassy, serde_json, std) and, in
# ffi_feed, the C ABI's own and the C board's (board.c is built with ASan then,
# fuzz/build.rs). ffi_feed checks the C ABI's writes on every run without it: each
# buffer it gives the library sits between guard zones, checked after every call.
fast=(--sanitizer none --target-dir target/none) # the cargo fuzz options of that build
echo "fuzz.sh: building ${targets[*]} (cargo ${toolchain[*]} fuzz build -O, ASan and not)" >&2
for t in "${targets[@]}"; do
    cargo "${toolchain[@]}" fuzz build -O "${fast[@]}" "$t" >&2
    cargo "${toolchain[@]}" fuzz build -O "$t" >&2
done

failed=0
for t in "${targets[@]}"; do
    build="no sanitizer, its corpus replayed under ASan"
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
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    # The sources of this run: hashed before `cargo fuzz run` (re)builds the target
    # and again after it; a run is recorded only when both agree.
    run_hash=$(cd "$root" && sources_hash)
    # -max_len: room for several requests (relay, bridge_http: each byte or two is an
    # operation, so longer inputs are slower, not deeper); -timeout: a slow input is a
    # finding too; -reload=0: one process fuzzes a corpus, and libFuzzer would
    # otherwise read the whole corpus directory again each second after it added an
    # input.
    max_len=8192
    [ "$t" != relay ] && [ "$t" != bridge_http ] || max_len=2048
    # The CPU time of the run (cargo's check and libFuzzer's process), user + system:
    # executions per CPU second say what one idle core would do, on a loaded machine.
    TIMEFORMAT='%U %S'
    {
        time cargo "${toolchain[@]}" fuzz run -O "${fast[@]}" "$t" "corpus/$t" "seeds/$t" -- \
            "${limit[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -reload=0 \
            -print_final_stats=1 >"$log" 2>&1
    } 2>"target/$t.cpu" || status=$?
    cpu=$(awk '{ printf "%.1f", $1 + $2 }' "target/$t.cpu")
    # A rebuild inside the run is not fuzzing time.
    ! grep -q '^ *Compiling ' "$log" || cpu="?"
    took=$((SECONDS - started))
    cat "$log" >&2
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # libFuzzer's own time when it printed one (a rebuild is not fuzzing time).
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1 | grep . || echo "$took")
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) .*/\1 \2/p' "$log" | tail -1)
    if grep -q '^Error: failed to build fuzz script' "$log"; then
        echo "$t: the build failed (see fuzz/$log)"
        failed=1
        continue
    elif [ "$status" -eq 0 ] && [ -z "$crash" ] &&
        ! cargo "${toolchain[@]}" fuzz run -O "$t" "corpus/$t" -- -runs=0 \
            -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 >"target/$t.asan.log" 2>&1; then
        # The corpus replayed under ASan (see `fast`).
        cat "target/$t.asan.log" >&2
        crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "target/$t.asan.log" | tail -1)
        result="CRASH under ASan ${crash:-(see fuzz/target/$t.asan.log)}"
        echo "$t: ${execs:-?} executions: $result"
        failed=1
    elif [ "$status" -eq 0 ] && [ -z "$crash" ]; then
        result=clean
        echo "$t: ${execs:-0} executions in ${took} s, $cpu CPU s: clean"
    else
        result="CRASH ${crash:-(exit status $status)}"
        echo "$t: ${execs:-?} executions: CRASH ${crash:-(exit status $status, see fuzz/$log)}"
        failed=1
    fi
    if [ "$record" -eq 1 ]; then
        if [ "$(cd "$root" && sources_hash)" != "$run_hash" ]; then
            echo "$t: not recorded: the sources changed during the run" >&2
            continue
        fi
        files=$(find -L "corpus/$t" -type f | wc -l)
        bytes=$(du -sbL "corpus/$t" | cut -f1)
        load="$load_before → $(cut -d' ' -f1 /proc/loadavg), $(nproc) of $(nproc --all) CPUs"
        read -r cov_n ft_n <<<"${cov:-? ?}"
        run_commit=$(cd "$root" && commit_of "$run_hash")
        python3 "$root/scripts/fuzz-record.py" "$root/docs/fuzz-runs.md" "$run_hash" \
            "$run_commit" "${all_targets[*]}" "$t" "${execs:-?}" "$took" "$cpu" \
            "$cov_n" "$ft_n" \
            "$files files, $bytes bytes" "$result" "$run_hash" "$run_commit" \
            "$(date -u '+%Y-%m-%d %H:%M UTC')" "$load" "$command ($build)"
    fi
done
cd "$root"
exit "$failed"
