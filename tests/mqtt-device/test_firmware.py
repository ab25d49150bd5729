"""The networked firmware (examples/net-firmware, QEMU mps2-an385) in MQTT mode
(`run.sh --mqtt PORT`) on a real Mosquitto: it reaches the broker on the host
through QEMU's user network (10.0.2.2), comes online, is initialized, lists and
calls its tools, answers hostile payloads, serves more clients than its two sessions
(the idlest evicted), and its will empties its presence when QEMU is killed. The
image is built first (`run.sh --mqtt PORT --build`)."""

from __future__ import annotations

import json
import subprocess

import pytest

from mqtt_harness import REPO, Broker, Client, Device, Session, online

RUN = REPO / "examples" / "net-firmware" / "run.sh"
SID = "emcp-net-firmware"
NAME = "emcp/net-firmware"
BOOT = 60.0  # QEMU start, DHCP, TCP connect


@pytest.fixture(scope="module")
def broker():
    b = Broker().start()
    subprocess.run([str(RUN), "--mqtt", str(b.port), "--build"], check=True)
    yield b
    b.stop()


@pytest.fixture(scope="module")
def firmware(broker):
    d = Device(broker, SID, NAME, argv=[str(RUN), "--mqtt", str(broker.port)])
    c = Client(broker)
    c.subscribe(f"$mcp-server/presence/{SID}/#", no_local=False)
    got = online(c, SID, timeout=BOOT)
    c.close()
    assert got is not None, f"the firmware never came online:\n{d.stderr()[-4000:]}"
    name, msg = got
    assert name == NAME
    assert msg["params"]["server_name"] == NAME
    yield d
    d.kill()


def test_firmware_presence_lists_its_tools(broker, firmware):
    c = Client(broker)
    c.subscribe(f"$mcp-server/presence/{SID}/#", no_local=False)
    _, msg = online(c, SID)
    assert "read_sensor" in [t["name"] for t in msg["params"]["meta"]["tools"]]
    c.close()


def test_firmware_initialize_list_call(broker, firmware):
    c = Client(broker)
    s = Session(c, SID, NAME)
    r = s.initialize("2025-06-18")
    assert r["result"]["protocolVersion"] == "2025-06-18"
    r = s.request(2, "tools/list")
    assert "read_sensor" in [t["name"] for t in r["result"]["tools"]]
    r = s.request(3, "tools/call", {"name": "read_sensor", "arguments": {"sensor": "humidity"}})
    assert r["result"]["structuredContent"]["sensor"] == "humidity"
    # The board's longest response (over 5 KiB) fits the firmware's buffer.
    r = s.request(7, "resources/read", {"uri": "log://samples"})
    assert "result" in r and len(json.dumps(r["result"])) > 5000, r
    # A long call: its progress and answer on the client's RPC topic.
    s.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "move_servo", "arguments": {"angle": 10}, "_meta": {"progressToken": "p"}}})
    seen = []
    while not seen or seen[-1].get("id") != 8:
        m = s.reply()
        assert m is not None, f"move_servo never answered: {seen}"
        seen.append(m)
    assert any(x.get("method") == "notifications/progress" for x in seen)
    assert "result" in seen[-1]
    # Hostile payloads: precise errors, then served again.
    s.send(b"{not json")
    assert s.reply()["error"]["code"] == -32700
    s.send(b'{"jsonrpc":"2.0","id":4,"method":"ping","x":"\xc3\x28"}')
    assert s.reply()["error"]["code"] == -32700
    s.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"pad": "x" * 5000}}))
    r = s.reply()
    assert r["error"]["code"] == -32600 and r["id"] is None
    assert s.request(6, "ping")["result"] == {}
    c.close()


def test_firmware_sessions_evict_the_idlest(broker, firmware):
    """The firmware's two sessions: clients that went without a goodbye or a will (a
    clean MQTT disconnect leaves no will, as a crashed broker loses one) hold them until
    the room is needed; each newcomer evicts the session idle longest and is served, and
    an evicted client still there is answered."""
    for i in range(3):
        c = Client(broker)
        assert "result" in Session(c, SID, NAME).initialize(), i
        c.close()
    clients = [Client(broker) for _ in range(3)]
    try:
        a, b, c = (Session(x, SID, NAME) for x in clients)
        assert "result" in a.initialize()
        assert "result" in b.initialize()
        assert b.request(2, "ping")["result"] == {}
        assert "result" in c.initialize(), "the third client refused"
        # a, idle longest, was evicted: still heard, and answered.
        r = a.request(3, "tools/call", {"name": "read_sensor", "arguments": {"sensor": "humidity"}})
        assert r["result"]["structuredContent"]["sensor"] == "humidity"
        assert b.request(4, "ping")["result"] == {}
        assert c.request(4, "ping")["result"] == {}
    finally:
        for x in clients:
            x.close()


def test_firmware_will_on_kill(broker, firmware):
    c = Client(broker)
    c.subscribe(f"$mcp-server/presence/{SID}/#", no_local=False)
    assert online(c, SID)
    firmware.kill()
    m = c.next(f"$mcp-server/presence/{SID}/", timeout=30)
    assert m is not None and m[1] == b"", "no will after QEMU was killed"
    c.close()
