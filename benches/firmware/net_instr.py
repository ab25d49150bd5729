"""Instructions the networked firmware executes per HTTP `tools/call read_sensor`.

    python3 benches/firmware/net_instr.py ELF [N]
    python3 benches/firmware/net_instr.py --peak ELF

QEMU (mps2-an385, Cortex-M3) runs the image one instruction per translation block
with every block logged (`-d exec,nochain`), as benches/firmware/instr.sh does for
the UART image: a count of executed instructions. The firmware is tickless (an idle
device executes nothing), so two runs that do the same start-up and differ only by
N requests give

    instructions/request = (trace(1 + N) - trace(1)) / N

for everything the device does for a request: the LAN9118 driver, embassy-net and
smoltcp (TCP, IP, Ethernet), the executor, the HTTP layer, the core and the board.
Two ways of asking, in both eras:

- `keep-alive`: every request on one open connection, as MCP clients send them;
- `new connection`: each request on a connection of its own (`Connection: close`),
  so TCP's handshake and close are counted too.

Prints a Markdown table on stdout; QEMU's and the device's logs go to stderr.
Exits non-zero when a run fails or an answer is not a result.

`--peak` runs the image untraced, asks for every tool, resource and prompt it lists
(in both eras, on two connections at once) and prints the stack's high-water mark
the firmware logged, in bytes: every task runs on that one stack.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

PEAK = len(sys.argv) > 1 and sys.argv[1] == "--peak"
ARGS = sys.argv[2:] if PEAK else sys.argv[1:]
ELF = ARGS[0] if ARGS else ""
N = int(ARGS[1]) if len(ARGS) > 1 else 10

STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def one_insn():
    """`-singlestep` up to QEMU 8.0, the TCG accelerator's `one-insn-per-tb` from 8.1."""
    out = subprocess.run(["qemu-system-arm", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.(\d+)", out)
    major, minor = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    if (major, minor) >= (8, 1):
        return ["-accel", "tcg,one-insn-per-tb=on"]
    return ["-singlestep"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def post(port, method, rid, params, era, session=None, name=None, close=False):
    if era == "2026-07-28":
        params = dict(params, _meta=STATELESS_META)
    body = json.dumps(
        {"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
        separators=(",", ":"),
    ).encode()
    head = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
    ]
    if era == "2026-07-28":
        head += ["MCP-Protocol-Version: 2026-07-28", f"Mcp-Method: {method}"]
        if name:
            head.append(f"Mcp-Name: {name}")
    elif session:
        head += ["MCP-Protocol-Version: 2025-11-25", f"Mcp-Session-Id: {session}"]
    if close:
        head.append("Connection: close")
    head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def response(sock, buf, ok_only=True):
    """Read one response (Content-Length or chunked): (headers, body, rest of buf).
    With `ok_only`, anything but 200 is an error."""

    def more():
        data = sock.recv(4096)
        if not data:
            raise EOFError("connection closed in a response")
        return data

    while b"\r\n\r\n" not in buf:
        buf += more()
    head, buf = buf.split(b"\r\n\r\n", 1)
    if ok_only and not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"not 200: {head[:40]!r}")
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        headers[k.strip().lower().decode()] = v.strip().decode()
    if headers.get("transfer-encoding") != "chunked":
        length = int(headers.get("content-length", "0"))
        while len(buf) < length:
            buf += more()
        return headers, buf[:length], buf[length:]
    body = b""
    while True:
        while b"\r\n" not in buf:
            buf += more()
        size, buf = buf.split(b"\r\n", 1)
        n = int(size.split(b";")[0], 16)
        while len(buf) < n + 2:
            buf += more()
        body, buf = body + buf[:n], buf[n + 2:]
        if n == 0:
            return headers, body, buf


def decoded(body):
    """A JSON body, or an event stream's last message."""
    if body.lstrip().startswith(b"{"):
        return json.loads(body)
    data = [l[5:] for l in body.decode().splitlines() if l.startswith("data:")]
    return json.loads(data[-1]) if data else {}


def result_of(body):
    answer = decoded(body)
    if "result" not in answer or answer["result"].get("isError"):
        raise RuntimeError(f"not a result: {body[:200]!r}")


READ_SENSOR = {"name": "read_sensor", "arguments": {"sensor": "temperature"}}


def drive(port, era, mode, count):
    """The requests of one run: the session set-up (initialize era), then `count`
    tools/call read_sensor."""
    session = None
    if era != "2026-07-28":
        with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
            s.sendall(post(port, "initialize", 0, {
                "protocolVersion": era, "capabilities": {},
                "clientInfo": {"name": "net_instr", "version": "1"}}, era, close=True))
            headers, _, _ = response(s, b"")
            session = headers["mcp-session-id"]
    if mode == "keep-alive":
        with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
            buf = b""
            for i in range(count):
                s.sendall(post(port, "tools/call", i + 1, READ_SENSOR, era, session, "read_sensor"))
                _, body, buf = response(s, buf)
                result_of(body)
    else:
        for i in range(count):
            with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
                s.sendall(post(port, "tools/call", i + 1, READ_SENSOR, era, session, "read_sensor", close=True))
                _, body, _ = response(s, b"")
                result_of(body)
                # Wait for the device's close, so that its side is done within the run.
                s.settimeout(60)
                while s.recv(4096):
                    pass


def device(work, qemu_args=()):
    """Boot the image, call `work(port)` once its link is up, stop it; the decoded
    log lines."""
    port = free_port()
    qemu = subprocess.Popen(
        ["qemu-system-arm", "-M", "mps2-an385", "-cpu", "cortex-m3", "-display", "none",
         "-monitor", "none", "-serial", "null",
         "-semihosting-config", "enable=on,target=native",
         "-nic", f"user,model=lan9118,restrict=on,hostfwd=tcp:127.0.0.1:{port}-:80",
         "-kernel", ELF, *qemu_args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=sys.stderr)
    logs = subprocess.Popen(["defmt-print", "-e", ELF], stdin=qemu.stdout,
                            stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    qemu.stdout.close()
    lines = []
    try:
        # Ready when the link is up (a connection before that would add the
        # instructions of a refused SYN to one run and not the other).
        for line in logs.stdout:
            sys.stderr.write(line)
            lines.append(line)
            if "link_up = true" in line:
                break
        else:
            raise RuntimeError("the device ended before its link came up")
        time.sleep(1)
        work(port)
        time.sleep(1)
    finally:
        qemu.send_signal(signal.SIGTERM)
        qemu.wait(timeout=60)
        for line in logs.stdout:
            sys.stderr.write(line)
            lines.append(line)
        logs.wait(timeout=60)
    return lines


def traced(era, mode, count, tmp):
    """Instructions of one run: boot, `count` requests, a second of quiet, exit."""
    trace = os.path.join(tmp, "trace")
    device(lambda port: drive(port, era, mode, count),
           [*one_insn(), "-d", "exec,nochain", "-D", trace])
    n = 0
    with open(trace, "rb") as f:
        for line in f:
            if line.startswith(b"Trace"):
                n += 1
    os.unlink(trace)
    return n


def ask(port, era, session, method, params, name=None):
    """One request on a connection of its own: (headers, decoded answer). An error
    answer is an answer (the exercise calls tools and prompts without arguments)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(post(port, method, 1, params, era, session, name, close=True))
        headers, body, _ = response(s, b"", ok_only=False)
    return headers, decoded(body)


def exercise(port):
    """Every tool, resource and prompt the device lists, in both eras."""
    for era in ["2025-11-25", "2026-07-28"]:
        session = None
        if era != "2026-07-28":
            headers, _ = ask(port, era, None, "initialize", {
                "protocolVersion": era, "capabilities": {},
                "clientInfo": {"name": "net_instr", "version": "1"}})
            session = headers["mcp-session-id"]
        lists = {}
        for kind in ["tools", "resources", "prompts"]:
            _, answer = ask(port, era, session, f"{kind}/list", {})
            lists[kind] = answer.get("result", {}).get(kind, [])
        for tool in lists["tools"]:
            ask(port, era, session, "tools/call", {"name": tool["name"], "arguments": {}}, tool["name"])
        for res in lists["resources"]:
            ask(port, era, session, "resources/read", {"uri": res["uri"]}, res["uri"])
        for prompt in lists["prompts"]:
            ask(port, era, session, "prompts/get", {"name": prompt["name"], "arguments": {}}, prompt["name"])


def peak():
    lines = device(exercise)
    marks = [int(m.group(1)) for m in
             (re.search(r"stack high-water (\d+) of", l) for l in lines) if m]
    if not marks:
        sys.exit("net_instr.py: the device logged no stack high-water mark")
    print(max(marks))


def main():
    if not ELF:
        sys.exit("usage: net_instr.py ELF [N] | net_instr.py --peak ELF")
    if PEAK:
        peak()
        return
    print("| era | requests | N | instructions / request (Cortex-M3) |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for era in ["2025-11-25", "2026-07-28"]:
            for mode in ["keep-alive", "new connection"]:
                print(f"net_instr: {era} {mode} (N={N})", file=sys.stderr)
                a = traced(era, mode, 1, tmp)
                b = traced(era, mode, 1 + N, tmp)
                print(f"| {era} | {mode} | {N} | {round((b - a) / N):,} |", flush=True)


if __name__ == "__main__":
    main()
