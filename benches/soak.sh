#!/usr/bin/env bash
# The host soak (issue #39 item 4): one million messages through each host setup — the
# Rust board, the C board, and `emcp-bridge exec` in front of each — every response
# checked, the memory of every process (VmRSS, VmHWM) read after the warm-up, every
# 100,000 messages and at the end (benches/harness's `soak` binary; benches/soak.py
# renders the figures).
#
#   benches/soak.sh [--quick] [--strict] [--messages N] [--json DIR] [--page PAGE]
#
# --quick: 20,000 messages (warm-up 2,000, a sample every 5,000), for CI through
# benches/run.sh --quick. --json DIR writes DIR/soak.json; --page PAGE writes the figures
# as a section of PAGE (docs/performance.md, between two marker lines) once every setup
# passed. Prints the Markdown table on stdout, progress on stderr. Exits non-zero when a
# response is wrong, missing or repeated; memory at the end more than the tolerance
# (TOLERANCE_KIB, 256) above the start is reported (a **no** on the page) and fails the
# run only with --strict, as benches/firmware/load.py treats refusals.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command="bash benches/soak.sh${*:+ $*}"
messages=1000000 warmup=10000 every=100000
json= page= strict=0
while [ $# -gt 0 ]; do
    case $1 in
        --quick) messages=20000 warmup=2000 every=5000 ;;
        --strict) strict=1 ;;
        --messages)
            messages=${2:?--messages needs a number}
            shift
            ;;
        --json)
            json=${2:?--json needs a directory}
            shift
            ;;
        --page)
            page=${2:?--page needs a file}
            shift
            ;;
        *)
            echo "usage: benches/soak.sh [--quick] [--strict] [--messages N] [--json DIR] [--page PAGE]" >&2
            exit 2
            ;;
    esac
    shift
done
tolerance=${TOLERANCE_KIB:-256}

cargo build --release -p sensor-board -p emcp-harness -p emcp-bridge >&2
examples/c-sensor-board/run.sh </dev/null >/dev/null 2>&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rust=target/release/sensor-board
c=target/c-sensor-board/c-sensor-board
bridge=target/release/emcp-bridge
: >"$tmp/runs.jsonl"
status=0
soak() { # name command...
    local name=$1
    shift
    echo "benches/soak.sh: $name: $messages messages" >&2
    target/release/soak --name "$name" --messages "$messages" --warmup "$warmup" \
        --every "$every" --quiet -- "$@" >>"$tmp/runs.jsonl" || status=1
}
soak "rust board" "$rust"
soak "C board" "$c"
soak "bridge + rust board" "$bridge" exec -- "$rust"
soak "bridge + C board" "$bridge" exec -- "$c"
if [ "$status" != 0 ]; then
    echo "benches/soak.sh: a setup failed (above)" >&2
    exit 1
fi
python3 - "$tmp/runs.jsonl" "$tolerance" >"$tmp/soak.json" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(json.dumps({"tolerance_kib": int(sys.argv[2]), "runs": runs}))
PY
[ -z "$json" ] || { mkdir -p "$json" && cp "$tmp/soak.json" "$json/soak.json"; }
flat=0
python3 benches/soak.py --from "$tmp" || flat=$?
if [ -n "$page" ]; then
    python3 benches/soak.py --from "$tmp" --section "$page" --command "$command" >/dev/null || true
fi
if [ "$flat" != 0 ]; then
    echo "benches/soak.sh: memory not flat (table above)" >&2
    [ "$strict" = 0 ] || exit 1
fi
