"""The host soak's figures (benches/soak.sh): tables, goal row and the page's section.

`benches/soak.sh --json DIR` writes DIR/soak.json: {"tolerance_kib": T, "runs": [one
`soak` object per setup]} (each run: name, command, messages, warmup, answered,
parse_errors, notifications, seconds, msgs_per_s, samples [{messages, seconds,
processes [{pid, comm, rss_kib, hwm_kib}]}]). benches/report.py renders it on
docs/performance.md with everything else; `python3 benches/soak.py --section PAGE
--from DIR --command CMD` writes the section alone, between two marker lines.
"""

import argparse
import json
import sys
from pathlib import Path

import page as page_section

ROOT = Path(__file__).resolve().parent.parent


def loads(dir_):
    """DIR/soak.json, or None."""
    f = Path(dir_) / "soak.json"
    return json.loads(f.read_text()) if f.exists() else None


def processes(run):
    """[(comm, start sample, end sample, peak-over-run sample)] per process, by position."""
    first, last = run["samples"][0]["processes"], run["samples"][-1]["processes"]
    out = []
    for i, (a, b) in enumerate(zip(first, last)):
        mid = [s["processes"][i] for s in run["samples"] if len(s["processes"]) > i]
        half = [s for s in run["samples"] if s["messages"] >= run["messages"] // 2]
        out.append((a["comm"], a, b, half[0]["processes"][i] if half else a, max(p["rss_kib"] for p in mid)))
    return out


def flat(run, tol):
    """True when every process's VmRSS and VmHWM at the end are within tol KiB of the start."""
    return all(b["rss_kib"] - a["rss_kib"] <= tol and b["hwm_kib"] - a["hwm_kib"] <= tol
               for _, a, b, _, _ in processes(run))


def table(soak):
    tol = soak["tolerance_kib"]
    lines = ["| setup | process | messages | s | msg/s | VmRSS start → end KiB | VmHWM start → end KiB "
             "| growth, 2nd half KiB | flat (±" + f"{tol} KiB) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for run in soak["runs"]:
        for comm, a, b, h, _ in processes(run):
            d_rss, d_hwm = b["rss_kib"] - a["rss_kib"], b["hwm_kib"] - a["hwm_kib"]
            ok = d_rss <= tol and d_hwm <= tol
            lines.append(
                f"| {run['name']} | {comm} | {run['messages']:,} | {run['seconds']:g} | "
                f"{run['msgs_per_s']:,.0f} | {a['rss_kib']:,} → {b['rss_kib']:,} ({d_rss:+,}) | "
                f"{a['hwm_kib']:,} → {b['hwm_kib']:,} ({d_hwm:+,}) | {b['rss_kib'] - h['rss_kib']:+,} | "
                f"{'yes' if ok else '**no**'} |")
    return lines


def goal_rows(soak):
    """The issue's must-reach line: [(goal, must, measured, met)]."""
    if not soak or not soak["runs"]:
        return []
    tol = soak["tolerance_kib"]
    runs = soak["runs"]
    n = min(r["messages"] for r in runs)
    worst = []
    for run in runs:
        for comm, a, b, _, _ in processes(run):
            worst.append((max(b["rss_kib"] - a["rss_kib"], b["hwm_kib"] - a["hwm_kib"]), run["name"], comm))
    growth, name, comm = max(worst)
    ok = all(flat(r, tol) for r in runs)
    return [("host soak: memory over the run, every response checked",
             f"flat (end within {tol} KiB of start, VmRSS and VmHWM)",
             f"{len(runs)} setups × {n:,} messages; largest growth {growth:+,} KiB ({name}: {comm})",
             "yes" if ok else "**no**")]


def render(soak):
    """The section's Markdown lines (no heading)."""
    if not soak or not soak["runs"]:
        return []
    tol = soak["tolerance_kib"]
    r0 = soak["runs"][0]
    leak = (r0["messages"] - r0["warmup"]) // 1024
    out = table(soak) + [""]
    out += [f"Each setup: the `initialize` handshake, then {r0['messages']:,} messages of a cycle of 16 "
            "(`initialize`, `notifications/initialized` or `notifications/cancelled`, `tools/list`, "
            "`read_sensor` ×3, `set_led`, `move_servo`, `resources/read` of `sensor://temperature`, "
            "`log://samples` and `sensor://temperature/history`, `prompts/get`, `resources/list`, "
            "`ping`, a line that is not JSON, an unknown method), pipelined in batches of "
            f"{r0.get('batch', 1000):,} (`benches/harness` binary `soak`); every id answered exactly once with the "
            "board's answer (docs/board.md), each bad line with one `id: null` parse error, nothing "
            "else. Memory is read from `/proc/PID/status` of the board and, behind "
            "`emcp-bridge exec`, of the bridge, between batches (nothing in flight): start after "
            f"{r0['warmup']:,} messages of warm-up, then every {r0.get('every', 100000):,}, end after the last answer. "
            f"Flat: end within {tol} KiB of the start in both VmRSS and VmHWM — a leak of one byte "
            f"per message would add about {leak:,} KiB over the measured {r0['messages'] - r0['warmup']:,} "
            f"messages ({leak / tol:.1f}× the tolerance), while touching a few more pages of buffers, "
            "stacks or allocator arenas for the first time stays under it. The bridge holds at most "
            "`QUEUE` bytes (`bridge/src/pump.rs`) of what it has read and not yet handled on each "
            "side, so its memory follows the batch only through the requests in flight (its id "
            "table), not through how far the client runs ahead; a batch over its `max_in_flight` "
            "is answered in part with `Too many requests in flight`. `growth, 2nd half`: VmRSS at the "
            "end minus at the half-way sample — a leak grows there as much as in the first half, a "
            "buffer reaching its working size does not.", ""]
    rows = goal_rows(soak)
    out += ["| goal | must | measured | met |", "|---|---|---|---|"]
    out += [f"| {g} | {m} | {v} | {ok} |" for g, m, v, ok in rows] + [""]
    return out


BEGIN = "<!-- benches/soak.sh --page: begin; the run below writes this section -->"
END = "<!-- benches/soak.sh --page: end -->"


def write_section(page, from_dir, command):
    page = Path(page)
    soak = loads(from_dir)
    if not soak:
        raise SystemExit(f"soak.py: no soak.json in {from_dir}")
    page_section.write_section(page, BEGIN, END, "The host boards over a million messages",
                               command, render(soak))
    print(f"soak.py: wrote the section into {page}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="from_dir", required=True, help="soak.sh's --json directory")
    ap.add_argument("--section", help="write the section into this page")
    ap.add_argument("--command", default="bash benches/soak.sh")
    args = ap.parse_args()
    soak = loads(args.from_dir)
    if args.section:
        write_section(args.section, args.from_dir, args.command)
    else:
        print("\n".join(render(soak)))
    return 0 if soak and all(flat(r, soak["tolerance_kib"]) for r in soak["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
