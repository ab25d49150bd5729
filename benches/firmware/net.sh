#!/usr/bin/env bash
# Footprint and cost of the networked firmware (examples/net-firmware: Embassy,
# embassy-net over smoltcp, LAN9118, QEMU mps2-an385).
#
#   benches/firmware/net.sh [--quick]
#
# 1. Footprint of both images (the sensor board and the conformance device):
#    flash (text + data, `arm-none-eabi-size`) against the 256 KiB part of memory.x;
#    static RAM (data + bss: every task's future with its socket and request and
#    response buffers, the network stack's sockets, the Ethernet frame buffers, the
#    server) broken down by the largest statics (`arm-none-eabi-nm`); the stack's
#    peak (all tasks run on the one stack) after asking for every tool, resource and
#    prompt the image lists, in both eras (net_instr.py --peak); sockets.
#    And where a panic could start, by crate (examples/firmware/panic_paths.py).
# 2. Instructions per HTTP `tools/call read_sensor` on the sensor image, from QEMU's
#    one-instruction-per-block trace (net_instr.py; --quick: N=2 instead of 10).
#
# Prints Markdown on stdout; builds, QEMU and the device's logs go to stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."
source benches/firmware/panic_sites.sh

n=10
[ "${1:-}" != --quick ] || n=2

{
    command -v arm-none-eabi-size >/dev/null || {
        echo "net.sh: installing binutils-arm-none-eabi"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends binutils-arm-none-eabi
    }
    examples/net-firmware/run.sh --build sensor
    examples/net-firmware/run.sh --build conformance
} >&2

sensor=target/net-firmware/thumbv7m-none-eabi/release/emcp-net-firmware
conformance=target/net-firmware/conformance/thumbv7m-none-eabi/release/emcp-net-firmware
src=examples/net-app/src

# A device's constant from the application's src/device.rs: const NAME for the build
# selected by FEATURE.
constant() { # feature name
    awk -v f="\"$1\"" -v c="$2" '
        /#\[cfg\(feature = / { on = index($0, f) > 0 }
        on && $0 ~ "pub const " c ":" { sub(/.*= */, ""); sub(/;.*/, ""); gsub(/_/, ""); print; exit }
    ' "$src/device.rs"
}

# bytes of the statics whose demangled name matches a pattern
statics() { # elf pattern
    local total=0 _addr size kind _name
    while read -r _addr size kind _name; do
        case $kind in [bBdD]) total=$((total + 0x$size)) ;; esac
    done < <(arm-none-eabi-nm -S -C "$1" | grep -e "$2")
    echo "$total"
}

# The stack region of an image (build.rs sizes it per image): _stack_start - _stack_end.
stack_region() { # elf
    local start end
    start=$(arm-none-eabi-nm "$1" | awk '$3 == "_stack_start" { print $1 }')
    end=$(arm-none-eabi-nm "$1" | awk '$3 == "_stack_end" { print $1 }')
    echo $((0x$start - 0x$end))
}

echo "| image | flash (text + data) | static RAM (data + bss) | connections (tasks and listeners, request and response buffers, socket rings) | network stack (sockets) | Ethernet frames | stack peak (region) | RAM in use (static + peak) | connections + backlog sockets |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for device in sensor conformance; do
    elf=${!device}
    read -r text data bss < <(arm-none-eabi-size "$elf" | awk 'NR == 2 { print $1, $2, $3 }')
    tasks=$(statics "$elf" 'emcp_net_app::conn::')
    net=$(statics "$elf" 'init::RESOURCES')
    frames=$(statics "$elf" 'init::ETH_BUFFERS')
    echo "net.sh: stack peak of the $device image" >&2
    peak=$(python3 benches/firmware/net_instr.py --peak "$elf")
    connections=$(constant "$device" CONNECTIONS)
    backlog=$(constant "$device" BACKLOG)
    region=$(stack_region "$elf")
    flash=$((text + data))
    ram=$((data + bss))
    printf '| %s | %d B of 262,144 | %d B | %d B | %d B | %d B | %d B (%d B) | %d B of 65,536 | %d + %d |\n' \
        "$device" "$flash" "$ram" "$tasks" "$net" "$frames" "$peak" "$region" \
        "$((ram + peak))" "$connections" "$backlog"
done | sed -E ':a; s/([0-9])([0-9]{3})([^0-9]|$)/\1,\2\3/; ta'
echo

# Where a panic could start (examples/firmware/panic_paths.py: calls into code that
# reaches core::panicking), counted by the crate of the calling function
# (benches/firmware/panic_sites.sh).
echo "| image | call sites that can reach a panic, by crate of the caller |"
echo "|---|---|"
for device in sensor conformance; do
    elf=${!device}
    sites=$(panic_sites_by_crate "$elf")
    echo "| $device | $sites |"
done
echo

echo "net.sh: instructions per request (N=$n)" >&2
python3 benches/firmware/net_instr.py "$sensor" "$n"
