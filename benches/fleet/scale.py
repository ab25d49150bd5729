"""The fleet at scale: N devices on one broker behind one fleet gateway.

    .tools/venv/bin/python benches/fleet/scale.py [--n 1,10,100,500,1000] [--calls K]
        [--ramp CONNECTIONS] [--json FILE]
        [--page docs/fleet-scale.md [--section docs/fleet.md]] [--bin DIR]

For each N, from nothing: a Mosquitto of its own on a loopback port; N sensor boards
in one process (`fleet-sim`, each board an MCP-over-MQTT device with its own broker
connection, served as `sensor-board --mqtt` serves one); once all N are online, the
gateway (`emcp-bridge mqtt --fleet`) on stdio, driven first by plain JSON lines (the
time from starting it to a `tools/list` naming every device's tools, discovery, and the
fleet's `tools/list`, median of several), then, started again, by the official Python
SDK (its `tools/list`, `tools/call` round trips through the gateway one at a time and
8 at once, the memory of the gateway, the simulator and the broker, and the CPU each
spends per call). Every response is checked
(every list must be exactly the fleet's tools, every call must read the sensor asked
for); a wrong one fails the run. Before the fleets, one `sensor-board --mqtt` process
is measured alone (a device's RSS as its own process); after them, unless `--ramp 0`,
a ramp of device connections (CONNECT with the will, the retained presence) from a few
light client processes to a fresh broker, past its open-file limit: where one broker
stops.

Prints a Markdown section on stdout; `--json` keeps the figures (benches/run.sh and
benches/report.py read them); `--page` writes a page of its own with its chart beside
it, and `--section` a summary of it between two marker lines of another page (the
"Scale" section of docs/fleet.md). Progress goes to stderr. Build first:
`cargo build --release -p emcp-harness -p emcp-bridge -p sensor-board`.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches"))
import charts  # noqa: E402

RELEASE = ROOT / "target" / "release"  # where the binaries are (--bin)
TOOLS = ("read_sensor", "set_led", "move_servo")
UNITS = {"temperature": "C", "humidity": "%", "pressure": "hPa"}
CONCURRENT = 8
# The gateway's own bound (bridge/src/mqtt/fleet.rs MAX_DEVICES).
GATEWAY_MAX_DEVICES = 1024


def log(*a):
    print("fleet/scale.py:", *a, file=sys.stderr, flush=True)


class WrongAnswer(Exception):
    pass


# ---- processes --------------------------------------------------------------------------

def status_kib(pid):
    """VmRSS and VmHWM of a process, KiB."""
    out = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            out[k] = int(v.split()[0])
    return out


def cpu_s(pid):
    """User + system CPU seconds a process has used."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def children(name):
    """Pids of this process's children named `name`."""
    found = []
    for task in os.listdir("/proc/self/task"):
        try:
            kids = open(f"/proc/self/task/{task}/children").read().split()
        except OSError:
            continue
        for pid in kids:
            try:
                if open(f"/proc/{pid}/comm").read().strip() == name[:15]:
                    found.append(int(pid))
            except OSError:
                pass
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """Debian's Mosquitto on a loopback port of its own, persistence off."""

    def __init__(self, tmp, log=None):
        self.binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        conf = Path(tmp) / f"mosquitto-{self.port}.conf"
        conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        out = open(log, "w") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen([self.binary, "-c", str(conf)], stdout=out, stderr=out)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("mosquitto did not start")
                time.sleep(0.05)

    def close(self):
        self.proc.terminate()
        self.proc.wait()


class Presence:
    """Which devices have a retained online presence, as a client of the specification
    sees it (paho-mqtt)."""

    def __init__(self, broker, pattern):
        import paho.mqtt.client as mqtt
        self.online = set()
        self.payload = b""  # the last online presence seen
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=f"scale-watch-{os.getpid()}", protocol=mqtt.MQTTv5)
        self.client.on_connect = lambda c, *_: c.subscribe(f"$mcp-server/presence/+/{pattern}")
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", broker.port, keepalive=30)
        self.client.loop_start()

    def _message(self, _c, _u, m):
        sid = m.topic.split("/")[2]
        with self.lock:
            (self.online.add if m.payload else self.online.discard)(sid)
            if m.payload:
                self.payload = bytes(m.payload)

    def count(self):
        with self.lock:
            return len(self.online)

    def wait(self, n, within, why):
        deadline = time.monotonic() + within
        while self.count() < n:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{why}: {self.count()} of {n} devices online after {within:.0f} s")
            time.sleep(0.01)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


# ---- one device as a process ---------------------------------------------------------------

def solo_device(tmp):
    """RSS of one `sensor-board --mqtt` process, online on a broker of its own, and
    the presence it publishes."""
    broker = Broker(tmp)
    watch = Presence(broker, "solo/#")
    board = subprocess.Popen([str(RELEASE / "sensor-board"), "--mqtt", broker.address,
                              "--server-id", "solo", "--server-name", "solo/board"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        watch.wait(1, 10, "sensor-board --mqtt")
        time.sleep(0.5)
        return status_kib(board.pid)["VmRSS"], watch.payload
    finally:
        board.kill()
        board.wait()
        watch.close()
        broker.close()


# ---- one fleet -------------------------------------------------------------------------------

def check_list(result, expected):
    names = [t.name for t in result.tools]
    if len(names) != len(set(names)) or set(names) != expected:
        missing, extra = expected - set(names), set(names) - expected
        raise WrongAnswer(f"tools/list: {len(names)} tools, {len(missing)} missing "
                          f"(e.g. {sorted(missing)[:2]}), {len(extra)} unexpected (e.g. {sorted(extra)[:2]})")


def check_call(result, sensor):
    sc = getattr(result, "structured_content", None)
    if getattr(result, "is_error", False) or not isinstance(sc, dict) or sc.get("sensor") != sensor \
            or sc.get("unit") != UNITS[sensor] or not isinstance(sc.get("value"), (int, float)):
        raise WrongAnswer(f"read_sensor {sensor}: {result!r}"[:400])


def plain_gateway(broker, expected, rounds, within, log_to):
    """Discovery and the fleet's `tools/list` as the gateway serves them: the gateway on
    stdio driven by plain JSON lines (`initialize`, then `tools/list` every 20 ms until
    every device's tools are named), each answer read with `json.loads` and checked,
    so a list costs the gateway's work, the pipe and one parse, and no SDK."""
    t0 = time.monotonic()
    gw = subprocess.Popen([str(RELEASE / "emcp-bridge"), "mqtt", "--broker", broker.address,
                           "--fleet", "--filter", "fleet/#"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_to)

    def send(msg):
        gw.stdin.write(json.dumps(msg).encode() + b"\n")
        gw.stdin.flush()

    def ask(rid, method, params=None):
        send({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})})
        while True:
            line = gw.stdout.readline()
            if not line:
                raise RuntimeError("the gateway closed its stdout")
            m = json.loads(line)
            if m.get("id") == rid:
                if "result" not in m:
                    raise WrongAnswer(f"{method}: {line[:300]!r}")
                return m["result"]

    def listed():
        names = [t["name"] for t in ask(next(ids), "tools/list")["tools"]]
        if len(names) != len(set(names)) or not set(names) <= expected:
            raise WrongAnswer(f"tools/list names tools of no device, or twice: {len(names)} names")
        return names

    ids = iter(range(1, 1 << 30))
    try:
        ask(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "benches/fleet/scale.py", "version": "0"}})
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        while len(listed()) < len(expected):
            if time.monotonic() - t0 > within:
                raise RuntimeError(f"discovery: not every device listed after {within:.0f} s")
            time.sleep(0.02)
        found = time.monotonic() - t0
        times = []
        for _ in range(rounds):
            t = time.monotonic()
            if len(listed()) != len(expected):
                raise WrongAnswer("tools/list lost devices")
            times.append(time.monotonic() - t)
        return {"discovery_s": found, "list_s": statistics.median(times)}
    finally:
        gw.stdin.close()
        try:
            gw.wait(5)
        except subprocess.TimeoutExpired:
            gw.kill()
            gw.wait()


async def fleet(n, calls, list_rounds, tmp):
    import anyio
    import mcp.types as types
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from pydantic import BaseModel, ConfigDict

    class Name(BaseModel):
        model_config = ConfigDict(extra="ignore")
        name: str

    class Names(BaseModel):
        """A `tools/list` result read for its names only (the SDK's full model parses
        every schema: a large part of a big list's time)."""
        model_config = ConfigDict(extra="ignore")
        tools: list[Name]

    async def names():
        got = await s.send_request(types.ListToolsRequest(), Names)
        return [t.name for t in got.tools]

    r = {"n": n}
    broker = Broker(tmp)
    watch = Presence(broker, "fleet/#")
    sim = gw_err = None
    try:
        # The devices, until all are online.
        t = time.monotonic()
        b0 = cpu_s(broker.proc.pid)
        sim = subprocess.Popen([str(RELEASE / "fleet-sim"), "--broker", broker.address, "--n", str(n)],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=open(Path(tmp) / f"sim-{n}.log", "w"))
        watch.wait(n, 60 + n * 0.2, "fleet-sim")
        r["connect_s"] = time.monotonic() - t
        r["broker_connect_cpu_s"] = cpu_s(broker.proc.pid) - b0
        # Idle: what the devices and the broker spend with nothing asked of them.
        time.sleep(0.5)
        s0, b0, t = cpu_s(sim.pid), cpu_s(broker.proc.pid), time.monotonic()
        time.sleep(2)
        dt = time.monotonic() - t
        r["sim_idle_cpu"] = (cpu_s(sim.pid) - s0) / dt
        r["broker_idle_cpu"] = (cpu_s(broker.proc.pid) - b0) / dt
        r["sim_rss_kib"] = status_kib(sim.pid)["VmRSS"]

        expected = {f"fleet.dev-{i}.{tool}" for i in range(n) for tool in TOOLS}
        gw_err = open(Path(tmp) / f"gateway-{n}.log", "w")
        r.update(plain_gateway(broker, expected, list_rounds, 60 + n * 0.2, gw_err))
        params = StdioServerParameters(
            command=str(RELEASE / "emcp-bridge"),
            args=["mqtt", "--broker", broker.address, "--fleet", "--filter", "fleet/#"],
            env=dict(os.environ))
        t0 = time.monotonic()
        async with stdio_client(params, errlog=gw_err) as (read, write, *_):
            async with ClientSession(read, write, read_timeout_seconds=120) as s:
                await s.initialize()
                r["initialize_s"] = time.monotonic() - t0
                (gw,) = children("emcp-bridge")
                # Discovery again, as the SDK sees it (a list read for its names only).
                deadline = t0 + 60 + n * 0.2
                while True:
                    listed = set(await names())
                    if listed >= expected:
                        r["sdk_discovery_s"] = time.monotonic() - t0
                        break
                    if listed - expected:
                        raise WrongAnswer(f"tools/list names tools of no device: {sorted(listed - expected)[:3]}")
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"discovery: {len(listed) // 3} of {n} devices after "
                                           f"{time.monotonic() - t0:.0f} s")
                    await anyio.sleep(0.02)

                # The fleet's tools/list.
                times = []
                g0 = cpu_s(gw)
                for _ in range(list_rounds):
                    t = time.monotonic()
                    got = await s.list_tools()
                    times.append(time.monotonic() - t)
                    check_list(got, expected)
                r["sdk_list_s"] = statistics.median(times)
                r["gateway_list_cpu_s"] = (cpu_s(gw) - g0) / list_rounds
                r["list_bytes"] = len(json.dumps(got.model_dump(by_alias=True, exclude_none=True)))
                # tools/call read_sensor, round robin over the devices.
                sensors = list(UNITS)

                async def call(k):
                    sensor = sensors[k % 3]
                    res = await s.call_tool(f"fleet.dev-{k % n}.read_sensor", {"sensor": sensor})
                    check_call(res, sensor)

                g0, b0 = cpu_s(gw), cpu_s(broker.proc.pid)
                lat = []
                t = time.monotonic()
                for k in range(calls):
                    c = time.monotonic()
                    await call(k)
                    lat.append(time.monotonic() - c)
                r["seq_calls_per_s"] = calls / (time.monotonic() - t)
                r["seq_ms_median"] = statistics.median(lat) * 1000

                async def worker(w):
                    for k in range(w, calls, CONCURRENT):
                        await call(k)

                t = time.monotonic()
                async with anyio.create_task_group() as tg:
                    for w in range(CONCURRENT):
                        tg.start_soon(worker, w)
                r["conc_calls_per_s"] = calls / (time.monotonic() - t)
                # CPU is counted in clock ticks (10 ms): enough calls make it mean something.
                r["calls_made"] = 2 * calls
                r["gateway_call_cpu_s"] = cpu_s(gw) - g0
                r["broker_call_cpu_s"] = cpu_s(broker.proc.pid) - b0
                r["gateway_cpu_us_per_call"] = r["gateway_call_cpu_s"] / (2 * calls) * 1e6
                r["broker_cpu_us_per_call"] = r["broker_call_cpu_s"] / (2 * calls) * 1e6
                mem = status_kib(gw)
                r["gateway_rss_kib"], r["gateway_hwm_kib"] = mem["VmRSS"], mem["VmHWM"]
                r["broker_rss_kib"] = status_kib(broker.proc.pid)["VmRSS"]
                r["broker_fds"] = fds(broker.proc.pid)
        return r
    finally:
        if sim is not None:
            sim.stdin.close()
            try:
                sim.wait(5)
            except subprocess.TimeoutExpired:
                sim.kill()
                sim.wait()
        watch.close()
        broker.close()
        if gw_err:
            gw_err.close()


# ---- how far one broker goes -------------------------------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def utf8(s):
    b = s.encode()
    return len(b).to_bytes(2, "big") + b


def packet(kind, body):
    return bytes([kind]) + varint(len(body)) + body


def connect_packet(cid, will_topic):
    """MQTT 5 CONNECT as a device sends it: clean start, no keep-alive, an empty
    retained will on its presence topic."""
    head = utf8("MQTT") + bytes([5, 0x26]) + (0).to_bytes(2, "big") + varint(0)
    return packet(0x10, head + utf8(cid) + varint(0) + utf8(will_topic) + (0).to_bytes(2, "big"))


def ramp_worker(port, count, prefix, presence):
    """`count` device connections to the broker: CONNECT with the will, the retained
    presence (the sensor board's own, renamed); held until stdin ends. Prints how many
    the broker accepted and why the others failed."""
    import asyncio
    import collections

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    template = json.loads(presence)

    async def run():
        held, failed = [], collections.Counter()
        gate = asyncio.Semaphore(64)

        async def one(i):
            cid, name = f"{prefix}-{i}", f"ramp/{prefix}-{i}"
            topic = f"$mcp-server/presence/{cid}/{name}"
            template["params"]["server_name"] = name
            body = json.dumps(template).encode()
            async with gate:
                try:
                    r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
                    w.write(connect_packet(cid, topic))
                    ack = await asyncio.wait_for(r.readexactly(4), 10)
                    if ack[0] != 0x20 or ack[3] != 0:
                        failed[f"CONNACK {ack.hex()}"] += 1
                        return
                    w.write(packet(0x31, utf8(topic) + varint(0) + body))
                    await w.drain()
                    held.append(w)
                except Exception as e:  # noqa: BLE001 - counted and reported
                    failed[type(e).__name__ or "error"] += 1

        await asyncio.gather(*(one(i) for i in range(count)))
        print(json.dumps({"ok": len(held), "failed": dict(failed)}), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(run())


def broker_ramp(total, workers, presence, tmp):
    """`total` device connections to one fresh broker from `workers` processes; the
    broker's connections (open descriptors), RSS and CPU sampled as they come."""
    log(f"broker ramp: {total:,} connections")
    broker = Broker(tmp, log=Path(tmp) / "ramp-broker.log")
    procs, done = [], []
    try:
        per = -(-total // workers)
        base = fds(broker.proc.pid)  # its own: the listener, the log, epoll
        t0, c0 = time.monotonic(), cpu_s(broker.proc.pid)
        for k in range(workers):
            p = subprocess.Popen([sys.executable, __file__, "--ramp-worker", str(broker.port), str(per),
                                  f"ramp{k}", presence.decode()],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            procs.append(p)
            threading.Thread(target=lambda p=p: done.append(json.loads(p.stdout.readline() or "{}")),
                             daemon=True).start()
        samples = []
        while len(done) < workers and time.monotonic() - t0 < 300:
            time.sleep(0.5)
            samples.append((time.monotonic() - t0, fds(broker.proc.pid) - base,
                            status_kib(broker.proc.pid)["VmRSS"], cpu_s(broker.proc.pid) - c0))
        c1, t1 = cpu_s(broker.proc.pid), time.monotonic()
        time.sleep(3)
        held_cpu = (cpu_s(broker.proc.pid) - c1) / (time.monotonic() - t1)
        ok = sum(d.get("ok", 0) for d in done)
        failed = {}
        for d in done:
            for k, v in d.get("failed", {}).items():
                failed[k] = failed.get(k, 0) + v
        # What the broker logged besides its normal lines (a refusal says why).
        import collections
        said = collections.Counter()
        for line in Path(tmp, "ramp-broker.log").read_text(errors="replace").splitlines():
            line = line.split(": ", 1)[-1]
            if not line.startswith(("New connection from", "New client connected", "mosquitto version",
                                    "Config loaded", "Opening ipv")):
                said[" ".join("…" if any(c.isdigit() for c in w) else w for w in line.split())] += 1
        # The first moment the broker held its most connections: the end of the ramp.
        peak = max(s[1] for s in samples)
        at_peak = next(s for s in samples if s[1] == peak)
        first = next((s for s in samples if s[1] > 0), at_peak)  # the workers have started
        xs = [s[1] for s in samples if s[1] > 100]
        ys = [s[2] for s in samples if s[1] > 100]
        return {"total": total, "workers": workers, "ok": ok, "failed": failed, "peak": peak, "own_fds": base,
                "peak_s": at_peak[0], "ramp_s": at_peak[0] - first[0],
                "ramp_from": first[1], "rss_kib": at_peak[2], "ramp_cpu_s": at_peak[3],
                "held_cpu": held_cpu, "rss_fit": fit(xs, ys) if len(set(xs)) > 1 else None,
                "said": said.most_common(3), "samples": samples}
    finally:
        for p in procs:
            p.stdin.close()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        broker.close()


def fit(xs, ys):
    """Least squares: slope, intercept, R²."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    icpt = my - slope * mx
    ss = sum((y - my) ** 2 for y in ys)
    r2 = 1 - sum((y - icpt - slope * x) ** 2 for x, y in zip(xs, ys)) / ss if ss else 1.0
    return slope, icpt, r2


def summarise(runs, solo_kib, calls, ramp):
    out = {"runs": runs, "solo_rss_kib": solo_kib, "calls": calls, "concurrent": CONCURRENT, "ramp": ramp,
           "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[1],
           "somaxconn": int(open("/proc/sys/net/core/somaxconn").read())}
    if len(runs) >= 2:
        ns = [r["n"] for r in runs]
        for key, what in (("gateway", "gateway_hwm_kib"), ("sim", "sim_rss_kib"), ("broker", "broker_rss_kib")):
            out[f"{key}_fit"] = fit(ns, [r[what] for r in runs])
    return out


# ---- the report ------------------------------------------------------------------------------

def ms(s):
    return f"{s * 1000:,.0f}" if s >= 0.1 else f"{s * 1000:.1f}"


def table(data):
    rows = ["| devices | online s | discovery s | tools/list ms | SDK tools/list ms | "
            "gateway CPU ms / list | list KiB | "
            "calls/s, 1 at a time | "
            f"ms / call | calls/s, {data['concurrent']} at once | gateway KiB | gateway µs / call | "
            "simulator KiB | simulator idle CPU | broker KiB | broker µs / call |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in data["runs"]:
        rows.append(
            f"| {r['n']:,} | {r['connect_s']:.2f} | {r['discovery_s']:.2f} | {ms(r['list_s'])} | "
            f"{ms(r['sdk_list_s'])} | {r['gateway_list_cpu_s'] * 1000:,.0f} | "
            f"{r['list_bytes'] / 1024:,.0f} | {r['seq_calls_per_s']:,.0f} | {r['seq_ms_median']:.2f} | "
            f"{r['conc_calls_per_s']:,.0f} | {r['gateway_hwm_kib']:,} | {r['gateway_cpu_us_per_call']:,.0f} | "
            f"{r['sim_rss_kib']:,} | {r['sim_idle_cpu'] * 100:.0f} % | {r['broker_rss_kib']:,} | "
            f"{r['broker_cpu_us_per_call']:,.0f} |")
    return rows


COLUMNS = """**online s**: from starting the simulator to every device's retained presence
    seen by a subscriber (the broker's connection rate, simulator included).
    **discovery s**: from starting the gateway (`emcp-bridge mqtt --fleet` on stdio,
    driven by plain JSON lines) to the first `tools/list` naming all N devices' tools;
    the driver lists every 20 ms, so the figure includes up to one list.
    **tools/list ms**: the fleet's `tools/list` from that plain client (request, the
    gateway's answer, one `json.loads`; the median of several), each checked to name
    exactly the fleet's tools. **SDK tools/list ms**: the same through the official
    Python SDK (`ClientSession.list_tools`, which also validates every tool into its
    models), as a host using it sees it; **gateway CPU ms / list** the gateway's part of
    those (its CPU over the SDK's lists, counted in 10 ms ticks); **list KiB** the
    list's size. **calls/s**: `tools/call read_sensor` through the SDK, the gateway, the
    broker and the device and back, round robin over the devices, each answer checked,
    one at a time (with its median **ms / call**) and {c} at once. **gateway KiB**: the
    gateway's peak RSS (VmHWM) at the end of the SDK's session. **µs / call**: CPU (user
    + system) the gateway and the broker spent per call over both call runs.
    **simulator KiB**: RSS of the process holding the N devices (`fleet-sim`); **idle
    CPU** its CPU share with nothing asked (the host runner wakes each device every
    10 ms). **broker KiB**: Mosquitto's RSS at the end."""


def goal_rows(data):
    """The issue's must-reach lines: [(goal, must, measured, met)]."""
    rows = []
    at100 = [r for r in data["runs"] if r["n"] == 100]
    yes = lambda ok: "yes" if ok else "**no**"
    if at100:
        r = at100[0]
        rows.append(("fleet of 100 devices: discovery", "< 1 s",
                     f"{r['discovery_s']:.2f} s ({r['sdk_discovery_s']:.2f} s through the Python SDK)",
                     yes(max(r["discovery_s"], r["sdk_discovery_s"]) < 1)))
        rows.append(("fleet of 100 devices: the fleet's `tools/list`", "< 1 s",
                     f"{ms(r['list_s'])} ms ({ms(r['sdk_list_s'])} ms through the Python SDK)",
                     yes(max(r["list_s"], r["sdk_list_s"]) < 1)))
    g = data.get("gateway_fit")
    if g and len(data["runs"]) >= 3:
        slope, icpt, r2 = g
        rows.append(("gateway memory against devices", "linear, stated per device",
                     f"{slope:,.1f} KiB per device + {icpt / 1024:,.1f} MiB (R² {r2:.3f}, "
                     f"N = {', '.join(str(r['n']) for r in data['runs'])})", yes(r2 >= 0.98)))
    return rows


def round2(x):
    """Two significant figures."""
    return int(float(f"{x:.2g}"))


def broker_note(data):
    runs = data["runs"]
    if not runs:
        return ""
    big = max(runs, key=lambda r: r["n"])
    calls = sum(r["calls_made"] for r in runs)
    per_call = sum(r["broker_call_cpu_s"] for r in runs) / calls * 1e6
    most = f"at most about {round2(1e6 / per_call):,}" if per_call else "more than this run could count of"
    parts = [f"""**Where one broker stops.** Mosquitto is one thread: every call crosses it
        twice (the request to the device, its answer back), and it spent
        {per_call:,.0f} µs of CPU per call here (over all {calls:,} calls of the runs
        above), so one broker core relays {most} calls per second of this kind (the {data['concurrent']}
        concurrent calls reached {big['conc_calls_per_s']:,.0f} per second with the
        gateway, the broker, the simulator and the driver sharing {os.cpu_count()} cores).
        {big['n']:,} devices came online in {big['connect_s']:.2f} s
        ({big['n'] / big['connect_s']:,.0f} per second)."""]
    ramp = data.get("ramp")
    if ramp:
        rate = (ramp["peak"] - ramp["ramp_from"]) / ramp["ramp_s"] if ramp["ramp_s"] else 0
        slope = f"{ramp['rss_fit'][0]:,.1f} KiB" if ramp["rss_fit"] else "?"
        held = ramp["peak"] + ramp["own_fds"]
        at_limit = ramp["ok"] < ramp["total"] and held >= data["nofile"] - 10
        parts.append(f"""Connections alone, beyond what the gateway tracks: a ramp of
            {ramp['total']:,} device connections on a fresh broker (each a device's CONNECT
            with its will and the sensor board's retained presence, renamed; from
            {ramp['workers']} client processes without keep-alive) reached {ramp['peak']:,}
            open at once ({ramp['ramp_s']:.0f} s from the first, about {rate:,.0f} per second,
            the broker using {ramp['ramp_cpu_s']:.1f} s of CPU).""")
        if ramp["ok"] < ramp["total"]:
            failed = ", ".join(f"{v:,} {k}" for k, v in sorted(ramp["failed"].items()))
            said = "; ".join(f"“{line}” ×{k:,}" for line, k in ramp["said"] if k >= 10) or "nothing"
            parts.append(f"""{ramp['ok']:,} were accepted, the other
                {ramp['total'] - ramp['ok']:,} failed ({failed}): Mosquitto's log says {said}
                (addresses as …), from when it held {held:,} descriptors
                ({ramp['own_fds']} its own) of the {data['nofile']:,} it may open.""")
        else:
            parts.append("All were accepted.")
        parts.append(f"""Its RSS grew by {slope} per connection (to
            {ramp['rss_kib'] / 1024:,.0f} MiB), and holding them idle took
            {ramp['held_cpu'] * 100:.0f} % of a core.""")
        if at_limit:
            parts.append(f"""So one broker on this machine stops at its open-file limit,
                `ulimit -n` {data['nofile']:,} (one descriptor per connection; Mosquitto's
                own `max_connections` is unlimited by default), long before memory or an
                idle CPU would stop it; short of it, calls are bounded by its one core.""")
        else:
            parts.append(f"""The ramp stopped short of the broker's limits; its open-file
                limit, `ulimit -n` {data['nofile']:,}, allows one descriptor per
                connection.""")
    else:
        parts.append(f"""The open-file limit, one descriptor per connection (`ulimit -n`
            {data['nofile']:,} here), bounds the devices one broker holds (no ramp was
            run).""")
    parts.append(f"""The gateway stops first: it tracks at most {GATEWAY_MAX_DEVICES:,}
        devices.""")
    return " ".join(" ".join(p.split()) for p in parts)


def wrap(text):
    """A paragraph as the docs write them: lines of at most 88 characters."""
    import textwrap
    return textwrap.fill(" ".join(text.split()), 88, break_long_words=False, break_on_hyphens=False)


def render(data, chart_path=None):
    """The section's Markdown lines (no heading): table, column meanings, fit, goals."""
    out = []
    if chart_path:
        out += [f"![Discovery, tools/list and memory against the number of devices]({chart_path})", ""]
    out += table(data) + [""]
    out += [wrap(COLUMNS.format(c=data["concurrent"])), ""]
    fits = []
    for key, what in (("gateway", "gateway (peak RSS)"), ("sim", "simulator (RSS)"), ("broker", "broker (RSS)")):
        f = data.get(f"{key}_fit")
        if f:
            fits.append(f"{what}: {f[0]:,.1f} KiB per device + {f[1]:,.0f} KiB, R² {f[2]:.3f}")
    if fits:
        out += [wrap("Least-squares lines over N: " + "; ".join(fits) + ". One device as a process "
                     f"of its own (`sensor-board --mqtt`, one connection): {data['solo_rss_kib']:,} KiB "
                     "RSS."), ""]
    goals = goal_rows(data)
    if goals:
        out += ["| goal | must | measured | met |", "|---|---|---|---|"]
        out += [f"| {g} | {m} | {v} | {ok} |" for g, m, v, ok in goals]
        out += [""]
    note = broker_note(data)
    if note:
        out += [wrap(note), ""]
    return out


def chart(data):
    runs = data["runs"]
    if len(runs) < 2:
        return None
    ns = [r["n"] for r in runs]
    return charts.xy_panels(
        "The fleet against its size",
        f"N sensor boards on one Mosquitto behind one emcp-bridge --fleet; {os.cpu_count()} cores",
        [("time", "devices", "seconds", True, True, [
            ("discovery", charts.PALETTE[0], False, [(n, r["discovery_s"]) for n, r in zip(ns, runs)]),
            ("tools/list", charts.PALETTE[1], False, [(n, r["list_s"]) for n, r in zip(ns, runs)]),
            ("tools/list through the Python SDK", charts.PALETTE[5], False,
             [(n, r["sdk_list_s"]) for n, r in zip(ns, runs)]),
            ("1 s (the goal at 100)", charts.PALETTE[6], True, [(ns[0], 1.0), (ns[-1], 1.0)]),
         ]),
         ("memory", "devices", "MiB", False, False, [
            ("gateway (peak RSS)", charts.PALETTE[0], False, [(n, r["gateway_hwm_kib"] / 1024) for n, r in zip(ns, runs)]),
            ("simulator (N devices)", charts.PALETTE[2], False, [(n, r["sim_rss_kib"] / 1024) for n, r in zip(ns, runs)]),
            ("broker", charts.PALETTE[1], False, [(n, r["broker_rss_kib"] / 1024) for n, r in zip(ns, runs)]),
         ])])


def page(data, command, svg_name):
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    now = datetime.datetime.now(datetime.timezone.utc)
    lines = ["# The fleet at scale", "",
             "<!-- Written by benches/fleet/scale.py --page: do not edit; rerun the command. -->", "",
             wrap(f"""N simulated sensor boards, each an MCP-over-MQTT device with its own
                 connection, on one Mosquitto, behind one `emcp-bridge mqtt --fleet`, driven by
                 the official Python SDK. Every figure below was written by one run of the
                 command in the table; none is typed by hand."""), "",
             "| | |", "|---|---|",
             f"| command | `{command}` |",
             f"| date | {now:%Y-%m-%d %H:%M} UTC |",
             f"| commit | `{commit}` |",
             f"| machine | {os.cpu_count()} cores, {cpu}, Linux {platform.release()}; "
             f"Mosquitto {mosquitto_version()}; `ulimit -n` {data['nofile']:,} |", ""]
    return "\n".join(lines + render(data, svg_name)).rstrip() + "\n"


BEGIN = "<!-- benches/fleet/scale.py --section: begin; do not edit, rerun the command -->"
END = "<!-- benches/fleet/scale.py --section: end -->"


def section(data, command, page_name, svg_name):
    """The summary written between BEGIN and END in another page (docs/fleet.md's
    "Scale"): when and how, the goals, a short table, where the broker stopped."""
    now = datetime.datetime.now(datetime.timezone.utc)
    out = [BEGIN, "",
           wrap(f"Measured {now:%Y-%m-%d} on {os.cpu_count()} cores by `{command}` (every figure "
                f"here and in [{page_name}]({page_name}), which has them all with what each column "
                "measures, comes from that run):"), ""]
    if svg_name:
        out += [f"![Discovery, tools/list and memory against the number of devices]({svg_name})", ""]
    out += ["| devices | discovery s | tools/list ms | through the Python SDK ms | gateway CPU ms / list | "
            f"calls/s, 1 at a time | calls/s, {data['concurrent']} at once | gateway peak RSS MiB | "
            "simulator RSS MiB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in data["runs"]:
        out.append(f"| {r['n']:,} | {r['discovery_s']:.2f} | {ms(r['list_s'])} | {ms(r['sdk_list_s'])} | "
                   f"{r['gateway_list_cpu_s'] * 1000:,.0f} | {r['seq_calls_per_s']:,.0f} | "
                   f"{r['conc_calls_per_s']:,.0f} | {r['gateway_hwm_kib'] / 1024:,.1f} | "
                   f"{r['sim_rss_kib'] / 1024:,.1f} |")
    out.append("")
    goals = goal_rows(data)
    if goals:
        out += ["| goal | must | measured | met |", "|---|---|---|---|"]
        out += [f"| {g} | {m} | {v} | {ok} |" for g, m, v, ok in goals] + [""]
    note = broker_note(data)
    if note:
        out += [wrap(note), ""]
    return "\n".join(out + [END])


def write_section(path, text):
    old = path.read_text()
    if BEGIN not in old or END not in old:
        raise SystemExit(f"{path}: no lines {BEGIN!r} … {END!r} to write between")
    head, rest = old.split(BEGIN, 1)
    path.write_text(head + text + rest.split(END, 1)[1])


def mosquitto_version():
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    out = subprocess.run([binary, "-h"], capture_output=True, text=True).stdout.split()
    return out[2] if len(out) > 2 else "?"


# ---- main --------------------------------------------------------------------------------------

def main():
    global RELEASE
    if sys.argv[1:2] == ["--ramp-worker"]:
        port, count, prefix, presence = sys.argv[2:6]
        ramp_worker(int(port), int(count), prefix, presence)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="1,10,100,500,1000", help="fleet sizes, comma-separated")
    ap.add_argument("--calls", type=int, default=1000, help="tools/call per run (each of two runs)")
    ap.add_argument("--lists", type=int, default=5, help="tools/list rounds timed")
    ap.add_argument("--bin", type=Path, default=RELEASE,
                    help="directory of fleet-sim, emcp-bridge and sensor-board (default target/release)")
    ap.add_argument("--ramp", type=int, default=24000,
                    help="device connections in the broker ramp (0: no ramp)")
    ap.add_argument("--ramp-workers", type=int, default=3, help="client processes of the ramp")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--page", type=Path, help="write a page (and its chart beside it)")
    ap.add_argument("--section", type=Path,
                    help="a page to write the summary into, between the lines BEGIN and END "
                         "(docs/fleet.md); needs --page")
    ap.add_argument("--command", default=" ".join([".tools/venv/bin/python benches/fleet/scale.py",
                                                   *sys.argv[1:]]),
                    help="the command to name on the page (default: this one)")
    a = ap.parse_args()
    import anyio

    RELEASE = a.bin.resolve()

    # Every device and the broker hold a descriptor per connection.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sizes = [int(x) for x in a.n.split(",")]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        log("one sensor-board --mqtt process")
        solo, presence = solo_device(tmp)
        for n in sizes:
            if 2 * n + 64 > hard:
                log(f"N={n}: more than `ulimit -n` ({hard}) allows; stopping")
                break
            log(f"N={n}")
            try:
                runs.append(anyio.run(fleet, n, a.calls, a.lists, tmp))
            except BaseException:
                for f in sorted(Path(tmp).glob(f"*-{n}.log")):
                    tail = f.read_text().splitlines()[-5:]
                    log(f"{f.name}:", *tail, sep="\n  ")
                raise
            log(json.dumps(runs[-1]))
        ramp = broker_ramp(a.ramp, a.ramp_workers, presence, tmp) if a.ramp else None
        if ramp:
            log(json.dumps({k: v for k, v in ramp.items() if k != "samples"}))
    data = summarise(runs, solo, a.calls, ramp)
    if a.json:
        a.json.write_text(json.dumps(data, indent=1) + "\n")
    print("### The fleet at scale (benches/fleet/scale.py)")
    print()
    print("\n".join(render(data)))
    if a.page:
        svg = chart(data)
        name = a.page.with_suffix(".svg").name
        a.page.parent.mkdir(parents=True, exist_ok=True)
        if svg:
            (a.page.parent / name).write_text(svg)
        a.page.write_text(page(data, a.command, name if svg else None))
        log(f"wrote {a.page}")
        if a.section:
            rel = lambda f: os.path.relpath(f, a.section.parent)
            write_section(a.section, section(data, a.command, rel(a.page),
                                             rel(a.page.parent / name) if svg else None))
            log(f"wrote the summary into {a.section}")


if __name__ == "__main__":
    main()
