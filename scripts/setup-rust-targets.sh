#!/usr/bin/env bash
# Make the bare-metal targets available to cargo: Cortex-M0/M0+ (thumbv6m-none-eabi),
# M3 (thumbv7m-none-eabi), M4F (thumbv7em-none-eabihf), M33 (thumbv8m.main-none-eabihf),
# RV32IMC (riscv32imc-unknown-none-elf: ESP32-C3) and RV32IMAC
# (riscv32imac-unknown-none-elf: ESP32-C6) — the families docs/porting.md lists.
#
#   scripts/setup-rust-targets.sh
#
# Route 1 (preferred): `rustup target add` for each target not yet installed, and the
# `rust-src` component (the firmware compiles `core` for its own target spec with
# `-Zbuild-std=core`: examples/firmware/Makefile).
# Route 2 (fallback, only when rustup is missing or fails): Debian's rustc-web,
# cargo-web and rust-web-src (bookworm-security), which give /usr/bin/rustc plus the
# library sources that `-Zbuild-std=core` compiles. Cortex-M builds then go
#   RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 cargo build -Zbuild-std=core --target <target> ...
# (.ci/run picks that form when rustup does not list the target as installed).
#
# Idempotent. Everything goes to stderr; nothing is printed on stdout.
set -euo pipefail
exec 1>&2

TARGETS=(thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf
    riscv32imc-unknown-none-elf riscv32imac-unknown-none-elf)
DEBIAN_PACKAGES=(rustc-web cargo-web rust-web-src)

route_rustup() {
    if ! command -v rustup >/dev/null 2>&1; then
        echo "setup-rust-targets: rustup not found"
        return 1
    fi
    local installed t missing=()
    installed="$(rustup target list --installed)" || return 1
    for t in "${TARGETS[@]}"; do
        grep -qx "$t" <<<"$installed" || missing+=("$t")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "setup-rust-targets: rustup targets already installed: ${TARGETS[*]}"
    else
        echo "setup-rust-targets: rustup target add ${missing[*]}"
        rustup target add "${missing[@]}" || return 1
    fi
    if ! rustup component list --installed | grep -q '^rust-src'; then
        echo "setup-rust-targets: rustup component add rust-src"
        rustup component add rust-src || return 1
    fi
    rustc -V
}

route_debian() {
    echo "setup-rust-targets: falling back to Debian's ${DEBIAN_PACKAGES[*]} (build-std route)"
    if ! dpkg -s "${DEBIAN_PACKAGES[@]}" >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends "${DEBIAN_PACKAGES[@]}"
    fi
    /usr/bin/rustc -V
    echo "setup-rust-targets: build with RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 cargo build -Zbuild-std=core --target <target>"
}

if route_rustup; then
    exit 0
fi
echo "setup-rust-targets: rustup could not provide ${TARGETS[*]}"
route_debian
