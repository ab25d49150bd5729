"""The device side of MCP over MQTT, against a real Mosquitto and a real device
process (the host sensor board with --mqtt, or EMCP_MQTT_DEVICE): presence, the
control topic, per-client sessions, notifications, hostile payloads, the will,
a broker restart. See mqtt_harness.py."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from mqtt_harness import WAIT, Broker, Client, Device, Session, online

NAME = "emcp/sensor-board"


@pytest.fixture
def broker():
    b = Broker().start()
    yield b
    b.stop()


@pytest.fixture
def device(broker):
    d = Device(broker, f"dev-{uuid.uuid4().hex[:8]}", NAME)
    yield d
    d.kill()


@pytest.fixture
def client(broker, device):
    c = Client(broker)
    c.subscribe(f"$mcp-server/presence/{device.server_id}/#", no_local=False)
    assert online(c, device.server_id) is not None, "the device never came online"
    yield c
    c.close()


def test_presence_retained_with_tools(broker, client, device):
    # `client` saw the device come online; a newcomer gets the retained message.
    late = Client(broker)
    late.subscribe("$mcp-server/presence/+/#", no_local=False)
    m = late.next(f"$mcp-server/presence/{device.server_id}/")
    assert m is not None, "no retained presence"
    topic, payload, props, retained = m
    assert retained, "the presence is not retained"
    assert topic == f"$mcp-server/presence/{device.server_id}/{NAME}"
    assert props.get("MCP-COMPONENT-TYPE") == "mcp-server"
    assert props.get("MCP-MQTT-CLIENT-ID") == device.server_id
    msg = json.loads(payload)
    assert msg["method"] == "notifications/server/online"
    params = msg["params"]
    assert params["server_name"] == NAME
    assert isinstance(params["description"], str) and params["description"]
    tools = {t["name"]: t for t in params["meta"]["tools"]}
    assert {"read_sensor", "set_led", "move_servo"} <= set(tools)
    assert tools["read_sensor"]["inputSchema"]["type"] == "object"
    late.close()


def test_initialize_list_call(client, device):
    s = Session(client, device.server_id, NAME)
    r = s.initialize("2025-06-18")
    assert r["id"] == 1 and r["result"]["protocolVersion"] == "2025-06-18"
    r = s.request(2, "tools/list")
    assert [t["name"] for t in r["result"]["tools"]][:2] == ["read_sensor", "set_led"]
    r = s.request("abc", "tools/call", {"name": "read_sensor", "arguments": {"sensor": "temperature"}})
    assert r["id"] == "abc"
    assert r["result"]["structuredContent"]["sensor"] == "temperature"
    r = s.request(4, "ping")
    assert r == {"jsonrpc": "2.0", "id": 4, "result": {}}


def test_initialize_without_client_id_property_is_ignored(broker, device):
    c = Client(broker, with_id_property=False)
    c.subscribe(f"$mcp-server/presence/{device.server_id}/#", no_local=False)
    assert online(c, device.server_id)
    s = Session(c, device.server_id, NAME)
    s.send(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}},
        control=True,
    )
    assert s.reply(timeout=1.5) is None
    c.close()


def test_each_client_its_own_era(broker, client, device):
    other = Client(broker)
    a = Session(client, device.server_id, NAME)
    b = Session(other, device.server_id, NAME)
    assert a.initialize("2024-11-05")["result"]["protocolVersion"] == "2024-11-05"
    assert b.initialize("2025-11-25")["result"]["protocolVersion"] == "2025-11-25"
    # 2025-11-25's tools carry no `execution` unless tasks; both see the same tools,
    # each answered on its own topic only.
    ra = a.request(7, "tools/list")
    assert "tools" in ra["result"]
    assert other.next(b.rpc, timeout=0.5) is None
    rb = b.request(7, "tools/list")
    assert "tools" in rb["result"]
    other.close()


def test_stateless_client_opens_with_discover(broker, device):
    c = Client(broker)
    c.subscribe(f"$mcp-server/presence/{device.server_id}/#", no_local=False)
    assert online(c, device.server_id)
    s = Session(c, device.server_id, NAME)
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    r = s.request(1, "server/discover", {"_meta": meta}, control=True)
    assert "2026-07-28" in r["result"]["supportedVersions"]
    r = s.request(2, "tools/list", {"_meta": meta})
    assert r["result"]["resultType"] == "complete"
    r = s.request(3, "tools/list", {})  # a request without `_meta`: legacy era rules
    assert "tools" in r["result"]
    c.close()


def test_hostile_payloads_answered_and_device_keeps_serving(client, device):
    s = Session(client, device.server_id, NAME)
    s.initialize()
    s.send(b'{"jsonrpc":"2.0","id":1,"method":')
    r = s.reply()
    assert r["error"]["code"] == -32700 and r["id"] is None
    s.send(b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\xff\xfe"}}')
    r = s.reply()
    assert r["error"]["code"] == -32700
    s.send(b"[]")
    assert s.reply()["error"]["code"] == -32600
    s.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read_sensor", "arguments": {"sensor": "x" * 100_000}}}))
    r = s.reply()
    assert r["error"]["code"] == -32600 and r["id"] is None, r
    s.send(b"\x00" * 40_000)
    r = s.reply()
    assert r["error"]["code"] == -32600
    s.send(b"")
    assert s.reply()["error"]["code"] == -32700
    r = s.request(9, "no/such/method")
    assert r["error"]["code"] == -32601
    assert s.request(10, "ping")["result"] == {}
    assert device.alive()


def test_long_call_progress_and_notifications(client, device):
    s = Session(client, device.server_id, NAME)
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "move_servo", "arguments": {"angle": 30}, "_meta": {"progressToken": "p"}}})
    seen = []
    while True:
        m = s.reply()
        assert m is not None, f"move_servo never answered; saw {seen}"
        seen.append(m)
        if m.get("id") == 5:
            break
    assert any(x.get("method") == "notifications/progress" for x in seen)
    assert "result" in seen[-1]
    # A resource change reaches the capability topic.
    assert s.request(6, "resources/subscribe", {"uri": "led://state"})["result"] == {}
    s.request(7, "tools/call", {"name": "set_led", "arguments": {"color": "red"}})
    m = client.next(s.capability)
    assert m is not None, "no change notification on the capability topic"
    note = json.loads(m[1])
    assert note["method"] == "notifications/resources/updated"
    assert note["params"]["uri"] == "led://state"


def test_each_session_its_own_subscriptions(broker, device):
    """One client's unsubscribe leaves another client's subscription in place, and a
    session's subscriptions end with it."""
    a_client, b_client = Client(broker), Client(broker)
    try:
        a = Session(a_client, device.server_id, NAME)
        b = Session(b_client, device.server_id, NAME)
        assert "result" in a.initialize() and "result" in b.initialize()
        led = {"uri": "led://state"}
        assert a.request(2, "resources/subscribe", led)["result"] == {}
        assert b.request(2, "resources/unsubscribe", led)["result"] == {}
        b.request(3, "tools/call", {"name": "set_led", "arguments": {"color": "red"}})
        m = a_client.next(a.capability)
        assert m is not None, "b's unsubscribe silenced a's subscription"
        assert json.loads(m[1])["params"] == led
        # b hears the capability topic too; take what reached it so far.
        while b_client.next(b.capability, timeout=0.5) is not None:
            pass
        a.send({"jsonrpc": "2.0", "method": "notifications/disconnected"})
        time.sleep(0.3)
        b.request(4, "tools/call", {"name": "set_led", "arguments": {"color": "blue"}})
        m = b_client.next(b.capability, timeout=1.0)
        assert m is None, f"a's subscription outlived its session: {m}"
    finally:
        a_client.close()
        b_client.close()


def call(s: Session, id_, method: str, params: dict | None = None) -> tuple[list[dict], dict]:
    """A request's notifications on the RPC topic, then its answer."""
    s.send({"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params else {})})
    notes = []
    while True:
        m = s.reply()
        assert m is not None, f"no answer to {method}; saw {notes}"
        if m.get("id") == id_ and "method" not in m:
            return notes, m
        notes.append(m)


def test_a_full_table_evicts_the_session_idle_longest(broker, device):
    """Ten clients on the board's eight sessions, none leaving (as when their wills die
    with a crashed broker): every one is served. The session idle longest is evicted,
    not the one opened first; the evicted client is still heard and served without a
    session (its log level forgotten); it may open again. A goodbye still ends a
    client: after it, nothing it sends is heard."""
    clients = [Client(broker) for _ in range(10)]
    led = {"name": "set_led", "arguments": {"color": "red"}}
    try:
        sessions = [Session(c, device.server_id, NAME) for c in clients]
        first, second = sessions[0], sessions[1]
        for s in sessions[:8]:
            assert "result" in s.initialize()
            if s is second:
                assert call(s, 2, "logging/setLevel", {"level": "debug"})[1]["result"] == {}
        # The first, opened first, was heard last: the second is idle longest.
        assert call(first, 2, "logging/setLevel", {"level": "debug"})[1]["result"] == {}
        assert "result" in sessions[8].initialize(), "the ninth client refused"
        # The first keeps its session: set_led logs to it.
        notes, r = call(first, 3, "tools/call", led)
        assert "result" in r and [n["method"] for n in notes] == ["notifications/message"], notes
        # The second was evicted: answered all the same, without its session's log level.
        notes, r = call(second, 3, "tools/call", led)
        assert "result" in r and notes == [], (notes, r)
        # It opens again (the third, idle longest now, goes), and a tenth comes.
        assert "result" in second.initialize()
        assert "result" in sessions[9].initialize(), "the tenth client refused"
        for i, s in enumerate(sessions):
            assert s.request(4, "ping") == {"jsonrpc": "2.0", "id": 4, "result": {}}, i
        # An evicted client (the third) says goodbye: its topics go.
        sessions[2].send({"jsonrpc": "2.0", "method": "notifications/disconnected"})
        time.sleep(0.3)
        sessions[2].send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        assert sessions[2].reply(timeout=1.0) is None
        assert device.alive()
    finally:
        for c in clients:
            c.close()


def test_client_will_ends_its_session(broker, client, device):
    s = Session(client, device.server_id, NAME)
    s.initialize()
    client.publish(f"$mcp-client/presence/{client.id}", json.dumps({"jsonrpc": "2.0", "method": "notifications/disconnected"}))
    time.sleep(0.3)
    s.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert s.reply(timeout=1.0) is None


def test_will_on_kill_empties_presence(broker, client, device):
    device.kill()
    m = client.next(f"$mcp-server/presence/{device.server_id}/")
    assert m is not None and m[1] == b"", "no will after the device was killed"
    # A newcomer finds no retained presence.
    late = Client(broker)
    late.subscribe(f"$mcp-server/presence/{device.server_id}/#", no_local=False)
    assert late.next("$mcp-server/presence/", timeout=1.0) is None
    late.close()


def test_broker_restart_reconnects_and_forgets_sessions(broker, client, device):
    s = Session(client, device.server_id, NAME)
    s.initialize()
    client.close()
    broker.stop()
    time.sleep(0.5)
    broker.start()
    c = Client(broker)
    c.subscribe(f"$mcp-server/presence/{device.server_id}/#", no_local=False)
    assert online(c, device.server_id, timeout=WAIT) is not None, "presence not republished"
    # The old session is gone: its RPC topic is not served before a new initialize.
    s2 = Session(c, device.server_id, NAME)
    s2.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert s2.reply(timeout=1.0) is None
    assert "result" in s2.initialize()
    assert s2.request(2, "ping")["result"] == {}
    assert device.alive()
    c.close()
