"""Setup for the Python SDK's input tests: which server to launch.

Environment:
  EMCP_CONFORMANCE_SERVER  path of the server binary, started as `SERVER --listen ADDR`
                           (default: <repo>/target/release/conformance-server)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
# `listening` (a server on a free loopback port) is shared with tests/interop/python.
sys.path.insert(0, str(REPO / "tests" / "interop" / "python"))


@pytest.fixture(scope="session")
def server_binary() -> str:
    """The server binary; fails the run (never skips) when it is missing."""
    path = os.environ.get("EMCP_CONFORMANCE_SERVER", "").strip() or str(
        REPO / "target" / "release" / "conformance-server"
    )
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"{path} is missing or not executable: run `cargo build --release -p conformance-server` "
            "or set EMCP_CONFORMANCE_SERVER",
            pytrace=False,
        )
    return path


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
