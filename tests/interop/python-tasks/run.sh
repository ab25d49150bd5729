#!/usr/bin/env bash
# The 2025-11-25 experimental tasks of examples/conformance-server under a real client:
# the Python MCP SDK 1.29.0 (the last with a tasks client; 2.x has types only),
# installed into a venv of its own (.tools/venv-mcp1, beside the project's 2.3.0
# venv), over stdio and over Streamable HTTP (tasks_2025.py: every method, and input
# during a task). Then the Rust sensor board's tasks build (board_2025.py), alone and
# behind `emcp-bridge exec --`. Prints one line per check; fails on the first that does
# not hold.
set -euo pipefail
# shellcheck source=venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cargo build --release -p conformance-server >&2
server="${CARGO_TARGET_DIR:-$root/target}/release/conformance-server"
timeout 120 "$venv/bin/python" -W ignore::DeprecationWarning "$here/tasks_2025.py" "$server"
echo "--- conformance server over Streamable HTTP"
timeout 120 "$venv/bin/python" -W ignore::DeprecationWarning "$here/tasks_2025.py" --http "$server"

# The board's tasks build, in a target directory of its own (it must not replace the
# default board), and the bridge.
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --release -p sensor-board --features tasks --target-dir "$target/tasks" >&2
cargo build -p emcp-bridge >&2
board="$(printf '%q' "$target/tasks/release/sensor-board")"
for command in "$board" "$(printf '%q' "$target/debug/emcp-bridge") exec -- $board"; do
    echo "--- Rust board tasks build: $command"
    timeout 120 "$venv/bin/python" -W ignore::DeprecationWarning "$here/board_2025.py" "$command"
done
