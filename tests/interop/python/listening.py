"""A server process listening on a free loopback port, for the HTTP tests."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio


@asynccontextmanager
async def listening(binary: str, flag: str) -> AsyncIterator[str]:
    """Start `binary FLAG 127.0.0.1:PORT` on a free port; yield its MCP endpoint URL once
    it accepts connections (within 10 s); kill it on the way out."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([binary, flag, f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                await anyio.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()
