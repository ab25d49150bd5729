"""The sensor board's tasks build (docs/board.md, "The tasks build") on the wire, in both
eras: raw JSON-RPC lines to a board process over stdio, and over Streamable HTTP.

    python3 tests/board-tasks/board_tasks.py 'COMMAND ARGS' [--http BINARY]

`COMMAND ARGS` starts a board on stdin/stdout (a shell-quoted command line: the Rust
board built with `--features tasks`, the C board built with `-DBOARD_TASKS`, or either
behind `emcp-bridge exec --`); `--http BINARY` also starts `BINARY --http ADDR` on a
free loopback port. Every scenario starts a board of its own (a task table starts
empty). Prints one line per check; exits non-zero at the first that does not hold.

Task ids are random (the board's state key is): the checks read them from the answers
and compare the rest byte for byte where the specification fixes the bytes (the
descriptors, the capabilities), field by field where times vary.
"""

from __future__ import annotations

import json
import re
import select
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "transcripts"

# docs/board.md: the calibrate descriptor (2025-11-25 tools/list writes `execution`).
CALIBRATE = (
    '{"name":"calibrate","title":"Calibrate sensor","description":"Calibrate one on-board '
    'sensor; takes about two seconds and runs only as a task.","inputSchema":{"type":'
    '"object","properties":{"sensor":{"type":"string","enum":["temperature","humidity",'
    '"pressure"],"description":"Which sensor to calibrate"}},"required":["sensor"],'
    '"additionalProperties":false},"annotations":{"readOnlyHint":false,"destructiveHint":'
    'false,"idempotentHint":true,"openWorldHint":false}'
)
SERVO_ANNOTATIONS = (
    '"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,'
    '"openWorldHint":false}}]'
)
LEGACY_TASKS_CAPS = '"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}'
EXT = "io.modelcontextprotocol/tasks"
TASK_ID = re.compile(r"^[0-9a-f]{32}$")
DEADLINE_S = 10.0
# The shortest `lastUpdatedAt - createdAt` of a calibration: `createdAt` is read a moment
# after the calibration starts, so the span may fall a few milliseconds short of 2,000.
MIN_SPAN_MS = 1990


def check(cond: bool, what: str, detail: object = "") -> None:
    if not cond:
        raise AssertionError(f"{what}: {detail}")


def ok(what: str) -> None:
    print("ok", what, flush=True)


def transcript_pair(name: str, request_prefix: str) -> tuple[str, str]:
    """The request line of transcript `name` that starts with `request_prefix`, and
    the answer line after it (the default build's bytes)."""
    lines = (TRANSCRIPTS / name).read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("> " + request_prefix):
            return line[2:], lines[i + 1][2:]
    raise AssertionError(f"{name}: no request {request_prefix}")


def ms(stamp: str) -> float:
    """An ISO 8601 time (`…Z`) in milliseconds since the epoch."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000


def meta(tasks: bool) -> dict:
    caps = {"extensions": {EXT: {}}} if tasks else {}
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    }


class Stdio:
    """A board process on stdin/stdout."""

    def __init__(self, command: str) -> None:
        self.p = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 1

    def line(self, text: str) -> str:
        """Send one line; the one answer line."""
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(text.encode() + b"\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], DEADLINE_S)
        check(bool(ready), "an answer in time", text)
        answer = self.p.stdout.readline().decode()
        check(answer.endswith("\n"), "a whole answer line", answer)
        return answer.rstrip("\n")

    def notify(self, text: str) -> None:
        assert self.p.stdin
        self.p.stdin.write(text.encode() + b"\n")
        self.p.stdin.flush()

    def request(self, method: str, params: dict, tasks: bool | None = None) -> dict:
        """A request (2026-07-28 `_meta` unless `tasks` is None); its parsed answer."""
        if tasks is not None:
            params = {**params, "_meta": meta(tasks)}
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        answer = json.loads(self.line(json.dumps(msg, separators=(",", ":"))))
        check(answer.get("id") == rid, "the answer to the request", answer)
        return answer

    def close(self) -> None:
        if self.p.stdin:
            self.p.stdin.close()
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


class Http:
    """A board binary serving Streamable HTTP on a free loopback port (2026-07-28)."""

    def __init__(self, binary: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.p = subprocess.Popen(
            [binary, "--http", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        self.next_id = 1

    def request(self, method: str, params: dict, tasks: bool | None = True) -> dict:
        params = {**params, "_meta": meta(bool(tasks))}
        rid = self.next_id
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": method,
        }
        name = params.get("taskId") or params.get("name")
        if name:
            headers["Mcp-Name"] = name
        req = urllib.request.Request(self.url, data=body.encode(), headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=DEADLINE_S) as r:
                kind = r.headers.get("Content-Type", "")
                body = r.read().decode()
        except urllib.error.HTTPError as e:
            kind, body = "application/json", e.read().decode()
        if kind.startswith("text/event-stream"):
            # A long call answers on a stream: its answer is the message with our id.
            events = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
            answers = [m for m in events if m.get("id") == rid]
            check(len(answers) == 1, "one answer on the stream", body)
            answer = answers[0]
        else:
            answer = json.loads(body)
        check(answer.get("id") == rid, "the answer to the request", answer)
        return answer

    def close(self) -> None:
        self.p.terminate()
        self.p.wait(timeout=5)


# ---- 2025-11-25 ----------------------------------------------------------------------


def legacy_session(board: Stdio) -> None:
    """initialize 2025-11-25 and notifications/initialized; checks the capabilities."""
    request, answer = transcript_pair("legacy_tools.txt", '{"jsonrpc":"2.0","id":1,"method":"initialize"')
    request = request.replace("2025-06-18", "2025-11-25")
    expected = answer.replace("2025-06-18", "2025-11-25").replace(
        '"logging":{}}', '"logging":{},' + LEGACY_TASKS_CAPS + "}"
    )
    got = board.line(request)
    check(got == expected, "initialize: the default answer plus capabilities.tasks", got)
    board.notify('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    board.next_id = 2


def legacy_task(board: Stdio, tool: str, args: dict) -> str:
    r = board.request("tools/call", {"name": tool, "arguments": args, "task": {}})
    task = r.get("result", {}).get("task", {})
    check(TASK_ID.match(task.get("taskId", "")) is not None, f"{tool}: a task", r)
    check(task["status"] == "working", f"{tool}: working", r)
    check(task["ttl"] == 60000 and task["pollInterval"] == 500, f"{tool}: ttl, pollInterval", r)
    return task["taskId"]


def legacy_wait(board: Stdio, task_id: str) -> dict:
    """tasks/get until the task is terminal; the last answer's result."""
    end = time.monotonic() + DEADLINE_S
    while True:
        r = board.request("tasks/get", {"taskId": task_id})
        status = r["result"]["status"]
        if status in ("completed", "failed", "cancelled"):
            return r["result"]
        check(status == "working", "tasks/get: working until the end", r)
        check(time.monotonic() < end, "the task ends in time", r)
        time.sleep(0.1)


def legacy_text(board: Stdio, task_id: str) -> str:
    r = board.request("tasks/result", {"taskId": task_id})
    res = r.get("result", {})
    related = res.get("_meta", {}).get("io.modelcontextprotocol/related-task", {})
    check(related.get("taskId") == task_id, "tasks/result: related-task", r)
    check(len(res.get("content", [])) == 1 and not res.get("isError"), "tasks/result: one content", r)
    return res["content"][0]["text"]


def legacy_basics(command: str) -> None:
    board = Stdio(command)
    try:
        legacy_session(board)
        ok("2025-11-25 initialize: default answer + capabilities.tasks")

        request, answer = transcript_pair("legacy_tools.txt", '{"jsonrpc":"2.0","id":2,"method":"tools/list"')
        check(answer.endswith(SERVO_ANNOTATIONS + "}}"), "the default tools/list ends with move_servo", answer)
        expected = (
            answer[: -len(SERVO_ANNOTATIONS + "}}")]
            + SERVO_ANNOTATIONS[:-2]
            + ',"execution":{"taskSupport":"optional"}},'
            + CALIBRATE
            + ',"execution":{"taskSupport":"required"}}]}}'
        )
        got = board.line(request)
        check(got == expected, "tools/list: move_servo optional, calibrate required", got)
        board.next_id = 3
        ok("2025-11-25 tools/list: the default tools, move_servo optional, calibrate required (bytes)")

        start = time.monotonic()
        tid = legacy_task(board, "calibrate", {"sensor": "humidity"})
        first = board.request("tasks/get", {"taskId": tid})["result"]
        check(first["status"] == "working", "tasks/get at once: working", first)
        done = legacy_wait(board, tid)
        took = time.monotonic() - start
        check(done["status"] == "completed", "calibrate completes", done)
        span = ms(done["lastUpdatedAt"]) - ms(done["createdAt"])
        check(MIN_SPAN_MS <= span < 3000 and took >= 1.9, "calibrate takes 2 s of device time", (span, took))
        text = legacy_text(board, tid)
        check(text == "calibrated: humidity", "tasks/result text", text)
        ok(f"2025-11-25 calibrate as a task: working, completed after {span:.0f} ms, '{text}'")

        tid = legacy_task(board, "calibrate", {"sensor": "pressure"})
        text = legacy_text(board, tid)
        check(text == "calibrated: pressure", "tasks/result waits for the end", text)
        ok("2025-11-25 tasks/result before the end waits for it: 'calibrated: pressure'")

        tid = legacy_task(board, "calibrate", {"sensor": "temperature"})
        r = board.request("tasks/cancel", {"taskId": tid})
        check(r.get("result", {}).get("status") == "cancelled", "tasks/cancel: cancelled", r)
        time.sleep(2.1)
        r = board.request("tasks/get", {"taskId": tid})
        check(r["result"]["status"] == "cancelled", "still cancelled after 2 s", r)
        ok("2025-11-25 tasks/cancel: cancelled, and still after 2 s")

        r = board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}})
        check(r.get("error", {}).get("code") == -32601, "calibrate without params.task: -32601", r)
        r = board.request("tools/call", {"name": "read_sensor", "arguments": {"sensor": "humidity"}, "task": {}})
        check(r.get("error", {}).get("code") == -32601, "read_sensor as a task: -32601", r)
        ok("2025-11-25 calibrate without a task, read_sensor as a task: -32601")

        tid = legacy_task(board, "move_servo", {"angle": 45})
        done = legacy_wait(board, tid)
        check(done["status"] == "completed", "move_servo task completes", done)
        text = legacy_text(board, tid)
        check(text == "servo: 45.0 deg", "move_servo task text", text)
        r = board.request("tools/call", {"name": "move_servo", "arguments": {"angle": -30}})
        check(r.get("result", {}).get("content") == [{"type": "text", "text": "servo: -30.0 deg"}], "plain call", r)
        ok("2025-11-25 move_servo as a task: 'servo: 45.0 deg'; as a plain call: 'servo: -30.0 deg'")

        r = board.request("tasks/list", {})
        listed = [t["taskId"] for t in r.get("result", {}).get("tasks", [])]
        check(len(listed) == 4 and tid in listed, "tasks/list: the 4 tasks", r)
        r = board.request("tasks/get", {"taskId": "0" * 32})
        check(r.get("error", {}).get("code") == -32602, "unknown taskId: -32602", r)
        ok("2025-11-25 tasks/list: 4 tasks; unknown taskId: -32602")
    finally:
        board.close()


def legacy_full(command: str) -> None:
    board = Stdio(command)
    try:
        legacy_session(board)
        sensors = ["temperature", "humidity", "pressure", "humidity"]
        ids = [legacy_task(board, "calibrate", {"sensor": s}) for s in sensors]
        check(len(set(ids)) == 4, "4 distinct task ids", ids)
        for tool, args in [("calibrate", {"sensor": "pressure"}), ("move_servo", {"angle": 10})]:
            r = board.request("tools/call", {"name": tool, "arguments": args, "task": {}})
            err = r.get("error", {})
            check(err == {"code": -32603, "message": "Task table full"}, f"5th task ({tool})", r)
        r = board.request("tools/call", {"name": "move_servo", "arguments": {"angle": 10}})
        check(r.get("result", {}).get("content", [{}])[0].get("text") == "servo: 10.0 deg", "plain call", r)
        for tid, s in zip(ids, sensors):
            done = legacy_wait(board, tid)
            check(done["status"] == "completed", "earlier tasks complete", done)
            text = legacy_text(board, tid)
            check(text == f"calibrated: {s}", "earlier task's text", text)
        ok("2025-11-25 full table: 5th task -32603 'Task table full', plain call served, the 4 complete")
    finally:
        board.close()


# ---- 2026-07-28 ----------------------------------------------------------------------


def task_of(r: dict, what: str) -> str:
    res = r.get("result", {})
    check(res.get("resultType") == "task", f"{what}: a task", r)
    check(TASK_ID.match(res.get("taskId", "")) is not None, f"{what}: a task id", r)
    check(res["status"] == "working" and res["ttlMs"] == 60000 and res["pollIntervalMs"] == 500, what, r)
    return res["taskId"]


def wait(board: Stdio | Http, task_id: str) -> dict:
    end = time.monotonic() + DEADLINE_S
    while True:
        r = board.request("tasks/get", {"taskId": task_id}, True)
        res = r.get("result", {})
        check(res.get("resultType") == "complete", "tasks/get: resultType complete", r)
        if res["status"] in ("completed", "failed", "cancelled"):
            return res
        check(res["status"] == "working" and "result" not in res, "tasks/get: working until the end", r)
        check(time.monotonic() < end, "the task ends in time", r)
        time.sleep(0.1)


def inline_text(res: dict) -> str:
    content = res.get("result", {}).get("content", [])
    check(len(content) == 1 and not res["result"].get("isError"), "one text content", res)
    return content[0]["text"]


def calibrate_and_cancel(board: Stdio | Http, era: str) -> None:
    start = time.monotonic()
    tid = task_of(board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}}, True), "calibrate")
    first = board.request("tasks/get", {"taskId": tid}, True)["result"]
    check(first["status"] == "working", "tasks/get at once: working", first)
    done = wait(board, tid)
    took = time.monotonic() - start
    check(done["status"] == "completed", "calibrate completes", done)
    span = ms(done["lastUpdatedAt"]) - ms(done["createdAt"])
    check(MIN_SPAN_MS <= span < 3000 and took >= 1.9, "calibrate takes 2 s of device time", (span, took))
    text = inline_text(done)
    check(text == "calibrated: humidity", "the inline result", text)
    ok(f"{era} calibrate as a task: working, completed after {span:.0f} ms, '{text}'")

    tid = task_of(board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "pressure"}}, True), "calibrate")
    r = board.request("tasks/cancel", {"taskId": tid}, True)
    check(r.get("result", {}).get("resultType") == "complete", "tasks/cancel: the ack", r)
    time.sleep(2.1)
    r = board.request("tasks/get", {"taskId": tid}, True)
    check(r["result"]["status"] == "cancelled" and "result" not in r["result"], "cancelled, still after 2 s", r)
    ok(f"{era} tasks/cancel: cancelled, and still after 2 s")

    r = board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "humidity"}}, False)
    want = {"code": -32021, "message": "Missing required client capability", "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}
    check(r.get("error") == want, "calibrate without the extension: -32021", r)
    r = board.request("tasks/get", {"taskId": tid}, False)
    check(r.get("error", {}).get("code") == -32021, "tasks/get without the extension: -32021", r)
    r = board.request("tasks/get", {"taskId": "0" * 32}, True)
    check(r.get("error", {}).get("code") == -32602, "unknown taskId: -32602", r)
    ok(f"{era} calibrate and tasks/get without the extension: -32021; unknown taskId: -32602")

    tid = task_of(board.request("tools/call", {"name": "move_servo", "arguments": {"angle": 45}}, True), "move_servo")
    done = wait(board, tid)
    check(done["status"] == "completed" and inline_text(done) == "servo: 45.0 deg", "move_servo task", done)
    r = board.request("tools/call", {"name": "move_servo", "arguments": {"angle": -30}}, False)
    check(r.get("result", {}).get("content") == [{"type": "text", "text": "servo: -30.0 deg"}], "plain call", r)
    ok(f"{era} move_servo as a task: 'servo: 45.0 deg'; without the extension a plain call: 'servo: -30.0 deg'")


def stateless_basics(command: str) -> None:
    board = Stdio(command)
    try:
        request, answer = transcript_pair("stateless.txt", '{"jsonrpc":"2.0","id":"discover-1"')
        expected = answer.replace('"logging":{}}', '"logging":{},"extensions":{"' + EXT + '":{}}}')
        got = board.line(request)
        check(got == expected, "server/discover: the default answer plus the extension", got)
        ok("2026-07-28 server/discover: default answer + extensions io.modelcontextprotocol/tasks")

        request, answer = transcript_pair("stateless.txt", '{"jsonrpc":"2.0","id":2,"method":"tools/list"')
        check(SERVO_ANNOTATIONS in answer, "the default tools/list ends with move_servo", answer)
        expected = answer.replace(SERVO_ANNOTATIONS, SERVO_ANNOTATIONS[:-1] + "," + CALIBRATE + "}]")
        got = board.line(request)
        check(got == expected, "tools/list: the default tools and calibrate, no execution", got)
        ok("2026-07-28 tools/list: the default tools and calibrate (bytes; no execution in this era)")

        calibrate_and_cancel(board, "2026-07-28 stdio")
        r = board.request("tasks/list", {}, True)
        check(r.get("error", {}).get("code") == -32601, "tasks/list: -32601", r)
        ok("2026-07-28 tasks/list: -32601")
    finally:
        board.close()


def stateless_full(board: Stdio | Http, era: str) -> None:
    sensors = ["temperature", "humidity", "pressure", "temperature"]
    ids = [
        task_of(board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": s}}, True), "calibrate")
        for s in sensors
    ]
    check(len(set(ids)) == 4, "4 distinct task ids", ids)
    r = board.request("tools/call", {"name": "calibrate", "arguments": {"sensor": "pressure"}}, True)
    check(r.get("error") == {"code": -32603, "message": "Task table full"}, "5th calibrate", r)
    r = board.request("tools/call", {"name": "move_servo", "arguments": {"angle": 20}}, True)
    check(r.get("result", {}).get("resultType") == "complete", "5th move_servo: an ordinary call", r)
    check(r["result"].get("content") == [{"type": "text", "text": "servo: 20.0 deg"}], "5th move_servo", r)
    for tid, s in zip(ids, sensors):
        done = wait(board, tid)
        check(done["status"] == "completed" and inline_text(done) == f"calibrated: {s}", "earlier task", done)
    ok(f"{era} full table: 5th calibrate -32603 'Task table full', 5th move_servo an ordinary call, the 4 complete")


def main(argv: list[str]) -> int:
    http = None
    if len(argv) >= 3 and argv[-2] == "--http":
        http = argv[-1]
        argv = argv[:-2]
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    command = argv[1]
    legacy_basics(command)
    legacy_full(command)
    stateless_basics(command)
    board = Stdio(command)
    try:
        stateless_full(board, "2026-07-28 stdio")
    finally:
        board.close()
    if http:
        for scenario in (calibrate_and_cancel, stateless_full):
            board = Http(http)
            try:
                scenario(board, "2026-07-28 HTTP")
            finally:
                board.close()
    print("board tasks: every check held")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
