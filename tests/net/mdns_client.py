"""A client on the device's LAN finds it by mDNS and talks MCP to what it found.

Run by tests/net/mdns.sh inside the test's network namespace, where the only network
is the tap the device (QEMU) is attached to and dnsmasq hands out addresses:

0. Listening on the group from the start: the device announces every record (the
   service's PTR, the enumeration's, SRV, TXT, its A record with the leased address)
   once it has its address, before anything asked.
1. python-zeroconf browses ``_mcp._tcp.local.`` and resolves the instance it finds to
   an address, a port and TXT ``path``/``protocols``; the address must be the one
   dnsmasq leased to the device.
2. ``_services._dns-sd._udp.local.`` lists ``_mcp._tcp.local.``.
3. ``NAME.local`` (the SRV target) resolves to the same address: through a fresh
   zeroconf instance (an A query on the group, nothing cached), and through a one-shot
   legacy query from an ephemeral port, answered to the sender with its id.
4. Malformed datagrams (compression loops, cut-short names, random bytes) to the
   group and to the device; then the one-shot query is answered still.
5. The Python SDK's Streamable HTTP client initializes at
   ``http://ADDRESS:PORT/PATH`` (so ``Host`` is the DHCP address), lists the tools
   and calls ``read_sensor``; a request with ``Host: NAME.local`` is served too.

Exits 0 when every step passed, 1 otherwise, printing one line per step on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import socket
import struct
import sys
import threading
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from zeroconf import (
    AddressResolverIPv4,
    DNSIncoming,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceListener,
    Zeroconf,
    ZeroconfServiceTypes,
)

SERVICE = "_mcp._tcp.local."
PROTOCOLS = "2026-07-28,2025-11-25,2025-06-18,2025-03-26,2024-11-05"
GROUP = ("224.0.0.251", 5353)
TYPE_A = 1
TYPES = {1: "a", 12: "ptr", 16: "txt", 33: "srv"}


class Found(ServiceListener):
    """The first instance of the service the browser sees."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.names.append(name)

    def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        pass

    def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        pass


def leased(lease_file: Path, deadline: float) -> str:
    """The address dnsmasq leased (its lease file: `expiry mac ip name id`)."""
    while time.monotonic() < deadline:
        if lease_file.exists():
            for line in lease_file.read_text().splitlines():
                fields = line.split()
                if len(fields) >= 3:
                    return fields[2]
        time.sleep(0.2)
    raise AssertionError("no DHCP lease in time")


def browse(zc: Zeroconf, deadline: float) -> str:
    found = Found()
    browser = ServiceBrowser(zc, SERVICE, found)
    try:
        while not found.names and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        browser.cancel()
    assert found.names, f"no {SERVICE} instance in time"
    return found.names[0]


def legacy_query(name: str, interface: str, timeout: float) -> str:
    """A one-shot query for NAME's A record from an ephemeral port (RFC 6762 §6.7):
    the answer comes back to the sender, with the query's id. Returns the address."""
    name = name.rstrip(".") + "."

    ident = random.randrange(1, 0xFFFF)
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.rstrip(".").split("."))
    query = struct.pack("!HHHHHH", ident, 0, 1, 0, 0, 0) + question + b"\0" + struct.pack("!HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
        s.sendto(query, GROUP)
        while True:
            reply = DNSIncoming(s.recvfrom(2048)[0])
            if reply.valid and reply.is_response() and reply.id == ident:
                records = [r for r in reply.answers() if r.type == TYPE_A and r.name.lower() == name.lower()]
                assert records, f"no A record for {name} in the answer"
                return socket.inet_ntoa(records[0].address)


class Listener:
    """Every datagram to the mDNS group on `interface`, from the start: the device's
    announcements come before anyone asks."""

    def __init__(self, interface: str) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.sock.bind(("", GROUP[1]))
        membership = socket.inet_aton(GROUP[0]) + socket.inet_aton(interface)
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
        self.sock.settimeout(0.2)
        self.received: list[tuple[str, bytes]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.is_set():
            try:
                data, (source, _) = self.sock.recvfrom(4096)
            except TimeoutError:
                continue
            self.received.append((source, data))

    def close(self) -> None:
        self.done.set()
        self.thread.join()
        self.sock.close()

    def announced(self, address: str, deadline: float) -> list[str]:
        """The records of the first unsolicited answer from `address` that carries
        its A record (nothing had asked yet): one line per record."""
        while time.monotonic() < deadline:
            for source, data in list(self.received):
                message = DNSIncoming(data)
                if source != address or not message.valid or not message.is_response():
                    continue
                records = message.answers()
                if any(r.type == TYPE_A and socket.inet_ntoa(r.address) == address for r in records):
                    return sorted(f"{r.name} {TYPES.get(r.type, r.type)}" for r in records)
            time.sleep(0.1)
        raise AssertionError(f"no announcement from {address} in time")


def hostile(address: str, interface: str) -> int:
    """Malformed datagrams to the group and to the device: compression loops,
    pointers past the end, cut-short names, huge question counts, random bytes.
    Returns how many were sent."""
    header = struct.pack("!HHHHHH", 0, 0, 1, 0, 0, 0)
    crafted = [
        header + b"\xc0\x0c\x00\x01\x00\x01",  # a name pointing at itself
        struct.pack("!HHHHHH", 0, 0, 2, 0, 0, 0) + b"\xc0\x12\x00\x01\x00\x01\xc0\x0c\x00\x01\x00\x01",
        header + b"\xc0\xff\x00\x01\x00\x01",  # past the end
        header + b"\x3fab",  # a label past the end
        header + b"\x40\x00\x00\x01\x00\x01",  # a reserved label type
        struct.pack("!HHHHHH", 0, 0, 0xFFFF, 0, 0, 0) + b"\x01x\x00\x00\x01\x00\x01",
        header + b"\x01x" * 200 + b"\x00\x00\x01\x00\x01",  # a name over 255 bytes
        b"",
        header[:5],
    ]
    rng = random.Random(36)
    datagrams = crafted + [rng.randbytes(rng.randrange(1, 600)) for _ in range(300)]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
        for i, datagram in enumerate(datagrams):
            s.sendto(datagram, GROUP if i % 2 == 0 else (address, GROUP[1]))
            time.sleep(0.002)
    return len(datagrams)


async def mcp_session(url: str) -> list[str]:
    """Initialize (2025-11-25), list the tools, call read_sensor; the tools' names."""
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("read_sensor", {"sensor": "temperature"})
            assert result.is_error is False, result
            structured = result.structured_content or {}
            assert structured.get("sensor") == "temperature", structured
            return [tool.name for tool in tools.tools]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interface", required=True, help="this side's address on the tap")
    parser.add_argument("--leases", required=True, type=Path, help="dnsmasq's lease file")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds for the device to appear")
    args = parser.parse_args()
    deadline = time.monotonic() + args.timeout

    listener = Listener(args.interface)
    try:
        address = leased(args.leases, deadline)
        print(f"dhcp: the device leased {address}")
        # Announced within a second of getting the address, before any query.
        announced = listener.announced(address, time.monotonic() + 5)
    finally:
        listener.close()
    print(f"announcement: {announced}")
    for record in ("_mcp._tcp.local. ptr", "_services._dns-sd._udp.local. ptr"):
        assert record in announced, f"{record} not announced"

    zc = Zeroconf(interfaces=[args.interface], ip_version=IPVersion.V4Only)
    try:
        instance = browse(zc, deadline)
        info = ServiceInfo(SERVICE, instance)
        assert info.request(zc, 5000), f"{instance} not resolved"
        addresses = info.parsed_addresses(IPVersion.V4Only)
        txt = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
        print(f"browse: {instance} -> {info.server} {addresses} port {info.port} txt {txt}")
        assert addresses == [address], f"{addresses} is not the leased {address}"
        assert txt.get("path") == "/mcp", txt
        assert txt.get("protocols") == PROTOCOLS, txt
        assert info.port and info.server
        types = ZeroconfServiceTypes.find(zc=zc, timeout=3)
        print(f"enumeration: {types}")
        assert SERVICE in types, types
    finally:
        zc.close()
    host = info.server.rstrip(".")

    fresh = Zeroconf(interfaces=[args.interface], ip_version=IPVersion.V4Only)
    try:
        resolver = AddressResolverIPv4(info.server)
        assert resolver.request(fresh, 5000), f"{info.server} not resolved"
        by_name = resolver.parsed_addresses(IPVersion.V4Only)
    finally:
        fresh.close()
    print(f"a: {host} -> {by_name}")
    assert by_name == [address], by_name
    legacy = legacy_query(host, args.interface, 5.0)
    print(f"a (one-shot query): {host} -> {legacy}")
    assert legacy == address, legacy

    sent = hostile(address, args.interface)
    legacy = legacy_query(host, args.interface, 5.0)
    print(f"hostile: {sent} malformed datagrams sent, then {host} -> {legacy}")
    assert legacy == address, legacy

    url = f"http://{address}:{info.port}{txt['path']}"
    tools = asyncio.run(mcp_session(url))
    print(f"mcp: {url}: initialized, tools {tools}, read_sensor answered")
    assert "read_sensor" in tools, tools

    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mdns-test", "version": "1"},
        },
    }
    connection = http.client.HTTPConnection(address, info.port, timeout=10)
    try:
        connection.request(
            "POST",
            txt["path"],
            body=json.dumps(initialize),
            headers={
                "Host": host,
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        reply = connection.getresponse()
        body = reply.read()
    finally:
        connection.close()
    print(f"mcp: {url} with Host: {host}: {reply.status}")
    assert reply.status == 200, f"{reply.status} {body!r}"
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print(f"FAILED: {e}")
        sys.exit(1)
