"""Shared setup for the interop tests: which board to launch, and the time limits.

Environment:
  EMCP_BOARD_CMD      shell-style command line of the stdio MCP server under test
                      (split with shlex); default: <repo>/target/release/sensor-board
  EMCP_BOARD_HTTP     instead: path of a board binary taking `--http ADDR`; each test
                      starts its own on a free loopback port and talks Streamable HTTP
  EMCP_TEST_TIMEOUT   seconds one test may take in all, server start-up included (default 60)
  EMCP_READ_TIMEOUT   seconds the client waits for any single response (default 20)
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest
from mcp import StdioServerParameters

REPO = Path(__file__).resolve().parents[3]
DEFAULT_BOARD = REPO / "target" / "release" / "sensor-board"


def _board_argv() -> list[str]:
    """The server command line; fails the run (never skips) when it cannot be started."""
    cmd = os.environ.get("EMCP_BOARD_CMD", "").strip()
    if not cmd:
        if not DEFAULT_BOARD.is_file():
            pytest.fail(
                f"board binary {DEFAULT_BOARD} is missing: run `cargo build --release -p sensor-board` "
                "or set EMCP_BOARD_CMD",
                pytrace=False,
            )
        return [str(DEFAULT_BOARD)]
    argv = shlex.split(cmd)
    program = argv[0]
    if os.sep in program:
        if not os.access(program, os.X_OK):
            pytest.fail(f"EMCP_BOARD_CMD program {program} is missing or not executable", pytrace=False)
    elif shutil.which(program) is None:
        pytest.fail(f"EMCP_BOARD_CMD program {program} is not on PATH", pytrace=False)
    return argv


class HttpBoard:
    """A board served over Streamable HTTP: `binary --http 127.0.0.1:PORT`."""

    def __init__(self, binary: str) -> None:
        self.binary = binary


@pytest.fixture(scope="session")
def board() -> StdioServerParameters | HttpBoard:
    """How to launch the board; each test starts its own process from it."""
    http = os.environ.get("EMCP_BOARD_HTTP", "").strip()
    if http:
        if not os.access(http, os.X_OK):
            pytest.fail(f"EMCP_BOARD_HTTP program {http} is missing or not executable", pytrace=False)
        return HttpBoard(http)
    argv = _board_argv()
    # The whole environment is passed on (sanitizer and profiling variables included);
    # the SDK would otherwise keep only HOME, PATH and a few others.
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ), cwd=str(REPO))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
