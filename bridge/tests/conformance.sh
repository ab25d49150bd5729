#!/usr/bin/env bash
# bridge/tests/conformance.sh [DEVICE-CMD] — the official MCP conformance suite through
# `emcp-bridge --http … exec -- DEVICE-CMD` (default: the firmware under QEMU,
# examples/firmware/run.sh m3), for 2026-07-28 and 2025-11-25, next to the same suite
# against the Rust sensor board served by the core's own HTTP transport
# (`sensor-board --http`). The boards are not the conformance server (they lack its
# test tools and resources), so many scenarios fail on both; what is checked is that
# the bridge is transparent: the same scenarios pass, with the same check counts.
# Prints both scores per revision; exits 1 on any difference.
#
# Then the same suite through `emcp-bridge --http … exec -- conformance-server
# --stdio`: the conformance server (which has every fixture) as a device on stdio,
# scored against the expected-failures files of tests/interop/conformance/run.sh (empty:
# every required scenario passes, as on its own HTTP transport). Prints its pass
# counts per revision; exits 1 when a scenario fails that is not listed there (or a
# listed one passes). Build and suite output go to stderr; the suite's summaries
# are in target/conformance-*.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
device="${1:-$root/examples/firmware/run.sh m3}"

scripts/setup-conformance.sh >&2
cargo build -p emcp-bridge >&2
cargo build --release -p sensor-board -p conformance-server >&2

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "port $1 never opened" >&2; exit 1; }

start=$(date +%s)
direct_port=$(free_port)
"$target/release/sensor-board" --http "127.0.0.1:$direct_port" 2>"$target/conformance-direct.log" &
pids+=($!)
bridge_port=$(free_port)
fixtures_port=$(free_port)
# shellcheck disable=SC2086 # the device command is split into words on purpose
"$target/debug/emcp-bridge" --http "127.0.0.1:$bridge_port" exec -- $device 2>"$target/conformance-bridge.log" &
pids+=($!)
"$target/debug/emcp-bridge" --http "127.0.0.1:$fixtures_port" \
    exec -- "$target/release/conformance-server" --stdio 2>"$target/conformance-bridge-stdio.log" &
pids+=($!)
wait_port "$direct_port"
wait_port "$bridge_port"
wait_port "$fixtures_port"
# A device that is built on first start (run.sh builds the firmware) would time out
# the first scenarios: wait until it answers a ping (the bridge's own 60 s timeout
# answers -32001 meanwhile; ask again).
warm_up() {
    for _ in $(seq 10); do
        curl -sS -m 90 -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' \
            -d '{"jsonrpc":"2.0","id":"warm-up","method":"ping"}' \
            "http://127.0.0.1:$1/mcp" 2>/dev/null | grep -q '"result"' && return
        sleep 1
    done
    echo "the device behind port $1 never answered a ping" >&2
    exit 1
}
warm_up "$bridge_port"
warm_up "$fixtures_port"

status=0
for req in 2026-07-28 2025-11-25; do
    for which in direct bridge; do
        port=direct_port
        [ "$which" = bridge ] && port=bridge_port
        rm -rf "$target/conformance/$which-$req" # results of an earlier run would mix in
        CONFORMANCE_OUT="$target/conformance/$which-$req" \
            scripts/conformance.sh "http://127.0.0.1:${!port}/mcp" "$req" \
            >"$target/conformance-$which-$req.txt" 2>&1 || true
    done
    summary() { grep -E '✓|✗' "$target/conformance-$1-$req.txt" | sed 's/ *([0-9.]* *ms)//'; }
    # "N of M scenarios pass" rather than the suite's "N passed, M failed": the
    # failures are the boards' missing test tools, not failures of this check.
    score() {
        grep -E 'passed, .* failed' "$target/conformance-$1-$req.txt" |
            sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/echo "\1 of $((\1 + \2))"/' | sh
    }
    echo "conformance $req: $(score bridge) scenarios pass through the bridge ($device), $(score direct) on sensor-board --http"
    if ! diff <(summary direct) <(summary bridge) >&2; then
        echo "conformance $req: the bridge differs from the direct board (above)" >&2
        status=1
    fi
done
echo "conformance: the boards took $(( $(date +%s) - start ))s" >&2

start=$(date +%s)
for req in 2026-07-28 2025-11-25; do
    out="$target/conformance-bridge-stdio-$req.txt"
    suite=0
    rm -rf "$target/conformance/bridge-stdio-$req"
    CONFORMANCE_OUT="$target/conformance/bridge-stdio-$req" \
        scripts/conformance.sh "http://127.0.0.1:$fixtures_port/mcp" "$req" \
        --expected-failures "$root/tests/interop/conformance/expected-failures-$req.yaml" \
        >"$out" 2>&1 || suite=$?
    summary=$(grep -E 'passed, .* failed' "$out" | tail -1 |
        sed -nE 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p')
    read -r passed failed <<<"${summary:-0 0}"
    echo "conformance $req: $passed of $((passed + failed)) scenarios pass through the bridge to conformance-server --stdio"
    if [ "$suite" -ne 0 ] || [ -z "$summary" ]; then
        awk '/^✗/{on=1; print; next} on && /^    /{print; next} {on=0}' "$out" >&2
        echo "conformance $req: failures through the bridge to conformance-server --stdio not in tests/interop/conformance/expected-failures-$req.yaml (above; $out)" >&2
        status=1
    fi
done
echo "conformance: conformance-server --stdio through the bridge took $(( $(date +%s) - start ))s" >&2
exit $status
