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

    panic_paths.py [--source CRATE,...] ELF

--source CRATE,...: a call site whose code was inlined from one of these crates is
named by that crate's function, "FUNCTION (inlined in CALLER)", not by the function
the compiler put it in. The inlined frames come from the image's debug information
(addr2line -i): the innermost frame at the call outside Rust's `core` (`RefCell`'s
borrow, a slice index) is the code that makes the call. Only the crates named move;
every other call site keeps its caller, so code of one's own (or of any crate not
named) inlined anywhere stays charged where it lands.
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


def inlined_sources(prefix, elf, addrs, names_core):
    """Per call address (hex, no 0x): the innermost inlined frame outside `core`
    (demangled, hashes stripped), or None when the debug information has no frame."""
    if not addrs:
        return {}
    out = subprocess.run([prefix + "addr2line", "-a", "-i", "-f", "-C", "-e", elf] +
                         ["0x" + a for a in addrs], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    frames, addr, i = collections.defaultdict(list), None, 0
    while i < len(out):
        if re.match(r"^0x[0-9a-f]+$", out[i]):
            addr = format(int(out[i], 16), "x")
            i += 1
            continue
        frames[addr].append(re.sub(r"\[[0-9a-f]+\]|::h[0-9a-f]{16}$", "", out[i]))
        i += 2  # the function, then its file:line
    result = {}
    for a in addrs:
        own = [f for f in frames.get(a, []) if f != "??" and not names_core(f)]
        result[a] = own[0] if own else None
    return result


def crate(name):
    """The crate a demangled function belongs to: its path's first segment, after a
    leading `<` or `&`/`&mut ` (an impl is its self type's)."""
    return re.sub(r"^<?&?(mut )?", "", name).split("::")[0]


def main():
    args = sys.argv[1:]
    source = set()
    if len(args) == 3 and args[0] == "--source":
        source = set(args[1].split(","))
        args = args[2:]
    if len(args) != 1:
        sys.exit("usage: panic_paths.py [--source CRATE,...] ELF")
    elf = args[0]
    kind = machine(elf)
    if kind not in ARCHES:
        sys.exit(f"panic_paths.py: no disassembler known for ELF machine {kind}")
    prefix, patterns = ARCHES[kind]
    targets = [re.compile(p) for p in patterns]
    dis = subprocess.run([prefix + "objdump", "-d", "--no-show-raw-insn", elf],
                         capture_output=True, text=True, check=True).stdout
    # calls: caller -> callees; sites: (caller, callee) -> the calls' addresses.
    calls, sites, fn = collections.defaultdict(set), collections.defaultdict(set), None
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            continue
        for target in targets:
            m = target.search(line)
            if fn and m and m.group(1) != fn:
                calls[fn].add(m.group(1))
                sites[(fn, m.group(1))].add(line.split(":")[0].strip())
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
        """Panic-reaching core functions called by f (through outlined fragments), each
        with the addresses of its calls."""
        out = set()
        for c in calls.get(f, ()):
            if c in reach:
                out |= {(c, a) for a in sites[(f, c)]}
            elif c.startswith("OUTLINED_FUNCTION") and c not in seen:
                seen.add(c)
                out |= entries(c, seen)
        return out

    found = {f: entries(f, set()) for f in calls
             if not is_core.get(f) and not f.startswith("OUTLINED_FUNCTION")}
    inlined = {}
    if source:
        inlined = inlined_sources(prefix, elf, sorted({a for e in found.values() for _, a in e}),
                                  lambda d: bool(core_re.match(d)))
    for f in sorted(found, key=lambda n: names[n]):
        for c in sorted({c for c, _ in found[f]}, key=lambda n: names[n]):
            # One line per caller and callee, or per crate named by --source it came from.
            named = set()
            for _, a in filter(lambda s: s[0] == c, found[f]):
                frame = inlined.get(a)
                moved = frame and crate(frame) in source and crate(frame) != crate(names[f])
                named.add(f"{frame} (inlined in {names[f]})" if moved else names[f])
            for n in sorted(named):
                print(f"  {n}  ->  {names[c]}")
    called = {c for cs in calls.values() for c in cs}
    for f in sorted(reach - called, key=lambda n: names[n]):
        print(f"  (through a function pointer, e.g. core::fmt)  ->  {names[f]}")


if __name__ == "__main__":
    main()
