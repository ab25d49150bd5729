"""The official Python MCP SDK (mcp 2.3.0) asked for input by the conformance server.

The conformance server's tools that need an elicitation, a sampling or the client's
roots (examples/conformance-server), over Streamable HTTP, in both eras, each test
against a fresh server process:

* ``stateless``: ``mcp.Client`` at 2026-07-28: the tool answers ``input_required``; the
  SDK dispatches the embedded requests to the callbacks below and retries the call
  with ``inputResponses`` and ``requestState`` (several inputs, several rounds).
* ``legacy``: ``ClientSession`` over ``streamable_http_client`` (initialize,
  2025-11-25): the server sends ``elicitation/create``, ``sampling/createMessage`` and
  ``roots/list`` requests on the tool call's stream and resumes when they are answered.

The client answers as a user and a model would: every string field of a form with
``python`` (``color``: ``blue``), every boolean with ``true``; a sampling with
``Paris``; roots with one root.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from listening import listening  # tests/interop/python/listening.py (conftest.py puts it on the path)

pytestmark = pytest.mark.anyio

TEST_TIMEOUT = float(os.environ.get("EMCP_TEST_TIMEOUT", "60"))
READ_TIMEOUT = float(os.environ.get("EMCP_READ_TIMEOUT", "20"))


async def elicitation(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert isinstance(params, types.ElicitRequestFormParams), params
    schema = params.requested_schema
    content: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        kind = prop.get("type")
        if kind == "boolean":
            content[name] = True
        elif kind in ("integer", "number"):
            content[name] = 1
        else:
            content[name] = "blue" if name == "color" else "python"
    return types.ElicitResult(action="accept", content=content)


async def sampling(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="Paris"), model="python-test-model"
    )


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///board")])


CALLBACKS = {"elicitation_callback": elicitation, "sampling_callback": sampling, "list_roots_callback": roots}

CASES = [
    ("test_input_required_result_elicitation", {}, "Hello, python!"),
    ("test_input_required_result_sampling", {}, "The model answered: Paris"),
    ("test_input_required_result_list_roots", {}, "Found 1 root(s)"),
    ("test_input_required_result_request_state", {}, "state-ok: confirmed with the state of round 1"),
    ("test_input_required_result_multiple_inputs", {}, "Paris python; 1 root(s)"),
    ("test_input_required_result_multi_round", {}, "Multi-round complete for python who likes blue"),
    (
        "test_elicitation",
        {"message": "Who are you?"},
        'User response: action=accept, content={"username":"python","email":"python"}',
    ),
    ("test_sampling", {"prompt": "Capital of France?"}, "LLM response: Paris"),
]


def only_text(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


@pytest.mark.parametrize("tool,arguments,want", CASES, ids=[c[0] for c in CASES])
async def test_stateless_input_required(server_binary: str, tool: str, arguments: dict[str, Any], want: str) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with listening(server_binary, "--listen") as url:
            async with Client(url, read_timeout_seconds=READ_TIMEOUT, **CALLBACKS) as client:
                assert client.protocol_version == "2026-07-28"
                assert only_text(await client.call_tool(tool, arguments)) == want


@pytest.mark.parametrize("tool,arguments,want", CASES, ids=[c[0] for c in CASES])
async def test_legacy_server_requests(server_binary: str, tool: str, arguments: dict[str, Any], want: str) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with listening(server_binary, "--listen") as url:
            async with streamable_http_client(url) as (read, write, *_):
                async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT, **CALLBACKS) as session:
                    result = await session.initialize()
                    assert result.protocol_version == "2025-11-25"
                    assert only_text(await session.call_tool(tool, arguments)) == want
