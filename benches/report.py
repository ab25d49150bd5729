"""Write the performance page and its charts from one run of benches/run.sh.

    python3 benches/report.py DATA OUT --command CMD --started EPOCH \
        [--commit HASH --changed N] [--quick]

DATA is the directory where run.sh left each part's output (the Markdown tables it
printed, the harness's JSON lines, size.sh's report); OUT receives performance.md and
perf/*.svg (run.sh: docs/ in full mode, target/bench-quick/ with --quick). Every
number on the page comes from DATA or is computed from it here; the prose around the
numbers is fixed text that says what was measured and how. Standard library only.
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "fleet"))
import charts  # noqa: E402
import scale  # noqa: E402  (benches/fleet/scale.py: the fleet's section and chart)
sys.path.insert(0, str(Path(__file__).resolve().parent / "firmware"))
import load  # noqa: E402  (benches/firmware/load.py: the device under load, section and chart)
import soak  # noqa: E402  (benches/soak.py: the host boards over a million messages)

ROOT = Path(__file__).resolve().parent.parent
STATELESS = "2026-07-28"
BOARDS = {"m3": "Cortex-M3", "m4f": "Cortex-M4F", "m0": "Cortex-M0", "rv32": "RV32IMC",
          "m33": "Cortex-M33"}


# ---- reading the run's outputs ---------------------------------------------------------

def md_tables(text):
    """Every Markdown table in text: {"heading", "header", "rows", "text"}, where heading
    is the last `###` line before the table and text the table's own lines."""
    tables, heading, cur = [], "", None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            heading = s.lstrip("#").strip()
        if s.startswith("|"):
            cells = [c.strip() for c in s.strip("|").split("|")]
            if cur is None:
                cur = {"heading": heading, "header": cells, "rows": [], "lines": [s]}
                tables.append(cur)
            else:
                cur["lines"].append(s)
                if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    cur["rows"].append(cells)
        else:
            cur = None
    for t in tables:
        t["text"] = "\n".join(t["lines"])
    return tables


def table(tables, heading_start, first_header=None):
    for t in tables:
        if t["heading"].startswith(heading_start) and first_header in (None, t["header"][0]):
            return t
    return None


def read(data, name):
    p = data / name
    return p.read_text() if p.exists() else ""


def num(s):
    s = s.replace(",", "").strip()
    try:
        return float(s) if "." in s else int(s)
    except ValueError:
        return None


# The names of the two protocol eras on this page, for the labels the tools print.
ERA_WORDS = [
    (r"^stateless ", "stateless "),  # the harness's --era stateless
    (r"^initialize era only$", "legacy era only"),  # size.sh --matrix
    (r"^2026-07-28 only$", "stateless era only"),
    (r"\(initialize era\)", "(legacy era)"),  # the goals
]


def era_words(cell):
    for pattern, word in ERA_WORDS:
        cell = re.sub(pattern, word, cell)
    return cell


def grouped(n):
    return f"{n:,}"


# ---- facts about the machine and the tree -----------------------------------------------

def sh(*cmd):
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def peer_versions():
    """rmcp as the peer's Cargo.lock pins it, mcp as the venv holds it."""
    rmcp = mcp = "?"
    lock = ROOT / "benches/peers/rmcp-board/Cargo.lock"
    if lock.exists():
        for pkg in tomllib.loads(lock.read_text()).get("package", []):
            if pkg.get("name") == "rmcp":
                rmcp = pkg["version"]
    py = ROOT / ".tools/venv/bin/python"
    if py.exists():
        mcp = sh(str(py), "-c", "from importlib.metadata import version; print(version('mcp'))") or "?"
    return rmcp, mcp


def era_name(version):
    if version == STATELESS:
        return f"stateless era ({STATELESS})"
    return f"legacy era (initialize handshake, {version})"


# ---- the page -------------------------------------------------------------------------

class Page:
    def __init__(self):
        self.out = []

    def __call__(self, *lines):
        self.out.extend(lines)

    def para(self, text):
        self.out.append(" ".join(text.split()))
        self.out.append("")

    def table(self, t):
        """A table as the run printed it, integers grouped by thousands and the eras
        called by this page's names."""
        if not t:
            return
        for line in t["lines"]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            cells = [f"{int(c):,}" if re.fullmatch(r"\d{4,}", c) else c for c in cells]
            cells = [era_words(c) for c in cells]
            self.out.append("| " + " | ".join(cells) + " |")
        self.out.append("")

    def text(self):
        return "\n".join(self.out).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--command", required=True)
    ap.add_argument("--started", type=int, required=True)
    ap.add_argument("--commit", default="unknown", help="the commit measured")
    ap.add_argument("--changed", type=int, default=0, help="tracked files changed from it")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    data, out = a.data, a.out
    perf = out / "perf"
    perf.mkdir(parents=True, exist_ok=True)
    for old in perf.glob("*.svg"):
        old.unlink()  # a chart this run does not draw must not stay from an earlier one

    started = datetime.datetime.fromtimestamp(a.started, datetime.timezone.utc)
    seconds = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
    took = f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
    rmcp_v, mcp_v = peer_versions()

    callgrind = md_tables(read(data, "callgrind.md"))
    stdio = md_tables(read(data, "stdio.md"))
    m3 = md_tables(read(data, "instr-m3.md"))
    m3_plans = md_tables(read(data, "instr-m3-plans.md"))
    small = {cpu: md_tables(read(data, f"instr-{cpu}.md")) for cpu in ("m0", "rv32")}
    matrix = md_tables(read(data, "matrix.md"))
    scaling = md_tables(read(data, "scaling.md"))
    net = md_tables(read(data, "net.md"))
    boards = md_tables(read(data, "boards.md"))
    goals = md_tables(read(data, "goals.md"))
    criterion = md_tables(read(data, "criterion.md"))
    size_txt = read(data, "size.txt").replace(f"{ROOT}/", "")
    fleet = json.loads(read(data, "fleet.json") or "null")

    p = Page()
    p("# Performance", "")
    p("<!-- Written by benches/run.sh (benches/report.py): do not edit; rerun the command. -->", "")
    if a.quick:
        p.para("""**A `--quick` run**: every part once, with small counts, to check that the
            benchmarks build and run. Its wall-clock figures are rough; the committed page,
            `docs/performance.md`, comes from a full run.""")
    p.para("""Every number and chart on this page was written by one run of the benchmarks;
        none is typed by hand. To refresh them, run the command again (it installs what it
        needs through the project's scripts and prints the same tables on stdout).""")
    p("| | |", "|---|---|")
    p(f"| command | `{a.command}` |")
    p(f"| date | {started:%Y-%m-%d %H:%M} UTC (the run took {took}) |")
    p(f"| commit | `{a.commit}`{f', {a.changed} tracked files changed from it' if a.changed else ''} |")
    p(f"| machine | {sh('nproc') or os.cpu_count()} cores (`nproc`), {cpu_model()}, "
      f"{platform.machine()}, Linux {platform.release()} |")
    qemu = (sh("qemu-system-arm", "--version").splitlines() or ["QEMU ?"])[0]
    p(f"| toolchain | {sh('rustc', '--version').split(' (')[0]}; {sh('valgrind', '--version')}; "
      f"{qemu.replace('QEMU emulator version', 'QEMU')}; "
      f"arm-none-eabi-gcc {sh('arm-none-eabi-gcc', '-dumpversion') or '?'} |")
    p("")
    p.para("""The machine is shared with other work and has few cores: instruction counts
        (callgrind on the host, QEMU's trace on the Cortex-M3) are exact and repeat to the
        instruction, while CPU time and wall time move from one minute to the next.""")

    # ---- goals
    g = table(goals, "Must reach")
    if g:
        p("## The goals", "")
        p.para("""The benchmark issue's "must reach" lines, each against what this run
            measured below (nothing is measured again for this table).""")
        p.table(g)
        note = [ln for ln in read(data, "goals.md").splitlines() if ln.startswith("Validating")]
        if note:
            p.para(note[0])

    # ---- CPU per message against the peers
    st = table(stdio, "End to end", "board")
    if st:
        p("## CPU per message against the peers", "")
        svg = cpu_chart(st, rmcp_v, mcp_v)
        if svg:
            (perf / "cpu-per-message.svg").write_text(svg)
            p("![CPU per message over stdio: emcp against rmcp and the Python SDK](perf/cpu-per-message.svg)", "")
        p.para(f"""`benches/harness` (`stdio-harness`) starts each board as a child process
            and pipes one mix of requests into its stdin — `tools/call read_sensor` three
            times, `tools/call set_led`, `resources/read` of a short text resource and of a
            4 KiB blob, `tools/list` — while a second thread reads the responses; every
            response is checked once all have arrived, so the harness's own JSON parsing
            does not compete with the server for the CPU. **CPU µs/msg** is the child's user
            and system time (`wait4`) per message, net of a start-up run that does the same
            handshake and warm-up without the measured requests. The boards are the same
            device (`docs/board.md`) built four ways: emcp's Rust sensor board
            (`examples/sensor-board`), emcp's C board through the C ABI
            (`examples/c-sensor-board`), the official Rust SDK `rmcp` {rmcp_v} on tokio and
            the official Python SDK `mcp` {mcp_v} (`benches/peers`).""")
        p.para("""The fast boards run in rounds, every board and era once per round; a
            ratio to emcp's Rust board is taken within a round (the same state of the
            machine), and the table gives the median of the rounds' ratios with their range
            in brackets. best/best divides the two boards' least CPU over the rounds, the
            runs least disturbed by the shared machine. The chart draws the median CPU on a
            log scale, with the median ratio at each bar's end. The CPU time of a server
            this cheap moves with the state of the shared machine, hence the rounds and the
            ranges.""")
        p.table(st)
        p.para("""Where the difference comes from: emcp answers a pipelined stream with few
            system calls (it reads and writes in large blocks, while a lone request is
            still answered at once), serves each message without a heap allocation, and
            writes the response as it goes; `rmcp` passes each message between tokio tasks
            (`futex` and `epoll_wait` around a `write` per response; `strace -c` shows
            them) and allocates as it deserialises each request and builds each
            response.""")

    # ---- instructions per message
    cg = table(callgrind, "Instructions per message", "case")
    mt = table(m3, "", "message")
    if cg:
        p("## Instructions per message", "")
        p.para("""The same request lines counted on two machines. **Host**:
            `Server::handle` of the Rust sensor board on x86-64 (release build, LTO), from
            the request line to the last response byte written into a sink that discards
            it, under callgrind (`benches/inproc/callgrind.sh`). **Cortex-M3**: the firmware
            image of the C sensor board (`examples/firmware`, with `bench.c` as its `main`)
            run in QEMU (mps2-an385) one instruction per translation block, every block's
            execution logged; the request bytes go through `emcp_server_feed` — the C ABI,
            the framer, the core, the C board's callbacks — to the last byte handed to the
            write callback (`benches/firmware/instr.sh`). Both are net of set-up: each
            case runs once with one message and once with 1 + N, with identical set-up
            (process or image start, the server, `initialize` in the legacy era), and
            (count(1 + N) − count(1)) / N is one message. The stateless era's requests
            carry `params._meta` (protocol version, client information and capabilities)
            and its results `resultType`, `ttlMs` and `serverInfo`.""")
        p(*instr_table(cg, mt))
        p("")
        ratio_note = m3_note(cg, mt)
        if ratio_note:
            p.para(ratio_note)
        small_rows = small_cpu_table(mt, small)
        if small_rows:
            p("### Cortex-M0 and RV32IMC", "")
            p.para("""The same full image (`make VARIANT=bench`) on the Cortex-M0 (QEMU's
                `microbit`, an nRF51822: ARMv6-M, no hardware divider, no atomic
                read-modify-write) and on RV32IMC (QEMU's `sifive_e`, the E31 core: the
                ESP32-C3's instruction set), counted the same way
                (`benches/firmware/instr.sh --cpu m0|rv32`):""")
            p(*small_rows)
            p("")
        mp = table(m3_plans, "", "message")
        if mp:
            p("### The Cortex-M3 image with compiled schemas", "")
            p.para("""The same image with the C board's input schemas compiled at build
                time (`emcp-plan`, emcp-ffi's feature `plans`: `make VARIANT=bench-plans`,
                `benches/firmware/instr.sh --plans`): a call's arguments are checked by the
                plan, without walking the schema's text, as the Rust board's are (the
                walker is not linked: emcp-ffi without `schema-walk`). Its footprint is
                the matrix's `c-plans` row.""")
            p.table(mp)
        va = table(callgrind, "Validating")
        if va:
            p("### Validating the request line alone", "")
            p.para("""What checking the `read_sensor` request line to be JSON costs, and
                nothing else (`instr --parse`, net of set-up the same way): emcp's own
                validating scan, a minimal validating scanner written as a reference
                (`benches/inproc/src/minimal.rs`: structure, strings and escapes, numbers,
                UTF-8, and nothing more; not part of emcp), `serde_json` into `IgnoredAny`
                and into a `Value` tree, beside the whole message.
                `benches/inproc/tests/parsers.rs` checks that the four agree on what is JSON
                (every transcript line, edge cases, truncations and byte changes of the
                request lines), so the rows measure the same work. In `Server::handle` the
                same single pass also files the members the server reads.""")
            p.table(va)
        cr = table(criterion, "Wall time")
        if cr:
            p("### Wall time in process", "")
            p.para("""criterion's mean wall time of `Server::handle` for the same
                messages (`cargo bench -p emcp-bench --bench handle`): on a shared machine
                this moves from run to run, where the instruction counts do not.""")
            p.table(cr)

    # ---- scaling
    echo = table(callgrind, "Scaling: echo_")
    blob = table(callgrind, "Scaling: blob_")
    ram = table(scaling, "", "case")
    if echo or blob or ram:
        p("## Scaling with message size", "")
        if echo or blob:
            (perf / "scaling.svg").write_text(scaling_chart(echo, blob))
            p("![Instructions per message against message size](perf/scaling.svg)", "")
            p.para("""Instructions per message (callgrind, as above) for an `echo` tool
                whose request line is 256 B to 64 KiB long, against the request size, and
                for a generated blob of 4 KiB to 1 MiB, base64-encoded on the fly, against
                the response size (`ScaleDevice` in `benches/inproc/src/lib.rs`; the `echo`
                schema has `maxLength`, so the check counts the characters of every
                request). Ir / B is the cost per byte of the whole message; *marginal* is
                the slope from one size to the next, constant where the cost is linear;
                the difference between the two at small sizes is the fixed cost of a
                message.""")
            note = slope_note(echo, blob)
            if note:
                p.para(note)
            p.table(echo)
            p.table(blob)
        elif a.quick:
            p.para("""(The instruction counts against message size are measured in full
                mode only: `--quick` runs callgrind on `read_sensor` alone.)""")
        if ram:
            svg = ram_chart(ram)
            if svg:
                (perf / "ram-by-size.svg").write_text(svg)
                p("![RAM of one message against response size](perf/ram-by-size.svg)", "")
            p.para("""RAM of one message on the 64-bit host
                (`cargo run --release -p emcp-bench --bin scaling`): `size_of` the server
                (all the state it keeps, the device included), of the
                `Framer<4096>` line buffer a stdio transport keeps (the response is
                streamed and needs no buffer), the peak stack of one `Server::handle`
                (found as `tests/stack.rs` finds it: a binary search, in child processes,
                for the most stack ballast the message still runs below, minus that of an
                empty run), and heap allocations per message, which must be 0
                (`benches/inproc/tests/ram.rs` checks it). A response is written as it is
                produced, so its size takes no RAM; a request must fit the framer's line
                buffer, so the `echo` rows over 4 KiB would need a larger `Framer<N>` than
                the one in the table (the chart shows the blobs).""")
            note = ram_note(ram)
            if note:
                p.para(note)
            p.table(ram)

    # ---- the fleet at scale
    if fleet and fleet["runs"]:
        p("## The fleet at scale", "")
        p.para("""N sensor boards on one broker behind one fleet gateway
            (`benches/fleet/scale.py`, [docs/fleet.md](fleet.md#scale)): for each N a fresh
            Mosquitto on a loopback port; the N devices in one process (`fleet-sim`, each
            the host sensor board served as `sensor-board --mqtt` serves it, on a thread
            of its own with its own broker connection); once all are online,
            `emcp-bridge mqtt --fleet` on stdio, driven by plain JSON lines for discovery
            and `tools/list`, then by the official Python SDK. A wrong list or answer
            fails the run.""")
        svg = scale.chart(fleet)
        if svg:
            (perf / "fleet-scale.svg").write_text(svg)
        p(*scale.render(fleet, "perf/fleet-scale.svg" if svg else None))

    # ---- the networked device under load
    runs = load.loads(data)
    if runs:
        p("## The networked device under load", "")
        p.para("""The sensor image of the networked firmware (`examples/net-firmware`, QEMU
            mps2-an385 with a LAN9118) under N clients at once, every request accounted for
            (`benches/firmware/load.sh`, `benches/firmware/load.py`): on QEMU's user network
            and on a tap network in a namespace of its own, as a board on a LAN. A lost
            request or a wrong answer fails the run; a refusal while there are no more
            clients than connection tasks is a goal not met, and fails the run with
            `--strict` (CI's quick run).""")
        svg = load.chart(runs)
        if svg:
            (perf / "net-load.svg").write_text(svg)
        p(*load.render(runs, "perf/net-load.svg" if svg else None))

    # ---- the host boards over a million messages
    soaked = soak.loads(data)
    if soaked and soaked["runs"]:
        p(soak.BEGIN, "## The host boards over a million messages", "")
        p(*soak.render(soaked))
        p(soak.END, "")

    # ---- firmware footprint
    mx = table(matrix, "", "image")
    fw = firmware_from_size(size_txt)
    if mx or fw:
        p("## Firmware footprint", "")
        svg = footprint_chart(mx, fw)
        if svg:
            (perf / "footprint.svg").write_text(svg)
            p("![Firmware footprint by image variant: flash and RAM](perf/footprint.svg)", "")
        p.para("""The firmware is the C sensor board (`examples/c-sensor-board`'s device
            code) on the C ABI, built for the Cortex-M3 (`m3`, QEMU's mps2-an385), the
            Cortex-M4F (`m4f`, mps2-an386), the Cortex-M0 (`m0`, `microbit`: nRF51822,
            16 KiB of RAM) and RV32IMC (`rv32`, `sifive_e`: FE310, 16 KiB of RAM) in
            release mode (`examples/firmware`). `text`, `data` and `bss` are the
            binutils `size`'s of each machine (`bss` without a reserved `.stack`
            region); flash holds `text` and the initial
            values of `data`. The stack peak is the high-water mark the firmware logs over
            semihosting after serving each transcript of `tests/transcripts/` in QEMU (the
            stack is filled with a pattern at start-up); RAM is `data` + `bss` + the
            deepest of those peaks; the last column counts the call sites that can reach
            `core::panicking` (`panic_paths.py`). The images `c-*` are the Makefile's
            variants: `c-full` the whole board; `c-tools` its tools only (`board.c` built
            with `-DBOARD_TOOLS_ONLY`, and the library without the capabilities it does not
            serve: the features `resources`, `prompts`, `completions`, `logging` and
            `pagination` left out); `c-tools-legacy` the same with the initialize era only;
            `c-legacy`, `c-stateless` the whole board with one era (the core's features
            `legacy` or `stateless`); `c-plans` the whole board with its input schemas
            compiled at build time (`emcp-plan`, emcp-ffi's feature `plans`: the plan
            checker instead of the schema walker, feature `schema-walk`, and the plans'
            words). The features `http`,
            `input` and `tasks` are not in these images. The rows `rust-full` are the Rust firmware without the C ABI
            (`examples/rust-firmware`: the Rust sensor board on `cortex-m-rt`, served by
            `emcp::transport::serve::serve`, both eras; every schema compiled by
            `emcp::tool!`, so emcp is built without the schema walker), measured the same
            way.""")
        if mx:
            p.table(mx)
        panics = re.findall(r"core::panicking symbols: (\S+)", size_txt)
        if panics and all(x == "none" for x in panics):
            p.para("""The full board's release images link no `core::panicking` symbol: `size.sh` reads their
                symbol table, and lists the call sites of any that appears.""")
        if fw:
            p.para("""`examples/firmware/size.sh` on the full board (the limits it checks
                in CI, and the `core::panicking` symbols linked into each image, with the
                calls that can reach them when there are any):""")
            p("```", size_txt.rstrip(), "```", "")
        if not mx and a.quick:
            p.para("""(The matrix of image variants is built in full mode only.)""")

    # ---- the firmware on the network
    net_size = next((t for t in net if t["header"][:2] == ["image", "flash (text + data)"]), None)
    net_panics = next((t for t in net if t["header"][1:2] and t["header"][1].startswith("call sites")), None)
    net_instr = table(net, "", "era")
    if net_size or net_instr:
        p("## The firmware on the network", "")
        p.para("""`examples/net-firmware`: a Rust Cortex-M3 image for QEMU's mps2-an385
            (LAN9118 Ethernet) on Embassy and embassy-net (smoltcp), serving Streamable HTTP
            itself, measured by `benches/firmware/net.sh`. Flash is `text` + `data` of
            `arm-none-eabi-size`, against the 256 KiB part `memory.x` describes; static RAM
            is `data` + `bss`, broken down by the largest statics (`arm-none-eabi-nm`): the
            connections (the connection tasks' and listeners' futures, each task's request
            and response buffers, the sockets' rings), the network stack's sockets, the
            Ethernet frame buffers. Every task runs on the one stack, so the stack peak is
            the whole program's: the high-water mark the firmware logs after the bench asked
            for every tool, resource and prompt the image lists, in both eras, within the
            image's stack region. RAM in use is static RAM plus that peak, against the 64 KiB
            part. The image serves as many connections at once as it has connection tasks;
            it has more sockets (the listen backlog), each not in use listening, so that a
            new connection that comes as another ends finds one; a connection that finds
            every task busy for half a second is answered 503.""")
        if net_size:
            p.table(net_size)
        if net_panics:
            p.para("""Where a panic could start in these images (`examples/firmware/panic_paths.py`:
                the calls into code that reaches `core::panicking`), counted by the crate of
                the calling function. The core's own code has none; the network stack,
                the executor and the logger bring theirs.""")
            p.table(net_panics)
        if net_instr:
            p.para("""Instructions per HTTP `tools/call read_sensor` on the sensor image:
                QEMU runs it one instruction per translation block with every block logged
                (as for the UART image above); the firmware is tickless, so an idle device
                executes nothing, and two runs that differ only by N requests give
                (trace(1 + N) - trace(1)) / N: the Ethernet driver, TCP/IP, the executor,
                HTTP, the core and the board. `keep-alive` sends every request on one
                connection, as MCP clients do; `new connection` opens one per request
                (`Connection: close`), so TCP's handshake and close are in the count.""")
            p.table(net_instr)

    # ---- the Wi-Fi boards
    board_sizes = next((t for t in boards if t["header"][:2] == ["image", "target"]), None)
    if board_sizes:
        p("## The Wi-Fi boards", "")
        p.para("""The board images of `docs/boards.md` (`examples/boards/*`: the same
            application as the networked firmware above, `examples/net-app`, on the
            boards' own network interfaces), built release with placeholder Wi-Fi
            credentials and measured by `benches/firmware/boards.sh`; built, not run.
            `text`, `data` and `bss` are the binutils `size` of the ELF; flash is `text` +
            `data` against the board's flash, static RAM `data` + `bss` against the chip's
            RAM (the stack takes what is left). On the Pico W and Pico 2 W, 231,077 B of
            `text` is the CYW43439's Wi-Fi firmware. On the ESP32-C3 and C6 the sizes come
            from the section headers (`examples/boards/esp32c3/size.py`: `size` counts the
            linker's address reservations as text): `text` includes the code the boot
            copies into IRAM, static RAM adds it to `data` + `bss`, and `bss` holds 36 KiB
            of the radio's heap (its other 64 KiB is RAM reclaimed from the bootloader,
            outside the RAM counted). The panic call sites are counted as for the
            networked firmware.""")
        p.table(board_sizes)

    p("## How to reproduce", "")
    p("```sh")
    p("bash benches/run.sh           # everything: writes docs/performance.md and docs/perf/*.svg")
    p("bash benches/run.sh --quick   # every part once (CI): writes target/bench-quick/")
    p("benches/inproc/callgrind.sh read_sensor            # host instructions, some cases")
    p("benches/firmware/instr.sh --profile read_sensor 2025-11-25   # Cortex-M3, by function")
    p("examples/firmware/size.sh --by-source              # where the M3 image's text goes")
    p("benches/firmware/net.sh                            # the networked image: footprint, instructions")
    p("benches/firmware/boards.sh                         # the Wi-Fi board images: footprint, panic sites")
    p("benches/firmware/load.sh                           # the networked image under load (root: also a tap LAN)")
    p("benches/soak.sh --page docs/performance.md         # the host boards over a million messages")
    p(".tools/venv/bin/python benches/fleet/scale.py --page docs/fleet-scale.md --section docs/fleet.md"
      "   # the fleet at scale")
    p("```")
    (out / "performance.md").write_text(p.text())
    print(f"report.py: wrote {out / 'performance.md'} and {len(list(perf.glob('*.svg')))} charts in {perf}",
          file=sys.stderr)


# ---- tables and sentences computed from the run ------------------------------------------

def small_cpu_table(mt, small):
    """One row per message and era of the small cpus' instruction tables, beside the
    Cortex-M3's: [] when a table is missing."""
    tables = {cpu: table(t, "", "message") for cpu, t in small.items()}
    if not mt or not all(tables.values()):
        return []
    def counts(t):
        return {(r[0], r[1]): num(r[-1]) for r in t["rows"]}
    m3 = counts(mt)
    per = {cpu: counts(t) for cpu, t in tables.items()}
    names = [BOARDS[cpu] for cpu in tables]
    lines = ["| message | era | Cortex-M3 | " + " | ".join(f"{n} | {n} / M3" for n in names) + " |",
             "|---|---|---:|" + "---:|---:|" * len(names)]
    for key, base in m3.items():
        cells = []
        for cpu in tables:
            n = per[cpu].get(key)
            cells += [f"{n:,}" if n else "–", f"{n / base:.2f}" if n and base else "–"]
        lines.append(f"| {key[0]} | {key[1]} | {base:,} | " + " | ".join(cells) + " |")
    return lines


def instr_table(cg, mt):
    """One row per message and era: bytes, host Ir, Cortex-M3 instructions, their ratio."""
    host = {(r[0], r[1]): r for r in cg["rows"]}
    dev = {(r[0], r[1]): r for r in mt["rows"]} if mt else {}
    lines = ["| message | era | request / response B | host x86-64 (Ir) | Cortex-M3 | M3 / host |",
             "|---|---|---:|---:|---:|---:|"]
    order = [k for k in host if not k[0].startswith(("echo_", "blob_"))]
    order.sort(key=lambda k: (k[1], [r[0] for r in cg["rows"]].index(k[0])))
    for name, era in order:
        h = host[(name, era)]
        ir = num(h[5])
        d = dev.get((name, era))
        m = num(d[5]) if d else None
        lines.append(f"| `{name}` | {era} | {grouped(num(h[2]))} / {grouped(num(h[3]))} | {grouped(ir)} | "
                     f"{grouped(m) if m else '-'} | {f'{m / ir:.1f}' if m and ir else '-'} |")
    return lines


def m3_note(cg, mt):
    if not mt:
        return ""
    host = {(r[0], r[1]): num(r[5]) for r in cg["rows"]}
    ratios = [num(r[5]) / host[(r[0], r[1])] for r in mt["rows"] if host.get((r[0], r[1]))]
    rs = [r for r in mt["rows"] if r[0] == "read_sensor" and r[1] != STATELESS]
    text = ""
    if ratios:
        span = f"{min(ratios):.1f}" if f"{min(ratios):.1f}" == f"{max(ratios):.1f}" else \
            f"{min(ratios):.1f} to {max(ratios):.1f}"
        text += (f"The Cortex-M3 runs {span} times the host's "
                 "instructions for the same request line. Most of the speed of the host build is in "
                 "forms compiled for 64-bit targets only (strings scanned and "
                 "compared eight bytes at a time, among others), where image size does not matter, while the 32-bit firmware keeps "
                 "the smaller code; this image's C board also hands its input schemas over as JSON "
                 "text, walked for every call, where the Rust board's are compiled (`emcp::tool!`; "
                 "the C image with plans compiled by `emcp-plan` is measured below), and "
                 "formats its own text and structured content, which the core checks. "
                 "`benches/firmware/instr.sh --profile MESSAGE ERA` shows where a message's "
                 "instructions go, function by function.")
    if rs:
        n, req, resp = num(rs[0][5]), num(rs[0][2]), num(rs[0][3])
        lo, hi = n / 48e6 * 1e3, 2 * n / 48e6 * 1e3
        uart = (req + resp) * 10 / 115200 * 1e3
        text += (f" On a device: at one to two cycles per instruction, a 48 MHz Cortex-M3 spends "
                 f"{lo:.2f} to {hi:.2f} ms of CPU on `read_sensor` ({rs[0][1]}), while its "
                 f"{req + resp} bytes in and out take {uart:.0f} ms on a 115,200-baud UART "
                 "(10 bits a byte).")
    return text


def slope_note(echo, blob):
    """The marginal cost per byte between the two largest sizes, per era."""
    parts = []
    for t, what in ((echo, "request"), (blob, "response")):
        if not t:
            continue
        last = {}
        for r in t["rows"]:
            if num(r[5]) is not None:
                last[r[1]] = r[5]
        if last:
            parts.append(" / ".join(f"{v} ({era})" for era, v in last.items())
                         + f" instructions per extra {what} byte")
    if not parts:
        return ""
    return ("Between the two largest sizes, the cost per extra byte is " + "; ".join(parts)
            + ": where the marginal column stays the same from size to size, the cost is linear.")


def ram_note(ram):
    rows = [r for r in ram["rows"] if r[0].startswith("blob_")]
    if len(rows) < 2:
        return ""
    by_era = {}
    for r in rows:
        by_era.setdefault(r[1], []).append(r)
    same = all(len({(r[4], r[6]) for r in rs}) == 1 for rs in by_era.values())
    sizes = sorted({int(r[0].split("_", 1)[1]) for r in rows})
    lo, hi = charts.fmt_bytes(sizes[0]), charts.fmt_bytes(sizes[-1])
    if same:
        return (f"RAM does not grow with the message: a blob of {lo} and one of {hi} (base64 "
                "in the response) are served with the same server size and the same stack peak, within the search's "
                "resolution, in each era.")
    return (f"The server size or the stack peak differs between a {lo} and a {hi} blob "
            "in this run: see the table.")


def firmware_from_size(text):
    """size.sh's report: {board: {text, data, bss, stack}} (stack: after all transcripts)."""
    out = {}
    for block in text.split("== ")[1:]:
        board = block.split()[0]
        m = re.search(r"text\s+(\d+)\s+data\s+(\d+)\s+bss\s+(\d+)", block)
        s = re.search(r"(\d+) after all transcripts", block)
        if m and s:
            out[board] = dict(text=int(m[1]), data=int(m[2]), bss=int(m[3]), stack=int(s[1]))
    return out


# ---- charts -----------------------------------------------------------------------------

def cpu_chart(st, rmcp_v, mcp_v):
    names = {
        "emcp-rust": ("emcp, Rust board", charts.PALETTE[0]),
        "emcp-c": ("emcp, C board", charts.PALETTE[4]),
        "rmcp": (f"rmcp {rmcp_v} (official Rust SDK)", charts.PALETTE[1]),
        "python-sdk": (f"mcp {mcp_v} (official Python SDK)", charts.PALETTE[5]),
    }
    groups = {}
    for r in st["rows"]:
        board, era, cpu, ratio = r[0], r[1], num(r[3]), r[4]
        version = era.split()[-1]
        label, colour = names.get(board, (board, charts.PALETTE[6]))
        if cpu:
            x = ratio.split()[0]
            end = f"{charts.fmt(cpu)} µs" + ("" if board == "emcp-rust" else f"  ({x}× emcp)" if x != "n/a" else "")
        else:
            end = "not measured (N too small for this board)"
        groups.setdefault(era_name(version), []).append((label, cpu or None, end, colour))
    if not any(v for rows in groups.values() for _, v, _, _ in rows):
        return ""
    return charts.hbars(
        "CPU per message over stdio",
        "Child CPU time per message of a pipelined request mix, net of start-up (median; log scale)",
        list(groups.items()), "µs of CPU per message (log scale)", log=True)


def scaling_chart(echo, blob):
    series = []
    for t, what, colour in ((echo, "echo: request bytes", charts.PALETTE[0]),
                            (blob, "blob: response bytes", charts.PALETTE[1])):
        if not t:
            continue
        col = 2
        eras = []
        for r in t["rows"]:
            if r[1] not in eras:
                eras.append(r[1])
        for era in eras:
            pts = [(num(r[col]), num(r[3])) for r in t["rows"] if r[1] == era]
            series.append((f"{what}, {era}", colour, era == STATELESS, pts))
    if not series:
        return ""
    return charts.loglog_lines(
        "Instructions per message against message size",
        "callgrind, host x86-64, net of set-up; both axes logarithmic",
        series, "message size: the request's for echo, the response's for blob", "instructions per message")


def ram_chart(ram):
    # Blobs only: a request must fit the line buffer, so the framer an `echo` of 64 KiB
    # needs is larger than the Framer<4096> in the table.
    rows = [r for r in ram["rows"] if r[0].startswith("blob_") and num(r[6]) is not None]
    if not rows:
        return ""
    labels, server, framer, stack = [], [], [], []
    for r in rows:
        labels.append(f"blob of {charts.fmt_bytes(int(r[0].split('_', 1)[1]))} · {r[1]}")
        server.append(num(r[4]))
        framer.append(num(r[5]))
        stack.append(num(r[6]))
    fr = ram["header"][5].replace(" B", "")
    return charts.stacked_hbars(
        "RAM of one message against response size",
        "64-bit host: the server's size, the stdio line buffer and the peak stack of one message; no heap",
        labels,
        [("RAM, bytes", "bytes", [
            ("Server (size_of)", charts.PALETTE[0], server),
            (f"{fr} (size_of)", charts.PALETTE[4], framer),
            ("peak stack of one message", charts.PALETTE[1], stack)])])


def footprint_chart(mx, fw):
    labels, text, data, bss, stack = [], [], [], [], []
    if mx:
        for r in mx["rows"]:
            labels.append(f"{era_words(r[0])} · {BOARDS.get(r[1], r[1])}")
            text.append(num(r[2]))
            data.append(num(r[3]))
            bss.append(num(r[4]))
            stack.append(num(r[5]))
    else:
        for board, f in fw.items():
            labels.append(f"full board · {BOARDS.get(board, board)}")
            text.append(f["text"])
            data.append(f["data"])
            bss.append(f["bss"])
            stack.append(f["stack"])
    if not labels:
        return ""
    return charts.stacked_hbars(
        "Firmware footprint by image variant" if mx else "Firmware footprint of the full board",
        "C sensor board on the C ABI (rust-full: the Rust board on emcp::serve), release build (arm-none-eabi-size; stack: high-water mark over every transcript)",
        labels,
        [("Flash: text + data", "bytes", [
            ("text", charts.PALETTE[0], text), ("data", charts.PALETTE[2], data)]),
         ("RAM: data + bss + stack peak", "bytes", [
             ("data", charts.PALETTE[2], data), ("bss", charts.PALETTE[4], bss),
             ("stack peak", charts.PALETTE[1], stack)])])


if __name__ == "__main__":
    main()
