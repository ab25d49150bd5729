#!/usr/bin/env bash
# docs/first-device.md's two devices, built as the walk-through says, driven by the
# Python SDK in both eras (test_thermostat.py). Build output goes to stderr.
#
# The C device is linked by the page's own `cc` line (with strict warnings added),
# and that line must be README's but for the source and program names, so a reader
# meets one link line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"

# The `cc` line of a page's ```sh blocks (continuation lines joined, comments dropped).
cc_line() {
    awk '/^```sh$/ {on=1; next} /^```$/ {on=0} on' "$1" |
        sed -E 's/ +#.*//' | sed -e ':a' -e '/\\$/{N; s/\\\n *//; ba' -e '}' | grep -E '^cc ' | head -n 1
}
page=$(cc_line docs/first-device.md)
readme=$(cc_line README.md)
# A cc line without its source and program names.
link_flags() { sed -E 's/ [^ ]+\.c / FILE.c /; s/ -o [^ ]+/ -o PROGRAM/' <<<"$1"; }
if [ -z "$page" ] || [ "$(link_flags "$page")" != "$(link_flags "$readme")" ]; then
    echo "first-device: docs/first-device.md's cc line and README's must link alike:" >&2
    echo "  first-device.md: ${page:-(none)}" >&2
    echo "  README.md:       ${readme:-(none)}" >&2
    exit 1
fi
{
    scripts/setup-python.sh
    cargo build --release -p thermostat
    cargo build --release -p emcp-ffi
    mkdir -p target/first-device
    line=${page/#cc /${CC:-cc} -Wall -Wextra -pedantic -Werror }
    line=${line/% -o thermostat/ -o target/first-device/c-thermostat}
    echo "first-device: $line"
    bash -c "$line"
} >&2
THERMOSTATS="$root/target/release/thermostat:$root/target/first-device/c-thermostat" \
    .tools/venv/bin/python -m pytest -q -p no:cacheprovider "$here/test_thermostat.py"
