#!/usr/bin/env bash
# Run a command with a mosquitto of its own on a free loopback port, and devices on it:
# every BROKER in the arguments becomes 127.0.0.1:PORT; each `--device 'COMMAND'`
# (before the command) is started on the broker first (a shell command line); devices
# and broker are stopped when the command ends, whose exit status is this script's.
#
#   tests/mqtt/with-broker.sh target/debug/hostile-check "emcp-bridge mqtt --broker BROKER --fleet"
#   tests/mqtt/with-broker.sh --device "sensor-board --mqtt BROKER --server-id d1 --server-name lab/d1" \
#       target/debug/hostile-check "emcp-bridge mqtt --broker BROKER --server-name lab/d1"
#
# The broker comes from scripts/setup-mqtt.sh (Debian's mosquitto), without persistence.
set -euo pipefail
devices=()
while [ "${1:-}" = --device ]; do
    devices+=("$2")
    shift 2
done
mosquitto="${MOSQUITTO:-$(command -v mosquitto || echo /usr/sbin/mosquitto)}"
[ -x "$mosquitto" ] || {
    echo "with-broker: mosquitto missing: run scripts/setup-mqtt.sh" >&2
    exit 2
}
dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" >"$dir/mosquitto.conf"
"$mosquitto" -c "$dir/mosquitto.conf" >"$dir/log" 2>&1 &
pid=$!
pids=()
stop() {
    local p
    for p in "${pids[@]}" "$pid"; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        break
    fi
    kill -0 "$pid" 2>/dev/null || {
        cat "$dir/log" >&2
        exit 2
    }
    sleep 0.05
done
for d in "${devices[@]}"; do
    bash -c "exec ${d//BROKER/127.0.0.1:$port}" </dev/null >/dev/null &
    pids+=($!)
done
args=()
for a in "$@"; do
    args+=("${a//BROKER/127.0.0.1:$port}")
done
rc=0
"${args[@]}" || rc=$?
exit "$rc"
