#!/usr/bin/env bash
# Installs what the LAN tests (tests/net) use when it is missing: Debian's dnsmasq
# (dnsmasq-base: the binary, no service started; the DHCP server of the test's tap
# network) and iproute2 (`ip netns`, `ip tuntap`), then python-zeroconf (pinned) into
# the project's venv, which scripts/setup-python.sh creates (run first). Idempotent;
# all output on stderr.
set -euo pipefail
exec 1>&2

ZEROCONF_VERSION=0.154.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="$root/.tools/venv/bin/python"

need=()
command -v dnsmasq >/dev/null 2>&1 || [ -x /usr/sbin/dnsmasq ] || need+=(dnsmasq-base)
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || need+=(iproute2)
if [ "${#need[@]}" -gt 0 ]; then
    echo "setup-lan: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

if [ ! -x "$py" ]; then
    echo "setup-lan: no venv at $root/.tools/venv: run scripts/setup-python.sh first" >&2
    exit 1
fi
if ! "$py" - "$ZEROCONF_VERSION" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
sys.exit(0 if version("zeroconf") == sys.argv[1] else 1)
PY
    echo "setup-lan: installing zeroconf==$ZEROCONF_VERSION"
    "$py" -m pip install --disable-pip-version-check --no-input --quiet "zeroconf==$ZEROCONF_VERSION"
fi
echo "setup-lan: $(/usr/sbin/dnsmasq --version | head -n1); zeroconf $ZEROCONF_VERSION"
