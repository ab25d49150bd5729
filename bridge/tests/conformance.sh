#!/usr/bin/env bash
# bridge/tests/conformance.sh [DEVICE-CMD] — the official MCP conformance suite through
# `emcp-bridge --http … exec -- DEVICE-CMD` (default: the firmware under QEMU,
# examples/firmware/run.sh m3), for 2026-07-28 and 2025-11-25, next to the same suite
# against the Rust sensor board served by the core's own HTTP transport
# (`sensor-board --http`). The boards are not the conformance server (they lack its
# test tools and resources), so many scenarios fail on both; what is checked is that
# the bridge is transparent: the same scenarios pass, with the same check counts.
# Prints both scores per revision; exits 1 on any difference. Build and suite
# output go to stderr.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
device="${1:-$root/examples/firmware/run.sh m3}"

scripts/setup-conformance.sh >&2
cargo build -p emcp-bridge >&2
cargo build --release -p sensor-board >&2

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "port $1 never opened" >&2; exit 1; }

direct_port=$(free_port)
"$target/release/sensor-board" --http "127.0.0.1:$direct_port" 2>"$target/conformance-direct.log" &
pids+=($!)
bridge_port=$(free_port)
# shellcheck disable=SC2086 # the device command is split into words on purpose
"$target/debug/emcp-bridge" --http "127.0.0.1:$bridge_port" exec -- $device 2>"$target/conformance-bridge.log" &
pids+=($!)
wait_port "$direct_port"
wait_port "$bridge_port"

status=0
for req in 2026-07-28 2025-11-25; do
    for which in direct bridge; do
        port=direct_port
        [ "$which" = bridge ] && port=bridge_port
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
exit $status
