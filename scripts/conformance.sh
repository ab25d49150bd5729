#!/usr/bin/env bash
# Run the official MCP conformance suite (server mode) against a running server.
#
#   scripts/conformance.sh URL REQUIREMENTS [extra args for `conformance server`]
#
#   URL           e.g. http://127.0.0.1:3900/mcp (keep it on loopback)
#   REQUIREMENTS  a frozen requirement set: 2026-07-28 or 2025-11-25
#                 ("-" runs without --requirements, e.g. with
#                  --scenario NAME --spec-version 2026-07-28 for one scenario)
#   extra args    passed through, e.g. --expected-failures FILE, --timeout MS
#
# Runs  node .../conformance/dist/index.js server --url URL --requirements R -o DIR
# with the Node.js and suite installed by scripts/setup-conformance.sh (run first,
# idempotent). DIR is $CONFORMANCE_OUT if set, else target/conformance/R-<timestamp>;
# it receives one server-<scenario>-<time>/checks.json per scenario and the full
# suite output in run.log.
#
# Prints a summary: one line per scenario (✓/✗, with the failed and warning checks
# of failing scenarios), then for a requirement run the closing line
#   conformance R: N passed, M failed
# counting the revision's REQUIRED scenarios only (the not-scored extension/pending
# scenarios that --requirements also runs are listed separately). A scenario passes
# when none of its checks is FAILURE (WARNING does not fail it, as in the suite).
# Exit status is the suite's own (0 when every required scenario passes, or when
# all failures are in the --expected-failures baseline), and 1 when
# $CONFORMANCE_MUST_PASS (a regular expression, e.g. ^tasks-) is set and a not-scored
# scenario it matches failed, or none it matches ran.
set -euo pipefail

if [ $# -lt 2 ]; then
    awk 'NR>1 && /^#/{sub(/^# ?/,""); print; next} NR>1{exit}' "${BASH_SOURCE[0]}" >&2
    exit 2
fi
url="$1"
req="$2"
shift 2

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node="$("$root/scripts/setup-conformance.sh" --print-node 2>/dev/null)" || {
    echo "conformance: scripts/setup-conformance.sh failed; run it to see why" >&2
    exit 1
}
cli="$root/.tools/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"

stamp="$(date +%Y%m%d-%H%M%S)"
if [ "$req" = "-" ]; then
    out="${CONFORMANCE_OUT:-$root/target/conformance/run-$stamp}"
    req_args=()
else
    out="${CONFORMANCE_OUT:-$root/target/conformance/$req-$stamp}"
    req_args=(--requirements "$req")
fi
mkdir -p "$out"

echo "conformance: $url, requirements ${req}, results in $out" >&2
start=$(date +%s)
set +e
"$node" "$cli" server --url "$url" "${req_args[@]}" -o "$out" "$@" >"$out/run.log" 2>&1
status=$?
set -e
elapsed=$(( $(date +%s) - start ))

required=""
if [ "$req" != "-" ]; then
    # The revision's required server scenarios, as the suite itself lists them.
    required="$("$node" "$cli" list --server --requirements "$req" 2>/dev/null \
        | awk '/^Server scenarios/{on=1; next} on && /^[[:space:]]*$/{exit} on && /^  - /{print $2}')"
fi

set +e
MUST_PASS="${CONFORMANCE_MUST_PASS:-}" REQUIRED="$required" REQ="$req" ELAPSED="$elapsed" "$node" - "$out" <<'JS'
const fs = require('fs');
const path = require('path');
const out = process.argv[2];
const required = (process.env.REQUIRED || '').split('\n').filter(Boolean);
const results = new Map(); // scenario -> checks
for (const d of fs.readdirSync(out)) {
  const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(d);
  const f = path.join(out, d, 'checks.json');
  if (!m || !fs.existsSync(f)) continue;
  try { results.set(m[1], JSON.parse(fs.readFileSync(f, 'utf8'))); } catch { results.set(m[1], null); }
}
const ok = (checks) => Array.isArray(checks) && !checks.some((c) => c.status === 'FAILURE');
const show = (name, checks) => {
  if (checks === undefined) { console.log(`✗ ${name}: not run (no checks.json)`); return; }
  if (checks === null) { console.log(`✗ ${name}: unreadable checks.json`); return; }
  const n = (s) => checks.filter((c) => c.status === s).length;
  console.log(`${ok(checks) ? '✓' : '✗'} ${name}: ${n('SUCCESS')} ok, ${n('FAILURE')} failed, ${n('WARNING')} warnings`);
  for (const c of checks) {
    if (c.status !== 'FAILURE' && c.status !== 'WARNING') continue;
    const msg = (c.errorMessage || '').replace(/\s+/g, ' ').slice(0, 300);
    console.log(`    ${c.status === 'FAILURE' ? 'FAIL' : 'WARN'} ${c.id}${msg ? ': ' + msg : ''}`);
  }
};
const req = process.env.REQ;
if (required.length > 0) {
  let passed = 0;
  for (const s of required) { show(s, results.get(s)); if (ok(results.get(s))) passed++; }
  const extra = [...results.keys()].filter((s) => !required.includes(s)).sort();
  const must = process.env.MUST_PASS ? new RegExp(process.env.MUST_PASS) : null;
  if (extra.length > 0) {
    console.log(`not scored for ${req} (extension/pending, run for information):`);
    for (const s of extra) {
      if (must && must.test(s)) show(`${s} (must pass)`, results.get(s));
      else console.log(`  ${ok(results.get(s)) ? '✓' : '✗'} ${s}`);
    }
  }
  if (must) {
    const matched = extra.filter((s) => must.test(s));
    const failed = matched.filter((s) => !ok(results.get(s)));
    console.log(`must pass (${process.env.MUST_PASS}): ${matched.length - failed.length} of ${matched.length} passed`);
    if (matched.length === 0 || failed.length > 0) process.exitCode = 1;
  }
  console.log(`time: ${process.env.ELAPSED}s`);
  console.log(`conformance ${req}: ${passed} passed, ${required.length - passed} failed`);
} else {
  let passed = 0;
  const names = [...results.keys()].sort();
  for (const s of names) { show(s, results.get(s)); if (ok(results.get(s))) passed++; }
  console.log(`time: ${process.env.ELAPSED}s`);
  console.log(`conformance: ${passed} passed, ${names.length - passed} failed`);
}
JS
summary=$?
set -e
[ "$summary" -eq 0 ] || status=1

if [ "$status" -ne 0 ]; then
    echo "conformance: suite exited with status $status (full output: $out/run.log)" >&2
fi
exit "$status"
