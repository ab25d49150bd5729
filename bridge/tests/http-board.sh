#!/usr/bin/env bash
# http-board.sh --http ADDR — a device behind `emcp-bridge --http ADDR`, in the form
# tests/interop/python launches an HTTP board (EMCP_BOARD_HTTP=<this script>):
#
#   EMCP_BOARD_HTTP=bridge/tests/http-board.sh .tools/venv/bin/python -m pytest tests/interop/python
#
# EMCP_BRIDGE_DEVICE: the device command line (default: target/release/sensor-board);
# EMCP_BRIDGE: the bridge binary (default: target/debug/emcp-bridge).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
[ "${1:-}" = "--http" ] && [ -n "${2:-}" ] || { echo "usage: $0 --http ADDR" >&2; exit 2; }
device="${EMCP_BRIDGE_DEVICE:-$target/release/sensor-board}"
# shellcheck disable=SC2086 # the device command is split into words on purpose
exec "${EMCP_BRIDGE:-$target/debug/emcp-bridge}" --http "$2" exec -- $device
