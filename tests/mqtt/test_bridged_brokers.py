"""Beyond one broker: devices (the release sensor board with `--mqtt`) on one mosquitto,
the gateway (`emcp-bridge mqtt`) on another, joined by a mosquitto bridge
(docs/fleet.md, "Beyond one broker"), with the Python SDK through the gateway and
paho-mqtt clients of the specification watching both brokers.

The bridge that works (`bridge()`): MQTT 5 (`bridge_protocol_version mqttv50`: user
properties cross), the three `$mcp-…` filters named (`#` does not match a topic
beginning with `$`), `cleansession true` (each reconnection hands each broker's
retained presence to the other), on the gateways' broker (the other way round works
as well). The limitations each have a test that fails if they stop holding.
"""

from __future__ import annotations

import json
import os
import threading
from contextlib import asynccontextmanager
from itertools import count
from typing import Any, Callable, NamedTuple

import anyio
import mcp_types as types
import paho.mqtt.client as mqtt
import pytest
from conftest import Broker, Device, Inbox, Presence, gateway
from mcp.shared.exceptions import MCPError
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions
from test_board import BOARD, BOARD_CMD, OWN, TOOLS_A, TOOLS_B, A, B, temperature
from test_gateway import tool_names, wait_tools

pytestmark = pytest.mark.anyio

MCP_TOPICS = ("$mcp-server/#", "$mcp-client/#", "$mcp-rpc/#")
ids = count()


def bridge(remote: Broker, name: str, version: str = "mqttv50", topics: tuple[str, ...] = MCP_TOPICS) -> str:
    """mosquitto.conf lines bridging to `remote`: docs/fleet.md's configuration, and two
    lines for the test (a known client id on the remote, a retry after 1 s, not 5-30)."""
    lines = [
        f"connection {name}",
        f"address {remote.address}",
        f"bridge_protocol_version {version}",
        "cleansession true",
        *(f"topic {t} both 0" for t in topics),
        f"remote_clientid {name}",
        "restart_timeout 1",
    ]
    return "".join(line + "\n" for line in lines)


@pytest.fixture(autouse=True)
def board_built() -> None:
    if not os.access(BOARD, os.X_OK):
        pytest.fail(f"{BOARD} missing: cargo build --release -p sensor-board", pytrace=False)


@pytest.fixture
def site():
    """The devices' broker."""
    b = Broker()
    yield b
    b.close()


@pytest.fixture
def hub(site: Broker):
    """The gateways' broker, owning the bridge to the devices' broker."""
    b = Broker(bridge(site, f"site-{os.getpid()}"))
    yield b
    b.close()


@pytest.fixture
def boards():
    made: list[Device] = []

    def make(broker: Broker, sid: str, name: str) -> Device:
        d = Device(broker, sid, name, BOARD_CMD)
        made.append(d)
        return d

    yield make
    for d in made:
        d.kill()


class Message(NamedTuple):
    topic: str
    payload: bytes
    retain: bool
    props: dict[str, str] | None  # the user properties; None when it had none


class Watch:
    """A paho-mqtt MQTT 5 client on `broker` keeping every message on `filters`
    (subscribed again after a reconnect). With `client`, an MCP client of the
    specification: its will, its RPC topics subscribed, `initialize` sent."""

    def __init__(self, broker: Broker, *filters: str, client: bool = False) -> None:
        self.id = f"watch-{os.getpid()}-{next(ids)}"
        self.messages: list[Message] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.id, protocol=mqtt.MQTTv5)
        if client:
            filters = (f"$mcp-rpc/{self.id}/#", *filters)
            bye = {"jsonrpc": "2.0", "method": "notifications/disconnected"}
            self.client.will_set(f"$mcp-client/presence/{self.id}", json.dumps(bye), qos=0, retain=False)
        options = SubscribeOptions(qos=0, noLocal=True)
        self.client.on_connect = lambda c, *_: [c.subscribe(f, options=options) for f in filters]
        self.client.on_message = self._message
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.connect("127.0.0.1", broker.port, keepalive=5)
        self.client.loop_start()
        if not self.subscribed.wait(5):
            raise RuntimeError("no SUBACK")

    def _message(self, _c: Any, _u: Any, m: Any) -> None:
        props = getattr(m.properties, "UserProperty", None)
        with self.lock:
            self.messages.append(Message(m.topic, m.payload, bool(m.retain), dict(props) if props else None))

    def publish(self, topic: str, payload: dict[str, Any]) -> None:
        props = Properties(PacketTypes.PUBLISH)
        props.UserProperty = [("MCP-COMPONENT-TYPE", "mcp-client"), ("MCP-MQTT-CLIENT-ID", self.id)]
        self.client.publish(topic, json.dumps(payload), qos=0, properties=props)

    def initialize(self, sid: str, name: str) -> Callable[[Message], bool]:
        """Sends `initialize` to the device's control topic; matches its answer."""
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}
        self.publish(f"$mcp-server/{sid}/{name}", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        return lambda m: m.topic == f"$mcp-rpc/{self.id}/{sid}/{name}"

    def seen(self, match: Callable[[Message], bool]) -> list[Message]:
        with self.lock:
            return [m for m in self.messages if match(m)]

    async def wait(self, match: Callable[[Message], bool], within: float = 10.0) -> Message:
        with anyio.fail_after(within):
            while True:
                if found := self.seen(match):
                    return found[-1]
                await anyio.sleep(0.05)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@asynccontextmanager
async def watch(broker: Broker, *filters: str, client: bool = False):
    w = Watch(broker, *filters, client=client)
    try:
        yield w
    finally:
        w.close()


def online(sid: str) -> Callable[[Message], bool]:
    return lambda m: m.topic.startswith(f"$mcp-server/presence/{sid}/") and m.payload != b""


async def answered(s: Any, tool: str, within: float = 30.0) -> float:
    """A temperature from `tool`, retried while the fleet reopens the device's session:
    -32000 (the device went away), -32602 (not listed yet) and, for a call sent on a
    session the device had already forgotten, the SDK's own timeout after 3 s."""
    with anyio.fail_after(within):
        while True:
            try:
                result = await s.call_tool(tool, {"sensor": "temperature"}, read_timeout_seconds=3)
            except MCPError as e:
                assert e.error.code in (-32000, -32602, types.REQUEST_TIMEOUT), e
                await anyio.sleep(0.3)
                continue
            assert not result.is_error, result
            assert result.structured_content is not None
            return float(result.structured_content["value"])


async def test_bridged_fleet(site: Broker, hub: Broker, boards: Any) -> None:
    """Two sensor boards on the devices' broker, the fleet on the gateways' broker:
    lists, calls with progress, a board killed (its will crosses), restarted; on the
    devices' side every RPC message carries its user properties and arrives once (no
    loop through the bridge); the gateway's goodbye crosses the other way."""
    async with watch(site, "$mcp-rpc/#", "$mcp-client/presence/+") as on_site:
        boards(site, "board-a", A)
        b = boards(site, "board-b", B)
        presence = Presence(hub)
        inbox = Inbox()
        try:
            with anyio.fail_after(90):
                async with gateway(hub, "--fleet", inbox=inbox) as s:
                    await wait_tools(s, TOOLS_A | TOOLS_B)
                    assert await temperature(s, "lab.board-a.read_sensor") == pytest.approx(21.5, abs=10)
                    assert await temperature(s, "lab.board-b.read_sensor") == pytest.approx(21.5, abs=10)
                    steps: list[float] = []

                    async def on_progress(progress: float, _total: float | None, _message: str | None) -> None:
                        steps.append(progress)

                    servo = await s.call_tool("lab.board-a.move_servo", {"angle": 45}, progress_callback=on_progress)
                    assert not servo.is_error, servo
                    assert len(steps) == 3, steps

                    rpc = on_site.seen(lambda m: m.topic.startswith("$mcp-rpc/"))
                    assert len(rpc) >= 10, rpc  # both sessions' lists, three calls, progress
                    assert all(m.props and m.props.get("MCP-MQTT-CLIENT-ID") for m in rpc), rpc
                    sent = [(m.topic, m.payload) for m in rpc]
                    assert len(set(sent)) == len(sent), "a message came back through the bridge"

                    before = inbox.count(types.ToolListChangedNotification)
                    b.kill()
                    await presence.wait("board-b", False, 10)  # the will, from the other broker
                    await wait_tools(s, TOOLS_A)
                    await inbox.more_than(types.ToolListChangedNotification, before)
                    with pytest.raises(MCPError) as caught:
                        await s.call_tool("lab.board-b.read_sensor", {"sensor": "temperature"})
                    assert caught.value.error.code == -32602

                    b.start()
                    await wait_tools(s, TOOLS_A | TOOLS_B)
                    await temperature(s, "lab.board-b.read_sensor")
            bye = await on_site.wait(lambda m: m.topic.startswith("$mcp-client/presence/"))
            assert json.loads(bye.payload)["method"] == "notifications/disconnected"
        finally:
            presence.close()


async def test_bridged_one_device(site: Broker, hub: Broker, boards: Any) -> None:
    """One board by name through the bridge: served, killed, restarted (the session
    replayed on it)."""
    a = boards(site, "board-a", A)
    presence = Presence(hub)
    try:
        with anyio.fail_after(60):
            async with gateway(hub, "--server-name", A) as s:
                assert sorted(await tool_names(s)) == sorted(OWN)
                await temperature(s, "read_sensor")
                a.kill()
                await presence.wait("board-a", False, 10)
                a.start()
                await answered(s, "read_sensor")
    finally:
        presence.close()


@asynccontextmanager
async def joined(owner: str):
    """(devices' broker, gateways' broker), the bridge on the one `owner` names."""
    if owner == "gateways":
        site = Broker()
        hub = Broker(bridge(site, f"site-{os.getpid()}"))
    else:
        hub = Broker()
        site = Broker(bridge(hub, f"hub-{os.getpid()}"))
    try:
        yield site, hub
    finally:
        site.close()
        hub.close()


def bye(m: Message) -> bool:
    return m.topic.startswith("$mcp-client/presence/")


@pytest.mark.parametrize("owner", ["gateways", "devices"])
async def test_bridged_brokers_restarted(boards: Any, owner: str) -> None:
    """Either broker restarted, the bridge on either side. The gateways' broker stopped:
    it publishes the gateway's will on its way down and the bridge carries it; started,
    the bridge hands the boards' retained presence across again (`cleansession true`
    makes it subscribe afresh on both sides) and the fleet is whole. Killed (SIGKILL),
    the gateway's will is lost, so the boards keep that session. The devices' broker
    killed: the boards' wills die with it, so the presence on the gateways' side stays
    online and the fleet keeps listing them; started, the boards announce themselves
    again and the fleet opens their sessions afresh."""
    async with joined(owner) as (site, hub):
        boards(site, "board-a", A)
        boards(site, "board-b", B)
        with anyio.fail_after(150):
            async with watch(site, "$mcp-client/presence/+") as on_site, gateway(hub, "--fleet") as s:
                await wait_tools(s, TOOLS_A | TOOLS_B)

                hub.stop()
                will = await on_site.wait(bye)
                assert json.loads(will.payload)["method"] == "notifications/disconnected"
                hub.start()
                await wait_tools(s, TOOLS_A | TOOLS_B, within=30)
                assert await answered(s, "lab.board-a.read_sensor") == pytest.approx(21.5, abs=10)

                wills = len(on_site.seen(bye))
                hub.kill()
                await anyio.sleep(2)
                assert len(on_site.seen(bye)) == wills, "a will crossed from a killed broker"
                hub.start()
                await wait_tools(s, TOOLS_A | TOOLS_B, within=30)
                assert await answered(s, "lab.board-b.read_sensor") == pytest.approx(21.5, abs=10)

                async with watch(hub, "$mcp-server/presence/+/#") as on_hub:
                    await on_hub.wait(online("board-b"))
                    site.kill()
                    await anyio.sleep(2)
                    assert not on_hub.seen(lambda m: m.payload == b""), "a will crossed from a killed broker"
                    assert await tool_names(s) == TOOLS_A | TOOLS_B
                    with on_hub.lock:
                        on_hub.messages.clear()
                    site.start()
                    # The boards reconnect after 0.5 s; their new presence is what
                    # tells the fleet they forgot its sessions.
                    await on_hub.wait(online("board-a"), within=30)
                    await on_hub.wait(online("board-b"), within=30)
                assert await answered(s, "lab.board-a.read_sensor") == pytest.approx(21.5, abs=10)
                assert await answered(s, "lab.board-b.read_sensor") == pytest.approx(21.5, abs=10)


def bridge_up(m: Message) -> bool:
    return m.topic.startswith("$SYS/broker/connection/") and m.payload == b"1"


async def test_gateways_broker_crashes_leave_the_board_reachable(site: Broker, hub: Broker, boards: Any) -> None:
    """A client of a board across the bridge, its broker gone under it. Stopped
    (SIGTERM): the client's will crosses and the board ends that session, so 9 such
    clients in turn are each served. Killed (SIGKILL): the will is lost and the board,
    whose own connection never dropped, keeps the session until it needs the room:
    after 8 the board's 8 sessions are all held by gone clients, and the ninth and
    tenth are served all the same (each evicts the session idle longest), as is one
    more after them."""
    boards(site, "board-a", A)

    async def a_client_then(end: Callable[[], None]) -> dict[str, Any]:
        """One client's `initialize` across the bridge (once the bridge is up), its
        answer; then `end` with the client still connected, and the broker restarted."""
        async with watch(hub, "$SYS/broker/connection/+/state", "$mcp-server/presence/+/#", client=True) as c:
            await c.wait(bridge_up)
            await c.wait(online("board-a"))
            answer = json.loads((await c.wait(c.initialize("board-a", A))).payload)
            end()
        hub.start()
        return answer

    with anyio.fail_after(90):
        for _ in range(9):
            assert "result" in await a_client_then(hub.stop)
        for i in range(10):
            answer = await a_client_then(hub.kill)
            assert "result" in answer, (i, answer)
        assert "result" in await a_client_then(hub.stop)


@pytest.mark.parametrize("version", ["mqttv50", "mqttv311"])
async def test_bridge_protocol(site: Broker, boards: Any, version: str) -> None:
    """What the bridge's protocol changes. MQTT 5: the presence arrives retained with its
    user properties, and `initialize` sent across is answered. MQTT 3.1.1 (mosquitto's
    default): topics, payloads and the retain flag cross but every user property is
    dropped, so the board ignores the `initialize` (no MCP-MQTT-CLIENT-ID, as the
    specification says)."""
    hub = Broker(bridge(site, f"site-{os.getpid()}", version=version))
    try:
        boards(site, "board-a", A)
        async with (
            watch(site, "$mcp-server/board-a/#") as on_site,
            watch(hub, "$mcp-server/presence/+/#", client=True) as client,
        ):
            seen = await client.wait(online("board-a"))
            tools = {t["name"] for t in json.loads(seen.payload)["params"]["meta"]["tools"]}
            assert tools == set(OWN)
            async with watch(hub, "$mcp-server/presence/+/#") as late:
                assert (await late.wait(online("board-a"))).retain  # kept on the gateways' broker
            answered_on_rpc = client.initialize("board-a", A)
            arrived = await on_site.wait(lambda m: m.topic == f"$mcp-server/board-a/{A}")
            if version == "mqttv50":
                assert seen.props is not None and seen.props.get("MCP-COMPONENT-TYPE") == "mcp-server"
                assert arrived.props is not None and arrived.props.get("MCP-MQTT-CLIENT-ID") == client.id
                answer = await client.wait(answered_on_rpc)
                assert json.loads(answer.payload)["result"]["protocolVersion"] == "2025-06-18"
            else:
                assert seen.props is None
                assert arrived.props is None
                await anyio.sleep(3)
                assert not client.seen(answered_on_rpc), "answered without MCP-MQTT-CLIENT-ID"
    finally:
        hub.close()


async def test_bridge_hash_skips_dollar_topics(site: Broker, boards: Any) -> None:
    """`topic # both 0` carries every topic but those beginning with `$` (MQTT 5.0
    section 4.7.2): an ordinary topic crosses, the board's presence does not."""
    hub = Broker(bridge(site, f"site-{os.getpid()}", topics=("#",)))
    try:
        async with (
            watch(site, "$mcp-server/presence/+/#") as on_site,
            watch(hub, "#", "$mcp-server/presence/+/#") as on_hub,
        ):
            boards(site, "board-a", A)
            await on_site.wait(online("board-a"))
            on_site.client.publish("plain/probe", b"x")
            await on_hub.wait(lambda m: m.topic == "plain/probe")
            await anyio.sleep(1)
            assert not on_hub.seen(lambda m: m.topic.startswith("$")), "a $ topic crossed"
    finally:
        hub.close()
