#!/usr/bin/env bash
# run.sh [m3|m4f|m33|m0|rv32] — the Rust sensor-board firmware (emcp::serve, no C ABI) in
# QEMU as an MCP stdio server, exactly as examples/firmware/run.sh runs the C image.
#
#   m3    Cortex-M3,     thumbv7m-none-eabi,          QEMU mps2-an385 (default)
#   m4f   Cortex-M4F,    thumbv7em-none-eabihf,       QEMU mps2-an386
#   m33   Cortex-M33,    thumbv8m.main-none-eabihf,   QEMU mps2-an505
#   m0    Cortex-M0,     thumbv6m-none-eabi,          QEMU microbit (nRF51822)
#   rv32  RV32IMC (E31), riscv32imc-unknown-none-elf, QEMU sifive_e (FE310)
#
# Installs what is missing (the Rust targets, QEMU, defmt-print), builds the release
# image (cargo rebuilds only when a source changed; the target names the board), then
# runs QEMU with the board's UART0 on this script's stdin/stdout through
# examples/firmware/relay.py, which ends QEMU when stdin has closed and every request
# was answered. stdout carries only MCP bytes; everything else goes to stderr:
# installs, builds, and the firmware's defmt logs, which come over semihosting on
# QEMU's stdout and are decoded by defmt-print.
set -euo pipefail

board=${1:-m3}
# The relay's link line: UART1 (a second -serial), or files for the micro:bit, whose
# nRF51 has one UART. How the relay joins the UARTs: Unix sockets, or pipes for
# sifive_e, whose UART in QEMU 7.2 drops a byte its backend cannot take at once.
link=uart serial=unix
case $board in
    m3) qemu=(qemu-system-arm -M mps2-an385 -cpu cortex-m3) target=thumbv7m-none-eabi ;;
    m4f) qemu=(qemu-system-arm -M mps2-an386 -cpu cortex-m4) target=thumbv7em-none-eabihf ;;
    m33) qemu=(qemu-system-arm -M mps2-an505 -cpu cortex-m33) target=thumbv8m.main-none-eabihf ;;
    m0) qemu=(qemu-system-arm -M microbit) target=thumbv6m-none-eabi link=files ;;
    rv32)
        qemu=(qemu-system-riscv32 -M sifive_e) target=riscv32imc-unknown-none-elf serial=pipe
        ;;
    *)
        echo "usage: $0 [m3|m4f|m33|m0|rv32]" >&2
        exit 2
        ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# EMCP_FW_VARIANT=tools-legacy: the board's tools only, initialize era only (the
# package's feature of that name, in a target dir of its own); default: the whole board.
variant=${EMCP_FW_VARIANT:-full}
case $variant in
    full) features=() target_dir=$repo/target/rust-firmware ;;
    tools-legacy)
        features=(--no-default-features --features tools-legacy)
        target_dir=$repo/target/rust-firmware-tools-legacy
        ;;
    *)
        echo "run.sh: EMCP_FW_VARIANT must be full or tools-legacy, not $variant" >&2
        exit 2
        ;;
esac
elf=$target_dir/$target/release/emcp-rust-firmware

{
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
        "$repo/scripts/setup-rust-targets.sh"
    fi
    if ! command -v "${qemu[0]}" >/dev/null; then
        # Debian packages qemu-system-riscv32 in qemu-system-misc.
        package=${qemu[0]/qemu-system-riscv32/qemu-system-misc}
        echo "run.sh: installing $package"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends "$package"
    fi
    if ! command -v defmt-print >/dev/null; then
        echo "run.sh: installing defmt-print"
        cargo install defmt-print --locked
    fi
    (cd "$here" && cargo build --release --target "$target" --target-dir "$target_dir" "${features[@]}")
} >&2

# The relay needs only Python's standard library; the system interpreter starts fastest.
python=/usr/bin/python3
[ -x "$python" ] || python=python3
# The relay starts QEMU (adding the -serial devices at the end of the command: UART0,
# and UART1 for the UART link; with the file link, in its temporary folder, where the
# firmware's semihosting opens `eof` and creates `idle`) and kills it when done. bash takes QEMU's place by exec, so the relay's process is QEMU's;
# QEMU's stdout (semihosting: the defmt frames, nothing else) goes to defmt-print,
# whose text goes to stderr, the message alone (`--log-format '{s}'`: the lines read as
# the C image's semihosting lines do). defmt-print ends with QEMU's output.
# shellcheck disable=SC2016 # $@ and $0 belong to the inner bash
exec "$python" "$repo/examples/firmware/relay.py" --link "$link" --serial "$serial" bash -c \
    'exec "$@" > >(exec defmt-print --log-format "{s}" -e "$0" >&2)' "$elf" \
    "${qemu[@]}" -display none -monitor none \
    -semihosting-config enable=on,target=native -kernel "$elf"
