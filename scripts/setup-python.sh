#!/usr/bin/env bash
# Create the Python virtual environment used by the interop tests (tests/interop/python).
#
#   scripts/setup-python.sh
#
# Idempotent: does nothing when .tools/venv already holds the pinned versions.
# All output goes to stderr; nothing is printed on stdout.
# Environment: PYTHON (default python3) picks the interpreter that creates the venv.
set -euo pipefail
exec 1>&2

MCP_VERSION=2.3.0
PYTEST_VERSION=9.2.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.tools/venv"
py="$venv/bin/python"

installed() {
    # Exit 0 when the venv works and holds exactly the pinned versions.
    [ -x "$py" ] || return 1
    "$py" - "$MCP_VERSION" "$PYTEST_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
want = {"mcp": sys.argv[1], "pytest": sys.argv[2]}
try:
    ok = all(version(name) == v for name, v in want.items())
except PackageNotFoundError:
    ok = False
sys.exit(0 if ok else 1)
PY
}

if installed; then
    echo "setup-python: $venv already has mcp==$MCP_VERSION pytest==$PYTEST_VERSION"
    exit 0
fi

if [ -x "$py" ] && ! "$py" -c 'import sys' 2>/dev/null; then
    echo "setup-python: $venv is broken (interpreter gone?); recreating"
    rm -rf "$venv"
fi

if [ ! -x "$py" ]; then
    echo "setup-python: creating $venv with ${PYTHON:-python3} ($("${PYTHON:-python3}" --version 2>&1))"
    mkdir -p "$root/.tools"
    "${PYTHON:-python3}" -m venv "$venv"
fi

echo "setup-python: installing mcp==$MCP_VERSION pytest==$PYTEST_VERSION"
"$py" -m pip install --disable-pip-version-check --no-input --quiet \
    "mcp==$MCP_VERSION" "pytest==$PYTEST_VERSION"

if ! installed; then
    echo "setup-python: the venv does not hold the pinned versions after installing" >&2
    exit 1
fi
echo "setup-python: done ($("$py" --version 2>&1), mcp $MCP_VERSION, pytest $PYTEST_VERSION)"
