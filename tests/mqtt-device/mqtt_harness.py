"""A Mosquitto broker the tests start and stop, a device process, and a spec-level
MCP-over-MQTT test client on paho-mqtt (EMQX's "MCP over MQTT" specification: the
topics, user properties and lifecycle, written from the specification, not from
emcp's code).

Environment:
  EMCP_MQTT_DEVICE   command line (shlex) of a device taking `--mqtt HOST:PORT
                     --server-id ID --server-name NAME`; default
                     <repo>/target/release/sensor-board
  MOSQUITTO          the broker binary (default: mosquitto on PATH, /usr/sbin/mosquitto)
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

REPO = Path(__file__).resolve().parents[2]
WAIT = 10.0  # seconds for anything expected to arrive


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mosquitto_binary() -> str:
    b = os.environ.get("MOSQUITTO") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.access(b, os.X_OK):
        raise RuntimeError("mosquitto missing: run scripts/setup-mqtt.sh")
    return b


class Broker:
    """Mosquitto on a loopback port, no persistence (a restart forgets retained
    messages, as a broker without a store does)."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="emcp-mqtt-")
        self.conf = Path(self.dir) / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        )
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Broker":
        log = open(Path(self.dir) / "mosquitto.log", "ab")
        self.proc = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.conf)], stdout=log, stderr=log
        )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Device:
    """The device under test as a real process."""

    def __init__(self, broker: Broker, server_id: str, name: str, argv: list[str] | None = None):
        """`argv`: a device that knows its broker and id already (the firmware);
        otherwise EMCP_MQTT_DEVICE or the sensor board, given them as flags."""
        if argv is None:
            cmd = os.environ.get("EMCP_MQTT_DEVICE", "").strip()
            argv = shlex.split(cmd) if cmd else [str(REPO / "target" / "release" / "sensor-board")]
            if not (os.sep in argv[0] and os.access(argv[0], os.X_OK)) and not shutil.which(argv[0]):
                raise RuntimeError(f"device {argv[0]} missing: cargo build --release -p sensor-board")
            argv = argv + [
                "--mqtt",
                f"127.0.0.1:{broker.port}",
                "--server-id",
                server_id,
                "--server-name",
                name,
            ]
        self.argv = argv
        self.server_id, self.name = server_id, name
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def alive(self) -> bool:
        return self.proc.poll() is None


def user_props(packet_type: int, **pairs: str) -> Properties:
    p = Properties(packet_type)
    p.UserProperty = list(pairs.items())
    return p


class Client:
    """An MCP-over-MQTT client: its own MQTT connection (client id = mcp-client-id),
    every message it receives in a queue per topic kind."""

    def __init__(self, broker: Broker, client_id: str | None = None, with_id_property: bool = True):
        self.id = client_id or f"c-{uuid.uuid4().hex[:12]}"
        self.with_id_property = with_id_property
        self.messages: "queue.Queue[tuple[str, bytes, dict, bool]]" = queue.Queue()
        self.mqtt = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=self.id, protocol=mqtt.MQTTv5
        )
        self.mqtt.on_message = self._on_message
        self.subacks: "queue.Queue[int]" = queue.Queue()
        self.mqtt.on_subscribe = lambda c, u, mid, rc, p: self.subacks.put(mid)
        will = json.dumps({"jsonrpc": "2.0", "method": "notifications/disconnected"})
        self.mqtt.will_set(f"$mcp-client/presence/{self.id}", will, qos=0, retain=False)
        self.mqtt.connect(
            "127.0.0.1",
            broker.port,
            keepalive=30,
            clean_start=True,
            properties=user_props(PacketTypes.CONNECT, **{"MCP-COMPONENT-TYPE": "mcp-client"}),
        )
        self.mqtt.loop_start()

    def _on_message(self, _c, _u, msg) -> None:
        props = dict(getattr(msg.properties, "UserProperty", []) or [])
        self.messages.put((msg.topic, bytes(msg.payload), props, bool(msg.retain)))

    def subscribe(self, topic: str, no_local: bool = True) -> None:
        _, mid = self.mqtt.subscribe(topic, options=SubscribeOptions(qos=0, noLocal=no_local))
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                if self.subacks.get(timeout=0.1) == mid:
                    return
            except queue.Empty:
                pass
        raise AssertionError(f"no SUBACK for {topic}")

    def publish(self, topic: str, payload: bytes | str) -> None:
        props = {"MCP-COMPONENT-TYPE": "mcp-client"}
        if self.with_id_property:
            props["MCP-MQTT-CLIENT-ID"] = self.id
        info = self.mqtt.publish(
            topic, payload, qos=0, properties=user_props(PacketTypes.PUBLISH, **props)
        )
        info.wait_for_publish(WAIT)

    def next(self, topic_prefix: str = "", timeout: float = WAIT):
        """The next message whose topic starts with `topic_prefix` (others dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                return None
            if m[0].startswith(topic_prefix):
                return m

    def close(self) -> None:
        self.mqtt.loop_stop()
        self.mqtt.disconnect()


def online(client: Client, server_id: str, timeout: float = WAIT) -> tuple[str, dict] | None:
    """Wait for the online notification of `server_id`: (server name, message)."""
    prefix = f"$mcp-server/presence/{server_id}/"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = client.next(prefix, deadline - time.monotonic())
        if m is None:
            return None
        if m[1]:
            return m[0][len(prefix):], json.loads(m[1])
    return None


class Session:
    """One MCP session of `client` with the server `server_id`/`name`."""

    def __init__(self, client: Client, server_id: str, name: str):
        self.c, self.sid, self.name = client, server_id, name
        self.rpc = f"$mcp-rpc/{client.id}/{server_id}/{name}"
        self.control = f"$mcp-server/{server_id}/{name}"
        self.capability = f"$mcp-server/capability/{server_id}/{name}"
        client.subscribe(self.rpc)
        client.subscribe(self.capability)

    def send(self, payload: bytes | str | dict, control: bool = False) -> None:
        if isinstance(payload, dict):
            payload = json.dumps(payload)
        self.c.publish(self.control if control else self.rpc, payload)

    def reply(self, timeout: float = WAIT) -> dict | None:
        m = self.c.next(self.rpc, timeout)
        if m is None:
            return None
        assert m[2].get("MCP-COMPONENT-TYPE") == "mcp-server", m
        assert m[2].get("MCP-MQTT-CLIENT-ID") == self.sid, m
        return json.loads(m[1])

    def request(self, id_, method: str, params: dict | None = None, control: bool = False) -> dict:
        msg = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg, control=control)
        r = self.reply()
        assert r is not None, f"no answer to {method}"
        return r

    def initialize(self, version: str = "2025-06-18", id_=1) -> dict:
        r = self.request(
            id_,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "paho-spec-client", "version": "0"},
            },
            control=True,
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r
