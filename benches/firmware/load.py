"""Load held by the networked firmware: N clients at once against the sensor image
under QEMU, for a set time per point, every request accounted for.

    python3 benches/firmware/load.py [--quick] [--seconds S] [--n 1,2,4,6]
        [--modes keep-alive,new] [--tap TAP] [--json FILE] [--label NAME] ELF
    python3 benches/firmware/load.py --section PAGE --from DIR [--command CMD]

The device runs in QEMU (mps2-an385, LAN9118): on QEMU's user network with its port
80 forwarded to a loopback port (the default), or, with `--tap TAP`, on an existing
tap interface (benches/firmware/load.sh makes one in a network namespace of its own,
with dnsmasq as the LAN's DHCP server, and runs this script inside it): the address
is the one the device logs once DHCP has answered. QEMU's user network accepts the
host's connection itself before it connects to the device, so a refusal there shows
as a connection closed before any answer; on the tap, the device's own SYN-ACK or
RST is what the client sees.

Each point is N clients (asyncio, one connection each at a time) sending `tools/call
read_sensor` in the stateless era as fast as answers come, for `--seconds`:

- `keep-alive`: every request of a client on its one open connection, which it opens
  again only when the device closed it or refused it;
- `new`: a connection per request, alternately with `Connection: close` (the device
  closes first) and without (the client closes first, as soon as it has the answer);
  `close` and `drop` (for a closer look) only the one or the other.

Every request ends as exactly one of: answered (200, a result for its own id,
checked), busy (503 with `Retry-After`: the client waits as it says), refused (the
connection reset or closed, or not accepted, before any byte of an answer), or lost
(sent, and no answer within the time limit, or an answer cut short). Lost requests
or wrong answers fail the run. A refusal or 503 while N is at most the device's
connection tasks (`--tasks`, read from examples/net-app/src/device.rs) is reported (and
is a goal not met on the page); with `--strict` (CI's quick run: benches/run.sh
--quick, through load.sh --strict) it fails the run too.

Reported per point: requests per second answered, latency percentiles of the answered
(from the connection's opening, in `new`, or the request's sending), 503s, refusals,
lost. The device's stack high-water mark (logged over semihosting whenever it
grows) at the start and at the end of the run, and, after the last point, a check that
every connection task is free again: `--tasks` keep-alive connections opened at once
all answered (a task or socket that leaked would refuse one).

Prints Markdown on stdout; `--json` keeps the figures (benches/run.sh,
benches/report.py). QEMU's and the device's logs, and progress, go to stderr.
`--section` writes load.sh's runs (`--json DIR`) as a section of a page between two
marker lines (docs/performance.md, with its chart in docs/perf/net-load.svg), which
`load.sh --page` does after a run of its own.
"""

import argparse
import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches"))
import charts  # noqa: E402
import page as page_section  # noqa: E402
DEVICE_RS = ROOT / "examples" / "net-app" / "src" / "device.rs"
STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
# No answer within this long is a lost request.
ANSWER_LIMIT = 10.0


def log(*a):
    print("load.py:", *a, file=sys.stderr, flush=True)


def sensor_tasks():
    """CONNECTIONS of the sensor build (examples/net-app/src/device.rs)."""
    on = False
    for line in DEVICE_RS.read_text().splitlines():
        if "#[cfg(feature = " in line:
            on = '"sensor"' in line
        m = re.search(r"pub const CONNECTIONS: usize = (\d+);", line)
        if on and m:
            return int(m.group(1))
    raise SystemExit("load.py: no CONNECTIONS for the sensor in device.rs")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- the device -----------------------------------------------------------------------

class Device:
    """QEMU running the image; its decoded log lines collected by a thread."""

    def __init__(self, elf, tap=None):
        self.lines = []
        self.cond = threading.Condition()
        if tap:
            nic = f"tap,model=lan9118,ifname={tap},script=no,downscript=no"
            self.port = 80
        else:
            self.port = free_port()
            nic = f"user,model=lan9118,restrict=on,hostfwd=tcp:127.0.0.1:{self.port}-:80"
        self.qemu = subprocess.Popen(
            ["qemu-system-arm", "-M", "mps2-an385", "-cpu", "cortex-m3", "-display", "none",
             "-monitor", "none", "-serial", "null",
             "-semihosting-config", "enable=on,target=native", "-nic", nic, "-kernel", elf],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=sys.stderr)
        self.decoder = subprocess.Popen(["defmt-print", "-e", elf], stdin=self.qemu.stdout,
                                        stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        self.qemu.stdout.close()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.decoder.stdout:
            sys.stderr.write(line)
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.lines.append(None)
            self.cond.notify_all()

    def wait_for(self, pattern, timeout=60):
        """The first match of `pattern` in the log."""
        end = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                for line in self.lines[seen:]:
                    if line is None:
                        raise SystemExit("load.py: the device ended")
                    m = re.search(pattern, line)
                    if m:
                        return m
                seen = len(self.lines)
                left = end - time.monotonic()
                if left <= 0:
                    raise SystemExit(f"load.py: the device never logged {pattern!r}")
                self.cond.wait(left)

    def stack_marks(self, running=True):
        """The stack high-water marks logged: while running (the stack is painted again
        after start-up), or the start-up's own."""
        pattern = r"stack high-water (\d+) of" if running else r"stack high-water (\d+) bytes at start-up"
        with self.cond:
            return [int(m.group(1)) for m in (re.search(pattern, l or "") for l in self.lines) if m]

    def stop(self):
        self.qemu.send_signal(signal.SIGTERM)
        try:
            self.qemu.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.qemu.kill()
            self.qemu.wait()
        self.reader.join(timeout=30)
        self.decoder.wait(timeout=30)


# ---- the clients ----------------------------------------------------------------------

def request(host, rid, close):
    body = json.dumps(
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
         "params": {"name": "read_sensor", "arguments": {"sensor": "temperature"},
                    "_meta": STATELESS_META}},
        separators=(",", ":")).encode()
    head = [
        "POST /mcp HTTP/1.1",
        f"Host: {host}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        "MCP-Protocol-Version: 2026-07-28",
        "Mcp-Method: tools/call",
        "Mcp-Name: read_sensor",
    ]
    if close:
        head.append("Connection: close")
    head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class Refused(Exception):
    """Reset or closed before any byte of an answer."""


class Cut(Exception):
    """Closed in the middle of an answer."""


async def answer(reader):
    """One response: (status, headers, body)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if e.partial:
            raise Cut(f"closed in a response head: {e.partial[:60]!r}")
        raise Refused("closed before an answer")
    except ConnectionResetError:
        raise Refused("reset before an answer")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    try:
        if headers.get("transfer-encoding") != "chunked":
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        else:
            body = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                body += chunk[:size]
                if size == 0:
                    break
    except (asyncio.IncompleteReadError, ConnectionResetError, ValueError):
        raise Cut("closed in a response body")
    return status, headers, body


def decoded(body):
    """A JSON body, or an event stream's last message."""
    if body.lstrip().startswith(b"{"):
        return json.loads(body)
    data = [l[5:] for l in body.decode().splitlines() if l.startswith("data:")]
    return json.loads(data[-1]) if data else {}


class Point:
    def __init__(self):
        self.sent = 0
        self.answered = 0
        self.busy = 0
        self.refused = 0
        self.lost = 0
        self.wrong = []
        self.latencies = []
        self.why = {}

    def note(self, why):
        self.why[why] = self.why.get(why, 0) + 1


async def client(index, mode, host, port, deadline, point):
    seq = 0
    reader = writer = None

    def drop():
        nonlocal reader, writer
        if writer is not None:
            writer.close()
        reader = writer = None

    while time.monotonic() < deadline:
        seq += 1
        rid = f"c{index}-{seq}"
        close = mode == "close" or (mode == "new" and seq % 2 == 1)
        t0 = time.monotonic()
        point.sent += 1
        if writer is None:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(host, port), ANSWER_LIMIT)
            except (ConnectionRefusedError, ConnectionResetError):
                point.refused += 1
                point.note("connect refused")
                await asyncio.sleep(0.05)
                continue
            except (asyncio.TimeoutError, OSError) as e:
                point.lost += 1
                point.note(f"connect: {type(e).__name__}")
                continue
        try:
            writer.write(request(f"{host}:{port}" if port != 80 else host, rid, close))
            await writer.drain()
            status, headers, body = await asyncio.wait_for(answer(reader), ANSWER_LIMIT)
        except (Refused, ConnectionResetError, BrokenPipeError) as e:
            point.refused += 1
            point.note(f"refused: {e}" if isinstance(e, Refused) else f"refused: {type(e).__name__}")
            drop()
            await asyncio.sleep(0.05)
            continue
        except asyncio.TimeoutError:
            point.lost += 1
            point.note("no answer in time")
            drop()
            continue
        except Cut as e:
            point.lost += 1
            point.note(str(e))
            drop()
            continue
        if status == 503:
            point.busy += 1
            drop()
            await asyncio.sleep(float(headers.get("retry-after", "1")))
            continue
        try:
            msg = decoded(body)
            ok = status == 200 and msg.get("id") == rid and "result" in msg \
                and not msg["result"].get("isError")
        except ValueError:
            ok = False
        if not ok:
            point.wrong.append(f"{status} {body[:120]!r}")
            drop()
            continue
        point.answered += 1
        point.latencies.append(time.monotonic() - t0)
        if mode != "keep-alive" or headers.get("connection", "").lower() == "close":
            drop()
    drop()


async def run_point(host, port, n, mode, seconds):
    point = Point()
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    await asyncio.gather(*(client(i, mode, host, port, deadline, point) for i in range(n)))
    point.elapsed = time.monotonic() - started
    return point


async def all_free(host, port, tasks):
    """`tasks` keep-alive connections opened at once, each answered: every connection
    task is free again."""
    conns = []
    try:
        for _ in range(tasks):
            conns.append(await asyncio.wait_for(asyncio.open_connection(host, port), ANSWER_LIMIT))
        for i, (reader, writer) in enumerate(conns):
            writer.write(request(f"{host}:{port}" if port != 80 else host, f"free-{i}", False))
        for reader, _ in conns:
            status, _, _ = await asyncio.wait_for(answer(reader), ANSWER_LIMIT)
            if status != 200:
                return False
        return True
    except (Refused, Cut, OSError, asyncio.TimeoutError):
        return False
    finally:
        for _, writer in conns:
            writer.close()


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


# ---- the report (benches/report.py and benches/run.sh read these) -----------------------

def loads(dir_):
    """The runs load.sh wrote into a directory: [user, tap] as found."""
    out = []
    for name in ("user", "tap"):
        f = Path(dir_) / f"load-{name}.json"
        if f.exists():
            out.append(json.loads(f.read_text()))
    return out


def table(runs):
    lines = ["| network | requests | clients | requests/s | p50 ms | p90 ms | p99 ms | answered | 503 | "
             "refused | lost |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        for r in run["points"]:
            mode = "keep-alive" if r["mode"] == "keep-alive" else "new connection each"
            lines.append(f"| {r['network']} | {mode} | {r['clients']} | {r['rps']:,} | {r['p50_ms']} | "
                         f"{r['p90_ms']} | {r['p99_ms']} | {r['answered']:,} | {r['busy']:,} | "
                         f"{r['refused']:,} | {r['lost']} |")
    return lines


def goal_rows(runs):
    """The issue's must-reach lines: [(goal, must, measured, met)]."""
    if not runs:
        return []
    yes = lambda ok: "yes" if ok else "**no**"
    points = [r for run in runs for r in run["points"]]
    lost = sum(r["lost"] + r["wrong"] for r in points)
    tasks = runs[0]["tasks"]
    within = [r for r in points if r["clients"] <= tasks]
    refused = sum(r["busy"] + r["refused"] for r in within)
    sent = sum(r["sent"] for r in within)
    nets = " and ".join(run["network"] for run in runs)
    return [
        ("networked device under load: requests lost", "none at any N",
         f"{lost} of {sum(r['sent'] for r in points):,} ({nets} network)", yes(lost == 0)),
        (f"networked device: refusals with clients ≤ {tasks} connection tasks, keep-alive or not",
         "none", f"{refused} of {sent:,}", yes(refused == 0)),
    ]


def render(runs, chart_path=None):
    """The section's Markdown lines (no heading)."""
    if not runs:
        return []
    out = []
    if chart_path:
        out += [f"![Requests per second and p99 latency against clients]({chart_path})", ""]
    out += table(runs) + [""]
    secs = runs[0]["seconds_per_point"]
    out += [f"Each row: that many clients for {secs:g} s, each sending `tools/call read_sensor` "
            "(stateless era) as soon as its last answer came; `new connection each` alternates "
            "requests with `Connection: close` (the device closes first) and without (the client "
            "closes first, as soon as it has its answer). Latency counts from the connection's "
            "opening (new connection) or the request's sending. 503: every connection task busy "
            "for half a second (the client waits the `Retry-After`); refused: reset or closed before "
            "any answer (beyond the device's sockets); lost: no answer in 10 s, or an answer cut. "
            "`user`: QEMU's user network, the device's port forwarded to loopback (QEMU accepts a "
            "connection before the device does); `tap`: a tap interface in a network namespace, "
            "the device's address from dnsmasq.", ""]
    for run in runs:
        out += [f"{run['network']}: stack high-water (painted again after start-up, whose own "
                f"peak is {run.get('stack_boot', 0):,} B) {run['stack_start']:,} B before the load, "
                f"{run['stack_end']:,} B after it; the static RAM is fixed (nothing is allocated); "
                f"every connection task free again after the load: "
                f"{'yes' if run['tasks_free_after'] else '**no**'}.", ""]
    rows = goal_rows(runs)
    out += ["| goal | must | measured | met |", "|---|---|---|---|"]
    out += [f"| {g} | {m} | {v} | {ok} |" for g, m, v, ok in rows] + [""]
    return out


def chart(runs):
    """Requests/s and p99 latency against clients, a line per network and mode."""
    series_rps, series_p99 = [], []
    i = 0
    for run in runs:
        for mode in ("keep-alive", "new"):
            pts = [r for r in run["points"] if r["mode"] == mode]
            if len(pts) < 2:
                continue
            name = f"{run['network']}, {'keep-alive' if mode == 'keep-alive' else 'new connection each'}"
            colour = charts.PALETTE[i % len(charts.PALETTE)]
            series_rps.append((name, colour, False, [(r["clients"], r["rps"]) for r in pts]))
            series_p99.append((name, colour, False, [(r["clients"], max(r["p99_ms"], 0.01)) for r in pts]))
            i += 1
    if not series_rps:
        return None
    tasks = runs[0]["tasks"]
    return charts.xy_panels(
        "The networked device under load",
        f"the sensor image in QEMU (mps2-an385, LAN9118), {tasks} connection tasks; "
        f"{runs[0]['seconds_per_point']:g} s per point",
        [("answered per second", "clients", "requests/s", False, False, series_rps),
         ("p99 latency", "clients", "ms", False, True, series_p99)])


BEGIN = "<!-- benches/firmware/load.sh --page: begin; the run below writes this section -->"
END = "<!-- benches/firmware/load.sh --page: end -->"


def write_section(page, from_dir, command):
    """The section (heading, command, date, commit, table, chart) between the markers of
    `page`, or before its "How to reproduce" when it has none; the chart beside it in
    perf/net-load.svg."""
    page = Path(page)
    runs = loads(from_dir)
    if not runs:
        raise SystemExit(f"load.py: no load-*.json in {from_dir}")
    svg = chart(runs)
    if svg:
        (page.parent / "perf").mkdir(exist_ok=True)
        (page.parent / "perf" / "net-load.svg").write_text(svg)
    page_section.write_section(page, BEGIN, END, "The networked device under load", command,
                               render(runs, "perf/net-load.svg" if svg else None))
    log(f"wrote the section into {page}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("elf", nargs="?")
    ap.add_argument("--section", help="write the section of --from DIR's runs into this page")
    ap.add_argument("--from", dest="from_dir", help="with --section: load.sh's --json directory")
    ap.add_argument("--command", default="bash benches/firmware/load.sh", help="with --section")
    ap.add_argument("--quick", action="store_true", help="3 s per point")
    ap.add_argument("--seconds", type=float, help="per point (default 60, --quick 3)")
    ap.add_argument("--n", help="client counts (default 1,2,4,TASKS,TASKS+2)")
    ap.add_argument("--modes", default="keep-alive,new")
    ap.add_argument("--tap", help="the tap interface to put the device on")
    ap.add_argument("--tasks", type=int, default=sensor_tasks())
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--strict", action="store_true",
                    help="fail on any refusal or 503 with no more clients than tasks")
    ap.add_argument("--label", help="the network's name in the output")
    args = ap.parse_args()
    if args.section:
        write_section(args.section, args.from_dir, args.command)
        return
    if not args.elf:
        ap.error("the image to run (ELF) is needed")
    seconds = args.seconds or (3.0 if args.quick else 60.0)
    ns = sorted({int(x) for x in args.n.split(",")}) if args.n else \
        sorted({1, 2, 4, args.tasks, args.tasks + 2})
    modes = args.modes.split(",")
    label = args.label or ("tap" if args.tap else "user")

    device = Device(args.elf, args.tap)
    points = []
    failures = []
    warnings = []
    try:
        m = device.wait_for(r"serving MCP at http://([\d.]+):")
        host = m.group(1) if args.tap else "127.0.0.1"
        device.wait_for(r"stack high-water \d+ of")
        time.sleep(1)
        stack_boot = max(device.stack_marks(running=False), default=0)
        stack_start = max(device.stack_marks(), default=0)
        log(f"{label}: device at {host}:{device.port}, {args.tasks} connection tasks")
        for mode in modes:
            for n in ns:
                log(f"{label}: {n} clients, {mode}, {seconds:g} s")
                p = asyncio.run(run_point(host, device.port, n, mode, seconds))
                row = {
                    "network": label, "clients": n, "mode": mode, "seconds": round(p.elapsed, 2),
                    "sent": p.sent, "answered": p.answered, "busy": p.busy, "refused": p.refused,
                    "lost": p.lost, "wrong": len(p.wrong),
                    "rps": round(p.answered / p.elapsed, 1),
                    "p50_ms": round(1000 * percentile(p.latencies, 50), 2),
                    "p90_ms": round(1000 * percentile(p.latencies, 90), 2),
                    "p99_ms": round(1000 * percentile(p.latencies, 99), 2),
                    "why": p.why,
                }
                points.append(row)
                log(json.dumps(row))
                if p.sent != p.answered + p.busy + p.refused + p.lost + len(p.wrong):
                    failures.append(f"{label} {mode} N={n}: requests do not add up")
                if p.lost or p.wrong:
                    failures.append(f"{label} {mode} N={n}: {p.lost} lost, wrong: {p.wrong[:3]}")
                if n <= args.tasks and (p.busy or p.refused):
                    (failures if args.strict else warnings).append(f"{label} {mode} N={n}: {p.busy} 503s and {p.refused} "
                                    f"refusals with no more clients than tasks ({p.why})")
                time.sleep(0.5)
        # Let idle connections' closes settle, then every task must serve again.
        time.sleep(1.5)
        free = asyncio.run(all_free(host, device.port, args.tasks))
        if not free:
            failures.append(f"{label}: after the load, not every connection task was free")
        time.sleep(1)
        stack_end = max(device.stack_marks(), default=0)
    finally:
        device.stop()

    result = {"network": label, "tasks": args.tasks, "seconds_per_point": seconds,
              "stack_boot": stack_boot, "stack_start": stack_start, "stack_end": stack_end, "tasks_free_after": free,
              "points": points}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    print("\n".join(table([result])))
    print()
    print(f"Stack high-water {stack_start:,} B before the load, {stack_end:,} B after it "
          f"(start-up {stack_boot:,} B); every connection task free after the load: "
          f"{'yes' if free else 'NO'}.")
    for w in warnings:
        log("NOT MET:", w)
    if failures:
        for f in failures:
            log("FAIL:", f)
        sys.exit(1)


if __name__ == "__main__":
    main()
