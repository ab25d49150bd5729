#!/usr/bin/env bash
# C unit tests of the emcp C ABI (tests/c/api_edges.c) against the host staticlib.
#
#   tests/c/run.sh
#
# 1. cargo build --release -p emcp-ffi            -> target/release/libemcp_ffi.a
# 2. include/emcp.h compiled as C++11 (syntax only, -Werror)
# 3. api_edges.c built with -std=c99 -Wall -Wextra -pedantic -Werror, and run
# 4. the same built with -fsanitize=address,undefined, and run
# 5. board_arm.c (the C board's authorization callback, with examples/c-sensor-board/board.c),
#    plain and under ASan+UBSan
# 6. the library with tasks (cargo build --release -p emcp-ffi --features tasks, in its own
#    target dir target/ffi-tasks): the header as C++11 with -DEMCP_TASKS, and api_edges.c
#    built with -DEMCP_TASKS (every test above, and the tasks tests) against it, plain and
#    under ASan+UBSan
#
# Binaries and logs go to target/c-tests/. Build output goes to stderr; each test run's
# report (ending with "N passed, M failed") goes to stdout. Exits non-zero when a build
# fails or either run reports a failure (both runs happen either way).
# CC / CXX pick the compilers (default cc / c++).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$root/target/c-tests"
cc="${CC:-cc}"
cxx="${CXX:-c++}"
mkdir -p "$out"
cd "$root"

cargo build --release -p emcp-ffi 1>&2
lib="$root/target/release/libemcp_ffi.a"
libs=(-lpthread -ldl -lm)
warn=(-std=c99 -Wall -Wextra -pedantic -Werror)

echo "== include/emcp.h as C++11" >&2
cat >"$out/header_cxx.cpp" <<'EOF'
#include "emcp.h"
static_assert(sizeof(emcp_server_storage) == EMCP_SERVER_STORAGE_SIZE, "storage size");
static_assert(alignof(emcp_server_storage) == EMCP_SERVER_STORAGE_ALIGN, "storage align");
static const emcp_str name = EMCP_STR("cxx");
static const emcp_str none = EMCP_NO_STR;
int emcp_header_cxx_probe();
int emcp_header_cxx_probe() {
    emcp_status (*init)(emcp_server_storage *, size_t, const emcp_config *, uint8_t *, size_t,
                        uint8_t *, size_t, emcp_server **) = &emcp_server_init;
#if defined(EMCP_TASKS)
    static_assert(EMCP_SERVER_STORAGE_SIZE > 1024, "task slots in the storage");
    emcp_status (*set_key)(emcp_server *, const uint8_t *, size_t) = &emcp_server_set_key;
    if (set_key == nullptr) return 0;
#endif
    return init != nullptr && name.len == 3 && none.ptr == nullptr;
}
EOF
"$cxx" -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ -fsyntax-only -I"$root/include" \
    "$out/header_cxx.cpp" 1>&2

status=0

echo "== api_edges (${warn[*]})" >&2
"$cc" "${warn[@]}" -O1 -g -I"$root/include" tests/c/api_edges.c "$lib" "${libs[@]}" \
    -o "$out/api_edges" 1>&2
echo "-- api_edges"
"$out/api_edges" | tee "$out/api_edges.log" || status=1

echo "== api_edges under ASan+UBSan" >&2
"$cc" "${warn[@]}" -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined -I"$root/include" tests/c/api_edges.c "$lib" "${libs[@]}" \
    -o "$out/api_edges_asan" 1>&2
echo "-- api_edges (ASan+UBSan)"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$out/api_edges_asan" | tee "$out/api_edges_asan.log" || status=1

board=(-I"$root/examples/c-sensor-board" tests/c/board_arm.c examples/c-sensor-board/board.c)
echo "== board_arm" >&2
"$cc" "${warn[@]}" -O1 -g -I"$root/include" "${board[@]}" "$lib" "${libs[@]}" \
    -o "$out/board_arm" 1>&2
echo "-- board_arm"
"$out/board_arm" | tee "$out/board_arm.log" || status=1
"$cc" "${warn[@]}" -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined -I"$root/include" "${board[@]}" "$lib" "${libs[@]}" \
    -o "$out/board_arm_asan" 1>&2
echo "-- board_arm (ASan+UBSan)"
"$out/board_arm_asan" | tee "$out/board_arm_asan.log" || status=1

tasks_lib="$root/target/ffi-tasks/release/libemcp_ffi.a"
cargo build --release -p emcp-ffi --features tasks --target-dir "$root/target/ffi-tasks" 1>&2
echo "== include/emcp.h as C++11 with EMCP_TASKS" >&2
"$cxx" -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ -fsyntax-only -DEMCP_TASKS \
    -I"$root/include" "$out/header_cxx.cpp" 1>&2
echo "== api_edges with tasks (${warn[*]} -DEMCP_TASKS)" >&2
"$cc" "${warn[@]}" -O1 -g -DEMCP_TASKS -I"$root/include" tests/c/api_edges.c "$tasks_lib" \
    "${libs[@]}" -o "$out/api_edges_tasks" 1>&2
echo "-- api_edges with tasks"
"$out/api_edges_tasks" | tee "$out/api_edges_tasks.log" || status=1
"$cc" "${warn[@]}" -O1 -g -DEMCP_TASKS -fsanitize=address,undefined -fno-omit-frame-pointer \
    -fno-sanitize-recover=undefined -I"$root/include" tests/c/api_edges.c "$tasks_lib" \
    "${libs[@]}" -o "$out/api_edges_tasks_asan" 1>&2
echo "-- api_edges with tasks (ASan+UBSan)"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$out/api_edges_tasks_asan" | tee "$out/api_edges_tasks_asan.log" || status=1

exit "$status"
