#!/usr/bin/env bash
# Load held by the networked firmware (benches/firmware/load.py): the sensor image of
# examples/net-firmware under N concurrent clients, on QEMU's user network and on a
# tap network in a network namespace of this run's own, as a board on a LAN.
#
#   benches/firmware/load.sh [--quick] [--seconds S] [--n N,..] [--modes M,..]
#       [--strict] [--json DIR] [--page PAGE] [--user-only | --tap-only]
#
# --quick: 3 s per point (CI's `bench` stage, through benches/run.sh --quick); else
# 60 s per point. --strict: a refusal or 503 with no more clients than connection
# tasks fails the run too (load.py --strict; CI's quick run passes it). --json DIR
# writes DIR/load-user.json and DIR/load-tap.json (DIR is made); --page PAGE writes
# the figures as a section of PAGE (docs/performance.md, between two marker lines; its
# chart in perf/net-load.svg beside it) once every run passed.
# The tap network is made as tests/net/mdns.sh makes it: a namespace, a tap in it,
# Debian's dnsmasq the DHCP server on the tap; load.py runs inside the namespace and
# starts QEMU on the tap. It needs root; without root (or with --user-only) only the
# user network is measured, and the tap's absence is said on stderr.
#
# Prints Markdown on stdout (load.py's tables); builds, QEMU's, dnsmasq's and the
# device's logs on stderr. Exits non-zero when load.py fails: a lost request, a wrong
# answer, a connection task not free after the load, and with --strict a refusal with
# no more clients than connection tasks. On exit, error or signal, everything this
# run started is ended and the namespace deleted.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
args=()
command="bash benches/firmware/load.sh${*:+ $*}"
json=
page=
tap=1
user=1
while [ $# -gt 0 ]; do
    case $1 in
        --quick | --strict) args+=("$1") ;;
        --seconds | --n | --modes)
            args+=("$1" "${2:?$1 needs a value}")
            shift
            ;;
        --json)
            json=${2:?--json needs a directory}
            shift
            ;;
        --page)
            page=${2:?--page needs a file}
            shift
            ;;
        --user-only) tap=0 ;;
        --tap-only) user=0 ;;
        *)
            echo "usage: $0 [--quick] [--seconds S] [--n N,..] [--modes M,..] [--strict] [--json DIR] [--page PAGE] [--user-only | --tap-only]" >&2
            exit 2
            ;;
    esac
    shift
done
[ -z "$json" ] || mkdir -p "$json"
if [ "$tap" = 1 ] && [ "$(id -u)" -ne 0 ]; then
    echo "load.sh: not root: the user network only (no tap network)" >&2
    tap=0
fi

"$repo/examples/net-firmware/run.sh" --build sensor
[ "$tap" = 0 ] || "$repo/scripts/setup-lan.sh" >/dev/null 2>&1 || {
    # dnsmasq and iproute2 only; python-zeroconf (the mDNS test's) is not needed here.
    command -v dnsmasq >/dev/null || [ -x /usr/sbin/dnsmasq ] || {
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dnsmasq-base iproute2
    } >&2
}
elf=$repo/target/net-firmware/thumbv7m-none-eabi/release/emcp-net-firmware

ns=emcp-load-$$
dev=emcpl$$
subnet=192.168.78
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
    if ip netns list 2>/dev/null | grep -qw "$ns"; then
        for pid in $(ip netns pids "$ns"); do
            kill "$pid" 2>/dev/null || true
        done
        ip -n "$ns" link del "$dev" 2>/dev/null || true
        ip netns del "$ns"
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# load.py in the background and waited for, so that a signal ends the wait at once.
run() { # label, then load.py's command line
    local label=$1 out=$work/load-$1.json status=0
    shift
    "$@" --label "$label" --json "$out" "${args[@]}" "$elf" &
    pids+=($!)
    wait "${pids[-1]}" || status=$?
    unset 'pids[-1]'
    [ -z "$json" ] || cp "$out" "$json/load-$label.json"
    return "$status"
}

failed=0
if [ "$user" = 1 ]; then
    echo "load.sh: the user network" >&2
    run user python3 "$here/load.py" || failed=1
fi

if [ "$tap" = 1 ]; then
    echo "load.sh: the tap network in namespace $ns" >&2
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" tuntap add dev "$dev" mode tap
    ip -n "$ns" addr add "$subnet.1/24" dev "$dev"
    ip -n "$ns" link set "$dev" up
    ip netns exec "$ns" dnsmasq --keep-in-foreground --conf-file=/dev/null --port=0 \
        --interface="$dev" --bind-interfaces --user=root --group=root \
        --dhcp-range="$subnet.50,$subnet.99,255.255.255.0,1h" --dhcp-authoritative \
        --dhcp-leasefile="$work/leases" --pid-file="$work/dnsmasq.pid" \
        --log-facility=- >&2 &
    pids+=($!)
    echo
    run tap ip netns exec "$ns" python3 "$here/load.py" --tap "$dev" || failed=1
fi
if [ -n "$page" ] && [ "$failed" = 0 ]; then
    python3 "$here/load.py" --section "$page" --from "$work" --command "$command"
fi
exit "$failed"
