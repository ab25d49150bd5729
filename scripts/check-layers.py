#!/usr/bin/env python3
"""The core's layers, checked: no module imports from a layer above its own, and no
source file is over the line budget outside its tests.

The layers, bottom up, are the folders of core/src (crate::trace, the logging facade,
is below them all):

    wire  <  model  <  state  <  device  <  server  <  transport

A path `crate::LAYER` (in a `use` or in code; comments and doc links are not
imports) in a file of a lower layer is an upward import and fails the check. Modules
of one layer may use each other. Exit status 1 with one line per finding.

Usage: scripts/check-layers.py [--max-lines N]   (default 800)
"""
import pathlib
import re
import sys

LAYERS = ["wire", "model", "state", "device", "server", "transport"]
ROOT = pathlib.Path(__file__).resolve().parent.parent / "core" / "src"


def code_lines(text):
    """The file's lines with comments and string literals blanked, and the test
    module (from a line `#[cfg(test)]` followed by `mod tests`) left out."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines) and re.match(
            r"\s*(#\[.*\]\s*)*mod tests\b", lines[i + 1] + (lines[i + 2] if i + 2 < len(lines) else "")
        ):
            break
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        line = re.sub(r"//.*", "", line)
        out.append(line)
        i += 1
    return out


def main():
    max_lines = 800
    if len(sys.argv) == 3 and sys.argv[1] == "--max-lines":
        max_lines = int(sys.argv[2])
    findings = []
    for path in sorted(ROOT.rglob("*.rs")):
        rel = path.relative_to(ROOT)
        layer = rel.parts[0] if len(rel.parts) > 1 else None
        if rel.name == "tests.rs":
            continue  # a module's tests may reach anywhere
        code = code_lines(path.read_text())
        if layer in LAYERS:
            rank = LAYERS.index(layer)
            for n, line in enumerate(code, 1):
                for m in re.finditer(r"\bcrate::(\w+)", line):
                    target = m.group(1)
                    if target in LAYERS and LAYERS.index(target) > rank:
                        findings.append(
                            f"core/src/{rel}:{n}: `{layer}` imports from `{target}`, a layer above it"
                        )
        lines = sum(1 for l in code if l.strip())
        if lines > max_lines:
            findings.append(
                f"core/src/{rel}: {lines} lines of code outside tests (budget {max_lines})"
            )
    for f in findings:
        print(f)
    if findings:
        sys.exit(1)
    print(f"layers: {', '.join(LAYERS)}: no upward import, no file over {max_lines} lines of code", file=sys.stderr)


if __name__ == "__main__":
    main()
