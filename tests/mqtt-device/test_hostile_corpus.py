"""The hostile-input corpus (tests/hostile/corpus.txt) over MQTT: each entry is one
PUBLISH on an initialized client's RPC topic, followed by a valid ping, to the
sensor board with --mqtt. What holds: every entry's answers are exactly those the
same board gives on stdio to the same bytes in the same order (each entry there one
line; the stdio board is the oracle, itself checked against the core by stage
hostile), the ping after each is answered, the device is alive at the end. Entries
marked @stdio (stream framing) and entries holding a line break are not messages
of their own on a stream: left out, as over HTTP."""

from __future__ import annotations

import json
import re
import subprocess
import uuid

from mqtt_harness import REPO, Broker, Client, Device, Session, online

NAME = "emcp/sensor-board"
# The stdio board's line buffer: a longer entry is "line too long" there but fits the
# MQTT board's 16 KiB receive buffer, so it is checked on its own (see below).
STDIO_LINE = 4096
CORPUS = REPO / "tests" / "hostile" / "corpus.txt"
INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "h", "version": "0"}},
}


def expand(text: str) -> bytes:
    """The corpus escapes: \\n \\r \\t \\\\ \\xNN and $(N*TEXT)."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            c = text[i + 1]
            if c in "nrt\\":
                out += {"n": b"\n", "r": b"\r", "t": b"\t", "\\": b"\\"}[c]
                i += 2
            elif c == "x":
                out.append(int(text[i + 2 : i + 4], 16))
                i += 4
            else:
                out += b"\\"
                i += 1
        elif text.startswith("$(", i):
            close = text.index(")", i)
            n, body = text[i + 2 : close].split("*", 1)
            out += body.encode() * int(n)
            i = close + 1
        else:
            out += text[i].encode()
            i += 1
    return bytes(out)


def entries() -> list[tuple[int, bytes]]:
    found = []
    for n, line in enumerate(CORPUS.read_text().splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        stdio = False
        while True:
            m = re.match(r"@(big|stdio) ", line)
            if not m:
                break
            stdio |= m.group(1) == "stdio"
            line = line[m.end() :]
        data = expand(line)
        if stdio or b"\n" in data or b"\r" in data:
            continue
        found.append((n, data))
    return found


def ping(n: int) -> dict:
    return {"jsonrpc": "2.0", "id": f"hostile-ping-{n}", "method": "ping"}


def on_stdio(corpus) -> list[list[dict]]:
    board = str(REPO / "target" / "release" / "sensor-board")
    p = subprocess.Popen([board], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write(json.dumps(INIT).encode() + b"\n")
    p.stdin.flush()
    json.loads(p.stdout.readline())
    answers = []
    for n, data in corpus:
        p.stdin.write(data + b"\n" + json.dumps(ping(n)).encode() + b"\n")
        p.stdin.flush()
        got = []
        while True:
            line = p.stdout.readline()
            assert line, f"stdio board ended at corpus line {n}"
            msg = json.loads(line)
            if msg.get("id") == f"hostile-ping-{n}":
                break
            got.append(msg)
        answers.append(got)
    p.stdin.close()
    p.wait(10)
    return answers


def test_corpus_over_mqtt_answers_as_stdio():
    corpus = entries()
    assert len(corpus) > 80
    expected = on_stdio(corpus)
    broker = Broker().start()
    device = Device(broker, f"dev-{uuid.uuid4().hex[:8]}", NAME)
    client = Client(broker)
    try:
        client.subscribe(f"$mcp-server/presence/{device.server_id}/#", no_local=False)
        assert online(client, device.server_id)
        s = Session(client, device.server_id, NAME)
        s.send(INIT, control=True)
        assert s.reply()["id"] == "init"
        failures = []
        for (n, data), want in zip(corpus, expected):
            s.send(data)
            s.send(ping(n))
            got = []
            while True:
                msg = s.reply()
                assert msg is not None, f"corpus line {n}: the ping after it was not answered"
                if msg.get("id") == f"hostile-ping-{n}":
                    assert msg.get("result") == {}, msg
                    break
                got.append(msg)
            if len(data) >= STDIO_LINE:
                # Longer than stdio's line: what the core says of it whole. An id
                # that can be read is answered once, with that id; otherwise at most
                # one error, id null.
                try:
                    msg = json.loads(data)
                    ids = [msg["id"]] if isinstance(msg, dict) and "id" in msg else []
                except (ValueError, RecursionError):
                    ids = []
                ok = [m.get("id") for m in got] == ids or (
                    not ids and len(got) <= 1 and all(m.get("id") is None and "error" in m for m in got)
                )
                if not ok:
                    failures.append(f"corpus line {n} ({len(data)} bytes): answered {got}")
                continue
            # Resource notifications go to the capability topic over MQTT.
            want = [m for m in want if m.get("method") != "notifications/resources/updated"]
            if got != want:
                failures.append(f"corpus line {n}: mqtt {got} != stdio {want}")
        assert not failures, "\n".join(failures)
        assert device.alive()
    finally:
        client.close()
        device.kill()
        broker.stop()
