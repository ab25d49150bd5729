"""docs/first-device.md's thermostat, in Rust and in C, driven by the official Python
SDK (mcp 2.3.0) in both eras: what a user of the walk-through sees from a client.

`bash tests/interop/first-device/run.sh` builds both devices as the walk-through says
and runs this file with THERMOSTATS set to their two command lines.
"""

from __future__ import annotations

import os
import shlex
import warnings
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPDeprecationWarning

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0
TOOLS = ["read_temperature", "set_target"]
TOO_HOT = 'Invalid argument "celsius": must be <= 30'


def commands() -> list[str]:
    cmds = [c for c in os.environ.get("THERMOSTATS", "").split(os.pathsep) if c]
    if not cmds:
        pytest.fail("THERMOSTATS is not set: run tests/interop/first-device/run.sh", pytrace=False)
    return cmds


@pytest.fixture(params=commands())
def device(request: pytest.FixtureRequest) -> StdioServerParameters:
    argv = shlex.split(request.param)
    return StdioServerParameters(command=argv[0], args=argv[1:])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    assert isinstance(result.content[0], types.TextContent)
    return result.content[0].text


async def check_tools(conn: Any) -> None:
    tools = await conn.list_tools()
    assert [t.name for t in tools.tools] == TOOLS
    assert tools.tools[0].annotations.read_only_hint is True

    too_hot = await conn.call_tool("set_target", {"celsius": 31})
    assert too_hot.is_error and text_of(too_hot) == TOO_HOT

    reading = await conn.call_tool("read_temperature", {})
    assert text_of(reading) == "21.5 C, target 20.0 C"
    assert reading.structured_content == {"celsius": 21.5, "target": 20.0}


async def read_state(conn: Any) -> str:
    result = await conn.read_resource("thermostat://state")
    (contents,) = result.contents
    assert isinstance(contents, types.TextResourceContents)
    return contents.text


async def test_stateless(device: StdioServerParameters) -> None:
    with anyio.fail_after(TIMEOUT):
        async with Client(device, read_timeout_seconds=TIMEOUT) as client:
            assert client.protocol_version == "2026-07-28"
            await check_tools(client)
            async with client.listen(resource_subscriptions=["thermostat://state"]) as stream:
                done = await client.call_tool("set_target", {"celsius": 22.5})
                assert text_of(done) == "target set to 22.5 C"
                assert await anext(stream) == ResourceUpdated(uri="thermostat://state")
            assert await read_state(client) == '{"celsius":21.5,"target":22.5}'


async def test_legacy(device: StdioServerParameters) -> None:
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.set()

    with anyio.fail_after(TIMEOUT):
        async with stdio_client(device) as (read, write, *_):
            async with ClientSession(read, write, message_handler=on_message) as session:
                assert (await session.initialize()).protocol_version == "2025-11-25"
                await check_tools(session)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await session.subscribe_resource("thermostat://state")
                done = await session.call_tool("set_target", {"celsius": 22.5})
                assert text_of(done) == "target set to 22.5 C"
                await updated.wait()
                assert await read_state(session) == '{"celsius":21.5,"target":22.5}'
