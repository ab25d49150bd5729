#!/usr/bin/env bash
# Instructions per message of `Server::handle`, net of set-up, under callgrind
# (deterministic on a shared machine, unlike wall time).
#
#   benches/inproc/callgrind.sh [CASE...]      # default: every case of `instr --list`
#
# For each case and era, `instr CASE ERA COUNT` runs twice under callgrind: with
# COUNT=1 and COUNT=1+N. Both runs do the same set-up (process start, server,
# `initialize` in the initialize era, building and checking the request), so
#   Ir/msg = (Ir(1+N) - Ir(1)) / N
# is what N more messages cost: parse, validate, dispatch, handler, response writing
# into a sink that discards it. N (from `instr --list`) is 1000 for small messages,
# fewer for large ones, to keep each run to seconds.
#
# Prints Markdown tables on stdout (build output and valgrind chatter go to stderr):
# every row, then the scaling analysis (instructions per byte against request size
# for `echo_*`, against response size for `blob_*`; "marginal" is the slope between
# one size and the next, constant when the cost is linear).
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v valgrind >/dev/null || {
    echo "callgrind.sh: valgrind not found (scripts/setup-c-tools.sh installs it)" >&2
    exit 1
}
cargo build --release -p emcp-bench --bin instr >&2
instr=target/release/instr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ir() { # case era count -> total Ir of the run
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
        "$instr" "$1" "$2" "$3" 2>"$tmp/vg.err" || {
        cat "$tmp/vg.err" >&2
        echo "callgrind.sh: instr $1 $2 $3 failed" >&2
        exit 1
    }
    awk '/^summary:/ { print $2 }' "$tmp/cg.out"
}

"$instr" --list >"$tmp/list"
rows="$tmp/rows"
: >"$rows"
while IFS=$'\t' read -r name era req resp n; do
    if [ $# -gt 0 ]; then
        want=0
        for c in "$@"; do [ "$c" = "$name" ] && want=1; done
        [ $want = 1 ] || continue
    fi
    echo "callgrind.sh: $name $era (N=$n)" >&2
    a=$(ir "$name" "$era" 1)
    b=$(ir "$name" "$era" $((1 + n)))
    per=$(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.0f", (b - a) / n }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$era" "$req" "$resp" "$n" "$per" >>"$rows"
done <"$tmp/list"

echo "### Instructions per message (callgrind Ir, net of set-up)"
echo
echo "| case | era | request B | response B | N | Ir / msg | Ir / (request+response) B |"
echo "|---|---|---:|---:|---:|---:|---:|"
awk -F'\t' '{ printf "| %s | %s | %d | %d | %d | %d | %.1f |\n", $1, $2, $3, $4, $5, $6, $6 / ($3 + $4) }' "$rows"

scaling() { # prefix, size column (3 request, 4 response), label
    grep -q "^$1" "$rows" || return 0
    echo
    echo "### Scaling: $1* against $3 size"
    echo
    echo "| case | era | $3 B | Ir / msg | Ir / $3 B | marginal Ir / B |"
    echo "|---|---|---:|---:|---:|---:|"
    sort -t$'\t' -k2,2 -k"$2","$2"n "$rows" | awk -F'\t' -v p="^$1" -v c="$2" '
        $1 ~ p {
            m = ($2 == era) ? sprintf("%.2f", ($6 - ir) / ($c - sz)) : "-"
            printf "| %s | %s | %d | %d | %.2f | %s |\n", $1, $2, $c, $6, $6 / $c, m
            era = $2; ir = $6; sz = $c
        }'
}
scaling echo_ 3 request
scaling blob_ 4 response
