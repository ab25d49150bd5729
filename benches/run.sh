#!/usr/bin/env bash
# The whole benchmark comparison in one run, printed as Markdown on stdout and written
# as a page with charts.
#
#   benches/run.sh            # full; writes docs/performance.md (which says how long it took)
#   benches/run.sh --quick    # CI: every part once, small N (checks it builds and runs);
#                             # writes target/bench-quick/performance.md
#   benches/run.sh [--quick] --out DIR   # the page and its charts into DIR instead
#                                        # (relative to the repository's root)
#
# 1. In-process: instructions per message under callgrind (benches/inproc/callgrind.sh),
#    and criterion's wall time per message (benches/inproc; --quick: each bench once).
# 2. End to end over stdio (benches/harness): the same pipelined request mix into the
#    Rust board, the C board, the rmcp board and the Python SDK board
#    (benches/peers/), every response checked; child CPU per message net of start-up,
#    messages per second, peak RSS, and each board's CPU per message as a multiple of
#    emcp's (Rust board, same era). The fast boards run in rounds (5; --quick: 1), every
#    board and era once per round, and a ratio is the median of the rounds' own ratios.
#    (--quick builds the rmcp board in the dev profile: its ratios mean nothing then.)
# 3. The firmware: footprint of the image on each board (examples/firmware/size.sh:
#    M3, M4F, M0, RV32IMC), instructions per
#    message on the Cortex-M3 under QEMU (benches/firmware/instr.sh; --quick:
#    read_sensor only; and read_sensor on the image with plans, instr.sh --plans, and
#    on the Cortex-M0 and RV32IMC images, instr.sh --cpu m0|rv32), and in full mode the
#    matrix of image variants x Cortex-M3/M4F/M0/RV32IMC
#    (size.sh --matrix); the networked image's footprint and instructions per HTTP
#    request (benches/firmware/net.sh; --quick: N=2); the Wi-Fi boards' images
#    (benches/firmware/boards.sh: text, data, bss, panic call sites).
# 4. Scaling: RAM against response size (benches/inproc scaling); the fleet at scale
#    (benches/fleet/scale.py: N sensor boards in one process, each an MCP-over-MQTT
#    device, on one Mosquitto behind one emcp-bridge --fleet under the Python SDK; N =
#    1, 10, 100, 500, 1000 and a ramp of connections to the broker's limit; --quick:
#    N = 1, 10, no ramp): discovery, tools/list, tools/call per second, memory.
#    The networked device under load (benches/firmware/load.sh: the sensor image in QEMU
#    under N = 1, 2, 4, its connection tasks and more clients at once, keep-alive and a
#    new connection per request, on QEMU's user network and on a tap network in a
#    namespace (needs root; else the user network only); 60 s per point, --quick 3 s):
#    requests/s, latency percentiles, 503s, refusals; a lost request fails the run, and
#    with --quick (CI) so does a refusal or 503 with no more clients than connection
#    tasks (load.sh --strict; a full run shows it as a goal not met).
#    The host soak (benches/soak.sh): 1,000,000 messages (--quick 20,000) through the
#    Rust board, the C board and emcp-bridge exec in front of each, every response
#    checked, VmRSS/VmHWM of each process at the start, every 100,000 and the end.
# 5. The goals the benchmark issue sets ("must reach"), each against what this run
#    measured above: met or not.
# 6. The page: benches/report.py writes DIR/performance.md (the header says when, from
#    which commit, with which command, on which machine; the tables above with what
#    each measures) and its SVG charts in DIR/perf/ (CPU per message against the
#    peers, cost and RAM against message size, firmware footprint by variant, the fleet
#    against its size), from this run's outputs only. Nothing is written when a part
#    fails.
#
# Installs what it needs through the project's scripts (valgrind, the ARM toolchain
# and QEMU, the Python venv, the peers). Build output and progress go to stderr; never
# asserts a time. Exits non-zero when a part fails (a wrong response, a build error).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

started=$(date +%s)
command="bash benches/run.sh${*:+ $*}"
quick=0
out=
while [ $# -gt 0 ]; do
    case $1 in
        --quick) quick=1 ;;
        --out)
            out=${2:?--out needs a directory}
            shift
            ;;
        *)
            echo "usage: benches/run.sh [--quick] [--out DIR]" >&2
            exit 2
            ;;
    esac
    shift
done
[ -n "$out" ] || out=$([ "$quick" = 1 ] && echo target/bench-quick || echo docs)
# The code measured: the commit, and whether tracked files differ from it (the page this
# run replaces aside).
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
changed=$(git status --porcelain --untracked-files=no -- . ":(exclude)$out/performance.md" \
    ":(exclude)$out/perf" 2>/dev/null | wc -l)
if [ "$quick" = 1 ]; then
    n_fast=2000 n_slow=500 runs=1
else
    n_fast=20000 n_slow=2000 runs=3
fi

log() { echo "benches/run.sh: $*" >&2; }

log "setting up (valgrind, ARM toolchain, Python venv, peers)"
scripts/setup-c-tools.sh >&2
scripts/setup-rust-targets.sh >&2
scripts/setup-python.sh >&2
scripts/setup-mqtt.sh >&2
bash benches/peers/setup.sh $([ "$quick" = 1 ] && echo --quick) >&2
cargo build --release -p sensor-board -p emcp-harness -p emcp-bench -p emcp-bridge >&2
examples/c-sensor-board/run.sh </dev/null >/dev/null 2>&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# emcp benchmarks"
echo
echo "$(date -u +%Y-%m-%d), \`benches/run.sh$([ "$quick" = 1 ] && echo " --quick")\`," \
    "$(nproc) cores ($(uname -m)), $(rustc --version | cut -d' ' -f1-2)."
echo

# ---- 1. in-process ---------------------------------------------------------------------
log "in-process: callgrind"
if [ "$quick" = 1 ]; then
    bash benches/inproc/callgrind.sh read_sensor | tee "$tmp/callgrind.md"
else
    bash benches/inproc/callgrind.sh | tee "$tmp/callgrind.md"
fi
echo
if [ "$quick" = 1 ]; then
    # Each bench once, built in the test profile: checks that they build and run,
    # without the release build of criterion (minutes on 2 cores).
    log "in-process: criterion, each bench once (cargo test --benches)"
    cargo test -q -p emcp-bench --benches >&2
else
    log "in-process: criterion"
    cargo bench -p emcp-bench --bench handle -- --warm-up-time 1 --measurement-time 3 \
        'read_sensor|read_text|read_blob_4k|tools_list' >&2
    {
        echo "### Wall time per message in-process (criterion, mean)"
        echo
        python3 - "$root/target/criterion" <<'PY'
import json, pathlib, sys
rows = []
for est in sorted(pathlib.Path(sys.argv[1]).glob("*/*/new/estimates.json")):
    group, case = est.parts[-4], est.parts[-3]
    if group in ("read_sensor", "read_text", "read_blob_4k", "tools_list"):
        ns = json.loads(est.read_text())["mean"]["point_estimate"]
        rows.append(f"| {group} | {case} | {ns / 1000:.2f} |")
print("| case | era | µs / msg |\n|---|---|---:|")
print("\n".join(rows))
PY
    } | tee "$tmp/criterion.md"
    echo
fi

# ---- 2. end to end over stdio -----------------------------------------------------------
harness=target/release/stdio-harness
rmcp_board=benches/peers/rmcp-board/target/$([ "$quick" = 1 ] && echo debug || echo release)/rmcp-board
python_board=(.tools/venv/bin/python benches/peers/python-board/board.py)
run() { # file name era n runs -- command...
    local file=$1 name=$2 era=$3 n=$4 r=$5
    shift 6
    log "stdio: $name ($era, N=$n)"
    "$harness" --json --quiet --name "$name" --era "$era" --n "$n" --runs "$r" -- "$@" \
        >>"$file"
}
# The fast boards in rounds, each round running every board and era once: a ratio is
# taken between runs of the same round (the same state of a shared machine), and its
# median over the rounds reported with its range.
rounds=$([ "$quick" = 1 ] && echo 1 || echo 5)
for round in $(seq 1 "$rounds"); do
    f="$tmp/stdio-fast.jsonl"
    for era in legacy stateless; do
        run "$f" emcp-rust "$era" "$n_fast" 1 -- target/release/sensor-board
        run "$f" emcp-c "$era" "$n_fast" 1 -- target/c-sensor-board/c-sensor-board
        run "$f" rmcp "$era" "$n_fast" 1 -- "$rmcp_board"
    done
done
run "$tmp/stdio-slow.jsonl" python-sdk legacy "$n_slow" "$runs" -- "${python_board[@]}"
run "$tmp/stdio-slow.jsonl" python-sdk stateless "$n_slow" "$runs" -- "${python_board[@]}"

{
    echo "### End to end over stdio (pipelined, every response checked)"
    echo
    echo "Fast boards: $rounds round(s), each running every board and era once (one measured"
    echo "run and one start-up run); CPU and msg/s are medians over the rounds, × emcp-rust the"
    echo "median of each round's own ratio (range in brackets), best/best the ratio of the two"
    echo "boards' least CPU over the rounds (the runs least disturbed by the shared machine)."
    echo "The Python SDK: median of $runs runs, against the median of emcp-rust."
    echo
    python3 - "$tmp/stdio-fast.jsonl" "$tmp/stdio-slow.jsonl" "$tmp/ratios.json" <<'PY'
import json, statistics, sys
fast = [json.loads(l) for l in open(sys.argv[1])]
slow = [json.loads(l) for l in open(sys.argv[2])]
# Each board and era's per-round ratios, for the goals at the end.
found = {}
keys = []
for r in fast + slow:
    if (r["name"], r["era"]) not in keys:
        keys.append((r["name"], r["era"]))
def rows(name, era, src):
    return [r for r in src if r["name"] == name and r["era"] == era]
# Round k of a fast board is its k-th row (rows are appended round by round).
base_rows = {era: rows("emcp-rust", era, fast) for era in ("legacy", "stateless")}
base_med = {era: statistics.median(r["cpu_us_per_msg"] for r in rs) for era, rs in base_rows.items() if rs}
base_min = {era: min(r["cpu_us_per_msg"] for r in rs) for era, rs in base_rows.items() if rs}
print("| board | era | N | CPU µs/msg | × emcp-rust | best/best | msg/s | peak RSS KiB |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for name, era in keys:
    rs = rows(name, era, fast) or rows(name, era, slow)
    cpus = [r["cpu_us_per_msg"] for r in rs]
    cpu = statistics.median(cpus)
    if rows(name, era, fast):
        ratios = [r["cpu_us_per_msg"] / b["cpu_us_per_msg"]
                  for r, b in zip(rs, base_rows[era]) if b["cpu_us_per_msg"] > 0]
    else:
        ratios = [cpu / base_med[era]] if base_med.get(era) else []
    # A small N of a slow-starting server can end below the start-up run's noise.
    cpu_s = f"{cpu:.2f}" if cpu > 0 else "n/a (N too small)"
    if ratios and cpu > 0:
        found[f"{name} {era}"] = ratios
        ratio = f"{statistics.median(ratios):.1f}"
        if len(ratios) > 1:
            ratio += f" ({min(ratios):.1f}–{max(ratios):.1f})"
    else:
        ratio = "n/a"
    best = "-"
    if rows(name, era, fast) and base_min.get(era, 0) > 0 and min(cpus) > 0:
        best = f"{min(cpus) / base_min[era]:.1f}"
    msgs = statistics.median(r["msgs_per_s"] for r in rs)
    rss = max(r["peak_rss_kib"] for r in rs)
    r0 = rs[0]
    print(f'| {name} | {era} {r0["protocol_version"]} | {r0["n"]} | {cpu_s} | '
          f'{ratio} | {best} | {msgs:.0f} | {rss} |')
with open(sys.argv[3], "w") as f:
    json.dump(found, f)
PY
} | tee "$tmp/stdio.md"
echo

# ---- 3. footprint ---------------------------------------------------------------------
log "footprint: examples/firmware/size.sh"
echo "### Firmware footprint (examples/firmware/size.sh)"
echo
echo '```'
bash examples/firmware/size.sh | tee "$tmp/size.txt"
echo '```'
echo
log "firmware: instructions per message on the Cortex-M3 (benches/firmware/instr.sh)"
echo "### Instructions per message on the Cortex-M3 firmware (QEMU trace, net of set-up)"
echo
echo "The full board's image: request bytes fed through \`emcp_server_feed\` (C ABI, framer,"
echo "core, the C board's callbacks) to the last response byte handed to the write callback."
echo
if [ "$quick" = 1 ]; then
    bash benches/firmware/instr.sh read_sensor | tee "$tmp/instr-m3.md"
else
    bash benches/firmware/instr.sh | tee "$tmp/instr-m3.md"
fi
echo
echo "The same image with the C board's input schemas compiled at build time (emcp-ffi's"
echo "\`plans\`, \`make VARIANT=bench-plans\`): a call's arguments checked without walking"
echo "schema text."
echo
bash benches/firmware/instr.sh --plans read_sensor | tee "$tmp/instr-m3-plans.md"
echo
echo "The same full image on the Cortex-M0 (QEMU microbit: thumbv6m, no divider, no"
echo "atomic read-modify-write) and on RV32IMC (QEMU sifive_e): \`instr.sh --cpu m0|rv32\`."
echo
for cpu in m0 rv32; do
    log "firmware: instructions per message on $cpu (benches/firmware/instr.sh --cpu $cpu)"
    bash benches/firmware/instr.sh --cpu "$cpu" read_sensor | tee "$tmp/instr-$cpu.md"
    echo
done
if [ "$quick" = 0 ]; then
    log "footprint matrix: examples/firmware/size.sh --matrix"
    echo "### Footprint matrix (examples/firmware/size.sh --matrix; stack peak over every transcript)"
    echo
    bash examples/firmware/size.sh --matrix | tee "$tmp/matrix.md"
    echo
fi

log "the firmware on the network: benches/firmware/net.sh"
echo "### The firmware on the network (benches/firmware/net.sh)"
echo
if [ "$quick" = 1 ]; then
    bash benches/firmware/net.sh --quick | tee "$tmp/net.md"
else
    bash benches/firmware/net.sh | tee "$tmp/net.md"
fi
echo

log "the Wi-Fi boards: benches/firmware/boards.sh"
echo "### The Wi-Fi boards (benches/firmware/boards.sh)"
echo
bash benches/firmware/boards.sh | tee "$tmp/boards.md"
echo

# ---- 4. scaling -----------------------------------------------------------------------
log "scaling: RAM against response size"
cargo run -q --release -p emcp-bench --bin scaling | tee "$tmp/scaling.md"
echo
log "the fleet at scale: benches/fleet/scale.py"
if [ "$quick" = 1 ]; then
    fleet_args=(--n 1,10 --calls 100 --lists 2 --ramp 0)
else
    fleet_args=(--n 1,10,100,500,1000 --calls 1000 --lists 5 --ramp 24000)
fi
.tools/venv/bin/python benches/fleet/scale.py "${fleet_args[@]}" --json "$tmp/fleet.json" \
    | tee "$tmp/fleet.md"
echo

log "the networked device under load: benches/firmware/load.sh"
echo "### The networked device under load (benches/firmware/load.sh)"
echo
# shellcheck disable=SC2046 # --quick --strict: two words, or none
bash benches/firmware/load.sh $([ "$quick" = 1 ] && echo --quick --strict) --json "$tmp" | tee "$tmp/load.md"
echo

log "the host boards over a million messages: benches/soak.sh"
echo "### The host soak (benches/soak.sh)"
echo
bash benches/soak.sh $([ "$quick" = 1 ] && echo --quick) --json "$tmp" | tee "$tmp/soak.md"
echo

# ---- 5. the goals ---------------------------------------------------------------------
# The benchmark issue's "must reach" lines, from the numbers above (nothing re-measured).
{
    echo "### Must reach"
    echo
    python3 - "$tmp/callgrind.md" "$tmp/ratios.json" "$tmp/size.txt" "$tmp/fleet.json" "$tmp" <<'PY'
import json, re, statistics, sys
sys.path.insert(0, "benches/fleet")
sys.path.insert(0, "benches/firmware")
import load
import scale
sys.path.insert(0, "benches")
import soak
ir = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 6 and cells[0] == "read_sensor" and cells[5].isdigit():
        ir[cells[1]] = int(cells[5])
ratios = json.load(open(sys.argv[2]))
size = open(sys.argv[3]).read()
# The M3 image's section of size.sh's report (the M4F's follows it).
m3 = size.split("== m3", 1)[1].split("== ", 1)[0] if "== m3" in size else ""
text = re.search(r"text\s+(\d+)", m3)
ram = re.search(r"RAM \(data \+ bss \+ stack peak\):\s+(\d+)", m3)
yes = lambda ok: "yes" if ok else "**no**"
print("| goal | must | measured | met |")
print("|---|---|---|---|")
for era, n in ir.items():
    print(f"| `tools/call read_sensor` in process ({era}) | ≤ 1,000 instructions | {n:,} | {yes(n <= 1000)} |")
for era, name in (("legacy", "initialize era"), ("stateless", "2026-07-28")):
    rs = ratios.get(f"rmcp {era}")
    if not rs:
        continue
    med, low = statistics.median(rs), min(rs)
    if len(rs) > 1:
        got = f"median {med:.1f}× (slowest round {low:.1f}×, {len(rs)} rounds)"
    else:
        got = f"{med:.1f}× (1 round)"
    met = yes(med >= 30) + ("" if low >= 30 or len(rs) == 1 else "; not in every round")
    print(f"| CPU per message over stdio vs `rmcp` ({name}) | ≥ 30× lower | {got} | {met} |")
if text:
    t = int(text.group(1))
    print(f"| firmware `text`, Cortex-M3 full board | ≤ 24,576 B | {t:,} | {yes(t <= 24576)} |")
if ram:
    r = int(ram.group(1))
    print(f"| firmware RAM (static + stack peak), Cortex-M3 | ≤ 4,096 B | {r:,} | {yes(r <= 4096)} |")
for goal, must, got, met in scale.goal_rows(json.load(open(sys.argv[4]))):
    print(f"| {goal} | {must} | {got} | {met} |")
for goal, must, got, met in load.goal_rows(load.loads(sys.argv[5])):
    print(f"| {goal} | {must} | {got} | {met} |")
for goal, must, got, met in soak.goal_rows(soak.loads(sys.argv[5])):
    print(f"| {goal} | {must} | {got} | {met} |")
# Context for the instruction goal: validation alone (callgrind.sh's last table).
alone = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 5 and cells[1].isdigit() and not cells[0].startswith("the whole"):
        alone[cells[0]] = int(cells[1])
if alone:
    ranked = sorted(alone.items(), key=lambda kv: kv[1])
    print()
    print("Validating the 2025-11-25 `read_sensor` request alone (no lookup, no dispatch, no "
          "response) costs: " + "; ".join(f"{k} {v:,}" for k, v in ranked)
          + (" instructions — each more than the goal allows for the whole round trip."
             if ranked[0][1] > 1000 else " instructions."))
PY
} | tee "$tmp/goals.md"

# ---- 6. the page ----------------------------------------------------------------------
log "writing $out/performance.md and its charts ($out/perf/)"
python3 benches/report.py "$tmp" "$out" --command "$command" --started "$started" \
    --commit "$commit" --changed "$changed" $([ "$quick" = 1 ] && echo --quick)
