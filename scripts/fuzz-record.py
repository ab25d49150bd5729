#!/usr/bin/env python3
"""fuzz-record.py FILE SOURCES COMMIT TARGETS [RUN]

Called by scripts/fuzz.sh: writes FILE (docs/fuzz-runs.md), which this script
alone writes. The file keeps every recorded run, one row each (its "Runs" table);
RUN, when given, adds one:

    RUN = TARGET EXECUTIONS SECONDS CPU_SECONDS COVERAGE FEATURES CORPUS RESULT
          RUN_SOURCES RUN_COMMIT DATE LOAD COMMAND

and the summary on top is rewritten for SOURCES (the hash of the sources the
targets are built from, see scripts/fuzz.sh) at COMMIT: per target of TARGETS
(space-separated), the executions and seconds of every run on those sources
added up, the number of runs, and the latest run's executions per second,
coverage, features and corpus. A run counts for any commit whose sources hash
the same.
"""

import sys

HEAD = """# Fuzz runs

Written by `scripts/fuzz.sh --record` (and `--report`) — not by hand. Each run is
recorded with the hash of the sources its target was built from (`Sources`: the
git trees of what the fuzz crate compiles, working-tree content included, see
`scripts/fuzz.sh`); a run counts for every commit whose sources hash the same, and
the executions of the runs on the same sources add up. Executions are libFuzzer's
count, seconds its own (corpus loading included), CPU seconds the user and system
time of the run; exec/s divides the executions by the seconds, exec/CPU-s by the
CPU seconds: what one idle core would do, where the machine is shared (exec/s
then depends on its load: each row names the load average, one minute, before
and after the run, and the CPUs the run was allowed). Coverage and features are
libFuzzer's `cov:` and `ft:` at the end of the run; the corpus is
`fuzz/corpus/TARGET` after it.
"""

RUNS_HEAD = """
## Runs

| Date | Target | Sources | Commit | Executions | Seconds | Exec/s | CPU s | Exec/CPU-s | Coverage | Features | Corpus | Result | Load | Command |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
"""


def cell(text):
    return text.replace("|", "\\|")


def read_runs(path):
    """Recorded runs as lists of cells (the Runs table), oldest first."""
    runs = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return runs
    inside = False
    for line in lines:
        if line.startswith("## "):
            inside = line == "## Runs"
            continue
        if inside and line.startswith("| ") and not line.startswith("| Date"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            if len(cells) == 13:  # recorded before the CPU time was
                cells[7:7] = ["—", "—"]
            runs.append(cells)
    return runs


def number(text):
    try:
        return int(text)
    except ValueError:
        return 0


def seconds(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def summary(runs, sources, commit, targets):
    out = [
        f"\n## On the current sources\n\nSources `{sources}` (commit {commit}): the runs on "
        "exactly these sources, added up.\n\n"
        "| Target | Executions | Seconds | CPU s | Runs | Exec/s (latest) | Exec/CPU-s (latest) | "
        "Coverage (latest) | Features (latest) | Corpus (latest) | Results |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    ]
    for t in targets:
        mine = [r for r in runs if r[1] == f"`{t}`" and r[2] == f"`{sources}`"]
        if not mine:
            out.append(f"| `{t}` | 0 | 0 | 0 | 0 | — | — | — | — | — | no run |\n")
            continue
        execs = sum(number(r[4]) for r in mine)
        secs = sum(number(r[5]) for r in mine)
        cpu = sum(seconds(r[7]) for r in mine)
        last = mine[-1]
        crashed = [r for r in mine if r[12] != "clean"]
        result = "clean" if not crashed else f"{len(crashed)} crashed"
        out.append(
            f"| `{t}` | {execs} | {secs} | {cpu:.1f} | {len(mine)} | {last[6]} | {last[8]} | "
            f"{last[9]} | {last[10]} | {last[11]} | {result} |\n"
        )
    return "".join(out)


def main():
    args = sys.argv[1:]
    if len(args) not in (4, 17):
        sys.exit(__doc__)
    path, sources, commit, targets = args[:4]
    runs = read_runs(path)
    if len(args) == 17:
        (target, execs, secs, cpu, cov, ft, corpus, result, run_sources, run_commit, date, load,
         command) = args[4:]
        rate = str(number(execs) // number(secs)) if number(secs) > 0 else "—"
        try:
            per_cpu = str(int(number(execs) / float(cpu)))
        except (ValueError, ZeroDivisionError):
            per_cpu = "—"
        runs.append(
            [date, f"`{target}`", f"`{run_sources}`", run_commit, execs, secs, rate, cpu, per_cpu]
            + [cov, ft]
            + [cell(corpus), cell(result), cell(load), f"`{cell(command)}`"]
        )
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEAD)
        f.write(summary(runs, sources, commit, targets.split()))
        f.write(RUNS_HEAD)
        for r in runs:
            f.write("| " + " | ".join(r) + " |\n")


if __name__ == "__main__":
    main()
