#!/usr/bin/env bash
# http-device.sh DEVICE [ARGS...] — a fresh networked device behind `emcp-bridge http`,
# as one stdio board command (tests/interop/python: EMCP_BOARD_CMD; hostile-check):
#
#   EMCP_BOARD_CMD="bridge/tests/http-device.sh target/release/sensor-board" \
#       .tools/venv/bin/python -m pytest tests/interop/python
#
# DEVICE ARGS --http 127.0.0.1:PORT must serve MCP's Streamable HTTP at /mcp (the
# sensor board; examples/net-firmware/http-board.sh, the firmware in QEMU). It is
# started on a free loopback port, its stdout and stderr on this script's stderr;
# once it answers HTTP (within EMCP_DEVICE_WAIT seconds, default 120: QEMU boots),
# the bridge runs in front of it on this script's stdin and stdout, and the
# device is stopped when the bridge ends. Each run is a device of its own: the tests
# expect a board fresh from reset.
#
# EMCP_BRIDGE: the bridge binary (default: target/debug/emcp-bridge); EMCP_BRIDGE_ARGS:
# options put before `http URL` (e.g. `--timeout 5s`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
[ $# -ge 1 ] || { echo "usage: $0 DEVICE [ARGS...]" >&2; exit 2; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$@" --http "127.0.0.1:$port" </dev/null >&2 &
device=$!
trap 'kill "$device" 2>/dev/null; wait "$device" 2>/dev/null || true' EXIT
deadline=$((SECONDS + ${EMCP_DEVICE_WAIT:-120}))
# Up when it answers HTTP (any status): QEMU accepts connections for the guest before
# the firmware's network is up, and closes them.
up() {
    python3 - "$port" 2>/dev/null <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=2)
c.request("GET", "/mcp")
c.getresponse()
EOF
}
until up; do
    if ! kill -0 "$device" 2>/dev/null || ((SECONDS > deadline)); then
        echo "$0: the device did not listen on 127.0.0.1:$port" >&2
        exit 1
    fi
    sleep 0.05
done
# shellcheck disable=SC2086 # the options are split into words on purpose
"${EMCP_BRIDGE:-$target/debug/emcp-bridge}" ${EMCP_BRIDGE_ARGS:-} http "http://127.0.0.1:$port/mcp"
