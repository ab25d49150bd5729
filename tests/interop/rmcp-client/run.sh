#!/usr/bin/env bash
# The official Rust MCP SDK's client (rmcp 3.11.0, crates.io) against one or more boards:
# every check of src/main.rs in each protocol revision, a fresh board process per
# revision.
#
#   tests/interop/rmcp-client/run.sh BOARD_COMMAND [BOARD_COMMAND...]
#
# Each BOARD_COMMAND is one shell-quoted command line (as EMCP_BOARD_CMD is for the
# Python tests), e.g. "target/release/sensor-board" or "examples/firmware/run.sh m3";
# "--http BINARY" instead starts `BINARY --http 127.0.0.1:PORT` for each revision and
# talks Streamable HTTP to it (as EMCP_BOARD_HTTP does); "--input SERVER" runs
# src/bin/emcp-rmcp-input.rs instead: the conformance server's tools that ask the
# client for input, started as `SERVER --listen 127.0.0.1:PORT`; "--tasks BOARD_COMMAND"
# (or "--tasks --http BINARY") runs src/bin/emcp-rmcp-tasks.rs instead: the tasks of
# the sensor board's tasks build (`--features tasks`) at 2026-07-28.
# Builds the client (a crate outside the workspace: rmcp and tokio stay out of emcp's
# dependency graph) with its checked-in Cargo.lock; build output to stderr, the checks
# to stdout. Exits non-zero when any check failed against any board.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -gt 0 ] || {
    echo "usage: tests/interop/rmcp-client/run.sh BOARD_COMMAND [BOARD_COMMAND...]" >&2
    exit 2
}
cargo build --locked --manifest-path "$here/Cargo.toml" >&2
bin="$here/target/debug"
failed=0
for board in "$@"; do
    eval "argv=($board)"
    if [ "${argv[0]}" = --input ]; then
        "$bin/emcp-rmcp-input" "${argv[@]:1}" || failed=1
    elif [ "${argv[0]}" = --tasks ]; then
        "$bin/emcp-rmcp-tasks" "${argv[@]:1}" || failed=1
    else
        "$bin/emcp-rmcp-client" "${argv[@]}" || failed=1
    fi
done
exit "$failed"
