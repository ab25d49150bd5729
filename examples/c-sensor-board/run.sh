#!/usr/bin/env bash
# run.sh — build (when needed) and run the C sensor board: an MCP server on stdin/stdout.
#
#   examples/c-sensor-board/run.sh                     # from any directory
#   EMCP_C_SANITIZE=1 examples/c-sensor-board/run.sh   # the ASan + UBSan build
#   BOARD_TASKS=1 examples/c-sensor-board/run.sh       # the tasks build (docs/board.md)
#
# The script itself is the server command (e.g. EMCP_BOARD_CMD for tests/interop/python):
#   1. the static library: `cargo build --release -p emcp-ffi` -> target/release/libemcp_ffi.a,
#      only when a file under core/ or ffi/, Cargo.toml or Cargo.lock is newer than this
#      output directory's last library build (so a re-run does not even start cargo);
#   2. the board: $CC -std=c99 -Wall -Wextra -pedantic -Werror -O2 $EMCP_C_FLAGS
#      -I include board.c main.c libemcp_ffi.a -lpthread -ldl -lm -> <out>/c-sensor-board,
#      only when a source, the header, the library or the command line changed;
#   3. exec <out>/c-sensor-board.
# Build output goes to stderr: stdout carries nothing but protocol.
#
# Environment:
#   CC               C compiler (default: cc)
#   EMCP_C_FLAGS     extra compiler flags, split at spaces (e.g. `-g`, `-DEMCP_BOARD_PAGE_SIZE=2`)
#   EMCP_C_SANITIZE  1: add -fsanitize=address,undefined -fno-sanitize-recover=all
#                    -fno-omit-frame-pointer -g; output in target/c-sensor-board-asan/
#   EMCP_C_OUT       output directory (default: target/c-sensor-board, or -asan as above)
#   BOARD_TASKS      1: the board's tasks build: the library with its `tasks` feature, in
#                    its own target dir (target/ffi-tasks), the board with -DBOARD_TASKS
#                    -DEMCP_TASKS; output in target/c-sensor-board-tasks/ (-asan-tasks
#                    with EMCP_C_SANITIZE=1)
#   CARGO            cargo (default: cargo)
# Concurrent starts build once (flock on <out>/.lock, when flock(1) exists).
set -euo pipefail

exec 3>&1 1>&2 # keep stdout for the server; everything below writes to stderr

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cc="${CC:-cc}"
cargo="${CARGO:-cargo}"

# The host library is built with its default features, plans among them.
flags=(-std=c99 -Wall -Wextra -pedantic -Werror -O2 -DEMCP_PLANS)
out_default="$root/target/c-sensor-board"
if [ "${EMCP_C_SANITIZE:-0}" = 1 ]; then
    flags+=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
    out_default="$root/target/c-sensor-board-asan"
fi
lib_dir="$root/target"
features=()
if [ "${BOARD_TASKS:-0}" = 1 ]; then
    flags+=(-DBOARD_TASKS -DEMCP_TASKS)
    out_default="$out_default-tasks"
    lib_dir="$root/target/ffi-tasks"
    features=(--features tasks --target-dir "$lib_dir")
fi
read -r -a extra <<<"${EMCP_C_FLAGS:-}"
flags+=("${extra[@]}")
out="${EMCP_C_OUT:-$out_default}"
bin="$out/c-sensor-board"
lib="$lib_dir/release/libemcp_ffi.a"
sources=("$here/board.c" "$here/main.c")

mkdir -p "$out"
if command -v flock >/dev/null; then
    exec 9>"$out/.lock"
    flock 9
fi

# 1. The static library.
stamp="$out/.ffi-built"
if [ ! -e "$stamp" ] || [ ! -e "$lib" ] ||
    [ -n "$(find "$root/core" "$root/ffi" "$root/Cargo.toml" "$root/Cargo.lock" \
        -newer "$stamp" -print -quit)" ]; then
    touch "$stamp.new" # sources edited during the build count as newer
    (cd "$root" && "$cargo" build --release -p emcp-ffi "${features[@]}")
    mv "$stamp.new" "$stamp"
fi

# 2. The board.
cmd=("$cc" "${flags[@]}" -I "$root/include" -I "$here" "${sources[@]}" "$lib" -lpthread -ldl -lm)
if [ ! -x "$bin" ] || [ "$(cat "$out/.cmd" 2>/dev/null)" != "${cmd[*]}" ] ||
    [ -n "$(find "${sources[@]}" "$here/board.h" "$root/include/emcp.h" "$lib" \
        -newer "$bin" -print -quit)" ]; then
    echo "c-sensor-board: building $bin" >&2
    "${cmd[@]}" -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
    printf '%s' "${cmd[*]}" >"$out/.cmd"
fi

# 3. Run it: stdout back to the client, the lock released.
exec 9>&- 1>&3 3>&-
exec "$bin" "$@"
