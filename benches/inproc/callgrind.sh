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
# one size and the next, constant when the cost is linear), then — when read_sensor
# is among the cases — what validating its request line alone costs in emcp's
# scanner, in a minimal validating scanner and in serde_json (`instr --parse`, net of
# set-up the same way), beside the whole message.
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

ir() { # instr's arguments (case era count, or --parse parser era count) -> total Ir
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
        "$instr" "$@" 2>"$tmp/vg.err" || {
        cat "$tmp/vg.err" >&2
        echo "callgrind.sh: instr $* failed" >&2
        exit 1
    }
    awk '/^summary:/ { print $2 }' "$tmp/cg.out"
}

per_msg() { # N, then instr's arguments before COUNT -> Ir of one message, net of set-up
    local n=$1 a b
    shift
    a=$(ir "$@" 1) || exit 1
    b=$(ir "$@" $((1 + n))) || exit 1
    awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.0f", (b - a) / n }'
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
    per=$(per_msg "$n" "$name" "$era")
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

# Validation alone, on read_sensor's request lines.
grep -q "^read_sensor" "$rows" || exit 0
n=1000
parsed="$tmp/parsed"
: >"$parsed"
"$instr" --parsers >"$tmp/parsers"
while IFS=$'\t' read -r parser label; do
    for era in 2025-11-25 2026-07-28; do
        echo "callgrind.sh: --parse $parser $era (N=$n)" >&2
        per=$(per_msg "$n" --parse "$parser" "$era")
        printf '%s\t%s\t%s\t%s\n' "$parser" "$label" "$era" "$per" >>"$parsed"
    done
done <"$tmp/parsers"
echo
echo "### Validating the read_sensor request line alone"
echo
echo "| what runs | 2025-11-25 Ir | × emcp | 2026-07-28 Ir | × emcp |"
echo "|---|---:|---:|---:|---:|"
awk -F'\t' '
    FNR == NR { if ($1 == "read_sensor") whole[$2] = $6; next }
    { ir[$1, $3] = $4; label[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
    END {
        l = "2025-11-25"; m = "2026-07-28"
        for (i = 1; i <= k; i++) {
            p = order[i]
            printf "| %s | %d | %.2f | %d | %.2f |\n", label[p], ir[p, l], ir[p, l] / ir["emcp", l], ir[p, m], ir[p, m] / ir["emcp", m]
        }
        printf "| the whole message: `Server::handle` (parse, pick, check the arguments, dispatch, handler, write) | %d | %.2f | %d | %.2f |\n", whole[l], whole[l] / ir["emcp", l], whole[m], whole[m] / ir["emcp", m]
    }' "$rows" "$parsed"
