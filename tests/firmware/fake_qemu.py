"""A stand-in for QEMU behind examples/firmware/relay.py (see test_relay.py).

Called as `fake_qemu.py -serial unix:UART0 -serial unix:LINK`: connects to both,
answers each non-blank line on UART0 with one JSON-RPC error line (id null), and
answers `I` on the link once it has read the byte count announced there (`E<n>`).
"""

import socket
import sys


def main():
    paths = [a[len("unix:"):] for a in sys.argv[1:] if a.startswith("unix:")]
    uart0, link = (socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in paths)
    uart0.connect(paths[0])
    link.connect(paths[1])
    link.setblocking(False)
    received, announced, partial, told = 0, None, b"", b""
    answer = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"fake"}}\n'
    uart0.settimeout(0.05)
    while True:
        try:
            data = uart0.recv(65536)
            if not data:
                return
        except socket.timeout:
            data = b""
        received += len(data)
        lines = (partial + data).split(b"\n")
        partial = lines.pop()
        for line in lines:
            if line.strip():
                uart0.sendall(answer)
        try:
            told += link.recv(64)
        except BlockingIOError:
            pass
        if announced is None and told.startswith(b"E") and told.endswith(b"\n"):
            announced = int(told[1:])
        if announced is not None and received >= announced:
            if partial.strip():
                uart0.sendall(answer)
                partial = b""
            link.sendall(b"I\n")
            told, announced = b"", -1  # said once; wait to be stopped


if __name__ == "__main__":
    main()
