"""`emcp-bridge mqtt` with real parts: Debian's mosquitto on a loopback port, devices as
processes of their own (tests/mqtt/device.py, or EMCP_MQTT_DEVICE), the official Python
SDK and rmcp as hosts, a paho-mqtt client of the specification watching the presence
topics (conftest.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import BRIDGE, REPO, WILL_TIME, Broker, Inbox, Presence, free_port, gateway
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio


async def tool_names(s: ClientSession) -> set[str]:
    return {t.name for t in (await s.list_tools()).tools}


async def wait_tools(s: ClientSession, want: set[str], within: float = 20.0) -> None:
    """Until the fleet's tool list is exactly `want`."""
    got: set[str] = set()
    with anyio.fail_after(within):
        while True:
            got = await tool_names(s)
            if got == want:
                return
            await anyio.sleep(0.2)


def text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


A, B = "lab/bed-1", "lab/bed-2"
TOOLS_A = {"lab.bed-1.read_sensor", "lab.bed-1.slow", "lab.bed-1.fail"}
TOOLS_B = {"lab.bed-2.read_sensor", "lab.bed-2.slow", "lab.bed-2.fail"}


async def test_fleet(broker: Broker, devices: Any, presence: Presence) -> None:
    """The fleet: lists, calls, a device killed mid-call, restarted, the broker restarted."""
    a = devices("dev-a", A)
    b = devices("dev-b", B)
    inbox = Inbox()
    with anyio.fail_after(150):
        async with gateway(broker, "--fleet", inbox=inbox) as s:
            await wait_tools(s, TOOLS_A | TOOLS_B)
            assert "on lab/bed-2" in text(await s.call_tool("lab.bed-2.read_sensor", {}))
            failed = await s.call_tool("lab.bed-1.fail", {})
            assert failed.is_error and text(failed) == "sensor fault"
            res = await s.read_resource("emcp-fleet://lab.bed-1/sensor://temperature")
            assert res.contents[0].text == "21.5"
            assert str(res.contents[0].uri) == "emcp-fleet://lab.bed-1/sensor://temperature"
            uris = {str(r.uri) for r in (await s.list_resources()).resources}
            assert uris == {"emcp-fleet://lab.bed-1/sensor://temperature", "emcp-fleet://lab.bed-2/sensor://temperature"}
            prompt = await s.get_prompt("lab.bed-2.summary")
            assert "lab/bed-2" in prompt.messages[0].content.text
            with pytest.raises(MCPError) as caught:
                await s.call_tool("lab.bed-9.read_sensor", {})
            assert caught.value.error.code == -32602

            # Killed mid-call: the will ends the device, the call fails, the list shrinks.
            async def kill_soon() -> None:
                await anyio.sleep(0.5)
                b.kill()

            before = inbox.count(types.ToolListChangedNotification)
            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(kill_soon)
                with pytest.raises(MCPError) as caught:
                    await s.call_tool("lab.bed-2.slow", {"seconds": 60})
            assert caught.value.error.code == -32000
            assert "lab/bed-2" in caught.value.error.message
            assert time.monotonic() - started < WILL_TIME
            await presence.wait("dev-b", False, WILL_TIME)
            await wait_tools(s, TOOLS_A)
            await inbox.more_than(types.ToolListChangedNotification, before)
            with pytest.raises(MCPError):
                await s.call_tool("lab.bed-2.read_sensor", {})
            assert "on lab/bed-1" in text(await s.call_tool("lab.bed-1.read_sensor", {}))

            # Restarted: it comes back.
            before = inbox.count(types.ToolListChangedNotification)
            b.start()
            await presence.wait("dev-b", True, 10)
            await wait_tools(s, TOOLS_A | TOOLS_B)
            await inbox.more_than(types.ToolListChangedNotification, before)
            assert "on lab/bed-2" in text(await s.call_tool("lab.bed-2.read_sensor", {}))

            # The broker restarted: devices and gateway reconnect, the fleet is whole again.
            broker.stop()
            await anyio.sleep(0.5)
            broker.start()
            await wait_tools(s, TOOLS_A | TOOLS_B, within=30)
            assert "on lab/bed-1" in text(await s.call_tool("lab.bed-1.read_sensor", {}))
            assert "on lab/bed-2" in text(await s.call_tool("lab.bed-2.read_sensor", {}))
    assert a.proc is not None and a.proc.poll() is None


async def test_fleet_device_frozen(broker: Broker, devices: Any, presence: Presence) -> None:
    """A device that stops answering without closing its connection: the broker's
    keep-alive sends its will, the call in flight fails, the list shrinks; thawed, its
    client reconnects and it is listed again."""
    devices("dev-a", A)
    b = devices("dev-b", B)
    with anyio.fail_after(90):
        async with gateway(broker, "--fleet") as s:
            await wait_tools(s, TOOLS_A | TOOLS_B)

            async def freeze_soon() -> None:
                await anyio.sleep(0.5)
                b.freeze()

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(freeze_soon)
                with pytest.raises(MCPError) as caught:
                    await s.call_tool("lab.bed-2.slow", {"seconds": 60})
            took = time.monotonic() - started
            assert caught.value.error.code == -32000, caught.value
            assert "went away" in caught.value.error.message
            assert 2.0 < took < WILL_TIME, took  # the keep-alive (2 s) and a half, not at once
            await presence.wait("dev-b", False, 1)
            await wait_tools(s, TOOLS_A)
            b.thaw()
            await wait_tools(s, TOOLS_A | TOOLS_B)
            assert "on lab/bed-2" in text(await s.call_tool("lab.bed-2.read_sensor", {}))


async def test_fleet_http(broker: Broker, devices: Any) -> None:
    """The fleet over Streamable HTTP."""
    devices("dev-a", A)
    devices("dev-b", B)
    with anyio.fail_after(60):
        async with gateway(broker, "--fleet", "--filter", "lab/+", http=True) as s:
            await wait_tools(s, TOOLS_A | TOOLS_B)
            assert "on lab/bed-1" in text(await s.call_tool("lab.bed-1.read_sensor", {}))


async def test_fleet_filter(broker: Broker, devices: Any) -> None:
    """--filter takes only the server names it matches."""
    devices("dev-a", A)
    devices("dev-o", "office/desk")
    with anyio.fail_after(60):
        async with gateway(broker, "--fleet", "--filter", "lab/#") as s:
            await wait_tools(s, TOOLS_A)
            await anyio.sleep(1)
            assert await tool_names(s) == TOOLS_A


@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
async def test_one_device(broker: Broker, devices: Any, presence: Presence, http: bool) -> None:
    """One device by name: relayed as the bridge relays, surviving the device and the broker."""
    a = devices("dev-a", A)
    devices("dev-b", B)
    with anyio.fail_after(150):
        async with gateway(broker, "--server-name", A, http=http) as s:
            assert {t.name for t in (await s.list_tools()).tools} == {"read_sensor", "slow", "fail"}
            assert "on lab/bed-1" in text(await s.call_tool("read_sensor", {}))

            async def kill_soon() -> None:
                await anyio.sleep(0.5)
                a.kill()

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(kill_soon)
                with pytest.raises(MCPError) as caught:
                    await s.call_tool("slow", {"seconds": 60})
            assert caught.value.error.code == -32000
            assert time.monotonic() - started < WILL_TIME
            await presence.wait("dev-a", False, WILL_TIME)
            a.start()
            await presence.wait("dev-a", True, 10)
            with anyio.fail_after(20):
                while True:
                    try:
                        assert "on lab/bed-1" in text(await s.call_tool("read_sensor", {}))
                        break
                    except MCPError as e:  # -32000 while the bridge finds it again
                        assert e.error.code == -32000, e
                        await anyio.sleep(0.3)
            broker.stop()
            await anyio.sleep(0.5)
            broker.start()
            with anyio.fail_after(30):
                while True:
                    try:
                        assert "on lab/bed-1" in text(await s.call_tool("read_sensor", {}))
                        break
                    except MCPError as e:
                        assert e.error.code == -32000, e
                        await anyio.sleep(0.3)


RMCP = os.environ.get("EMCP_RMCP_MQTT") or str(
    REPO / "tests" / "interop" / "rmcp-client" / "target" / "debug" / "emcp-rmcp-mqtt"
)


def rmcp(*args: str) -> None:
    """Run the rmcp client (tests/interop/rmcp-client/src/bin/emcp-rmcp-mqtt.rs)."""
    if not os.access(RMCP, os.X_OK):
        pytest.fail(f"{RMCP} missing: tests/interop/rmcp-client/run.sh builds it", pytrace=False)
    done = subprocess.run([RMCP, *args], capture_output=True, text=True, timeout=120)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr


async def test_rmcp_client(broker: Broker, devices: Any) -> None:
    """The official Rust SDK through both shapes, stdio and HTTP."""
    devices("dev-a", A)
    devices("dev-b", B)
    await anyio.to_thread.run_sync(rmcp_checks, broker)


def rmcp_checks(broker: Broker) -> None:
    fleet = [BRIDGE, "mqtt", "--broker", broker.address, "--fleet"]
    rmcp("lab.bed-2.read_sensor", "{}", "on lab/bed-2", *fleet)
    rmcp("read_sensor", "{}", "on lab/bed-1", BRIDGE, "mqtt", "--broker", broker.address, "--server-name", A)
    port = free_port()
    proc = subprocess.Popen([BRIDGE, "--http", f"127.0.0.1:{port}", *fleet[1:]], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "gateway did not listen"
                time.sleep(0.05)
        rmcp("lab.bed-1.read_sensor", "{}", "on lab/bed-1", "--url", f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.kill()
        proc.wait()
