#!/usr/bin/env bash
# The 2025-11-25 experimental tasks of examples/conformance-server under a real client:
# the Python MCP SDK 1.29.0 (the last with a tasks client; 2.x has types only),
# installed into a venv of its own (.tools/venv-mcp1, beside the project's 2.3.0
# venv), over stdio. Prints one line per check; fails on the first that does not hold.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/.tools/venv-mcp1"
if ! "$venv/bin/python" -c 'import mcp, sys; from importlib.metadata import version; sys.exit(version("mcp") != "1.29.0")' 2>/dev/null; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install -q mcp==1.29.0 >&2
fi
cargo build --release -p conformance-server >&2
server="${CARGO_TARGET_DIR:-$root/target}/release/conformance-server"
timeout 120 "$venv/bin/python" -W ignore::DeprecationWarning "$here/tasks_2025.py" "$server"
