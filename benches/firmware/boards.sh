#!/usr/bin/env bash
# Footprint of the Wi-Fi board images (examples/boards/*), each built release with
# the command docs/boards.md gives, Wi-Fi credentials replaced by placeholders.
#
#   benches/firmware/boards.sh [--check] [--src DIR] [BOARD...]
#
# BOARD: names from the table below (default: every board). --src DIR: build the
# crates of the checkout at DIR (CI: a clean clone of HEAD) instead of this one; the
# build cache stays in this repository's target/boards/. --check: fail when a call
# that can reach a panic is in the code of emcp, of the application
# (examples/net-app) or of the device it serves (examples/sensor-board), other than
# the compiler's guard against polling an `async fn` after it completed
# (`panic_const_async_fn_resumed`, in every async fn's state machine; an executor
# never does it). A call site the compiler inlined from embassy-net, or from smoltcp
# or embassy-sync beneath it, is theirs wherever it lands (panic_paths.py --source,
# from the image's debug information): their checks of their own state (the RefCell
# around the stack, a full SocketSet, a ring buffer's bounds, a channel's lock) are
# embassy-net's to keep, and the same check out of line would be counted as theirs.
# Code of emcp's, the application's or the device's own, inlined anywhere, stays theirs.
#
# Prints Markdown on stdout: per image, text, data and bss (the binutils `size` of
# the ELF's architecture, or the crate's own size.py where it has one: the ESP images,
# whose linker script reserves address space that `size` counts as text), flash
# (text + data) and static RAM (data + bss; size.py's adds the code the boot copies
# into IRAM) against the chip's, and the call sites that can reach a panic by crate of
# the caller (benches/firmware/panic_sites.sh). Builds go to stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
source benches/firmware/panic_sites.sh
# The crates whose code inlined into another's is charged to them by --check (above).
network_stack=embassy_net,smoltcp,embassy_sync

# One line per board image: name | crate directory | target | cargo arguments besides
# `--release` | binary | flash bytes | RAM bytes. The image is
# target/boards/<crate directory's name>/<target>/release/<binary>.
boards=(
    "pico-w|examples/boards/pico-w|thumbv6m-none-eabi||emcp-pico-w|2097152|270336"
    "pico2-w|examples/boards/pico-w|thumbv8m.main-none-eabihf|--no-default-features --features pico2-w|emcp-pico-w|4194304|532480"
    # ESP: the app partition of a 4 MiB flash; RAM is esp-hal's DRAM (C3) or RAM (C6)
    # region, which the radio's reclaimed heap is outside of.
    "esp32c3|examples/boards/esp32c3|riscv32imc-unknown-none-elf||emcp-esp32c3|4128768|320512"
    "esp32c6|examples/boards/esp32c3|riscv32imac-unknown-none-elf|--no-default-features --features esp32c6|emcp-esp32c3|4128768|452112"
)

check=0
src=$root
wanted=()
while [ $# -gt 0 ]; do
    case $1 in
        --check) check=1 ;;
        --src)
            src=$(realpath "${2:?--src needs a directory}")
            shift
            ;;
        -*)
            echo "usage: benches/firmware/boards.sh [--check] [--src DIR] [BOARD...]" >&2
            exit 2
            ;;
        *) wanted+=("$1") ;;
    esac
    shift
done

# text, data, bss and static RAM of an ELF (`elf_size ELF CRATE_DIR`): the crate's
# size.py when it has one, else the binutils of the ELF's machine (as panic_paths.py).
elf_size() {
    local machine size
    if [ -f "$2/size.py" ]; then
        python3 "$2/size.py" "$1" | awk '{ print $1, $2, $3, $6 }'
        return
    fi
    machine=$(od -An -tu2 -j18 -N2 "$1" | tr -d ' ')
    case $machine in
        40) size=arm-none-eabi-size ;;
        243) size=riscv64-unknown-elf-size ;;
        *)
            echo "boards.sh: no size tool known for ELF machine $machine" >&2
            return 1
            ;;
    esac
    "$size" "$1" | awk 'NR == 2 { print $1, $2, $3, $2 + $3 }'
}

found=0
failed=0
rows=()
for line in "${boards[@]}"; do
    IFS='|' read -r name dir target args bin flash_max ram_max <<<"$line"
    if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $name "* ]]; then
        continue
    fi
    found=$((found + 1))
    cache="$root/target/boards/$(basename "$dir")"
    echo "boards.sh: $name: cargo build --release --target $target $args ($src/$dir)" >&2
    # shellcheck disable=SC2086 # $args: several arguments
    (cd "$src/$dir" && WIFI_SSID=emcp-ci WIFI_PASSWORD=not-a-password CARGO_TARGET_DIR="$cache" \
        cargo build --release --locked --target "$target" $args) >&2
    elf="$cache/$target/release/$bin"
    read -r text data bss ram < <(elf_size "$elf" "$src/$dir")
    sites=$(panic_sites_by_crate "$elf")
    rows+=("$(printf '| %s | %s | %d | %d | %d | %d B of %d | %d B of %d | %s |' "$name" "$target" \
        "$text" "$data" "$bss" "$((text + data))" "$flash_max" "$ram" "$ram_max" "$sites")")
    if [ "$check" = 1 ]; then
        own=$(panic_sites "$elf" --source "$network_stack" | awk -F '\t' '$1 == "emcp" || $1 == "emcp_net_app" || $1 == "sensor_board"')
        guards=$(grep -c 'panic_const_async_fn_resumed$' <<<"$own" || true)
        own=$(grep -v 'panic_const_async_fn_resumed$' <<<"$own" || true)
        if [ -n "$own" ]; then
            echo "boards.sh: $name: emcp, the application or the device can reach a panic from:" >&2
            python3 examples/firmware/panic_paths.py --source "$network_stack" "$elf" |
                grep -E '^ +<?&?(mut )?(emcp|emcp_net_app|sensor_board)::' | grep -v 'panic_const_async_fn_resumed$' >&2
            failed=1
        else
            moved=$(python3 examples/firmware/panic_paths.py --source "$network_stack" "$elf" |
                grep -cE 'inlined in <?&?(mut )?(emcp|emcp_net_app|sensor_board)::' || true)
            echo "boards.sh: $name: no panic path in emcp, the application or the device" \
                "(but $guards async-fn-resumed guards; $moved call sites of the network" \
                "stack's own inlined into them)" >&2
        fi
    fi
done
[ "$found" -gt 0 ] || {
    echo "boards.sh: no board named ${wanted[*]}" >&2
    exit 2
}

echo "| image | target | text | data | bss | flash (text + data) | static RAM | call sites that can reach a panic, by crate of the caller |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}" | sed -E ':a; s/([0-9])([0-9]{3})([^0-9]|$)/\1,\2\3/; ta'
exit "$failed"
