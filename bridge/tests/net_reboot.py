#!/usr/bin/env python3
"""A networked device rebooting under `emcp-bridge http URL`, on stdio.

    python3 bridge/tests/net_reboot.py DEVICE [ARGS...]

DEVICE ARGS --http 127.0.0.1:PORT serves MCP's Streamable HTTP at /mcp (the sensor
board; examples/net-firmware/http-board.sh, the firmware in QEMU). With a legacy
session (a resource subscribed) and a 2026-07-28 listen stream open, the device is
stopped (SIGSTOP) with a call on it, then killed: that call, and a request meanwhile,
get the bridge's error at once, never a hang. The device
is started again on the same port, fresh: the next request is served (the bridge
replays the session the device forgot), and a change of the LED reaches the host both
ways — the legacy update (the subscription was replayed) and the update on the listen
stream (re-opened, its second acknowledgement swallowed). At the end of input the
listen stream is answered and the bridge exits 0.

Python 3 standard library only. EMCP_BRIDGE: the bridge (default
target/debug/emcp-bridge). Exits non-zero on the first failed check.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BRIDGE = os.environ.get("EMCP_BRIDGE", str(REPO / "target" / "debug" / "emcp-bridge"))
WAIT = 30.0
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_device(argv: list[str], port: int) -> subprocess.Popen:
    device = subprocess.Popen(
        [*argv, "--http", f"127.0.0.1:{port}"],
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/mcp")
            c.getresponse()
            return device
        except OSError:
            if device.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"FAIL the device did not answer on 127.0.0.1:{port}")
            time.sleep(0.05)


def stop_device(device: subprocess.Popen) -> None:
    os.killpg(device.pid, 9)
    device.wait()


class Bridge:
    def __init__(self, url: str) -> None:
        self.proc = subprocess.Popen(
            [BRIDGE, "http", url], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.lines: queue.Queue[dict | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout
        for raw in self.proc.stdout:
            self.lines.put(json.loads(raw))
        self.lines.put(None)

    def send(self, message: dict) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self, timeout: float = WAIT) -> dict:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            sys.exit(f"FAIL no line from the bridge within {timeout} s")
        if line is None:
            sys.exit("FAIL the bridge's output ended")
        return line

    def until(self, *wanted) -> list[dict]:
        """Lines until each predicate matched one."""
        found = [False] * len(wanted)
        seen = []
        while not all(found):
            line = self.recv()
            seen.append(line)
            for i, w in enumerate(wanted):
                found[i] = found[i] or w(line)
        return seen


def check(ok: bool, what: str, detail: object = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what}{f': {detail}' if not ok else ''}", flush=True)
    if not ok:
        sys.exit(1)


def led_update(line: dict, listen: bool) -> bool:
    if line.get("method") != "notifications/resources/updated":
        return False
    sub = line.get("params", {}).get("_meta", {}).get("io.modelcontextprotocol/subscriptionId")
    return (sub == "L") == listen


def main() -> None:
    argv = sys.argv[1:]
    if not argv:
        sys.exit(__doc__)
    port = free_port()
    device = start_device(argv, port)
    b = Bridge(f"http://127.0.0.1:{port}/mcp")
    b.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "net-reboot", "version": "1"}}})
    check("result" in b.recv(), "initialize")
    b.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    b.send({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "led://state"}})
    check(b.recv().get("id") == 2, "resources/subscribe led://state")
    b.send({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen", "params": {
        "_meta": META, "notifications": {"resourceSubscriptions": ["led://state"]}}})
    ack = b.recv()
    check(ack.get("method") == "notifications/subscriptions/acknowledged", "listen acknowledged", ack)

    # The device hangs (stopped) with a call on it, then is gone: the call fails at
    # once, and only once.
    os.killpg(device.pid, signal.SIGSTOP)
    b.send({"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {
        "name": "read_sensor", "arguments": {"sensor": "pressure"}}})
    time.sleep(1)
    stop_device(device)
    started = time.monotonic()
    lost = b.recv()
    check(lost.get("id") == 30 and lost.get("error", {}).get("code") == -32000
          and time.monotonic() - started < 10, "a call on the device when it goes: -32000 at once", lost)
    started = time.monotonic()
    b.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    down = b.recv()
    check(down.get("id") == 3 and down.get("error", {}).get("code") == -32000
          and time.monotonic() - started < 10, "a request while the device is down: -32000 at once", down)

    device = start_device(argv, port)
    b.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
    check(b.recv() == {"jsonrpc": "2.0", "id": 4, "result": {}}, "the next request after the reboot is served")
    # The listen stream re-opens on its own (backoff up to 2 s): give it time.
    time.sleep(3)
    b.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "set_led", "arguments": {"color": "blue", "brightness": 20}}})
    seen = b.until(
        lambda l: l.get("id") == 5,
        lambda l: led_update(l, listen=False),
        lambda l: led_update(l, listen=True),
    )
    check(not any(l.get("method") == "notifications/subscriptions/acknowledged" for l in seen),
          "the re-opened stream's acknowledgement is swallowed", seen)
    check(True, "set_led after the reboot: the replayed subscription's update and the listen stream's")

    assert b.proc.stdin
    b.proc.stdin.close()
    rest = []
    while (line := b.lines.get(timeout=WAIT)) is not None:
        rest.append(line)
    check([l.get("id") for l in rest] == ["L"] and rest[0].get("error", {}).get("code") == -32000,
          "end of input: the listen stream answered once", rest)
    check(b.proc.wait(timeout=WAIT) == 0, "the bridge exits 0")
    stop_device(device)


if __name__ == "__main__":
    main()
