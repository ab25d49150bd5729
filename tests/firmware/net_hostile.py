"""The networked firmware on a hostile network.

`python3 tests/firmware/net_hostile.py` (standard library only; in `.ci/run
net-firmware`, beside the clients of the other images); `--build` only builds the
image (as the test would first).

Boots the sensor build of examples/net-firmware in QEMU (mps2-an385, LAN9118,
embassy-net) with a bearer token compiled in (`EMCP_BEARER`), its port 80 forwarded
to a free loopback port, and talks to it over raw sockets: more connections than it
has sockets, a client that sends a byte a second, bodies larger than its buffer,
connections dropped mid-request and mid-stream, a foreign `Host`/`Origin`, requests
without the token. Every well-formed request that got in must be answered exactly
once, the others must get their HTTP status and a body saying why, and the device
must serve the next client normally after each. The device's own names are served:
the address DHCP gave it (which it logs) and its mDNS name `NAME.local`.

The device's bounds, as examples/net-app/src/device.rs sets them for the sensor
board: CONNECTIONS connection tasks, MAX_BODY bytes of body, IDLE seconds for a
request to arrive; NAME is examples/net-firmware/src/main.rs's default.
"""

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RUN = os.path.join(REPO, "examples", "net-firmware", "run.sh")
LOG = os.path.join(REPO, "target", "net-firmware-hostile.log")

CONNECTIONS = 4
MAX_BODY = 2048
IDLE = 30
TOKEN = "emcp-hostile-test-token"
NAME = "emcp-qemu"
STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}

# A request every 2026-07-28 server answers (that revision has no `ping`).
PROBE = "server/discover"

PORT = None
DEVICE = None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def build():
    """The sensor image with the token compiled in (cargo rebuilds only on a change)."""
    env = dict(os.environ, EMCP_BEARER=TOKEN)
    subprocess.run([RUN, "--build", "sensor"], env=env, check=True, stdout=sys.stderr)


def setUpModule():
    global PORT, DEVICE
    env = dict(os.environ, EMCP_BEARER=TOKEN)
    build()
    PORT = free_port()
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, "wb") as log:
        DEVICE = subprocess.Popen(
            [RUN, "sensor", str(PORT)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if DEVICE.poll() is not None:
            raise RuntimeError(f"the device ended before answering (log: {LOG})")
        try:
            status, _, _ = exchange(request(PROBE, 0))
            if status == 200:
                return
        except (OSError, EOFError, ValueError):
            pass
        time.sleep(0.5)
    tearDownModule()  # unittest does not call it when this fails
    raise RuntimeError(f"no answer from the device (log: {LOG})")


def tearDownModule():
    if DEVICE is not None:
        DEVICE.terminate()
        DEVICE.wait(timeout=10)


def served_address(timeout=30):
    """The address the device logged it serves at (from DHCP)."""
    deadline = time.monotonic() + timeout
    while True:
        with open(LOG, encoding="utf-8", errors="replace") as log:
            found = re.search(r"serving MCP at http://(\d+\.\d+\.\d+\.\d+):80/mcp", log.read())
        if found:
            return found.group(1)
        if time.monotonic() > deadline:
            raise AssertionError(f"the device logged no address (log: {LOG})")
        time.sleep(0.5)


# ---- requests ---------------------------------------------------------------------


def request(method, rid, params=None, name=None, headers=None, auth=True, host=None):
    """A 2026-07-28 POST /mcp of `method` with id `rid`, as bytes."""
    params = dict(params or {})
    params["_meta"] = STATELESS_META
    body = json.dumps(
        {"jsonrpc": "2.0", "id": rid, "method": method, "params": params},
        separators=(",", ":"),
    ).encode()
    head = {
        "Host": host or f"127.0.0.1:{PORT}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name is not None:
        head["Mcp-Name"] = name
    if auth:
        head["Authorization"] = f"Bearer {TOKEN}"
    head.update(headers or {})
    head["Content-Length"] = str(len(body))
    lines = "".join(f"{k}: {v}\r\n" for k, v in head.items() if v is not None)
    return f"POST /mcp HTTP/1.1\r\n{lines}\r\n".encode() + body


def connect(timeout=10):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Reader:
    """HTTP responses read off one connection."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def fill(self):
        data = self.sock.recv(4096)
        if not data:
            raise EOFError("connection closed")
        self.buf += data

    def line(self):
        while b"\r\n" not in self.buf:
            self.fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def exact(self, n):
        while len(self.buf) < n:
            self.fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def head(self):
        """Status code and headers (names lowercased)."""
        status = self.line()
        parts = status.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.1"):
            raise ValueError(f"not an HTTP status line: {status!r}")
        headers = {}
        while True:
            line = self.line()
            if not line:
                break
            k, _, v = line.partition(b":")
            headers[k.strip().lower().decode()] = v.strip().decode()
        return int(parts[1]), headers

    def chunk(self):
        """The next chunk of a chunked body (b"" at its end)."""
        size = int(self.line().split(b";")[0], 16)
        data = self.exact(size)
        self.exact(2)
        return data

    def response(self):
        """Status, headers and the whole body (de-chunked)."""
        status, headers = self.head()
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                piece = self.chunk()
                if not piece:
                    break
                body += piece
        else:
            body = self.exact(int(headers.get("content-length", "0")))
        return status, headers, body


def exchange(data, timeout=10):
    """Send `data` on a new connection and read one response."""
    with connect(timeout) as s:
        s.sendall(data)
        return Reader(s).response()


def messages(body):
    """The JSON-RPC messages of a body: one JSON object, or an event stream's data."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    return [json.loads(l[5:]) for l in text.splitlines() if l.startswith("data:")]


def answers(body, rid):
    """The responses (results or errors) to request `rid` in a body."""
    return [m for m in messages(body) if m.get("id") == rid and "method" not in m]


# ---- tests ------------------------------------------------------------------------


class Hostile(unittest.TestCase):
    def assert_serving(self):
        """The device answers a request on a new connection (retrying for a few
        seconds: a task that just closed its connection takes a moment to listen
        again, and until then the device may answer 503 with `Retry-After`)."""
        deadline = time.monotonic() + 5
        while True:
            try:
                status, headers, body = exchange(request(PROBE, 999))
                if status == 503 and time.monotonic() < deadline:
                    # Full a moment longer (connections just closed are still being
                    # shut down): come back when it says.
                    time.sleep(int(headers["retry-after"]))
                    continue
                self.assertEqual(status, 200, body)
                self.assertEqual(len(answers(body, 999)), 1, body)
                return
            except (OSError, EOFError, ValueError):
                if time.monotonic() > deadline:
                    raise

    def test_bearer_token(self):
        for auth in [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x"]:
            status, headers, body = exchange(
                request(PROBE, 1, auth=False, headers={"Authorization": auth})
            )
            self.assertEqual(status, 401, (auth, body))
            self.assertEqual(headers.get("content-type"), "text/plain")
            self.assertEqual(
                body, b'401 Unauthorized: this device needs "Authorization: Bearer <token>"\n'
            )
        status, _, body = exchange(request(PROBE, 1))
        self.assertEqual(status, 200)
        [answer] = answers(body, 1)
        self.assertIn("supportedVersions", answer["result"])

    def test_dns_rebinding(self):
        status, _, body = exchange(request(PROBE, 2, host="evil.example"))
        self.assertEqual(status, 403)
        self.assertEqual(body, b'403 Forbidden: Host "evil.example" is not this device\n')
        status, _, body = exchange(request(PROBE, 2, headers={"Origin": "http://evil.example"}))
        self.assertEqual(status, 403)
        self.assertEqual(body, b'403 Forbidden: Origin "http://evil.example" is not this device\n')
        # What a client sent is shown bounded and without markup.
        status, _, body = exchange(request(PROBE, 2, host="<b>" + "x" * 200))
        self.assertEqual(status, 403)
        self.assertEqual(
            body, b'403 Forbidden: Host "?b?' + b"x" * 61 + b'..." is not this device\n'
        )
        # The device's own names: the address DHCP gave it, its mDNS name (any case,
        # any port), loopback.
        address = served_address()
        for host in [address, f"{address}:80", f"{NAME}.local", f"{NAME.upper()}.Local:80"]:
            status, _, body = exchange(request(PROBE, 2, host=host))
            self.assertEqual(status, 200, (host, body))
            self.assertEqual(len(answers(body, 2)), 1, (host, body))
        status, _, _ = exchange(
            request(PROBE, 2, headers={"Origin": f"http://{NAME}.local"})
        )
        self.assertEqual(status, 200)
        status, _, _ = exchange(
            request(PROBE, 2, headers={"Origin": f"http://localhost:{PORT}"})
        )
        self.assertEqual(status, 200)
        # Another address, or the name without `.local`, is not the device.
        other = address.rsplit(".", 1)[0] + ".99"
        for host in [other, NAME, f"{NAME}.local.evil.example"]:
            status, _, body = exchange(request(PROBE, 2, host=host))
            self.assertEqual(status, 403, host)
            self.assertEqual(
                body, f'403 Forbidden: Host "{host}" is not this device\n'.encode()
            )

    def test_body_too_large(self):
        big = request(PROBE, 3, params={"pad": "x" * (MAX_BODY + 1)})
        status, headers, body = exchange(big)
        self.assertEqual(status, 413)
        self.assertEqual(headers.get("connection"), "close")
        self.assertEqual(body, f"413 Payload Too Large: body over {MAX_BODY} bytes\n".encode())
        # Announced larger than the buffer, with no body sent at all.
        head = request(PROBE, 3).split(b"\r\n\r\n")[0]
        head = head.replace(b"Content-Length: ", b"X-Was: ") + b"\r\nContent-Length: 1000000\r\n\r\n"
        status, _, body = exchange(head)
        self.assertEqual(status, 413)
        self.assertEqual(body, f"413 Payload Too Large: body over {MAX_BODY} bytes\n".encode())
        self.assert_serving()

    def test_malformed_head(self):
        for junk in [b"\x00\xff garbage\r\n\r\n", b"GET\r\n\r\n", b"POST /mcp HTTP/1.1\r\nHost\r\n\r\n"]:
            status, _, body = exchange(junk)
            self.assertGreaterEqual(status, 400, junk)
            self.assertLess(status, 500, junk)
            # One line: the status, then why.
            self.assertRegex(body, rb"^%d [A-Za-z ]+: [^\n]+\n$" % status, junk)
        self.assert_serving()

    def test_more_connections_than_sockets(self):
        held = []
        try:
            # Occupy every connection task: each holds a keep-alive connection that
            # has been answered once.
            for i in range(CONNECTIONS):
                s = connect()
                s.sendall(request(PROBE, 100 + i))
                status, _, body = Reader(s).response()
                self.assertEqual(status, 200)
                self.assertEqual(len(answers(body, 100 + i)), 1)
                held.append(s)
            time.sleep(0.2)  # the overflow socket starts listening
            status, headers, body = exchange(request(PROBE, 200))
            self.assertEqual(status, 503)
            self.assertEqual(headers.get("retry-after"), "1")
            self.assertEqual(
                body,
                f"503 Service Unavailable: all {CONNECTIONS} connections busy, retry after 1 s\n".encode(),
            )
            # The held connections are still served.
            for i, s in enumerate(held):
                s.sendall(request(PROBE, 300 + i))
                status, _, body = Reader(s).response()
                self.assertEqual(len(answers(body, 300 + i)), 1)
        finally:
            for s in held:
                s.close()
        self.assert_serving()

    def test_one_byte_a_second(self):
        """A client that sends a request a byte at a time and does not finish within
        the device's limit gets 408, while other clients are served meanwhile."""
        data = request(PROBE, 4)
        got = {}

        def slow():
            with connect(timeout=IDLE + 15) as s:
                try:
                    for b in data:
                        s.sendall(bytes([b]))
                        time.sleep(1)
                except OSError:
                    pass  # the device closed the connection after its 408
                s.settimeout(5)
                try:
                    got["status"], _, got["body"] = Reader(s).response()
                except (OSError, EOFError) as e:
                    got["error"] = repr(e)

        t = threading.Thread(target=slow)
        t.start()
        time.sleep(2)
        self.assert_serving()
        t.join(IDLE + 30)
        self.assertFalse(t.is_alive())
        self.assertEqual(got.get("status"), 408, got)
        self.assertEqual(
            got.get("body"), f"408 Request Timeout: request not complete within {IDLE} s\n".encode()
        )
        self.assert_serving()

    def test_dropped_mid_request(self):
        data = request("tools/call", 5, {"name": "read_sensor", "arguments": {"sensor": "temperature"}}, name="read_sensor")
        for cut in [10, len(data) // 2, len(data) - 1] * 3:
            s = connect()
            s.sendall(data[:cut])
            s.close()
        # Reset rather than closed: SO_LINGER 0.
        for _ in range(CONNECTIONS + 2):
            s = connect()
            s.sendall(data[: len(data) // 2])
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
        self.assert_serving()
        status, _, body = exchange(data)
        self.assertEqual(status, 200)
        [answer] = answers(body, 5)
        self.assertIn("result", answer)

    def listen(self, rid):
        """Open a subscriptions/listen stream; return the socket once acknowledged."""
        s = connect()
        s.sendall(
            request(
                "subscriptions/listen",
                rid,
                {"notifications": {"resourceSubscriptions": ["led://state"]}},
            )
        )
        r = Reader(s)
        status, headers = r.head()
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("content-type"), "text/event-stream")
        seen = b""
        while b"subscriptions/acknowledged" not in seen:
            seen += r.chunk()
        return s, r

    def test_dropped_mid_stream(self):
        # More streams opened and dropped than the device has subscriber slots and
        # connection tasks: each drop must free both.
        for i in range(3 * CONNECTIONS):
            s, _ = self.listen(400 + i)
            if i % 2:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
        # A new stream still hears a change made on another connection.
        deadline = time.monotonic() + 5
        while True:
            try:
                s, r = self.listen(500)
                break
            except (OSError, EOFError, AssertionError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        with s:
            status, _, body = exchange(
                request("tools/call", 6, {"name": "set_led", "arguments": {"color": "red"}}, name="set_led")
            )
            self.assertEqual(status, 200)
            self.assertEqual(len(answers(body, 6)), 1)
            seen = b""
            while b"resources/updated" not in seen:
                seen += r.chunk()
            self.assertIn(b'"uri":"led://state"', seen)
        self.assert_serving()

    def test_every_request_answered_once(self):
        """Clients in parallel, each with requests pipelined on one keep-alive
        connection: every id answered exactly once, in order."""
        per_client = 15
        results = {}

        def client(c):
            ids = [1000 * (c + 1) + i for i in range(per_client)]
            got = []
            try:
                with connect(timeout=30) as s:
                    s.sendall(b"".join(request(PROBE, i) for i in ids))
                    r = Reader(s)
                    for _ in ids:
                        status, _, body = r.response()
                        got.append((status, [m.get("id") for m in messages(body)]))
            except Exception as e:  # recorded and failed on below
                got.append(repr(e))
            results[c] = (ids, got)

        threads = [threading.Thread(target=client, args=(c,)) for c in range(CONNECTIONS - 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for c, (ids, got) in results.items():
            self.assertEqual(got, [(200, [i]) for i in ids], c)
        self.assert_serving()


if __name__ == "__main__":
    if sys.argv[1:] == ["--build"]:
        build()
    else:
        unittest.main(verbosity=2)
