#!/usr/bin/env bash
# http-board.sh --http 127.0.0.1:PORT — run.sh behind the command line of a board
# binary (`sensor-board --http ADDR`), for tests that start one that way
# (tests/interop/python: EMCP_BOARD_HTTP). Only a loopback address can be served:
# QEMU forwards 127.0.0.1:PORT to the device's port 80. EMCP_NET_DEVICE picks the
# device (sensor, the default, or conformance).
set -euo pipefail
if [ $# -ne 2 ] || [ "$1" != --http ] || [[ ! $2 =~ ^127\.0\.0\.1:([0-9]+)$ ]]; then
    echo "usage: $0 --http 127.0.0.1:PORT" >&2
    exit 2
fi
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" "${EMCP_NET_DEVICE:-sensor}" "${BASH_REMATCH[1]}"
