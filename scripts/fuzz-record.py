#!/usr/bin/env python3
"""fuzz-record.py FILE TARGET EXECUTIONS SECONDS CORPUS RESULT COMMIT DATE COMMAND

Called by scripts/fuzz.sh --record: put one target's totals into FILE
(docs/fuzz-runs.md), replacing that target's row; rows stay in the order of the
targets' names. The file is written by this script only.
"""

import sys

HEAD = """# Fuzz runs

The latest recorded run of each fuzz target (`fuzz/`, see [testing.md](testing.md)),
one row per target, written by `scripts/fuzz.sh --record` — not by hand. Executions
and seconds are libFuzzer's count and the run's wall time; the corpus is
`fuzz/corpus/TARGET` after the run; the commit is the tree the targets were built
from (`+changes`: with uncommitted changes).

| Target | Executions | Seconds | Corpus | Result | Commit | Date | Command |
|---|---|---|---|---|---|---|---|
"""


def main():
    path, target, *fields = sys.argv[1:]
    if len(fields) != 7:
        sys.exit(__doc__)
    rows = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("| `"):
                    name = line.split("`")[1]
                    rows[name] = line
    except FileNotFoundError:
        pass
    cells = [f"`{target}`"] + [c.replace("|", "\\|") for c in fields[:-1]] + [f"`{fields[-1]}`"]
    rows[target] = "| " + " | ".join(cells) + " |\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEAD)
        for name in sorted(rows):
            f.write(rows[name])


if __name__ == "__main__":
    main()
