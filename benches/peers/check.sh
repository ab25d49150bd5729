#!/usr/bin/env bash
# Smoke check of the benchmark peers: each one gets initialize, initialized,
# tools/call read_sensor temperature and resources/read log://samples, and must
# answer with the board's text, structuredContent and blob bytes (docs/board.md).
#
#   benches/peers/check.sh        # after benches/peers/setup.sh
#
# Environment: PEERS_PYTHON (default .tools/venv/bin/python) runs the Python board
# and the checker. Diagnostics go to stderr; exits non-zero on any mismatch.
set -euo pipefail
exec 1>&2

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${PEERS_PYTHON:-$root/.tools/venv/bin/python}"
rmcp="$here/rmcp-board/target/release/rmcp-board"

[ -x "$rmcp" ] || { echo "peers/check: $rmcp missing; run benches/peers/setup.sh"; exit 1; }
[ -x "$py" ] || { echo "peers/check: $py missing; run benches/peers/setup.sh"; exit 1; }

"$py" - "$rmcp" "$py" "$here/python-board/board.py" <<'PY'
import base64, json, subprocess, sys, threading

REQUESTS = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "peers-check", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_sensor", "arguments": {"sensor": "temperature"}}},
    {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "log://samples"}},
]
BLOB = bytes((i * 31 + 7) & 0xFF for i in range(4096))


def run(cmd):
    """Send the transcript; keep stdin open until every request is answered (the
    SDKs drop in-flight requests at end of input), then close it."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    watchdog = threading.Timer(30, p.kill)  # a silent peer must not hang CI
    watchdog.start()
    p.stdin.write("".join(json.dumps(r) + "\n" for r in REQUESTS))
    p.stdin.flush()
    want, got = {r["id"] for r in REQUESTS if "id" in r}, {}
    while want - got.keys():
        line = p.stdout.readline()
        if not line:
            break
        msg = json.loads(line)  # anything but JSON-RPC on stdout fails here
        if "id" in msg:
            got[msg["id"]] = msg
    p.stdin.close()
    p.wait(timeout=10)
    watchdog.cancel()
    return got


def check(got):
    init = got[1]["result"]
    assert init["serverInfo"]["name"] == "emcp-sensor-board", init
    assert init["protocolVersion"] == "2025-06-18", init
    r = got[2]["result"]
    assert r["content"] == [{"type": "text", "text": "temperature: 21.5 C"}], r
    assert r["structuredContent"] == {"sensor": "temperature", "value": 21.5, "unit": "C"}, r
    assert not r.get("isError"), r
    c = got[3]["result"]["contents"]
    assert len(c) == 1 and c[0]["uri"] == "log://samples", c
    assert c[0]["mimeType"] == "application/octet-stream", c
    assert base64.b64decode(c[0]["blob"]) == BLOB, "blob bytes differ"


failed = False
for name, cmd in [("rmcp-board", [sys.argv[1]]), ("python-board", sys.argv[2:4])]:
    try:
        check(run(cmd))
        print(f"peers/check: {name} ok", file=sys.stderr)
    except Exception as e:  # KeyError (no answer), AssertionError, JSON or process errors
        print(f"peers/check: {name} FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        failed = True
sys.exit(1 if failed else 0)
PY
