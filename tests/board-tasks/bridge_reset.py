"""Tasks across a device reset behind emcp-bridge: the board's tasks build behind
`emcp-bridge exec`, wrapped so that it exits after a few lines (as a board that resets);
the bridge restarts it. The task the client made before the reset is gone: a
`tasks/get` for its id reaches the new board, which answers -32602 (unknown task), in
both eras; a new task on the new board works.

    python3 tests/board-tasks/bridge_reset.py BRIDGE BOARD

Prints one line per check; exits non-zero at the first that does not hold."""

from __future__ import annotations

import json
import shlex
import sys
import time

from board_tasks import EXT, Stdio, check, ok

LEGACY_INIT = (
    '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":'
    '"2025-11-25","capabilities":{},"clientInfo":{"name":"reset","version":"1"}}}'
)


def after_reset(board: Stdio, method: str, params: dict, tasks: bool | None) -> dict:
    """`method` once the restarted device answers it: the bridge's own -32000 (device
    reset, request lost) and -32001 (timeout) answers are retried for up to 10 s."""
    end = time.monotonic() + 10
    while True:
        r = board.request(method, params, tasks)
        code = r.get("error", {}).get("code")
        if code not in (-32000, -32001) or time.monotonic() > end:
            return r
        time.sleep(0.1)


def stateless(command: str) -> None:
    board = Stdio(command)
    try:
        r = board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}}, True)
        tid = r.get("result", {}).get("taskId")
        check(r.get("result", {}).get("resultType") == "task", "calibrate: a task", r)
        r = board.request("tasks/get", {"taskId": tid}, True)
        check(r["result"]["status"] == "working", "working before the reset", r)
        # Third line: the device exits after answering it.
        r = board.request("tasks/get", {"taskId": tid}, True)
        check(r["result"]["status"] == "working", "working before the reset", r)
        r = after_reset(board, "tasks/get", {"taskId": tid}, True)
        check(r.get("error", {}).get("code") == -32602, "tasks/get after the reset: -32602", r)
        ok(f"2026-07-28 after a device reset: tasks/get of the old task -> {json.dumps(r['error'])}")
        r = after_reset(board, "tools/call", {"name": "calibrate", "arguments": {"sensor": "pressure"}}, True)
        check(r.get("result", {}).get("resultType") == "task", "a new task on the new device", r)
        ok("2026-07-28 after a device reset: a new task on the new device")
    finally:
        board.close()


def legacy(command: str) -> None:
    board = Stdio(command)
    try:
        init = json.loads(board.line(LEGACY_INIT))
        check("tasks" in init.get("result", {}).get("capabilities", {}), "initialize: tasks", init)
        board.notify('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        r = board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}, "task": {}})
        tid = r.get("result", {}).get("task", {}).get("taskId")
        check(tid is not None, "calibrate: a task", r)
        # Fourth line (initialize, initialized, the call, this): the device exits.
        # (The bridge replays the handshake to the new device: 2 more of its lines.)
        r = board.request("tasks/get", {"taskId": tid})
        check(r.get("result", {}).get("status") == "working", "working before the reset", r)
        r = after_reset(board, "tasks/get", {"taskId": tid}, None)
        check(r.get("error", {}).get("code") == -32602, "tasks/get after the reset: -32602", r)
        ok(f"2025-11-25 after a device reset (handshake replayed by the bridge): tasks/get -> {json.dumps(r['error'])}")
    finally:
        board.close()


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    bridge, board = argv[1], argv[2]

    def behind(lines: int) -> str:
        # A board that exits after `lines` request lines: `sed -u` passes them on
        # unbuffered, then stops; the board answers what it got and exits at end of
        # input, and the bridge restarts the command.
        inner = f"sed -u {lines}q | exec {shlex.quote(board)}"
        return f"{shlex.quote(bridge)} exec --restart-delay 50ms -- sh -c {shlex.quote(inner)}"

    stateless(behind(3))
    legacy(behind(4))
    print(f"bridge reset: every check held ({EXT})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
