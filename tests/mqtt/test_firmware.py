"""`emcp-bridge mqtt` in front of the networked firmware: its MQTT image in QEMU
(examples/net-firmware/run.sh --mqtt PORT, the broker reached at 10.0.2.2 through
QEMU's user network) on the test's mosquitto, beside a host sensor board, called
through the fleet and as one device by the Python SDK and rmcp; QEMU killed (its will)
and the fleet's list shrinking.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from typing import Any

import anyio
import pytest
from conftest import BRIDGE, REPO, Broker, Presence, gateway
from test_board import BOARD_CMD, TOOLS_A, temperature
from test_gateway import rmcp, tool_names, wait_tools

pytestmark = pytest.mark.anyio

RUN = REPO / "examples" / "net-firmware" / "run.sh"
# Fixed in the image (examples/net-app's MQTT mode).
SID, NAME = "emcp-net-firmware", "emcp/net-firmware"
TOOLS_FW = {f"emcp.net-firmware.{t}" for t in ("read_sensor", "set_led", "move_servo")}
BOOT = 90.0  # QEMU start, DHCP, the broker connection


@pytest.fixture
def firmware_cmd(broker: Broker) -> str:
    """The image for this broker's port, built (the port is built in)."""
    subprocess.run([str(RUN), "--mqtt", str(broker.port), "--build"], check=True, stdout=subprocess.DEVNULL)
    return f"{shlex.quote(str(RUN))} --mqtt {broker.port}"


async def test_firmware_in_the_fleet(broker: Broker, devices: Any, presence: Presence, firmware_cmd: str) -> None:
    """The firmware and a host board as one fleet (Python SDK); QEMU killed: its will
    empties its presence and its tools leave the list; the board serves on."""
    fw = devices(SID, NAME, firmware_cmd)
    devices("board-a", "lab/board-a", BOARD_CMD)
    await presence.wait(SID, True, BOOT)
    with anyio.fail_after(120):
        async with gateway(broker, "--fleet") as s:
            await wait_tools(s, TOOLS_FW | TOOLS_A, within=30)
            t = await temperature(s, "emcp.net-firmware.read_sensor")
            assert t == pytest.approx(21.5, abs=10)
            await temperature(s, "lab.board-a.read_sensor")
            fw.kill()
            await presence.wait(SID, False, 60)
            await wait_tools(s, TOOLS_A)
            await temperature(s, "lab.board-a.read_sensor")


async def test_firmware_one_device_and_rmcp(broker: Broker, devices: Any, presence: Presence, firmware_cmd: str) -> None:
    """The firmware as one device (Python SDK, then rmcp), and through the fleet (rmcp)."""
    devices(SID, NAME, firmware_cmd)
    await presence.wait(SID, True, BOOT)
    with anyio.fail_after(60):
        async with gateway(broker, "--server-name", NAME) as s:
            assert {"read_sensor", "set_led", "move_servo"} <= await tool_names(s)
            await temperature(s, "read_sensor")
    args = json.dumps({"sensor": "temperature"})
    await anyio.to_thread.run_sync(
        lambda: rmcp("read_sensor", args, "temperature: ", BRIDGE, "mqtt", "--broker", broker.address, "--server-name", NAME)
    )
    await anyio.to_thread.run_sync(
        lambda: rmcp("emcp.net-firmware.read_sensor", args, "temperature: ", BRIDGE, "mqtt", "--broker", broker.address, "--fleet")
    )
