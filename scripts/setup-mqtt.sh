#!/usr/bin/env bash
# Install what the MQTT tests need: Debian's mosquitto broker (the tests start and stop
# their own on a loopback port; the package's system service is not used) and
# paho-mqtt in the Python venv of scripts/setup-python.sh.
#
#   scripts/setup-mqtt.sh
#
# Idempotent. All output goes to stderr.
set -euo pipefail
exec 1>&2

PAHO_VERSION=2.2.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="$root/.tools/venv/bin/python"

if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
    echo "setup-mqtt: installing mosquitto"
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup-mqtt: mosquitto is missing and this is not root: apt-get install mosquitto" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mosquitto
fi
# The package starts its service where an init system runs; the tests bring their own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet mosquitto 2>/dev/null; then
    systemctl stop mosquitto || true
fi

[ -x "$py" ] || "$root/scripts/setup-python.sh"
if ! "$py" -c "import paho.mqtt, sys; sys.exit(paho.mqtt.__version__ != '$PAHO_VERSION')" 2>/dev/null; then
    echo "setup-mqtt: installing paho-mqtt==$PAHO_VERSION"
    "$py" -m pip install -q "paho-mqtt==$PAHO_VERSION"
fi
echo "setup-mqtt: mosquitto and paho-mqtt $PAHO_VERSION ready"
