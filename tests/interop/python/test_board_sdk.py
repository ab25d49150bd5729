"""The official Python MCP SDK (mcp 2.3.0) drives the sensor board of docs/board.md.

Every test runs in both protocol eras, each against a fresh board process:

* ``stateless``: ``mcp.Client`` in its default ``mode="auto"``: it probes ``server/discover``
  and must end up on 2026-07-28 without falling back to ``initialize``.
* ``legacy``: ``ClientSession`` over ``stdio_client`` with the classic ``initialize``
  handshake (2025-11-25).

With ``EMCP_BOARD_HTTP`` set (conftest.py) the same tests run over Streamable HTTP: each
test starts ``<board> --http 127.0.0.1:PORT`` and connects ``mcp.Client`` (stateless) or
``ClientSession`` over ``streamable_http_client`` (legacy) to ``/mcp``.

Strings are compared exactly. JSON numbers inside structured values are compared by
value (``40`` and ``40.0`` are the same JSON number), so the same tests hold for every
board implementation. The server command comes from ``EMCP_BOARD_CMD`` (see conftest.py).
"""

from __future__ import annotations

import base64
import math
import os
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any

import anyio
import mcp_types as types
import pytest

from conftest import HttpBoard
from listening import listening
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

pytestmark = pytest.mark.anyio

# See conftest.py for these and EMCP_BOARD_CMD.
TEST_TIMEOUT = float(os.environ.get("EMCP_TEST_TIMEOUT", "60"))
READ_TIMEOUT = float(os.environ.get("EMCP_READ_TIMEOUT", "20"))

MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"

# Time given to notifications that must NOT arrive (they would precede the response).
QUIET_PERIOD = 0.3
# Time given to a notification that must arrive after the response it belongs to.
NOTIFY_TIMEOUT = 5.0

# ---------------------------------------------------------------------------------------
# The board, as docs/board.md specifies it
# ---------------------------------------------------------------------------------------

SERVER_NAME = "emcp-sensor-board"
SERVER_VERSION = "0.1.0"
SERVER_TITLE = "emcp simulated sensor board"
INSTRUCTIONS = (
    "Simulated sensor board: read sensors with read_sensor or the sensor:// resources; "
    "set_led and move_servo drive the actuators."
)
CAPABILITIES = {"tools": {}, "resources": {"subscribe": True}, "prompts": {}, "completions": {}, "logging": {}}

ACTUATOR_ANNOTATIONS = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
TOOLS = [
    {
        "name": "read_sensor",
        "title": "Read sensor",
        "description": "Read the current value of one on-board sensor.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "sensor": {
                    "type": "string",
                    "enum": ["temperature", "humidity", "pressure"],
                    "description": "Which sensor to read",
                }
            },
            "required": ["sensor"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "sensor": {"type": "string"},
                "value": {"type": "number"},
                "unit": {"type": "string"},
            },
            "required": ["sensor", "value", "unit"],
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "set_led",
        "title": "Set LED",
        "description": "Set the status LED colour and brightness (0-100 %).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": ["off", "red", "green", "blue"]},
                "brightness": {"type": "integer", "minimum": 0, "maximum": 100},
            },
            "required": ["color"],
            "additionalProperties": False,
        },
        "annotations": ACTUATOR_ANNOTATIONS,
    },
    {
        "name": "move_servo",
        "title": "Move servo",
        "description": "Move the servo to an angle in degrees; reports progress in 3 steps and can be cancelled.",
        "inputSchema": {
            "type": "object",
            "properties": {"angle": {"type": "number", "minimum": -90, "maximum": 90}},
            "required": ["angle"],
            "additionalProperties": False,
        },
        "annotations": ACTUATOR_ANNOTATIONS,
    },
]

# sensor -> (tool text, structuredContent, resource text, current value)
SENSORS = {
    "temperature": ("temperature: 21.5 C", {"sensor": "temperature", "value": 21.5, "unit": "C"},
                    '{"celsius":21.5}', "21.5"),
    "humidity": ("humidity: 40.0 %", {"sensor": "humidity", "value": 40, "unit": "%"},
                 '{"percent":40.0}', "40.0"),
    "pressure": ("pressure: 1013.2 hPa", {"sensor": "pressure", "value": 1013.2, "unit": "hPa"},
                 '{"hpa":1013.2}', "1013.2"),
}

RESOURCES = [
    {"uri": "sensor://temperature", "name": "temperature", "title": "Temperature",
     "description": "Air temperature in degrees Celsius", "mimeType": "application/json"},
    {"uri": "sensor://humidity", "name": "humidity", "title": "Humidity",
     "description": "Relative humidity in percent", "mimeType": "application/json"},
    {"uri": "sensor://pressure", "name": "pressure", "title": "Pressure",
     "description": "Air pressure in hectopascal", "mimeType": "application/json"},
    {"uri": "led://state", "name": "led", "title": "LED state",
     "description": "Colour and brightness of the status LED", "mimeType": "application/json"},
    {"uri": "log://samples", "name": "samples", "title": "Sample log",
     "description": "Raw sample log (4096 bytes)", "mimeType": "application/octet-stream", "size": 4096},
]
TEXT_RESOURCES = {
    "sensor://temperature": '{"celsius":21.5}',
    "sensor://humidity": '{"percent":40.0}',
    "sensor://pressure": '{"hpa":1013.2}',
    "led://state": '{"color":"off","brightness":0}',
}
SAMPLES = bytes((i * 31 + 7) % 256 for i in range(4096))

TEMPLATE = {
    "uriTemplate": "sensor://{name}/history",
    "name": "sensor-history",
    "title": "Sensor history",
    "description": "The last 8 readings of a sensor",
    "mimeType": "text/csv",
}
TEMPERATURE_HISTORY = "sample,value\n0,20.8\n1,20.9\n2,21.0\n3,21.1\n4,21.2\n5,21.3\n6,21.4\n7,21.5\n"

PROMPT = {
    "name": "diagnose_board",
    "title": "Diagnose board",
    "description": "Ask the assistant to diagnose a board problem from the current readings.",
    "arguments": [{"name": "symptom", "description": "What is wrong with the board", "required": True}],
}

# Resource-not-found error code per era (2025-11-25: -32002; 2026-07-28: -32602).
NOT_FOUND = {"legacy": -32002, "stateless": types.INVALID_PARAMS}


def history(current: str) -> str:
    """Row i (0..7) is current - 0.1 * (7 - i) with one decimal, computed exactly."""
    rows = [f"{i},{Decimal(current) - Decimal('0.1') * (7 - i):.1f}" for i in range(8)]
    return "sample,value\n" + "".join(row + "\n" for row in rows)


def prompt_text(symptom: str, led: str) -> str:
    return (
        f"The sensor board shows this symptom: {symptom}\n"
        f"Current readings: temperature 21.5 C, humidity 40.0 %, pressure 1013.2 hPa, LED {led}.\n"
        "What is the likely cause and what should I check first?"
    )


def dump(model: Any) -> dict[str, Any]:
    """Wire-shaped dict of an SDK model, absent fields left out."""
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def same_json(actual: Any, expected: Any) -> bool:
    """JSON equality that compares numbers by value (40 == 40.0) but keeps bools apart from numbers."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, int | float):
        return isinstance(actual, int | float) and math.isclose(actual, expected, rel_tol=0, abs_tol=1e-9)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(same_json(actual[k], v) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same_json(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return type(actual) is type(expected) and actual == expected


# ---------------------------------------------------------------------------------------
# Connecting in either era
# ---------------------------------------------------------------------------------------

Conn = Client | ClientSession


@pytest.fixture(params=["stateless", "legacy"])
def era(request: pytest.FixtureRequest) -> str:
    return request.param


@asynccontextmanager
async def http_board(board: HttpBoard) -> AsyncIterator[str]:
    """Start the board on a free loopback port; yield its endpoint URL."""
    async with listening(board.binary, "--http") as url:
        yield url


@asynccontextmanager
async def connect(board: StdioServerParameters | HttpBoard, era: str, **callbacks: Any) -> AsyncIterator[Conn]:
    """A connected client of the given era; the whole test runs under one deadline."""
    if isinstance(board, HttpBoard):
        async with http_board(board) as url:
            async with _connect(url, era, **callbacks) as conn:
                yield conn
    else:
        async with _connect(board, era, **callbacks) as conn:
            yield conn


@asynccontextmanager
async def _connect(board: StdioServerParameters | str, era: str, **callbacks: Any) -> AsyncIterator[Conn]:
    try:
        with anyio.fail_after(TEST_TIMEOUT):
            if era == "stateless":
                async with Client(board, read_timeout_seconds=READ_TIMEOUT, **callbacks) as client:
                    # discover answered: the client did not fall back to initialize
                    assert client.session.discover_result is not None, "server/discover failed: fell back"
                    assert client.session.initialize_result is None
                    assert client.protocol_version == MODERN_VERSION
                    yield client
            else:
                transport = (
                    streamable_http_client(board) if isinstance(board, str) else stdio_client(board)
                )
                async with transport as (read, write, *_):
                    async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT, **callbacks) as session:
                        result = await session.initialize()
                        assert result.protocol_version == LEGACY_VERSION
                        yield session
    except BaseExceptionGroup as group:
        # The SDK's task groups wrap a lone failure; report the failure itself.
        leaf: BaseException = group
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        if isinstance(leaf, Exception) and not isinstance(leaf, BaseExceptionGroup):
            raise leaf from None
        raise


def only_text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def read_text(conn: Conn, uri: str) -> str:
    result = await conn.read_resource(uri)
    assert len(result.contents) == 1, result.contents
    contents = result.contents[0]
    assert isinstance(contents, types.TextResourceContents), contents
    assert contents.uri == uri
    return contents.text


class Inbox:
    """Collects server notifications from message_handler / logging_callback."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._changed = anyio.Event()

    async def message_handler(self, message: Any) -> None:
        self.items.append(message)
        self._changed.set()

    async def logging_callback(self, params: types.LoggingMessageNotificationParams) -> None:
        self.items.append(params)
        self._changed.set()

    def of(self, kind: type) -> list[Any]:
        return [item for item in self.items if isinstance(item, kind)]

    async def wait_for(self, kind: type, count: int = 1) -> list[Any]:
        with anyio.fail_after(NOTIFY_TIMEOUT):
            while len(self.of(kind)) < count:
                await self._changed.wait()
                self._changed = anyio.Event()
        return self.of(kind)


# ---------------------------------------------------------------------------------------
# Handshake
# ---------------------------------------------------------------------------------------


async def test_handshake(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        assert conn.instructions == INSTRUCTIONS
        assert conn.server_capabilities is not None
        assert dump(conn.server_capabilities) == CAPABILITIES
        info = conn.server_info
        assert info is not None, "server info missing (stateless: the _meta io.modelcontextprotocol/serverInfo stamp)"
        assert (info.name, info.version, info.title) == (SERVER_NAME, SERVER_VERSION, SERVER_TITLE)
        if era == "legacy":
            assert isinstance(conn, ClientSession)
            assert isinstance(await conn.send_ping(), types.EmptyResult)


# ---------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------


async def test_list_tools(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        result = await conn.list_tools()
        assert result.next_cursor is None
        assert [tool.name for tool in result.tools] == ["read_sensor", "set_led", "move_servo"]
        for tool, expected in zip(result.tools, TOOLS, strict=True):
            assert dump(tool) == expected


@pytest.mark.parametrize("sensor", list(SENSORS))
async def test_read_sensor(board: StdioServerParameters, era: str, sensor: str) -> None:
    text, structured, _, _ = SENSORS[sensor]
    async with connect(board, era) as conn:
        result = await conn.call_tool("read_sensor", {"sensor": sensor})
        assert result.is_error is False
        assert only_text(result) == text
        assert same_json(result.structured_content, structured), result.structured_content


async def test_set_led(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        assert await read_text(conn, "led://state") == '{"color":"off","brightness":0}'

        result = await conn.call_tool("set_led", {"color": "red", "brightness": 50})
        assert result.is_error is False
        assert only_text(result) == "led: red 50%"
        assert await read_text(conn, "led://state") == '{"color":"red","brightness":50}'

        # brightness defaults to 100
        assert only_text(await conn.call_tool("set_led", {"color": "green"})) == "led: green 100%"
        assert await read_text(conn, "led://state") == '{"color":"green","brightness":100}'

        # colour off forces brightness 0
        assert only_text(await conn.call_tool("set_led", {"color": "off", "brightness": 70})) == "led: off 0%"
        assert await read_text(conn, "led://state") == '{"color":"off","brightness":0}'


@pytest.mark.parametrize(
    ("tool", "arguments", "culprit"),
    [
        ("set_led", {"color": "red", "brightness": 150}, "brightness"),
        ("set_led", {"color": "red", "brightness": 50.5}, "brightness"),
        ("set_led", {"color": "purple", "brightness": 50}, "color"),
        ("set_led", {"brightness": 50}, "color"),
        ("set_led", {"color": "red", "mode": "blink"}, "mode"),
        ("read_sensor", {"sensor": "wind"}, "sensor"),
        ("move_servo", {"angle": 120}, "angle"),
    ],
    ids=["brightness-150", "brightness-fraction", "color-purple", "color-missing", "extra-argument",
         "sensor-wind", "angle-120"],
)
async def test_invalid_arguments_are_tool_errors(
    board: StdioServerParameters, era: str, tool: str, arguments: dict[str, Any], culprit: str
) -> None:
    async with connect(board, era) as conn:
        result = await conn.call_tool(tool, arguments)
        assert result.is_error is True
        text = only_text(result)
        assert culprit in text, f"the error text should name {culprit!r}: {text!r}"
        # a rejected call changes nothing
        assert await read_text(conn, "led://state") == '{"color":"off","brightness":0}'


async def test_unknown_tool_is_a_protocol_error(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        with pytest.raises(MCPError) as caught:
            await conn.call_tool("self_destruct", {})
        assert caught.value.error.code == types.INVALID_PARAMS


async def test_move_servo_reports_progress(board: StdioServerParameters, era: str) -> None:
    steps: list[tuple[float, float | None, str | None]] = []
    all_steps = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, total, message))
        if len(steps) >= 3:
            all_steps.set()

    async with connect(board, era) as conn:
        result = await conn.call_tool("move_servo", {"angle": 45}, progress_callback=on_progress)
        assert result.is_error is False
        assert only_text(result) == "servo: 45.0 deg"
        # The notifications precede the result on the wire; the SDK runs callbacks as tasks.
        with anyio.fail_after(NOTIFY_TIMEOUT):
            await all_steps.wait()
        await anyio.sleep(QUIET_PERIOD)
        assert steps == [(1.0, 3.0, "servo step 1/3"), (2.0, 3.0, "servo step 2/3"), (3.0, 3.0, "servo step 3/3")]


async def test_move_servo_without_progress_token(board: StdioServerParameters, era: str) -> None:
    inbox = Inbox()
    async with connect(board, era, message_handler=inbox.message_handler) as conn:
        result = await conn.call_tool("move_servo", {"angle": -30.5})
        assert result.is_error is False
        assert only_text(result) == "servo: -30.5 deg"
        await anyio.sleep(QUIET_PERIOD)
        assert inbox.of(types.ProgressNotification) == []


# ---------------------------------------------------------------------------------------
# Resources
# ---------------------------------------------------------------------------------------


async def test_list_resources(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        result = await conn.list_resources()
        assert result.next_cursor is None
        assert [dump(resource) for resource in result.resources] == RESOURCES


@pytest.mark.parametrize("uri", list(TEXT_RESOURCES))
async def test_read_text_resource(board: StdioServerParameters, era: str, uri: str) -> None:
    async with connect(board, era) as conn:
        result = await conn.read_resource(uri)
        assert len(result.contents) == 1
        contents = result.contents[0]
        assert isinstance(contents, types.TextResourceContents), contents
        assert contents.uri == uri
        assert contents.mime_type == "application/json"
        assert contents.text == TEXT_RESOURCES[uri]


async def test_read_blob_resource(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        result = await conn.read_resource("log://samples")
        assert len(result.contents) == 1
        contents = result.contents[0]
        assert isinstance(contents, types.BlobResourceContents), contents
        assert contents.uri == "log://samples"
        assert contents.mime_type == "application/octet-stream"
        data = base64.b64decode(contents.blob, validate=True)
        assert len(data) == 4096
        wrong = [i for i, byte in enumerate(data) if byte != (i * 31 + 7) % 256]
        assert wrong == [], f"{len(wrong)} wrong bytes, first at offset {wrong[:1]}"
        assert data == SAMPLES


async def test_list_resource_templates(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        result = await conn.list_resource_templates()
        assert result.next_cursor is None
        assert [dump(template) for template in result.resource_templates] == [TEMPLATE]


@pytest.mark.parametrize("sensor", list(SENSORS))
async def test_read_history_template(board: StdioServerParameters, era: str, sensor: str) -> None:
    expected = history(SENSORS[sensor][3])
    if sensor == "temperature":
        assert expected == TEMPERATURE_HISTORY  # the example of docs/board.md, verbatim
    async with connect(board, era) as conn:
        uri = f"sensor://{sensor}/history"
        result = await conn.read_resource(uri)
        assert len(result.contents) == 1
        contents = result.contents[0]
        assert isinstance(contents, types.TextResourceContents), contents
        assert contents.uri == uri
        assert contents.mime_type == "text/csv"
        assert contents.text == expected


@pytest.mark.parametrize("uri", ["sensor://wind/history", "sensor://wind", "led://colour"])
async def test_read_unknown_resource(board: StdioServerParameters, era: str, uri: str) -> None:
    async with connect(board, era) as conn:
        with pytest.raises(MCPError) as caught:
            await conn.read_resource(uri)
        assert caught.value.error.code == NOT_FOUND[era]


# ---------------------------------------------------------------------------------------
# Prompts and completion
# ---------------------------------------------------------------------------------------


async def test_list_prompts(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        result = await conn.list_prompts()
        assert result.next_cursor is None
        assert [dump(prompt) for prompt in result.prompts] == [PROMPT]


async def test_get_prompt(board: StdioServerParameters, era: str) -> None:
    symptom = 'LED "stuck" on boot\u00e9'  # quotes and non-ASCII come back verbatim
    async with connect(board, era) as conn:
        result = await conn.get_prompt("diagnose_board", {"symptom": symptom})
        assert result.description == "Diagnose the sensor board"
        assert len(result.messages) == 1
        message = result.messages[0]
        assert message.role == "user"
        assert isinstance(message.content, types.TextContent), message.content
        assert message.content.text == prompt_text(symptom, "off 0%")

        # the readings are the current ones, LED included
        assert only_text(await conn.call_tool("set_led", {"color": "blue", "brightness": 30})) == "led: blue 30%"
        result = await conn.get_prompt("diagnose_board", {"symptom": "no reading"})
        assert isinstance(result.messages[0].content, types.TextContent)
        assert result.messages[0].content.text == prompt_text("no reading", "blue 30%")


async def test_get_prompt_without_symptom(board: StdioServerParameters, era: str) -> None:
    async with connect(board, era) as conn:
        with pytest.raises(MCPError) as caught:
            await conn.get_prompt("diagnose_board", {})
        assert caught.value.error.code == types.INVALID_PARAMS


@pytest.mark.parametrize(
    ("ref", "argument", "value", "expected"),
    [
        ("template", "name", "", ["temperature", "humidity", "pressure"]),
        ("template", "name", "h", ["humidity"]),
        ("template", "name", "x", []),
        ("prompt", "symptom", "", ["no reading", "wrong value", "led stuck"]),
        ("prompt", "symptom", "w", ["wrong value"]),
        ("prompt", "symptom", "led", ["led stuck"]),
    ],
)
async def test_completion(
    board: StdioServerParameters, era: str, ref: str, argument: str, value: str, expected: list[str]
) -> None:
    reference: types.ResourceTemplateReference | types.PromptReference
    if ref == "template":
        reference = types.ResourceTemplateReference(type="ref/resource", uri="sensor://{name}/history")
    else:
        reference = types.PromptReference(type="ref/prompt", name="diagnose_board")
    async with connect(board, era) as conn:
        result = await conn.complete(reference, {"name": argument, "value": value})
        assert result.completion.values == expected
        assert result.completion.total == len(expected)
        assert result.completion.has_more is False


# ---------------------------------------------------------------------------------------
# Notifications: resource updates and logging
# ---------------------------------------------------------------------------------------


async def test_led_update_notification_legacy_subscribe(board: StdioServerParameters) -> None:
    inbox = Inbox()
    async with connect(board, "legacy", message_handler=inbox.message_handler) as conn:
        assert isinstance(conn, ClientSession)
        # not subscribed yet: no notification
        assert only_text(await conn.call_tool("set_led", {"color": "green", "brightness": 10})) == "led: green 10%"
        await anyio.sleep(QUIET_PERIOD)
        assert inbox.of(types.ResourceUpdatedNotification) == []

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await conn.subscribe_resource("led://state")
        assert only_text(await conn.call_tool("set_led", {"color": "red", "brightness": 50})) == "led: red 50%"
        (updated,) = await inbox.wait_for(types.ResourceUpdatedNotification)
        assert updated.params.uri == "led://state"
        assert await read_text(conn, "led://state") == '{"color":"red","brightness":50}'

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await conn.unsubscribe_resource("led://state")
        assert only_text(await conn.call_tool("set_led", {"color": "blue"})) == "led: blue 100%"
        await anyio.sleep(QUIET_PERIOD)
        assert len(inbox.of(types.ResourceUpdatedNotification)) == 1


async def test_led_update_notification_stateless_listen(board: StdioServerParameters) -> None:
    inbox = Inbox()
    async with connect(board, "stateless", message_handler=inbox.message_handler) as conn:
        assert isinstance(conn, Client)
        # 2026-07-28: change notifications travel only on a subscriptions/listen stream
        assert only_text(await conn.call_tool("set_led", {"color": "green", "brightness": 10})) == "led: green 10%"
        await anyio.sleep(QUIET_PERIOD)
        assert inbox.of(types.ResourceUpdatedNotification) == []

        async with conn.listen(resource_subscriptions=["led://state"]) as subscription:
            assert subscription.honored.resource_subscriptions == ["led://state"]
            assert only_text(await conn.call_tool("set_led", {"color": "red", "brightness": 50})) == "led: red 50%"
            with anyio.fail_after(NOTIFY_TIMEOUT):
                event = await anext(subscription)
            assert event == ResourceUpdated(uri="led://state")
            assert await read_text(conn, "led://state") == '{"color":"red","brightness":50}'


async def _set_led_logging(conn: Conn, era: str, level: str | None, color: str) -> None:
    """Call set_led with logging at `level` (None: never enabled)."""
    meta: dict[str, Any] | None = None
    if level is not None:
        if era == "legacy":
            assert isinstance(conn, ClientSession)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await conn.set_logging_level(level)  # type: ignore[arg-type]
        else:
            meta = {types.LOG_LEVEL_META_KEY: level}
    result = await conn.call_tool("set_led", {"color": color, "brightness": 50}, meta=meta)  # type: ignore[arg-type]
    assert only_text(result) == f"led: {color} 50%"


async def test_set_led_logs_at_info(board: StdioServerParameters, era: str) -> None:
    inbox = Inbox()
    async with connect(board, era, logging_callback=inbox.logging_callback) as conn:
        # logging never enabled, then enabled above info: nothing
        await _set_led_logging(conn, era, None, "green")
        await _set_led_logging(conn, era, "warning", "blue")
        await anyio.sleep(QUIET_PERIOD)
        assert inbox.of(types.LoggingMessageNotificationParams) == []

        await _set_led_logging(conn, era, "info", "red")
        (log,) = await inbox.wait_for(types.LoggingMessageNotificationParams)
        assert (log.level, log.logger, log.data) == ("info", "led", "led: red 50%")
