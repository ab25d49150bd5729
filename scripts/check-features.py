#!/usr/bin/env python3
"""The configuration as written for readers, checked against the one the build uses.

- Every cargo feature of `emcp` (core/Cargo.toml) has a row in the `emcp` table of
  docs/features.md and in the table under "## Cargo features" of the crate's front page
  (core/src/lib.rs); every feature of `emcp-ffi` (ffi/Cargo.toml) has a row in the
  `emcp-ffi` table of docs/features.md and under "## Cargo features" of its front page
  (ffi/src/lib.rs). A row of a feature that no longer exists is a finding too.
  A row is a Markdown table line whose first cell is the feature in backticks.
- The layers listed under "## Layers" of core/src/lib.rs (the items `- [`NAME`]`), and
  the order of its `pub mod` declarations, are the order scripts/check-layers.py
  enforces (LAYERS there).

One line per finding, exit status 1. Run by .ci/run's `layers` stage.

Usage: scripts/check-features.py
"""
import importlib.util
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
FEATURES_MD = ROOT / "docs" / "features.md"
CRATES = [
    # (crate, Cargo.toml, front page, the heading of its table in docs/features.md)
    ("emcp", ROOT / "core" / "Cargo.toml", ROOT / "core" / "src" / "lib.rs", "## `emcp`"),
    ("emcp-ffi", ROOT / "ffi" / "Cargo.toml", ROOT / "ffi" / "src" / "lib.rs", "## `emcp-ffi`"),
]
ROW = re.compile(r"^\|\s*`([a-z0-9-]+)`\s*\|")


def layers():
    """LAYERS of scripts/check-layers.py, the order it enforces."""
    spec = importlib.util.spec_from_file_location("check_layers", ROOT / "scripts" / "check-layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LAYERS


def features(cargo_toml):
    """The crate's features, `default` left out (it names others)."""
    table = tomllib.loads(cargo_toml.read_text()).get("features", {})
    return {name for name in table if name != "default"}


def section(lines, heading):
    """The lines after the line `heading` up to the next heading of its level or above,
    or None when there is no such heading."""
    level = len(heading) - len(heading.lstrip("#"))
    out = None
    for line in lines:
        if out is None:
            if line.strip() == heading:
                out = []
            continue
        stripped = line.lstrip("#")
        if line.startswith("#") and len(line) - len(stripped) <= level and stripped.startswith(" "):
            break
        out.append(line)
    return out


def doc_lines(rs):
    """The crate-level doc comment of a Rust file, without its `//! ` marks."""
    out = []
    for line in rs.read_text().split("\n"):
        if line.startswith("//!"):
            out.append(line[4:] if line.startswith("//! ") else line[3:])
    return out


def rows(lines):
    """The features named by the table rows among `lines`."""
    return [m.group(1) for m in map(ROW.match, lines) if m]


def compare(findings, where, listed, wanted):
    for name in sorted(wanted - set(listed)):
        findings.append(f"{where}: feature `{name}` is not listed")
    for name in sorted(set(listed) - wanted):
        findings.append(f"{where}: feature `{name}` is listed but is not a feature of the crate")
    for name in sorted({n for n in listed if listed.count(n) > 1}):
        findings.append(f"{where}: feature `{name}` is listed more than once")


def main():
    findings = []
    table_lines = FEATURES_MD.read_text().split("\n") if FEATURES_MD.exists() else []
    for crate, cargo_toml, front, heading in CRATES:
        wanted = features(cargo_toml)
        table = section(table_lines, heading)
        if table is None:
            findings.append(f"docs/features.md: no section `{heading}` with the features of {crate}")
        else:
            compare(findings, f"docs/features.md ({crate})", rows(table), wanted)
        rel = front.relative_to(ROOT)
        listed = section(doc_lines(front), "## Cargo features")
        if listed is None:
            findings.append(f"{rel}: no `## Cargo features` section in the crate's front page")
        else:
            compare(findings, f"{rel} (## Cargo features)", rows(listed), wanted)

    order = layers()
    lib = ROOT / "core" / "src" / "lib.rs"
    written = section(doc_lines(lib), "## Layers") or []
    named = [m.group(1) for m in (re.match(r"^- \[`(\w+)`\]", line) for line in written) if m]
    if named != order:
        findings.append(
            f"core/src/lib.rs (## Layers): the layers are listed as {' < '.join(named) or 'nothing'}; "
            f"scripts/check-layers.py enforces {' < '.join(order)}"
        )
    declared = [m.group(1) for m in re.finditer(r"^pub mod (\w+);", lib.read_text(), re.M)]
    if declared != order:
        findings.append(
            f"core/src/lib.rs: the layer modules are declared as {' < '.join(declared)}; "
            f"scripts/check-layers.py enforces {' < '.join(order)}"
        )

    for f in findings:
        print(f)
    if findings:
        sys.exit(1)
    counts = ", ".join(f"{len(features(c))} of {name}" for name, c, _, _ in CRATES)
    print(
        f"features: every one ({counts}) in docs/features.md and the front pages; "
        f"layers in lib.rs as check-layers.py enforces them ({' < '.join(order)})",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
