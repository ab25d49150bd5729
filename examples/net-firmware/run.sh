#!/usr/bin/env bash
# run.sh [sensor|conformance] PORT — the networked firmware in QEMU, serving MCP's
# Streamable HTTP at http://127.0.0.1:PORT/mcp.
#
#   sensor       the simulated sensor board (default)
#   conformance  the official conformance suite's device
#
# Installs what is missing (the Rust target thumbv7m-none-eabi, qemu-system-arm,
# defmt-print), builds the image (cargo rebuilds only when a source changed), then
# runs QEMU's mps2-an385 board in the foreground with a LAN9118 on QEMU's user
# network, the device's port 80 forwarded to 127.0.0.1:PORT (loopback only; the
# guest reaches nothing else: restrict=on). The firmware's defmt logs come over
# semihosting and are decoded by defmt-print; everything this script and QEMU
# print goes to stderr. Exits with QEMU's status when QEMU ends; SIGINT or SIGTERM
# ends QEMU and the decoder first.
set -euo pipefail

usage() {
    echo "usage: $0 [sensor|conformance] PORT" >&2
    exit 2
}
device=sensor
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
# One target directory per device: switching devices does not rebuild the other.
target_dir=$repo/target/net-firmware/$device
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

# Semihosting writes the defmt frames to QEMU's stdout (nothing else goes there:
# no serial port, no monitor), through a FIFO into defmt-print; QEMU's own
# messages stay plain text on stderr.
tmp=$(mktemp -d)
mkfifo "$tmp/defmt"
qemu_pid= decoder_pid=
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    [ -z "$decoder_pid" ] || kill "$decoder_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Both ends of the FIFO are opened here (fd 3 read-write first, so that neither
# open blocks) and handed down; once QEMU has its copy, this shell closes its own,
# QEMU is the only writer, and QEMU's end is the decoder's end of input.
exec 3<>"$tmp/defmt" 4<"$tmp/defmt"
defmt-print -e "$elf" <&4 3>&- 4>&- >&2 &
decoder_pid=$!
echo "run.sh: $device at http://127.0.0.1:$port/mcp" >&2
qemu-system-arm -M mps2-an385 -cpu cortex-m3 -display none -monitor none -serial null \
    -semihosting-config enable=on,target=native \
    -nic "user,model=lan9118,restrict=on,hostfwd=tcp:127.0.0.1:$port-:80" \
    -kernel "$elf" </dev/null >&3 3>&- 4>&- &
qemu_pid=$!
exec 3>&- 4<&-
status=0
wait "$qemu_pid" || status=$?
qemu_pid=
wait "$decoder_pid" 2>/dev/null || true
decoder_pid=
exit "$status"
