#!/usr/bin/env bash
# The official MCP conformance suite against examples/conformance-server, for both
# revisions: `--requirements 2026-07-28` (37 scenarios) and `--requirements
# 2025-11-25` (30). Installs Node.js and the suite (scripts/setup-conformance.sh),
# builds and starts the server on a free loopback port, runs scripts/conformance.sh
# with this directory's expected-failures files (the exit status fails on any
# failure not listed there, and on any listed scenario that passes, and on any
# failure of the ten not-scored `tasks-*` scenarios 2026-07-28 also runs), prints the
# pass counts, and stops the server. Build output goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"

scripts/setup-conformance.sh >&2
cargo build --release -p conformance-server >&2
server="${CARGO_TARGET_DIR:-$root/target}/release/conformance-server"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$server" --listen "127.0.0.1:$port" 2>"$root/target/conformance-server.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done

status=0
for req in 2026-07-28 2025-11-25; do
    # 2026-07-28 also runs the tasks extension's scenarios (not scored by the suite):
    # each must pass here (tasks-status-notifications is always skipped, which passes).
    must=""
    [ "$req" = 2026-07-28 ] && must='^tasks-'
    CONFORMANCE_MUST_PASS="$must" scripts/conformance.sh "http://127.0.0.1:$port/mcp" "$req" \
        --expected-failures "$here/expected-failures-$req.yaml" || status=1
done
exit $status
