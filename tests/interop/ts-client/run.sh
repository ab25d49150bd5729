#!/usr/bin/env bash
# The official TypeScript SDK's client (@modelcontextprotocol/sdk 1.32.2, installed with
# the conformance suite by scripts/setup-conformance.sh, Node.js 24 from PyPI) against
# one or more boards: every check of board.mjs, a fresh board each.
#
#   tests/interop/ts-client/run.sh BOARD_COMMAND [BOARD_COMMAND...]
#
# Each BOARD_COMMAND is one shell-quoted command line (as EMCP_BOARD_CMD is for the
# Python tests); "--http BINARY" starts `BINARY --http 127.0.0.1:PORT` and talks
# Streamable HTTP to it. Set-up output to stderr, the checks to stdout. Exits non-zero
# when any check failed against any board.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -gt 0 ] || {
    echo "usage: tests/interop/ts-client/run.sh BOARD_COMMAND [BOARD_COMMAND...]" >&2
    exit 2
}
node="$("$here/../../../scripts/setup-conformance.sh" --print-node)"
failed=0
for board in "$@"; do
    eval "argv=($board)"
    "$node" "$here/board.mjs" "${argv[@]}" || failed=1
done
exit "$failed"
