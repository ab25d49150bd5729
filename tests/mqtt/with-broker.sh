#!/usr/bin/env bash
# Run a command with a mosquitto of its own on a free loopback port: every BROKER in
# the arguments becomes 127.0.0.1:PORT; the broker is stopped when the command ends,
# whose exit status is this script's.
#
#   tests/mqtt/with-broker.sh target/debug/hostile-check "emcp-bridge mqtt --broker BROKER --fleet"
#
# The broker comes from scripts/setup-mqtt.sh (Debian's mosquitto), without persistence.
set -euo pipefail
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
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
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
args=()
for a in "$@"; do
    args+=("${a//BROKER/127.0.0.1:$port}")
done
rc=0
"${args[@]}" || rc=$?
exit "$rc"
