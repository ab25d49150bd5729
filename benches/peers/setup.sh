#!/usr/bin/env bash
# Prepare the benchmark peers (benches/peers/README.md):
#   - the rmcp board, built in release mode (rmcp-board/target/release/rmcp-board);
#   - the Python venv .tools/venv with mcp==2.3.0 (scripts/setup-python.sh).
#
#   benches/peers/setup.sh            # the release build the benchmark measures
#   benches/peers/setup.sh --quick    # the rmcp board in the dev profile instead
#                                     # (target/debug: minutes less to build; for
#                                     # `benches/run.sh --quick`, which publishes nothing)
#
# Idempotent (cargo and setup-python.sh do nothing when up to date).
# All output goes to stderr; exits non-zero on failure.
set -euo pipefail
exec 1>&2

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [ "${1:-}" = --quick ]; then
    echo "peers/setup: building rmcp-board (dev profile)"
    cargo build --locked --manifest-path "$here/rmcp-board/Cargo.toml"
    bin="$here/rmcp-board/target/debug/rmcp-board"
else
    echo "peers/setup: building rmcp-board (release)"
    cargo build --release --locked --manifest-path "$here/rmcp-board/Cargo.toml"
    bin="$here/rmcp-board/target/release/rmcp-board"
fi
[ -x "$bin" ] || { echo "peers/setup: $bin missing after the build"; exit 1; }

echo "peers/setup: checking the Python venv"
"$root/scripts/setup-python.sh"
"$root/.tools/venv/bin/python" -c 'import mcp.server, mcp_types' ||
    { echo "peers/setup: the venv cannot import the mcp SDK"; exit 1; }

echo "peers/setup: ready ($bin, $root/.tools/venv/bin/python $here/python-board/board.py)"
