"""The C sensor board's tasks build (docs/board.md, "The tasks build") over stdio, in
both eras: raw JSON-RPC lines to the board process, its answers checked.

    python3 tests/c/board_tasks.py [BOARD_BINARY]

BOARD_BINARY defaults to target/c-sensor-board-tasks/c-sensor-board (built by
`BOARD_TASKS=1 examples/c-sensor-board/run.sh`). Every test starts a board of its own
(an empty task table). The descriptors are compared byte for byte with the default
board's, from the transcripts (tests/transcripts/legacy_tools.txt, stateless.txt), plus
what the tasks build adds; task ids and times vary per run and are read from the
answers. Standard library only. The last line on stdout is "N passed, M failed".
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
import unittest
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = ROOT / "tests" / "transcripts"
BOARD = str(ROOT / "target" / "c-sensor-board-tasks" / "c-sensor-board")

EXT = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
META_TASKS = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXT: {}}},
}
TASK_ID = re.compile(r"^[0-9a-f]{32}$")

# docs/board.md: the calibrate descriptor, as a tools/list writes it (the 2025-11-25
# list adds its `execution`).
CALIBRATE = (
    '{"name":"calibrate","title":"Calibrate sensor","description":"Calibrate one on-board '
    'sensor; takes about two seconds and runs only as a task.","inputSchema":{"type":'
    '"object","properties":{"sensor":{"type":"string","enum":["temperature","humidity",'
    '"pressure"],"description":"Which sensor to calibrate"}},"required":["sensor"],'
    '"additionalProperties":false},"annotations":{"readOnlyHint":false,"destructiveHint":'
    'false,"idempotentHint":true,"openWorldHint":false}'
)
ACTUATOR = (
    '"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,'
    '"openWorldHint":false}'
)
LEGACY_TASKS_CAPS = '"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}'


def transcript_answer(name: str, prefix: str) -> str:
    """The first answer line of a transcript that starts with `prefix`."""
    for line in (TRANSCRIPTS / name).read_text().splitlines():
        if line.startswith("< " + prefix):
            return line[2:]
    raise AssertionError(f"no answer starting {prefix!r} in {name}")


def ms(stamp: str) -> int:
    """Milliseconds since the epoch of an RFC 3339 `...Z` timestamp."""
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


class Board:
    """One board process on stdin/stdout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [BOARD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.buf = b""
        self.next_id = 1

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 10.0) -> str:
        """The next output line, raw."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no answer within {timeout} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise AssertionError("the board closed its output")
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def request(self, method: str, params: dict, timeout: float = 10.0) -> tuple[str, dict]:
        """Send a request; its answer (raw line, parsed), skipping notifications."""
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            raw = self.line(timeout)
            msg = json.loads(raw)
            if msg.get("id") == rid:
                return raw, msg

    def initialize(self) -> str:
        raw, _ = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "board-tasks", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return raw


class BoardTasks(unittest.TestCase):
    def setUp(self) -> None:
        self.board = Board()

    def tearDown(self) -> None:
        self.board.close()

    def error_code(self, msg: dict) -> int:
        self.assertIn("error", msg, msg)
        return msg["error"]["code"]

    # -- descriptors and capabilities --------------------------------------------------

    def test_initialize_and_tools_list_2025(self) -> None:
        init = json.loads(self.board.initialize())
        self.assertEqual(
            json.dumps(init["result"]["capabilities"], separators=(",", ":")),
            '{"tools":{},"resources":{"subscribe":true},"prompts":{},"completions":{},'
            '"logging":{},' + LEGACY_TASKS_CAPS + "}",
        )
        raw, _ = self.board.request("tools/list", {})
        default = transcript_answer("legacy_tools.txt", '{"jsonrpc":"2.0","id":2,"result":{"tools"')
        servo_end = ACTUATOR + "}]"
        self.assertTrue(default.count(servo_end) == 1)
        want = default.replace(
            servo_end,
            ACTUATOR + ',"execution":{"taskSupport":"optional"}},'
            + CALIBRATE + ',"execution":{"taskSupport":"required"}}]',
        )
        self.assertEqual(raw, want)

    def test_discover_and_tools_list_2026(self) -> None:
        _, d = self.board.request("server/discover", {"_meta": META})
        self.assertEqual(d["result"]["capabilities"]["extensions"], {EXT: {}})
        self.assertNotIn("tasks", d["result"]["capabilities"])
        raw, _ = self.board.request("tools/list", {"_meta": META})
        default = transcript_answer(
            "stateless.txt", '{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools"'
        )
        servo_end = ACTUATOR + "}]"
        self.assertTrue(default.count(servo_end) == 1)
        # No `execution` in 2026-07-28: the extension says how a tool runs.
        self.assertEqual(raw, default.replace(servo_end, ACTUATOR + "}," + CALIBRATE + "}]"))

    # -- calibrate -----------------------------------------------------------------------

    def create_2026(self, name: str, arguments: dict) -> dict:
        _, msg = self.board.request(
            "tools/call", {"name": name, "arguments": arguments, "_meta": META_TASKS}
        )
        r = msg["result"]
        self.assertEqual(r["resultType"], "task", msg)
        self.assertEqual(r["status"], "working")
        self.assertRegex(r["taskId"], TASK_ID)
        self.assertEqual(r["ttlMs"], 60000)
        return r

    def get_2026(self, task_id: str) -> dict:
        _, msg = self.board.request("tasks/get", {"taskId": task_id, "_meta": META_TASKS})
        return msg["result"]

    def test_calibrate_2026(self) -> None:
        t0 = time.monotonic()
        task = self.create_2026("calibrate", {"sensor": "humidity"})
        # Created now: the host clock (milliseconds since the epoch).
        self.assertLess(abs(ms(task["createdAt"]) - time.time() * 1000), 5000)
        self.assertEqual(self.get_2026(task["taskId"])["status"], "working")
        while True:
            g = self.get_2026(task["taskId"])
            if g["status"] != "working":
                break
            self.assertLess(time.monotonic() - t0, 10, "still working after 10 s")
            time.sleep(0.2)
        self.assertEqual(g["status"], "completed")
        self.assertGreaterEqual(time.monotonic() - t0, 1.9)
        took = ms(g["lastUpdatedAt"]) - ms(task["createdAt"])
        self.assertGreaterEqual(took, 2000)
        self.assertLess(took, 4000)
        self.assertEqual(
            json.dumps(g["result"], separators=(",", ":")),
            '{"content":[{"type":"text","text":"calibrated: humidity"}]}',
        )
        # Fetched again: written again, the same.
        self.assertEqual(self.get_2026(task["taskId"])["result"], g["result"])

    def test_calibrate_2025(self) -> None:
        self.board.initialize()
        t0 = time.monotonic()
        _, created = self.board.request(
            "tools/call",
            {"name": "calibrate", "arguments": {"sensor": "pressure"}, "task": {}},
        )
        task = created["result"]["task"]
        self.assertEqual(task["status"], "working")
        self.assertRegex(task["taskId"], TASK_ID)
        _, g = self.board.request("tasks/get", {"taskId": task["taskId"]})
        self.assertEqual(g["result"]["status"], "working")
        # tasks/result waits for the end.
        raw, r = self.board.request("tasks/result", {"taskId": task["taskId"]})
        self.assertGreaterEqual(time.monotonic() - t0, 1.9)
        self.assertEqual(r["result"]["content"], [{"type": "text", "text": "calibrated: pressure"}])
        self.assertEqual(
            r["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task["taskId"]
        )
        _, g = self.board.request("tasks/get", {"taskId": task["taskId"]})
        self.assertEqual(g["result"]["status"], "completed")
        _, lst = self.board.request("tasks/list", {})
        self.assertEqual([t["taskId"] for t in lst["result"]["tasks"]], [task["taskId"]])

    def test_calibrate_cancel_2026(self) -> None:
        task = self.create_2026("calibrate", {"sensor": "temperature"})
        _, ack = self.board.request("tasks/cancel", {"taskId": task["taskId"], "_meta": META_TASKS})
        self.assertEqual(ack["result"]["resultType"], "complete")
        self.assertEqual(self.get_2026(task["taskId"])["status"], "cancelled")
        time.sleep(2.2)  # past the calibration's end: cancelled stays final
        self.assertEqual(self.get_2026(task["taskId"])["status"], "cancelled")

    def test_calibrate_cancel_2025(self) -> None:
        self.board.initialize()
        _, created = self.board.request(
            "tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}, "task": {}}
        )
        tid = created["result"]["task"]["taskId"]
        _, c = self.board.request("tasks/cancel", {"taskId": tid})
        self.assertEqual(c["result"]["status"], "cancelled")
        _, r = self.board.request("tasks/result", {"taskId": tid})
        self.assertEqual(self.error_code(r), -32603)

    def test_calibrate_without_a_task(self) -> None:
        # 2026-07-28 without the extension: -32021.
        _, msg = self.board.request(
            "tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}, "_meta": META}
        )
        self.assertEqual(self.error_code(msg), -32021)
        # 2025-11-25 without params.task: -32601.
        self.board.initialize()
        _, msg = self.board.request(
            "tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}}
        )
        self.assertEqual(self.error_code(msg), -32601)

    def test_full_table(self) -> None:
        ids = [self.create_2026("calibrate", {"sensor": "humidity"})["taskId"] for _ in range(4)]
        self.assertEqual(len(set(ids)), 4)
        _, msg = self.board.request(
            "tools/call",
            {"name": "calibrate", "arguments": {"sensor": "humidity"}, "_meta": META_TASKS},
        )
        self.assertEqual(self.error_code(msg), -32603)
        # An optional task tool runs as an ordinary call meanwhile.
        _, msg = self.board.request(
            "tools/call", {"name": "move_servo", "arguments": {"angle": 10}, "_meta": META_TASKS}
        )
        self.assertEqual(msg["result"]["resultType"], "complete")
        self.assertEqual(msg["result"]["content"], [{"type": "text", "text": "servo: 10.0 deg"}])

    # -- move_servo ----------------------------------------------------------------------

    def test_move_servo_task_2026(self) -> None:
        task = self.create_2026("move_servo", {"angle": 45})
        t0 = time.monotonic()
        while (g := self.get_2026(task["taskId"]))["status"] == "working":
            self.assertLess(time.monotonic() - t0, 10)
            time.sleep(0.05)
        self.assertEqual(g["status"], "completed")
        self.assertEqual(g["result"]["content"], [{"type": "text", "text": "servo: 45.0 deg"}])

    def test_move_servo_task_2025(self) -> None:
        self.board.initialize()
        _, created = self.board.request(
            "tools/call", {"name": "move_servo", "arguments": {"angle": -12.5}, "task": {}}
        )
        tid = created["result"]["task"]["taskId"]
        _, r = self.board.request("tasks/result", {"taskId": tid})
        self.assertEqual(r["result"]["content"], [{"type": "text", "text": "servo: -12.5 deg"}])

    def test_move_servo_plain_calls(self) -> None:
        # 2026-07-28 without the extension, and 2025-11-25 without params.task: the
        # ordinary result of the default board.
        raw, _ = self.board.request(
            "tools/call", {"name": "move_servo", "arguments": {"angle": 45}, "_meta": META}
        )
        self.assertEqual(
            raw,
            '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":'
            '"text","text":"servo: 45.0 deg"}],"_meta":{"io.modelcontextprotocol/serverInfo":'
            '{"name":"emcp-sensor-board","title":"emcp simulated sensor board","version":'
            '"0.1.0"}}}}',
        )
        self.board.initialize()
        raw, msg = self.board.request("tools/call", {"name": "move_servo", "arguments": {"angle": 45}})
        self.assertEqual(
            raw,
            '{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":'
            '"servo: 45.0 deg"}]}}' % msg["id"],
        )


def main() -> int:
    global BOARD
    if len(sys.argv) > 1:
        BOARD = sys.argv[1]
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(BoardTasks)
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
