"""A stand-in for QEMU behind examples/firmware/relay.py (see test_relay.py).

Called as QEMU would be by the relay: `fake_qemu.py -serial unix:UART0 [-serial
unix:LINK]` (sockets the relay listens on) or with `pipe:PATH` (named pipes: it reads
PATH.in and writes PATH.out). Answers each non-blank line on UART0 with one JSON-RPC
error line (id null); a line `exit N` makes it stop at once with code N, as a
firmware's semihosting exit stops QEMU.

The link-control line, as the firmware's main.c does it: with two serial devices it
reads `E<n>\\n` on the second and answers `I\\n` there once n bytes came on UART0;
with one (`relay.py --link files`) it looks for the file `eof` in its working
directory, which must hold `E<n>\\n`, and creates the file `idle` there once n bytes
came. It exits with code 3 when more bytes arrive than the relay announced, and 4 when
`eof` holds anything else: the relay then exits with that code, failing the test.
"""

import os
import select
import socket
import sys

ANSWER = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"fake"}}\n'


class Socket:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)

    def fileno(self):
        return self.sock.fileno()

    def read(self):
        return self.sock.recv(65536)

    def write(self, data):
        self.sock.sendall(data)


class Pipe:
    """QEMU's `-serial pipe:PATH`: input from PATH.in, output to PATH.out."""

    def __init__(self, path):
        self.rx = os.open(path + ".in", os.O_RDWR)
        self.tx = os.open(path + ".out", os.O_RDWR)

    def fileno(self):
        return self.rx

    def read(self):
        return os.read(self.rx, 65536)

    def write(self, data):
        while data:
            data = data[os.write(self.tx, data):]


def ready(dev, timeout):
    return bool(select.select([dev], [], [], timeout)[0])


class UartLink:
    def __init__(self, dev):
        self.dev, self.told = dev, b""

    def announced(self):
        if ready(self.dev, 0):
            self.told += self.dev.read()
        if self.told.startswith(b"E") and self.told.endswith(b"\n"):
            return int(self.told[1:])
        return None

    def say_idle(self):
        self.dev.write(b"I\n")


class FileLink:
    def announced(self):
        try:
            with open("eof", "rb") as f:
                text = f.read()
        except FileNotFoundError:
            return None
        if not (text.startswith(b"E") and text.endswith(b"\n") and text[1:-1].isdigit()):
            sys.exit(4)
        return int(text[1:-1])

    def say_idle(self):
        open("idle", "wb").close()


def main():
    devices = [a for a in sys.argv[1:] if a.startswith(("unix:", "pipe:"))]
    devs = [Socket(d[5:]) if d.startswith("unix:") else Pipe(d[5:]) for d in devices]
    uart0 = devs[0]
    link = UartLink(devs[1]) if len(devs) > 1 else FileLink()
    received, partial, idle = 0, b"", False
    while True:
        data = b""
        if ready(uart0, 0.05):
            data = uart0.read()
            if not data:
                return  # the relay closed its socket
        received += len(data)
        lines = (partial + data).split(b"\n")
        partial = lines.pop()
        for line in lines:
            if line.startswith(b"exit "):
                sys.exit(int(line[5:]))
            if line.strip():
                uart0.write(ANSWER)
        if idle:
            continue  # said once; wait to be stopped
        announced = link.announced()
        if announced is not None and received > announced:
            sys.exit(3)
        if announced is not None and received == announced:
            if partial.strip():
                uart0.write(ANSWER)
                partial = b""
            link.say_idle()
            idle = True


if __name__ == "__main__":
    main()
