#!/usr/bin/env bash
# Instructions per message on the Cortex-M3 firmware, net of set-up: what the target
# itself executes for one request, from the received bytes to the last byte written.
#
#   benches/firmware/instr.sh [MESSAGE...]   # default: read_sensor read_text tools_list read_blob_4k
#
#   benches/firmware/instr.sh --cpu m0|rv32|m3 ...
#
# Any of the forms below on another cpu's image (default m3): m0, the Cortex-M0 of
# QEMU's microbit (thumbv6m: no atomic read-modify-write, no divider, fewer and
# narrower instructions); rv32, the RV32IMC of QEMU's sifive_e.
#
# The image is the full board of the firmware with examples/firmware/bench.c as its
# main (`make VARIANT=bench`): no UART, the request lines read from a host file over
# semihosting, the last one fed COUNT times through emcp_server_feed (the C ABI, the
# framer, the core, the C board's callbacks, a write callback that only counts). QEMU
# (mps2-an385, Cortex-M3) runs it one instruction per translation block with every
# block's execution logged (`-d exec,nochain`): a count of executed
# instructions, deterministic like callgrind's. Two runs with COUNT=1 and COUNT=1+N do
# the same set-up (start-up, emcp_server_init, `initialize` in the initialize era), so
#   instructions/msg = (trace(1+N) - trace(1)) / N.
# The request lines are `instr --lines MESSAGE ERA`, the same bytes the in-process
# callgrind table measures (benches/inproc/callgrind.sh) on the Rust board.
#
# Prints a Markdown table on stdout; builds, QEMU and the image's logs go to stderr.
# Exits non-zero when a run fails or its first response is not a result.
#
#   benches/firmware/instr.sh --tsv [MESSAGE...]
#
# The same measurements as tab-separated lines `message<TAB>era<TAB>instructions`, one
# per message and era, no header: for scripts.
#
#   benches/firmware/instr.sh --profile MESSAGE ERA [TOP]
#
# Where one message's instructions go instead: the TOP (default 25) functions by the
# instructions executed in them (their own, callees not included) per message, from the
# same two traces (each traced block is one instruction, named by its function).
#
#   benches/firmware/instr.sh --plans ...
#
# Any of the above on the image whose input schemas are compiled at build time
# (`make VARIANT=bench-plans`: emcp-ffi's `plans` feature, board_plans.h's words in the
# descriptors) instead of walked on every call.
set -euo pipefail
cd "$(dirname "$0")/../.."

variant=bench
cpu=m3
while [ $# -gt 0 ]; do
    case $1 in
        --plans) variant=bench-plans ;;
        --cpu)
            cpu=${2:-}
            shift
            ;;
        *) break ;;
    esac
    shift
done
# Each cpu's QEMU machine (its UARTs to null: the bench image uses none), and its name.
case $cpu in
    m3) qemu=(qemu-system-arm -M mps2-an385 -cpu cortex-m3 -serial null -serial null) name=Cortex-M3 ;;
    m0) qemu=(qemu-system-arm -M microbit -serial null) name=Cortex-M0 ;;
    rv32) qemu=(qemu-system-riscv32 -M sifive_e -serial null -serial null) name=RV32IMC ;;
    *)
        echo "usage: $0 [--cpu m3|m0|rv32] [--plans] ..." >&2
        exit 2
        ;;
esac

# Tools (the cpu's GCC, QEMU, the Rust target) as the firmware's own script installs
# them; it also builds the library the bench image links.
examples/firmware/run.sh "$cpu" </dev/null >/dev/null
make -s --no-print-directory -C examples/firmware BOARD="$cpu" VARIANT=$variant >&2
elf=target/firmware/$cpu-$variant/emcp-firmware.elf
cargo build --release -p emcp-bench --bin instr >&2
instr=target/release/instr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

N=10

# One instruction per translation block: `-singlestep` up to QEMU 8.0 (Debian 12 has
# 7.2), the TCG accelerator's `one-insn-per-tb` from 8.1 on.
read -r major minor < <("${qemu[0]}" --version |
    sed -n 's/^QEMU emulator version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ "${major:-0}" -gt 8 ] || { [ "${major:-0}" -eq 8 ] && [ "${minor:-0}" -ge 1 ]; }; then
    one_insn=(-accel tcg,one-insn-per-tb=on)
else
    one_insn=(-singlestep)
fi

trace() { # lines-file count -> instructions the whole run executed
    local count
    count=$(printf '%07d' "$2") # as many digits in every run: parsing costs the same
    "${qemu[@]}" -display none -monitor none \
        -semihosting-config "enable=on,target=native,arg=bench,arg=$count,arg=$1" \
        -kernel "$elf" "${one_insn[@]}" -d exec,nochain -D "$tmp/trace" 2>"$tmp/log" || {
        cat "$tmp/log" >&2
        echo "instr.sh: the bench image failed on $1 (count $2)" >&2
        exit 1
    }
    grep -c '^Trace' "$tmp/trace"
}

# That each traced block was one instruction (a QEMU that ignored the option would log
# whole blocks and the counts would be far too low): in straight-line code the next
# block starts 2 or 4 bytes on, which a trace of whole blocks rarely shows.
check_one_insn() {
    python3 - "$tmp/trace" <<'PY'
import re, sys
pcs = [int(m.group(1), 16) for m in
       (re.search(r"\[[0-9a-f]+/([0-9a-f]+)/", l) for l in open(sys.argv[1]) if l.startswith("Trace"))
       if m]
steps = sum(1 for a, b in zip(pcs, pcs[1:]) if b - a in (2, 4))
if not pcs or steps < len(pcs) // 2:
    sys.exit(f"instr.sh: the trace is not one instruction per block ({steps} of {len(pcs)} steps)")
PY
}

if [ "${1:-}" = "--profile" ]; then
    [ $# -ge 3 ] || {
        echo "usage: $0 --profile MESSAGE ERA [TOP]" >&2
        exit 2
    }
    "$instr" --lines "$2" "$3" >"$tmp/lines"
    per_function() { # -> "count symbol" lines of the last trace
        awk '/^Trace/ { n[$NF]++ } END { for (f in n) print n[f], f }' "$tmp/trace"
    }
    total1=$(trace "$tmp/lines" 1)
    check_one_insn
    per_function >"$tmp/one"
    total2=$(trace "$tmp/lines" $((1 + N)))
    per_function >"$tmp/more"
    echo "| instructions / msg | function ($name, $2, $3) |"
    echo "|---:|---|"
    awk -v n="$N" 'NR == FNR { one[$2] = $1; next } { d = ($1 - one[$2]) / n; if (d > 0) printf "%.0f %s\n", d, $2 }' \
        "$tmp/one" "$tmp/more" | sort -rn | head -n "${4:-25}" | c++filt |
        sed -E 's/\[[0-9a-f]+\]//g; s/^([0-9]+) (.*)$/| \1 | `\2` |/'
    echo "| $(((total2 - total1) / N)) | all |"
    exit 0
fi

tsv=0
if [ "${1:-}" = "--tsv" ]; then
    tsv=1
    shift
fi
messages=("$@")
[ ${#messages[@]} -gt 0 ] || messages=(read_sensor read_text tools_list read_blob_4k)

if [ "$tsv" -eq 0 ]; then
    echo "| message | era | request B | response B | N | instructions / msg ($name) |"
    echo "|---|---|---:|---:|---:|---:|"
fi
for era in 2025-11-25 2026-07-28; do
    for m in "${messages[@]}"; do
        echo "instr.sh: $m $era (N=$N)" >&2
        "$instr" --lines "$m" "$era" >"$tmp/lines"
        a=$(trace "$tmp/lines" 1)
        [ -n "${checked:-}" ] || check_one_insn
        checked=1
        b=$(trace "$tmp/lines" $((1 + N)))
        resp=$(sed -n 's/^bench: response bytes \([0-9]*\)$/\1/p' "$tmp/log")
        req=$(($(tail -n 1 "$tmp/lines" | wc -c) - 1))
        per=$(awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.0f", (b - a) / n }')
        if [ "$tsv" -eq 1 ]; then
            printf '%s\t%s\t%s\n' "$m" "$era" "$per"
        else
            echo "| $m | $era | $req | $resp | $N | $per |"
        fi
    done
done
