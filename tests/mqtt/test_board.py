"""`emcp-bridge mqtt` in front of the real device: the host sensor board with `--mqtt`
(emcp's own MCP-over-MQTT transport), two of them on a mosquitto of the test's own,
through the fleet and one device, with the Python SDK and rmcp.

Environment (besides conftest.py's):
  EMCP_MQTT_BOARD   the sensor board binary (default <repo>/target/release/sensor-board)
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import time
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import BRIDGE, REPO, Broker, Inbox, Presence, free_port, gateway
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from test_gateway import rmcp, tool_names, wait_tools

pytestmark = pytest.mark.anyio

BOARD = os.environ.get("EMCP_MQTT_BOARD") or str(REPO / "target" / "release" / "sensor-board")
BOARD_CMD = f"{shlex.quote(BOARD)} --mqtt {{broker}} --server-id {{sid}} --server-name {{name}}"
OWN = ["read_sensor", "set_led", "move_servo"]
A, B = "lab/board-a", "lab/board-b"
TOOLS_A = {f"lab.board-a.{t}" for t in OWN}
TOOLS_B = {f"lab.board-b.{t}" for t in OWN}


@pytest.fixture(autouse=True)
def board_built() -> None:
    if not os.access(BOARD, os.X_OK):
        pytest.fail(f"{BOARD} missing: cargo build --release -p sensor-board", pytrace=False)


async def temperature(s: ClientSession, tool: str) -> float:
    result = await s.call_tool(tool, {"sensor": "temperature"})
    assert not result.is_error, result
    assert result.structured_content is not None and result.structured_content["sensor"] == "temperature"
    return float(result.structured_content["value"])


async def retry(call: Any, within: float = 30.0) -> Any:
    """`call()` until it succeeds; meanwhile only -32000 (the device away) is allowed."""
    with anyio.fail_after(within):
        while True:
            try:
                return await call()
            except MCPError as e:
                assert e.error.code == -32000, e
                await anyio.sleep(0.3)


@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
async def test_board_fleet(broker: Broker, devices: Any, presence: Presence, http: bool) -> None:
    """Two sensor boards as one fleet: namespaced lists, calls routed, resources read;
    one killed (its will), its tools gone and calls refused; restarted; the broker
    restarted."""
    devices("board-a", A, BOARD_CMD)
    b = devices("board-b", B, BOARD_CMD)
    inbox = Inbox()
    with anyio.fail_after(120):
        async with gateway(broker, "--fleet", http=http, inbox=inbox) as s:
            await wait_tools(s, TOOLS_A | TOOLS_B)
            assert await temperature(s, "lab.board-a.read_sensor") == pytest.approx(21.5, abs=10)
            assert await temperature(s, "lab.board-b.read_sensor") == pytest.approx(21.5, abs=10)
            led = await s.call_tool("lab.board-b.set_led", {"color": "green", "brightness": 40})
            assert not led.is_error, led
            steps: list[float] = []

            async def on_progress(progress: float, _total: float | None, _message: str | None) -> None:
                steps.append(progress)

            servo = await s.call_tool("lab.board-a.move_servo", {"angle": 45}, progress_callback=on_progress)
            assert not servo.is_error, servo
            assert len(steps) == 3, steps  # the board's three steps, relayed by the fleet
            uris = {str(r.uri) for r in (await s.list_resources()).resources}
            assert "emcp-fleet://lab.board-a/sensor://temperature" in uris, uris
            assert "emcp-fleet://lab.board-b/sensor://humidity" in uris, uris
            read = await s.read_resource("emcp-fleet://lab.board-b/sensor://temperature")
            assert str(read.contents[0].uri) == "emcp-fleet://lab.board-b/sensor://temperature"
            assert json.loads(read.contents[0].text)["celsius"] == pytest.approx(21.5, abs=10)
            wind = await s.call_tool("lab.board-a.read_sensor", {"sensor": "wind"})
            assert wind.is_error, wind  # the board's own answer, relayed

            before = inbox.count(types.ToolListChangedNotification)
            b.kill()
            await presence.wait("board-b", False, 10)
            await wait_tools(s, TOOLS_A)
            await inbox.more_than(types.ToolListChangedNotification, before)
            with pytest.raises(MCPError) as caught:
                await s.call_tool("lab.board-b.read_sensor", {"sensor": "temperature"})
            assert caught.value.error.code == -32602
            assert await temperature(s, "lab.board-a.read_sensor") == pytest.approx(21.5, abs=10)

            b.start()
            await wait_tools(s, TOOLS_A | TOOLS_B)
            await temperature(s, "lab.board-b.read_sensor")

            broker.stop()
            await anyio.sleep(0.3)
            broker.start()
            # The board retries after a pause of its own; the gateway within 2 s.
            await wait_tools(s, TOOLS_A | TOOLS_B, within=60)
            await temperature(s, "lab.board-a.read_sensor")
            await temperature(s, "lab.board-b.read_sensor")


@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
async def test_board_one_device(broker: Broker, devices: Any, presence: Presence, http: bool) -> None:
    """One sensor board by name: served as over a serial line, through its kill and
    restart (the session replayed) and a broker restart."""
    a = devices("board-a", A, BOARD_CMD)
    with anyio.fail_after(120):
        async with gateway(broker, "--server-name", A, http=http) as s:
            assert sorted(await tool_names(s)) == sorted(OWN)
            await temperature(s, "read_sensor")
            a.kill()
            await presence.wait("board-a", False, 10)
            a.start()
            await retry(lambda: temperature(s, "read_sensor"))
            broker.stop()
            await anyio.sleep(0.3)
            broker.start()
            await retry(lambda: temperature(s, "read_sensor"), within=60)


async def test_board_rmcp(broker: Broker, devices: Any) -> None:
    """rmcp through the fleet (stdio, HTTP) and one device, to sensor boards."""
    devices("board-a", A, BOARD_CMD)
    devices("board-b", B, BOARD_CMD)
    await anyio.to_thread.run_sync(rmcp_board_checks, broker)


def rmcp_board_checks(broker: Broker) -> None:
    args = json.dumps({"sensor": "temperature"})
    fleet = [BRIDGE, "mqtt", "--broker", broker.address, "--fleet"]
    rmcp("lab.board-b.read_sensor", args, "temperature: ", *fleet)
    rmcp("read_sensor", args, "temperature: ", BRIDGE, "mqtt", "--broker", broker.address, "--server-name", A)
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
        rmcp("lab.board-a.read_sensor", args, "temperature: ", "--url", f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.kill()
        proc.wait()
