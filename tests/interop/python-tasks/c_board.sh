#!/usr/bin/env bash
# The C sensor board's tasks build (BOARD_TASKS=1 examples/c-sensor-board/run.sh) under
# the Python MCP SDK 1.29.0's 2025-11-25 tasks client, in the venv venv.sh makes
# (.tools/venv-mcp1), over stdio. Prints one line per check; fails on the first that
# does not hold.
set -euo pipefail
# shellcheck source=venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
BOARD_TASKS=1 "$root/examples/c-sensor-board/run.sh" </dev/null >/dev/null
board="$root/target/c-sensor-board-tasks/c-sensor-board"
timeout 120 "$venv/bin/python" -W ignore::DeprecationWarning "$here/board_2025.py" "$(printf '%q' "$board")"
# The firmware's tasks image (examples/firmware VARIANT=tasks: the same board.c in QEMU;
# not the default image, which must fit 32 KiB without tasks) on the Cortex-M3, and on
# the 16 KiB-RAM Cortex-M0 and RV32IMC machines, where it fits too.
for cpu in m3 m0 rv32; do
    timeout 300 "$venv/bin/python" -W ignore::DeprecationWarning "$here/board_2025.py" \
        "env EMCP_FW_VARIANT=tasks $(printf '%q' "$root/examples/firmware/run.sh") $cpu"
done
