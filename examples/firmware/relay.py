#!/usr/bin/env python3
"""relay.py QEMU-ARGS... — run the firmware in QEMU as an MCP stdio server.

UART0 of the board is joined to this process's stdin/stdout; QEMU's stderr (the
firmware's semihosting logs) is ours. QEMU does not stop when its input ends, and a
UART cannot signal "end of stream", so this relay does both:

- it forwards stdin to UART0 and UART0 to stdout, keeping the id of every request it
  forwarded (a line the core answers with its id; not `subscriptions/listen`, which
  stays open) until a response line with that id comes back. It never decodes a line
  nested deeper than the core reads (32 levels), so no input can stop it;
- at end of stdin it tells the firmware over UART1, the link-control line (main.c):
  `E<bytes sent>\n`. Once the firmware has received that many bytes it handles a last
  message that had no newline and, when no tool is pending, answers `I\n` (idle);
- idle after end of input means every request that gets an answer was answered (and
  every notification that follows one was sent): the relay copies what is left on
  UART0, stops QEMU and exits 0. Requests still unanswered then are named on stderr
  (a firmware bug). Without `I` it gives up 20 s after end of input. If QEMU stops
  first, its exit code is the relay's.

Two forms of the link line, chosen by `--link` (before QEMU's arguments):
- `--link uart` (the default): UART1, a second `-serial` the relay adds (the MPS2
  boards, sifive_e);
- `--link files`: for a board with one UART (the micro:bit's nRF51). QEMU runs in the
  relay's temporary directory; at end of input the relay writes the file `eof` there
  (`E<n>\n`, whole: written aside, then renamed), which the firmware opens over
  semihosting (a relative path: QEMU's working directory) while idle; the firmware
  says idle by creating the file `idle` the same way.

Two ways to join the UARTs, chosen by `--serial`:
- `--serial unix` (the default): a Unix socket per UART in the temporary directory,
  which QEMU connects to (`-serial unix:PATH`);
- `--serial pipe`: a pair of named pipes per UART there (`-serial pipe:PATH`: QEMU
  reads PATH.in and writes PATH.out), for a UART model that drops a byte when its
  backend cannot take it at once (QEMU 7.2's SiFive UART, sifive_e: it has no
  transmit-full state). A socket takes a few hundred one-byte writes before it
  refuses one; a pipe holds its size in bytes, and the relay makes it 1 MiB.
"""

import ctypes
import fcntl
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

EOF_LIMIT = 20.0  # seconds to wait for answers after end of input


def id_key(rid):
    return json.dumps(rid)  # ASCII: a lone surrogate ("\ud800") is a key like any other


MAX_ID_LEN = 64  # core/src/wire/rpc.rs: longer ids are answered with id null
MAX_DEPTH = 32  # core/src/wire/json: deeper lines are a parse error, answered with id null
LINE_MAX = 1024  # main.c line_buffer: longer lines are answered with id null


def nesting(line):
    """How deep arrays and objects nest in `line` (brackets inside strings not counted).

    A loop, not a parser: it reads any line, however deep, in constant stack."""
    depth = deepest = 0
    in_string = escaped = False
    for c in line:
        if in_string:
            if escaped:
                escaped = False
            elif c == 0x5C:  # backslash
                escaped = True
            elif c == 0x22:  # quote
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in b"]}":
            depth -= 1
    return deepest


def decode(line):
    """The JSON object on `line`, or None. Only lines within the core's nesting limit are
    decoded (Python's decoder recurses per level and raises RecursionError at about
    1,000); the core answers deeper ones with id null, so nothing is lost."""
    if nesting(line) > MAX_DEPTH:
        return None
    try:
        # Strict, as the core: invalid UTF-8, and a lone surrogate escape ("\ud800",
        # which has no UTF-8 form), make a line no message; of duplicate keys the first
        # counts.
        msg = json.loads(line.decode("utf-8"), object_pairs_hook=first_wins)
        json.dumps(msg, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):
        return None
    return msg if isinstance(msg, dict) else None


def first_wins(pairs):
    obj = {}
    for key, value in pairs:
        obj.setdefault(key, value)
    return obj


def never_raises(classify):
    """The relay reads every line: a line it cannot classify is not tracked, and
    nothing a line holds may stop the thread that forwards the input."""
    def safe(line):
        try:
            return classify(line)
        except Exception as e:  # noqa: BLE001 - any input, no exit
            print(f"relay: line not classified ({e!r})", file=sys.stderr)
            return None
    safe.__doc__ = classify.__doc__
    safe.__wrapped__ = classify
    return safe


@never_raises
def request_key(line):
    """The id of a line the firmware answers with that id, as a key; else None.

    As the core decides (core/src/wire/rpc.rs): any object with a valid id that is not a
    response, however malformed otherwise (no `jsonrpc`, `method` not a string), except
    `subscriptions/listen`, which stays open."""
    msg = decode(line) if len(line.rstrip(b"\r")) <= LINE_MAX else None
    if msg is None or "id" not in msg:
        return None
    rid = msg["id"]
    if "method" not in msg and ("result" in msg or "error" in msg):
        return None  # a response from the client
    if msg.get("method") == "subscriptions/listen" or isinstance(rid, bool):
        return None
    key = id_key(rid)
    if not isinstance(rid, (int, str)) or len(key.encode()) > MAX_ID_LEN:
        return None  # answered with id null
    return key


@never_raises
def response_key(line):
    """The id of a response line, as a key; else None."""
    msg = decode(line)
    if msg is not None and "id" in msg and "method" not in msg:
        return id_key(msg["id"])
    return None


class Pipes:
    """A UART joined through two named pipes (`--serial pipe`), read and written like
    the connected socket of `--serial unix`: recv, sendall, fileno (for select)."""

    F_SETPIPE_SZ = 1031
    SIZE = 1 << 20  # Linux's default limit for an unprivileged process

    def __init__(self, path):
        for end in (".in", ".out"):
            os.mkfifo(path + end, 0o600)
        # Read-write opens never wait for the other side; QEMU's end of the pipe does
        # not close before QEMU exits, which the relay sees by polling QEMU.
        self.tx = os.open(path + ".in", os.O_RDWR)
        self.rx = os.open(path + ".out", os.O_RDWR)
        for fd in (self.tx, self.rx):
            try:
                fcntl.fcntl(fd, self.F_SETPIPE_SZ, self.SIZE)
            except OSError:
                pass  # the default size (64 KiB) then

    def fileno(self):
        return self.rx

    def recv(self, n):
        return os.read(self.rx, n)

    def sendall(self, data):
        view = memoryview(data)
        while view:
            view = view[os.write(self.tx, view):]


class UartLink:
    """The link line on UART1: `E<n>\n` out, `I` back."""

    def __init__(self, sock):
        self.sock = sock

    def readable(self):
        return [self.sock]

    def send_eof(self, sent):
        try:
            self.sock.sendall(b"E%d\n" % sent)
        except OSError:
            pass

    def idle(self, ready):
        if self.sock not in ready:
            return False
        try:
            return b"I" in self.sock.recv(64)
        except ConnectionResetError:  # QEMU is gone; run() returns its code
            return False


class FileLink:
    """The link line as two files in QEMU's working directory (see the top)."""

    def __init__(self, folder):
        self.folder = folder

    def readable(self):
        return []

    def send_eof(self, sent):
        aside = os.path.join(self.folder, "eof.part")
        with open(aside, "wb") as f:
            f.write(b"E%d\n" % sent)
        os.rename(aside, os.path.join(self.folder, "eof"))

    def idle(self, _ready):
        return os.path.exists(os.path.join(self.folder, "idle"))


class Relay:
    def __init__(self, uart0, link):
        self.uart0, self.link = uart0, link
        self.lock = threading.Lock()
        self.pending = set()
        self.eof_at = None  # time of end of input

    def forward_input(self):
        """Thread: stdin -> UART0, then the end-of-stream message on the link line."""
        sent, partial = 0, b""
        while True:
            data = os.read(0, 65536)
            if not data:
                break
            lines = (partial + data).split(b"\n")
            partial = lines.pop()
            with self.lock:
                self.pending.update(k for k in map(request_key, lines) if k is not None)
            try:
                self.uart0.sendall(data)
            except OSError:
                return  # QEMU is gone; run() sees it too
            sent += len(data)
        with self.lock:
            key = request_key(partial) if partial.strip() else None
            if key is not None:
                self.pending.add(key)
            self.eof_at = time.monotonic()
        self.link.send_eof(sent)

    def read_uart(self):
        """What QEMU wrote; b"" once it has gone. A socket QEMU closed with our input
        still unread in it is reset rather than closed: that is an end too."""
        try:
            return self.uart0.recv(65536)
        except ConnectionResetError:
            return b""

    def run(self, qemu):
        threading.Thread(target=self.forward_input, daemon=True).start()
        out, partial, idle = sys.stdout.buffer, b"", False
        while True:
            ready, _, _ = select.select([self.uart0] + self.link.readable(), [], [], 0.05)
            if not ready and qemu.poll() is not None:
                # QEMU stopped (a pipe never reads as closed): what it wrote, then its code.
                while select.select([self.uart0], [], [], 0)[0]:
                    data = self.read_uart()
                    if not data:
                        break
                    out.write(data)
                out.flush()
                return qemu.returncode
            if self.uart0 in ready:
                data = self.read_uart()
                if not data:
                    return qemu.wait()  # QEMU stopped (e.g. a semihosting exit)
                out.write(data)
                out.flush()
                lines = (partial + data).split(b"\n")
                partial = lines.pop()
                with self.lock:
                    self.pending.difference_update(map(response_key, lines))
            idle = idle or self.link.idle(ready)
            with self.lock:
                if self.eof_at is None:
                    continue
                late = time.monotonic() - self.eof_at > EOF_LIMIT
                unanswered = ", ".join(sorted(self.pending))
            if idle or late:
                if late:
                    print("relay: the firmware is not idle 20 s after end of input",
                          file=sys.stderr)
                if unanswered:
                    print("relay: requests never answered: " + unanswered, file=sys.stderr)
                # Whatever the firmware wrote before it said `I` is already in the socket.
                while select.select([self.uart0], [], [], 0)[0]:
                    data = self.read_uart()
                    if not data:
                        break
                    out.write(data)
                out.flush()
                return 0


def die_with_parent():
    """In the QEMU child: get SIGKILL when the relay dies, however it dies."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def main():
    args = sys.argv[1:]
    options = {"--link": "uart", "--serial": "unix"}
    choices = {"--link": ("uart", "files"), "--serial": ("unix", "pipe")}
    while args[:1] and args[0] in options:
        if args[1:2] not in [[c] for c in choices[args[0]]]:
            print(f"relay: {args[0]} takes {' or '.join(choices[args[0]])}", file=sys.stderr)
            return 2
        options[args[0]] = args[1]
        args = args[2:]
    files = options["--link"] == "files"
    pipes = options["--serial"] == "pipe"
    tmp = tempfile.mkdtemp(prefix="emcp-fw-")
    paths = [os.path.join(tmp, "uart0")] + ([] if files else [os.path.join(tmp, "link")])
    listeners, conns = [], []
    for path in paths:
        if pipes:
            conns.append(Pipes(path))
            continue
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.listen(1)
        listeners.append(s)
    # UART0 (and UART1) are the first -serial devices; QEMU connects to our sockets or
    # opens our pipes. With the file link, QEMU works in our folder: the firmware's
    # relative paths are there.
    kind = "pipe:" if pipes else "unix:"
    argv = args + [a for p in paths for a in ("-serial", kind + p)]
    qemu = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                            preexec_fn=die_with_parent, cwd=tmp if files else None)

    def stop(*_):
        qemu.kill()
        qemu.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    def on_signal(signum, _frame):
        stop()
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        for s in listeners:
            s.settimeout(10)
            conns.append(s.accept()[0])
        link = FileLink(tmp) if files else UartLink(conns[1])
        code = Relay(conns[0], link).run(qemu)
    except OSError as e:  # QEMU never connected, or the client closed our stdout
        print(f"relay: {e}", file=sys.stderr)
        code = 1
    stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
