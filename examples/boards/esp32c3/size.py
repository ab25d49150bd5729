#!/usr/bin/env python3
"""size.py ELF — what an ESP32-C3/C6 image puts in flash and in RAM, from its section
headers (no espflash, no binutils).

`size`'s Berkeley sums mislead on these images: esp-hal's linker script reserves
address space with read-only NOBITS sections that hold nothing — `.rotext_dummy`
and `.text_gap` (flash cache mappings), `.rwdata_dummy` (the data bus's view of the
RAM the IRAM code occupies), `.stack` (all RAM left over) — and llvm-size counts
them as text. This script sums by type and flags instead, over sections that occupy
memory (SHF_ALLOC) at an address, leaving out NOBITS sections that are not
writable:

  text    PROGBITS, not writable: code and read-only data, in flash, and the code
          copied from flash into IRAM at boot (`iram`, also counted apart)
  data    PROGBITS, writable: initial values in flash, copied into RAM at boot
  bss     NOBITS, writable, but the heap in RAM reclaimed from the bootloader
          (`.dram2_uninit`), which is counted apart as `reclaimed`
  static RAM   iram + data + bss: the SRAM the image claims before it runs

text + data is what the image loads; `espflash save-image`'s app image is a few KiB
larger (segment headers, padding).

Prints one line `text data bss iram reclaimed static_ram` (bytes), or with --table
a Markdown table of every section counted.
"""

import struct
import sys

SHT_NOBITS = 8
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
RECLAIMED = ".dram2_uninit"


def sections(path):
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        sys.exit(f"size.py: {path} is not a little-endian ELF32 file")
    shoff, = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x2E)
    headers = [struct.unpack_from("<IIIIIIIIII", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]

    def name(offset):
        end = elf.index(b"\0", strtab + offset)
        return elf[strtab + offset:end].decode()

    for sh_name, sh_type, flags, addr, _off, size, *_ in headers:
        yield name(sh_name), sh_type, flags, addr, size


def main():
    args = [a for a in sys.argv[1:] if a != "--table"]
    if len(args) != 1:
        sys.exit("usage: size.py [--table] ELF")
    text = data = bss = iram = reclaimed = 0
    rows = []
    for name, kind, flags, addr, size in sections(args[0]):
        if not flags & SHF_ALLOC or addr == 0 or size == 0:
            continue
        if kind == SHT_NOBITS and not flags & SHF_WRITE:
            continue  # reserved address space (see above)
        if name == RECLAIMED:
            reclaimed += size
            what = "reclaimed"
        elif kind == SHT_NOBITS:
            bss += size
            what = "bss"
        elif flags & SHF_WRITE:
            data += size
            what = "data"
        else:
            text += size
            what = "text"
            # Code the boot copies into internal RAM: the trap vectors, .rwtext.*
            # (IRAM on the instruction bus, 0x4037_0000..0x403E_0000 on both chips'
            # maps; the C6's HP SRAM at 0x4080_0000 is one bus for code and data).
            if flags & SHF_EXECINSTR and (0x4037_0000 <= addr < 0x403E_0000
                                          or 0x4080_0000 <= addr < 0x4088_0000):
                iram += size
                what = "text (iram)"
        rows.append((name, what, size))
    if "--table" in sys.argv:
        print("| section | counted as | bytes |")
        print("|---|---|---:|")
        for name, what, size in rows:
            print(f"| `{name}` | {what} | {size:,} |")
        return
    print(text, data, bss, iram, reclaimed, iram + data + bss)


if __name__ == "__main__":
    main()
