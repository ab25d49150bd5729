#!/usr/bin/env bash
# tests/net/mdns.sh — the networked firmware found on a LAN by mDNS, as a board on a
# desk is: the sensor image of examples/net-firmware under QEMU, its LAN9118 on a tap
# interface in a network namespace of this run's own, Debian's dnsmasq the DHCP
# server on that tap; then, inside the namespace, python-zeroconf finds the device by
# `_mcp._tcp` and the Python SDK talks MCP to the address, port and path it found
# (tests/net/mdns_client.py says what is checked). QEMU's user network carries no
# multicast, hence the tap.
#
# Needs root (network namespaces, a tap device). Installs what is missing
# (scripts/setup-python.sh, scripts/setup-lan.sh; run.sh installs QEMU and the
# target), builds the image first. Each run has its own namespace and tap (named
# after this shell's pid), so runs side by side do not meet. On exit, error or
# signal, QEMU, dnsmasq and the client are ended and waited for, and the namespace
# (with its tap) is deleted: nothing stays behind. The client's report goes to
# stdout; build output, QEMU's and dnsmasq's logs go to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
py=$repo/.tools/venv/bin/python

if [ "$(id -u)" -ne 0 ]; then
    echo "mdns.sh: needs root (ip netns, ip tuntap)" >&2
    exit 1
fi
"$repo/scripts/setup-python.sh"
"$repo/scripts/setup-lan.sh"
"$repo/examples/net-firmware/run.sh" --build sensor

# The tap network: this side, and what dnsmasq leases (a /24 of its own per
# namespace: namespaces do not share addresses, so every run may use the same).
ns=emcp-mdns-$$
tap=emcpm$$
subnet=192.168.77
here_address=$subnet.1
work=$(mktemp -d)
pids=()

cleanup() {
    local status=$? pid
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if ip netns list | grep -qw "$ns"; then
        # Anything still in the namespace was started by this run (QEMU's log
        # decoder ends with QEMU's output).
        for pid in $(ip netns pids "$ns"); do
            kill "$pid" 2>/dev/null || true
        done
        ip -n "$ns" link del "$tap" 2>/dev/null || true
        ip netns del "$ns"
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" tuntap add dev "$tap" mode tap
ip -n "$ns" addr add "$here_address/24" dev "$tap"
ip -n "$ns" link set "$tap" up

# dnsmasq: DHCP only (port=0: no DNS), on the tap alone, leases in this run's
# directory, logs on stderr, in the foreground (so $! is dnsmasq itself).
ip netns exec "$ns" dnsmasq --keep-in-foreground --conf-file=/dev/null --port=0 \
    --interface="$tap" --bind-interfaces --user=root --group=root \
    --dhcp-range="$subnet.50,$subnet.99,255.255.255.0,1h" --dhcp-authoritative \
    --dhcp-leasefile="$work/leases" --pid-file="$work/dnsmasq.pid" \
    --log-dhcp --log-facility=- >&2 &
pids+=($!)

# The device: run.sh becomes QEMU (exec), its LAN9118 on the tap.
EMCP_NET_TAP=$tap ip netns exec "$ns" "$repo/examples/net-firmware/run.sh" sensor 80 &
pids+=($!)

# The client, in the background so that a signal ends the wait at once.
ip netns exec "$ns" "$py" "$here/mdns_client.py" --interface "$here_address" \
    --leases "$work/leases" &
client=$!
pids+=("$client")
status=0
wait "$client" || status=$?
# Reaped: its pid is no longer this run's to signal.
unset 'pids[-1]'
exit "$status"
