#!/usr/bin/env python3
"""text_by_source.py ELF [ROOT] — where a firmware image's `text` goes, by source.

ELF must carry line tables (size.sh --by-source builds such an image: the release
image's code, compiled with `debug = "line-tables-only"`). Every instruction of the
`.text` output section is disassembled (arm-none-eabi-objdump) and located with its
inlining chain (arm-none-eabi-addr2line -i); it is counted for the innermost frame
that lies under ROOT (the repository, by default the directory two levels above this
script), so a helper of `core` inlined into the server counts as the server's, and a
function of ours inlined into another counts as its own. Instructions with no frame
under ROOT are `core`'s own out-of-line functions (`from_utf8`, say). The rest of the
section — string constants, tables, literal pools — is constant data.

Prints Markdown on stdout: bytes by source file, then the largest functions.
"""

import collections
import os
import re
import subprocess
import sys

TOP = 40


def instructions(elf):
    """(address, size) of every Thumb instruction in .text (not `.word` data)."""
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", "-j", ".text", elf],
                         capture_output=True, text=True, check=True).stdout
    out = []
    for line in dis.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+([0-9a-f]{4})( [0-9a-f]{4})?\s", line)
        if m:
            out.append((int(m.group(1), 16), 4 if m.group(3) else 2))
    return out


def frames(elf, addresses):
    """For each address, its inlining chain, innermost first: [(function, file)]."""
    text = "\n".join(f"{a:#x}" for a in addresses) + "\n"
    out = subprocess.run(["arm-none-eabi-addr2line", "-a", "-i", "-f", "-C", "-e", elf],
                         input=text, capture_output=True, text=True, check=True).stdout
    chains, cur, lines = [], None, out.splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^0x[0-9a-f]+$", lines[i]):
            cur = []
            chains.append(cur)
            i += 1
            continue
        fn, loc = lines[i], lines[i + 1] if i + 1 < len(lines) else "??:0"
        cur.append((fn, loc.rpartition(":")[0]))
        i += 2
    return chains


def symbols(elf):
    """Bytes of .text under FUNC symbols and under OBJECT symbols (each address once)."""
    out = subprocess.run(["arm-none-eabi-readelf", "-sW", elf], capture_output=True,
                         text=True, check=True).stdout
    seen, sizes = set(), collections.Counter()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ("FUNC", "OBJECT") and f[2].isdigit():
            addr = int(f[1], 16) & ~1
            if addr < 0x20000000 and (addr, f[3]) not in seen:
                seen.add((addr, f[3]))
                sizes[f[3]] += int(f[2])
    return sizes["FUNC"], sizes["OBJECT"]


def main():
    elf = sys.argv[1]
    root = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    # `text` as size.sh reports it (the Berkeley format's first column).
    size = subprocess.run(["arm-none-eabi-size", elf], capture_output=True, text=True,
                          check=True).stdout
    text = int(size.splitlines()[1].split()[0])
    insns = instructions(elf)
    chains = frames(elf, [a for a, _ in insns])
    by_file, by_fn = collections.Counter(), collections.Counter()
    for (_, n), chain in zip(insns, chains):
        ours = next((f for f in chain if f[1].startswith(root + "/")), None)
        if ours is None:
            by_file["(Rust `core`, out of line)"] += n
            continue
        path = os.path.relpath(ours[1], root)
        name = re.sub(r"<[^<>]*(<[^<>]*>[^<>]*)*>$", "", ours[0]) or ours[0]
        by_file[path] += n
        by_fn[f"`{name}` ({path})"] += n
    code = sum(by_file.values())
    funcs, objects = symbols(elf)
    print(f"`text` {text} bytes: code {code}; literal pools in functions {funcs - code}; "
          f"named constant tables {objects}; other constant data (strings, unnamed "
          f"tables) {text - funcs - objects}.")
    print()
    print("| source | bytes of code |")
    print("|---|---:|")
    for path, n in by_file.most_common():
        print(f"| {path} | {n} |")
    print()
    print("| function (innermost of ours, inlined code included) | bytes |")
    print("|---|---:|")
    for name, n in by_fn.most_common(TOP):
        print(f"| {name} | {n} |")


if __name__ == "__main__":
    main()
