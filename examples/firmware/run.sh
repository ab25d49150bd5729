#!/usr/bin/env bash
# run.sh [m3|m4f] — the sensor-board firmware in QEMU as an MCP stdio server.
#
#   m3   Cortex-M3,  thumbv7m-none-eabi,    QEMU mps2-an385 (default)
#   m4f  Cortex-M4F, thumbv7em-none-eabihf, QEMU mps2-an386
#
# Installs what is missing (ARM GCC, newlib headers, QEMU, make; the Rust targets),
# builds the image when a source changed, then runs QEMU with the board's UART0 on
# this script's stdin/stdout through relay.py, which ends QEMU when stdin has closed and
# every request was answered. stdout carries only MCP bytes; everything else
# (installs, builds, the firmware's semihosting logs) goes to stderr.
# EMCP_FW_VARIANT=tools|legacy|stateless|tasks|plans runs a variant of the image (see the Makefile;
# default `full`).
set -euo pipefail

board=${1:-m3}
case $board in
    m3) machine=mps2-an385 cpu=cortex-m3 ;;
    m4f) machine=mps2-an386 cpu=cortex-m4 ;;
    *)
        echo "usage: $0 [m3|m4f]" >&2
        exit 2
        ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
variant=${EMCP_FW_VARIANT:-full}
suffix=
[ "$variant" = full ] || suffix=-$variant
elf=$repo/target/firmware/$board$suffix/emcp-firmware.elf

{
    packages=()
    command -v arm-none-eabi-gcc >/dev/null || packages+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
    command -v qemu-system-arm >/dev/null || packages+=(qemu-system-arm)
    command -v make >/dev/null || packages+=(make)
    if [ "${#packages[@]}" -gt 0 ]; then
        echo "run.sh: installing ${packages[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends "${packages[@]}"
    fi
    # `make -q` answers "up to date?" in milliseconds: re-runs go straight to QEMU.
    if ! make -q --no-print-directory -C "$here" BOARD="$board" VARIANT="$variant" 2>/dev/null; then
        "$repo/scripts/setup-rust-targets.sh"
        make --no-print-directory -C "$here" BOARD="$board" VARIANT="$variant"
    fi
} >&2

# The relay needs only Python's standard library; the system interpreter starts fastest
# (a version-manager shim such as pyenv's adds ~0.2 s to every launch).
python=/usr/bin/python3
[ -x "$python" ] || python=python3
exec "$python" "$here/relay.py" qemu-system-arm -M "$machine" -cpu "$cpu" -display none \
    -monitor none -semihosting-config enable=on,target=native -kernel "$elf"
