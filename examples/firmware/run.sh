#!/usr/bin/env bash
# run.sh [m3|m4f|m0|rv32] — the sensor-board firmware in QEMU as an MCP stdio server.
#
#   m3    Cortex-M3,  thumbv7m-none-eabi,          QEMU mps2-an385 (default)
#   m4f   Cortex-M4F, thumbv7em-none-eabihf,       QEMU mps2-an386
#   m0    Cortex-M0,  thumbv6m-none-eabi,          QEMU microbit (nRF51822)
#   rv32  RV32IMC,    riscv32imc-unknown-none-elf, QEMU sifive_e (FE310)
#
# Installs what is missing (the board's GCC and C headers, QEMU, make; the Rust
# targets), builds the image when a source changed, then runs QEMU with the board's
# UART0 on this script's stdin/stdout through relay.py, which ends QEMU when stdin has
# closed and every request was answered (the link-control line: UART1, or on the
# micro:bit, which has one UART, two files over semihosting). stdout carries only MCP
# bytes; everything else (installs, builds, the firmware's semihosting logs) goes to
# stderr.
# EMCP_FW_VARIANT=tools|legacy|stateless|tasks|plans runs a variant of the image (see the Makefile;
# default `full`).
set -euo pipefail

board=${1:-m3}
serial=unix
case $board in
    m3) qemu=(qemu-system-arm -M mps2-an385 -cpu cortex-m3) link=uart ;;
    m4f) qemu=(qemu-system-arm -M mps2-an386 -cpu cortex-m4) link=uart ;;
    m0) qemu=(qemu-system-arm -M microbit) link=files ;;
    # QEMU 7.2's SiFive UART drops a byte its backend cannot take at once: pipes.
    rv32) qemu=(qemu-system-riscv32 -M sifive_e) link=uart serial=pipe ;;
    *)
        echo "usage: $0 [m3|m4f|m0|rv32]" >&2
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
    if [ "$board" = rv32 ]; then
        # picolibc: the C headers only (board.c's <string.h>), no library is linked.
        command -v riscv64-unknown-elf-gcc >/dev/null || packages+=(gcc-riscv64-unknown-elf)
        [ -e /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] ||
            packages+=(picolibc-riscv64-unknown-elf)
        command -v qemu-system-riscv32 >/dev/null || packages+=(qemu-system-misc)
    else
        # newlib: the C headers only (board.c's <string.h>), no library is linked.
        command -v arm-none-eabi-gcc >/dev/null || packages+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
        command -v qemu-system-arm >/dev/null || packages+=(qemu-system-arm)
    fi
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
exec "$python" "$here/relay.py" --link "$link" --serial "$serial" "${qemu[@]}" -display none -monitor none \
    -semihosting-config enable=on,target=native -kernel "$elf"
