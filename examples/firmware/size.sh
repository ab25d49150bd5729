#!/usr/bin/env bash
# size.sh [--check] — footprint of the firmware image on every board.
#
# For m3 (Cortex-M3), m4f (Cortex-M4F), m0 (Cortex-M0, the micro:bit's nRF51) and
# rv32 (RV32IMC, sifive_e): builds the release image (run.sh), prints text, data and
# bss (the board's binutils `size`), the stack high-water mark after the bad-input
# transcript (tests/transcripts/bad_input.txt, fed through run.sh; the firmware logs
# the mark over semihosting) and after every transcript, RAM = data + bss + the larger
# stack mark, and the `core::panicking` symbols linked into the image with the calls
# that can reach them (panic_paths.py). For m0 and rv32, whose chips have 16 KiB of
# RAM, it also says whether that RAM fits.
#
# Goals (M3): text <= 32 KiB and RAM <= 8 KiB; aim: 24 KiB and 4 KiB. With --check the
# script exits 1 when the M3 image misses a "must" goal or links a panic path (the
# other boards are reported, not checked).
# Figures go to stdout; builds and firmware logs to stderr.
#
# size.sh --matrix [--tsv] — the footprint matrix instead, as a Markdown table: every
# image, on each cpu it is built for: text, data, bss, stack peak over every
# transcript, RAM (data + bss + stack peak), and the call sites that can reach
# `core::panicking` (panic_paths.py). Images: the C board on the C ABI, the Makefile's
# variants, on m3, m4f, m0 and rv32 —
# `c-full` (both eras), `c-tools` (tools only: board.c's tools, emcp without the
# other capabilities), `c-tools-legacy` (the same, initialize era only), `c-legacy`,
# `c-stateless` (the whole board, one era), `c-plans` (the whole board with its input
# schemas compiled at build time: emcp-ffi's `plans` without the schema walker) — and
# `rust-full`, the Rust board on emcp
# directly (examples/rust-firmware: cortex-m-rt, both eras; its defmt log carries the
# same stack line), and `rust-tools-legacy`, the same with emcp built for tools and
# the initialize era only, on the cpus in RUST_CPUS (default: m3 m4f m0 rv32). With
# --tsv: the same as tab-separated lines
# `image<TAB>cpu<TAB>text<TAB>data<TAB>bss<TAB>stack<TAB>ram`, no header, for scripts.
#
# size.sh --by-source — where the M3 image's text goes, as Markdown: the same image
# built once more with line tables (`debug = "line-tables-only"`, in
# target/firmware-lines; its text must equal the release image's, or the script
# fails), bytes of code by source file and by function, inlined code counted where it
# was written (text_by_source.py).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
check=0
matrix=0
tsv=0
[ "${1:-}" = "--check" ] && check=1
[ "${1:-}" = "--matrix" ] && matrix=1
[ "${2:-}" = "--tsv" ] && tsv=1
missed=0

if [ "${1:-}" = "--by-source" ]; then
    "$here/run.sh" m3 </dev/null >/dev/null # builds the release image, installs tools
    lines=$repo/target/firmware-lines
    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only make -s -C "$here" BOARD=m3 \
        CARGO_TARGET_DIR="$lines" OUT="$lines/m3" >&2
    release=$(arm-none-eabi-size "$repo/target/firmware/m3/emcp-firmware.elf" | awk 'NR == 2 { print $1 }')
    traced=$(arm-none-eabi-size "$lines/m3/emcp-firmware.elf" | awk 'NR == 2 { print $1 }')
    if [ "$release" != "$traced" ]; then
        echo "size.sh: the image with line tables has $traced bytes of text, the release image $release" >&2
        exit 1
    fi
    python3 "$here/text_by_source.py" "$lines/m3/emcp-firmware.elf" "$repo"
    exit 0
fi

# The bytes a transcript sends, parsed by the transcript tests' own parser.
transcript_input() {
    "${CARGO_TARGET_DIR:-$repo/target}/debug/transcript-input" "$1"
}

# The deepest stack mark the firmware logged while serving one transcript
# (`stack_peak BOARD TRANSCRIPT [RUN_SCRIPT]`, the C image's run.sh by default).
stack_peak() {
    transcript_input "$2" | "${3:-$here/run.sh}" "$1" 2>&1 >/dev/null |
        sed -n 's/^emcp: stack high-water \([0-9]*\) bytes$/\1/p' | sort -n | tail -1
}

# text, data and bss of an ELF (`sizes ELF`), read by the binutils of its machine. A
# `.stack` section (riscv-rt reserves the stack region as one) is the stack, not
# statics: the stack peak counts what of it is used, so bss leaves it out.
sizes() {
    local tool=arm-none-eabi-size text data bss stack
    [ "$(od -An -tu2 -j18 -N2 "$1" | tr -d ' ')" = 243 ] && tool=riscv64-unknown-elf-size
    read -r text data bss < <("$tool" "$1" | tail -1 | cut -f1-3)
    stack=$("$tool" -A "$1" | awk '$1 == ".stack" { print $2 }')
    echo "$text" "$data" "$((bss - ${stack:-0}))"
}

# The C boards, and the cpus of the Rust firmware's rows in the matrix.
boards=(m3 m4f m0 rv32)
read -r -a rust_cpus <<<"${RUST_CPUS:-m3 m4f m0 rv32}"

cargo build -q --manifest-path "$repo/Cargo.toml" -p emcp-tests --bin transcript-input >&2

if [ "$matrix" = 1 ]; then
    # One image: its ELF (built and booted once by its run script) -> a row.
    row() { # NAME BOARD ELF RUN_SCRIPT
        local name=$1 board=$2 elf=$3 run=$4 text data bss peak=0 s t panics
        read -r text data bss < <(sizes "$elf")
        # The other era's transcripts get errors from a one-era image: still served.
        for t in "$repo"/tests/transcripts/*.txt; do
            s=$(stack_peak "$board" "$t" "$run")
            [ "${s:-0}" -gt "$peak" ] && peak=$s
        done
        panics=$(python3 "$here/panic_paths.py" "$elf" | grep -c '  ->  ' || true)
        if [ "$tsv" = 1 ]; then
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$board" "$text" "$data" "$bss" \
                "$peak" "$((data + bss + peak))"
        else
            echo "| $name | $board | $text | $data | $bss | $peak | $((data + bss + peak)) | $panics |"
        fi
    }
    if [ "$tsv" = 0 ]; then
        echo "| image | cpu | text | data | bss | stack peak | RAM (data + bss + stack) | panic call sites |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|"
    fi
    # The C board on the C ABI: the Makefile's variants.
    for image in c-full c-tools c-tools-legacy c-legacy c-stateless c-plans; do
        variant=${image#c-}
        suffix=
        [ "$variant" = full ] || suffix=-$variant
        for board in "${boards[@]}"; do
            EMCP_FW_VARIANT=$variant "$here/run.sh" "$board" </dev/null >/dev/null
            EMCP_FW_VARIANT=$variant row "$image" "$board" \
                "$repo/target/firmware/$board$suffix/emcp-firmware.elf" "$here/run.sh"
        done
    done
    # The Rust board on emcp directly (examples/rust-firmware).
    rust_run=$repo/examples/rust-firmware/run.sh
    for board in "${rust_cpus[@]}"; do
        case $board in
            m3) target=thumbv7m-none-eabi ;;
            m4f) target=thumbv7em-none-eabihf ;;
            m0) target=thumbv6m-none-eabi ;;
            rv32) target=riscv32imc-unknown-none-elf ;;
        esac
        "$rust_run" "$board" </dev/null >/dev/null
        row rust-full "$board" "$repo/target/rust-firmware/$target/release/emcp-rust-firmware" "$rust_run"
        EMCP_FW_VARIANT=tools-legacy "$rust_run" "$board" </dev/null >/dev/null
        EMCP_FW_VARIANT=tools-legacy row rust-tools-legacy "$board" \
            "$repo/target/rust-firmware-tools-legacy/$target/release/emcp-rust-firmware" "$rust_run"
    done
    exit 0
fi

for board in "${boards[@]}"; do
    "$here/run.sh" "$board" </dev/null >/dev/null # builds (output on stderr) and boots once
    elf=$repo/target/firmware/$board/emcp-firmware.elf
    read -r text data bss < <(sizes "$elf")
    bad=$(stack_peak "$board" "$repo/tests/transcripts/bad_input.txt")
    all=$bad
    for t in "$repo"/tests/transcripts/*.txt; do
        s=$(stack_peak "$board" "$t")
        [ "${s:-0}" -gt "$all" ] && all=$s
    done
    ram=$((data + bss + all))
    binutils=arm-none-eabi-
    [ "$board" = rv32 ] && binutils=riscv64-unknown-elf-
    panics=$("${binutils}readelf" -sW "$elf" | awk '$4 == "FUNC" {print $8}' | grep panicking |
        "${binutils}c++filt" | sed 's/\[[0-9a-f]*\]//g' | sort -u || true)
    echo "== $board ($elf)"
    printf '  text %6d   data %5d   bss %5d   (bytes)\n' "$text" "$data" "$bss"
    printf '  stack high-water: %d bytes after bad_input.txt, %d after all transcripts\n' "$bad" "$all"
    printf '  RAM (data + bss + stack peak): %d bytes\n' "$ram"
    if [ -z "$panics" ]; then
        echo "  core::panicking symbols: none"
    else
        echo "  core::panicking symbols: $(echo "$panics" | wc -l)"
        echo "$panics" | sed 's/^/    /'
        echo "  calls that can reach them:"
        python3 "$here/panic_paths.py" "$elf" | sed 's/^/  /'
    fi
    if [ "$board" = m0 ] || [ "$board" = rv32 ]; then
        if [ "$ram" -le 16384 ]; then verdict=yes; else verdict=NO; fi
        printf '  RAM fits the chip'"'"'s 16 KiB: %s\n' "$verdict"
    fi
    if [ "$board" = m3 ]; then
        for goal in "text $text 32768 24576" "RAM $ram 8192 4096"; do
            set -- $goal
            if [ "$2" -le "$4" ]; then verdict="met, aim met"
            elif [ "$2" -le "$3" ]; then verdict="met, aim missed"
            else verdict="MISSED"; missed=1; fi
            printf '  goal %-4s <= %d (aim %d): %s\n' "$1" "$3" "$4" "$verdict"
        done
        if [ -n "$panics" ]; then missed=1; fi
    fi
done
[ "$check" -eq 0 ] || [ "$missed" -eq 0 ]
