#!/usr/bin/env bash
# docs/first-device.md's two devices, built as the walk-through says, driven by the
# Python SDK in both eras (test_thermostat.py). Build output goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"
{
    scripts/setup-python.sh
    cargo build --release -p thermostat
    cargo build --release -p emcp-ffi
    mkdir -p target/first-device
    "${CC:-cc}" -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude examples/c-thermostat/thermostat.c \
        -Ltarget/release -lemcp_ffi -lpthread -ldl -lm -o target/first-device/c-thermostat
} >&2
THERMOSTATS="$root/target/release/thermostat:$root/target/first-device/c-thermostat" \
    .tools/venv/bin/python -m pytest -q -p no:cacheprovider "$here/test_thermostat.py"
