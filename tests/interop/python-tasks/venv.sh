# Sourced by this folder's scripts (or run alone, to make the venv): the Python MCP SDK
# 1.29.0 (the last with a tasks client; 2.x has types only) in a venv of its own,
# .tools/venv-mcp1 beside the project's 2.3.0 venv, made when missing. Sets `here`
# (this folder), `root` and `venv`.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/.tools/venv-mcp1"
if ! "$venv/bin/python" -c 'import mcp, sys; from importlib.metadata import version; sys.exit(version("mcp") != "1.29.0")' 2>/dev/null; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install -q mcp==1.29.0 >&2
fi
