"""Shared parts of the gateway tests: a mosquitto of the test's own on a loopback port,
devices as processes, a paho-mqtt client of the specification watching presence, and
the gateway (`emcp-bridge mqtt`) under the official Python SDK.

Environment:
  EMCP_BRIDGE        the bridge binary (default <repo>/target/debug/emcp-bridge)
  EMCP_MQTT_DEVICE   the device command, with {broker}, {sid} and {name} filled in
                     (default: tests/mqtt/device.py under this Python)
  MOSQUITTO          the broker binary (default: mosquitto on PATH, or /usr/sbin/mosquitto)
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import paho.mqtt.client as mqtt
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[2]
BRIDGE = os.environ.get("EMCP_BRIDGE") or str(REPO / "target" / "debug" / "emcp-bridge")
DEVICE = os.environ.get("EMCP_MQTT_DEVICE") or (
    f"{shlex.quote(sys.executable)} {shlex.quote(str(REPO / 'tests' / 'mqtt' / 'device.py'))} "
    "--broker {broker} --server-id {sid} --server-name {name}"
)
# How long a device's will may take: its keep-alive and a half, and slack.
WILL_TIME = 20.0

@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """A mosquitto of the test's own on a loopback port; stop and start it again.
    `extra` is appended to its configuration (a bridge: test_bridged_brokers.py)."""

    def __init__(self, extra: str = "") -> None:
        binary = os.environ.get("MOSQUITTO") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not os.access(binary, os.X_OK):
            pytest.fail(f"mosquitto missing ({binary}): run scripts/setup-mqtt.sh", pytrace=False)
        self.binary = binary
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.dir = tempfile.TemporaryDirectory()
        self.conf = Path(self.dir.name) / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n{extra}"
        )
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("mosquitto did not start")
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()
            self.proc = None

    def kill(self) -> None:
        """SIGKILL: no goodbye, so no will of its clients is published (SIGTERM sends them)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def close(self) -> None:
        self.stop()
        self.dir.cleanup()


class Device:
    """A device process: started, killed (no goodbye: the broker sends its will), started again."""

    def __init__(self, broker: Broker, sid: str, name: str, command: str = DEVICE) -> None:
        self.argv = shlex.split(command.format(broker=broker.address, sid=sid, name=name))
        self.sid, self.name = sid, name
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    def freeze(self) -> None:
        """SIGSTOP: its connection stays open and silent, so only the broker's keep-alive
        (one and a half times the device's) can end it and send the will."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            self.proc = None


class Presence:
    """The retained presence of every device, as a client of the specification sees it."""

    def __init__(self, broker: Broker) -> None:
        self.online: dict[str, bool] = {}
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"watch-{os.getpid()}", protocol=mqtt.MQTTv5)
        self.client.on_connect = lambda c, *_: c.subscribe("$mcp-server/presence/+/#")
        self.client.on_message = self._message
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.connect("127.0.0.1", broker.port, keepalive=5)
        self.client.loop_start()

    def _message(self, _c: Any, _u: Any, m: Any) -> None:
        sid = m.topic.split("/")[2]
        with self.lock:
            self.online[sid] = bool(m.payload)

    async def wait(self, sid: str, online: bool, within: float) -> None:
        with anyio.fail_after(within):
            while True:
                with self.lock:
                    if self.online.get(sid, False) == online:
                        return
                await anyio.sleep(0.1)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def broker():
    b = Broker()
    yield b
    b.close()


@pytest.fixture
def devices(broker: Broker):
    made: list[Device] = []

    def make(sid: str, name: str, command: str = DEVICE) -> Device:
        d = Device(broker, sid, name, command)
        made.append(d)
        return d

    yield make
    for d in made:
        d.kill()


@pytest.fixture
def presence(broker: Broker):
    p = Presence(broker)
    yield p
    p.close()


class Inbox:
    def __init__(self) -> None:
        self.items: list[Any] = []

    async def message_handler(self, message: Any) -> None:
        self.items.append(message)

    def count(self, kind: type) -> int:
        return sum(1 for m in self.items if isinstance(getattr(m, "root", m), kind))

    async def more_than(self, kind: type, before: int, within: float = 5.0) -> None:
        """Until more than `before` notifications of `kind` have come."""
        with anyio.fail_after(within):
            while self.count(kind) <= before:
                await anyio.sleep(0.05)


@asynccontextmanager
async def gateway(broker: Broker, *args: str, http: bool = False, inbox: Inbox | None = None):
    """A ClientSession through `emcp-bridge mqtt --broker ... ARGS`, over stdio or HTTP."""
    callbacks = {"message_handler": inbox.message_handler} if inbox else {}
    argv = ["mqtt", "--broker", broker.address, *args]
    if http:
        port = free_port()
        proc = subprocess.Popen([BRIDGE, "--http", f"127.0.0.1:{port}", *argv], stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline and proc.poll() is None, "gateway did not listen"
                    await anyio.sleep(0.05)
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
                async with ClientSession(read, write, read_timeout_seconds=90, **callbacks) as s:
                    await s.initialize()
                    yield s
        finally:
            proc.kill()
            proc.wait()
    else:
        params = StdioServerParameters(command=BRIDGE, args=argv, env=dict(os.environ))
        async with stdio_client(params) as (read, write, *_):
            async with ClientSession(read, write, read_timeout_seconds=90, **callbacks) as s:
                await s.initialize()
                yield s


