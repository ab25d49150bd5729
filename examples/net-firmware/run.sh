#!/usr/bin/env bash
# run.sh [sensor|conformance] PORT — the networked firmware in QEMU, serving MCP's
# Streamable HTTP at http://127.0.0.1:PORT/mcp.
# run.sh --build [sensor|conformance] — install and build only (tests build first, so
# that a server they start answers within their start-up wait).
#
#   sensor       the simulated sensor board (default)
#   conformance  the official conformance suite's device
#
# run.sh --mqtt BROKER_PORT [--build] — MQTT mode: the sensor board as an MCP server
# on the MQTT 5 broker listening on the host's 127.0.0.1:BROKER_PORT, which the
# guest reaches as 10.0.2.2:BROKER_PORT through QEMU's user network (built into the
# image: EMCP_MQTT_BROKER; server id EMCP_MQTT_SERVER_ID, default
# emcp-net-firmware; server name emcp/net-firmware; EMCP_MQTT_USER and
# EMCP_MQTT_PASSWORD, when set, the login). No port is forwarded to the device, and
# the user network is not restricted (the guest must reach the host).
#
# EMCP_BEARER=<token> builds an image that answers 401 to any request without
# `Authorization: Bearer <token>` (in a target directory of its own).
#
# EMCP_NET_TAP=<tap> attaches the LAN9118 to the existing tap interface <tap>
# instead of QEMU's user network (PORT is then unused): the device is a board on
# that LAN, gets its address from the LAN's DHCP server and answers mDNS there
# (tests/net/mdns.sh makes such a LAN in a network namespace).
#
# Installs what is missing (the Rust target thumbv7m-none-eabi, qemu-system-arm,
# defmt-print), builds the image (cargo rebuilds only when a source changed), then
# runs QEMU's mps2-an385 board in the foreground with a LAN9118 on QEMU's user
# network, the device's port 80 forwarded to 127.0.0.1:PORT (loopback only; the
# guest reaches nothing else: restrict=on). The firmware's defmt logs come over
# semihosting and are decoded by defmt-print; everything this script and QEMU
# print goes to stderr. The script becomes QEMU (exec): it exits with QEMU's
# status, SIGINT or SIGTERM end QEMU, and the decoder ends with QEMU's output, so
# no process stays behind.
set -euo pipefail

usage() {
    echo "usage: $0 [sensor|conformance] PORT | $0 --build [sensor|conformance] | $0 --mqtt BROKER_PORT [--build]" >&2
    exit 2
}
device=sensor
build_only=0
mqtt_port=
if [ "${1:-}" = --mqtt ]; then
    [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] && (($2 > 0 && $2 < 65536)) || usage
    mqtt_port=$2
    shift 2
    case "${1:-}" in
        "") ;;
        --build) build_only=1 ;;
        *) usage ;;
    esac
    set -- sensor 1
fi
if [ "${1:-}" = --build ]; then
    build_only=1
    shift
    [ $# -le 1 ] || usage
    device=${1:-sensor}
    set -- "$device" 1
fi
case $# in
    1) port=$1 ;;
    2) device=$1 port=$2 ;;
    *) usage ;;
esac
case $device in
    sensor) features=() ;;
    conformance) features=(--no-default-features --features conformance) ;;
    *) usage ;;
esac
[[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The sensor image where a plain `cargo build --release` here puts it
# (.cargo/config.toml); the other device in a directory of its own, so that
# switching devices does not rebuild either.
target_dir=$repo/target/net-firmware
[ "$device" = sensor ] || target_dir=$target_dir/$device
[ -z "${EMCP_BEARER:-}" ] || target_dir=$target_dir/bearer
if [ -n "$mqtt_port" ]; then
    # An image of its own: the broker's address is built in.
    target_dir=$repo/target/net-firmware/mqtt
    features=(--features mqtt)
    export EMCP_MQTT_BROKER=10.0.2.2:$mqtt_port
fi
elf=$target_dir/thumbv7m-none-eabi/release/emcp-net-firmware

{
    if ! rustup target list --installed 2>/dev/null | grep -qx thumbv7m-none-eabi; then
        "$repo/scripts/setup-rust-targets.sh"
    fi
    if ! command -v qemu-system-arm >/dev/null; then
        echo "run.sh: installing qemu-system-arm"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends qemu-system-arm
    fi
    if ! command -v defmt-print >/dev/null; then
        echo "run.sh: installing defmt-print"
        cargo install defmt-print --locked
    fi
    (cd "$here" && CARGO_TARGET_DIR=$target_dir cargo build --release "${features[@]}")
} >&2
[ "$build_only" = 0 ] || exit 0

if [ -n "$mqtt_port" ]; then
    nic="user,model=lan9118"
    echo "run.sh: sensor board on the MQTT broker at 10.0.2.2:$mqtt_port (the host's 127.0.0.1:$mqtt_port)" >&2
elif [ -n "${EMCP_NET_TAP:-}" ]; then
    nic="tap,model=lan9118,ifname=$EMCP_NET_TAP,script=no,downscript=no"
    echo "run.sh: $device on tap $EMCP_NET_TAP, at the address its DHCP server gives" >&2
else
    nic="user,model=lan9118,restrict=on,hostfwd=tcp:127.0.0.1:$port-:80"
    echo "run.sh: $device at http://127.0.0.1:$port/mcp" >&2
fi
# QEMU takes this shell's place (exec), so any signal that ends this process ends
# QEMU itself, even SIGKILL, and QEMU's exit status is the script's. Semihosting
# writes the defmt frames to QEMU's stdout (nothing else goes there: no serial port,
# no monitor), piped into defmt-print, which ends at the end of QEMU's output.
# QEMU's own messages stay plain text on stderr.
exec qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none -serial null \
    -semihosting-config enable=on,target=native \
    -nic "$nic" \
    -kernel "$elf" </dev/null > >(exec defmt-print -e "$elf" >&2)
