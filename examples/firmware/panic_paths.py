#!/usr/bin/env python3
"""panic_paths.py ELF — which code in a firmware image can reach `core::panicking`.

Reads the disassembly (objdump -d of the ELF's architecture: arm-none-eabi- for the
Cortex-M images, riscv64-unknown-elf- for RV32) and prints, for every function outside
Rust's `core` that calls into a `core` function from which a `core::panicking` symbol
is reachable, those calls: the places a panic could start. Machine-outlined fragments
(OUTLINED_FUNCTION_n, from opt-level "z") count as part of their callers. Calls
through function pointers (core::fmt's trait objects) cannot be followed: such
functions are listed as reached "through a function pointer". Prints nothing when no
panicking symbol is linked.
"""

import collections
import re
import subprocess
import sys


# Per ELF machine (e_machine): the binutils prefix, and the instructions that name
# another function's address — calls, tail calls, branches — as objdump prints them.
ARCHES = {
    40: ("arm-none-eabi-",  # ARM: bl, blx, b, b<cond>, with or without .n/.w
         [r"\s(?:bl|blx|b|b[a-z]{2})(?:\.[nw])?\s+[0-9a-f]+ <([^>+]+)"]),
    243: ("riscv64-unknown-elf-",  # RISC-V: jal, j, b<cond>; an auipc+jalr/jr pair
          [r"\s(?:jal|j|b[a-z]+)\s+(?:[a-z0-9]+,)*[0-9a-f]+ <([^>+]+)",  # names its
           r"\s(?:jalr|jr)\s.*# [0-9a-f]+ <([^>+]+)"]),  # target in a comment
}


def machine(path):
    with open(path, "rb") as f:
        header = f.read(20)
    if header[:4] != b"\x7fELF":
        sys.exit(f"panic_paths.py: {path} is not an ELF file")
    return int.from_bytes(header[18:20], "little")


def demangle(prefix, names):
    out = subprocess.run([prefix + "c++filt"], input="\n".join(names), text=True,
                         capture_output=True, check=True).stdout.split("\n")
    return {n: re.sub(r"\[[0-9a-f]+\]|::h[0-9a-f]{16}$", "", d) for n, d in zip(names, out)}


def main():
    kind = machine(sys.argv[1])
    if kind not in ARCHES:
        sys.exit(f"panic_paths.py: no disassembler known for ELF machine {kind}")
    prefix, patterns = ARCHES[kind]
    targets = [re.compile(p) for p in patterns]
    dis = subprocess.run([prefix + "objdump", "-d", "--no-show-raw-insn", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    calls, fn = collections.defaultdict(set), None
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            continue
        for target in targets:
            m = target.search(line)
            if fn and m and m.group(1) != fn:
                calls[fn].add(m.group(1))
    names = demangle(prefix, sorted(set(calls) | {c for cs in calls.values() for c in cs}))
    core_re = re.compile(r"<?(core::|(f32|f64|[iu](8|16|32|64|128|size)|str|bool|char) as core::)")
    is_core = {n: bool(core_re.match(d)) for n, d in names.items()}
    # Core functions from which a core::panicking function is reachable (within core).
    reach = {n for n, d in names.items() if d.startswith("core::panicking")}
    grew = True
    while grew:
        grew = False
        for f, cs in calls.items():
            if is_core.get(f) and f not in reach and cs & reach:
                reach.add(f)
                grew = True
    if not reach:
        return

    def entries(f, seen):
        """Panic-reaching core functions called by f (through outlined fragments)."""
        out = set()
        for c in calls.get(f, ()):
            if c in reach:
                out.add(c)
            elif c.startswith("OUTLINED_FUNCTION") and c not in seen:
                seen.add(c)
                out |= entries(c, seen)
        return out

    for f in sorted(calls, key=lambda n: names[n]):
        if is_core.get(f) or f.startswith("OUTLINED_FUNCTION"):
            continue
        for c in sorted(entries(f, set()), key=lambda n: names[n]):
            print(f"  {names[f]}  ->  {names[c]}")
    called = {c for cs in calls.values() for c in cs}
    for f in sorted(reach - called, key=lambda n: names[n]):
        print(f"  (through a function pointer, e.g. core::fmt)  ->  {names[f]}")


if __name__ == "__main__":
    main()
