#!/usr/bin/env bash
# emcp's CMake package and pkg-config file, used as a C team would (docs/c-api.md,
# "Building with CMake"):
#
#   bash tests/cmake/run.sh
#
#   1. examples/c-sensor-board through add_subdirectory of the repository root: it builds,
#      and passes the transcripts;
#   2. the root project built and installed (`cmake --install --prefix`): the board through
#      find_package(emcp) passes the transcripts, and the board compiled and linked with
#      `pkg-config --cflags --libs emcp` alone passes them too;
#   3. each toolchain file in cmake/toolchains/ (Cortex-M0, M3, M4F, M33, RV32IMC,
#      RV32IMAC): the library for the Rust target derived from it, and tests/cmake/link-check
#      (emcp_version() and a resource-changed flag) linked against emcp::emcp with no C
#      library; on Cortex-M0 also without the library's critical section: links with the
#      firmware's hooks, and without them fails naming emcp_critical_section_acquire;
#   4. examples/firmware/CMakeLists.txt for m0, m3 and rv32 (the Makefile's images through
#      the package): each builds, and the M3 image passes the transcripts in QEMU.
#
# Installs what is missing with apt-get (cmake, pkg-config, the GCCs, picolibc's headers,
# QEMU) and the Rust targets (scripts/setup-rust-targets.sh). Builds in target/cmake-tests/
# (EMCP_CMAKE_TEST_DIR), kept between runs so a re-run rebuilds only what changed.
# Build output goes to stderr; stdout has one line per check, then "N passed, M failed".
# Exits non-zero on any failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${EMCP_CMAKE_TEST_DIR:-$root/target/cmake-tests}"
cd "$root"

{
    packages=()
    command -v cmake >/dev/null || packages+=(cmake)
    command -v pkg-config >/dev/null || packages+=(pkg-config)
    command -v arm-none-eabi-gcc >/dev/null || packages+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
    command -v riscv64-unknown-elf-gcc >/dev/null || packages+=(gcc-riscv64-unknown-elf)
    # The RV32 firmware's <string.h> (no C library is linked); QEMU for the M3 image.
    [ -e /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || packages+=(picolibc-riscv64-unknown-elf)
    command -v qemu-system-arm >/dev/null || packages+=(qemu-system-arm)
    if [ "${#packages[@]}" -gt 0 ]; then
        echo "tests/cmake/run.sh: installing ${packages[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends "${packages[@]}"
    fi
    cmake --version | head -n 1
    scripts/setup-rust-targets.sh # the bare-metal targets, and rust-src for the firmware
} >&2
jobs="$(nproc 2>/dev/null || echo 2)"
mkdir -p "$out"

passed=0 failed=0
check() { # check NAME COMMAND...: the command's output on stderr, "ok"/"FAIL" on stdout
    local name=$1
    shift
    echo "== $name" >&2
    if "$@" >&2; then
        echo "ok    $name"
        passed=$((passed + 1))
    else
        echo "FAIL  $name"
        failed=$((failed + 1))
    fi
}
build() { # build SOURCE DIR [CMAKE-ARGS...]: configure and build
    local src=$1 dir=$2
    shift 2
    cmake -S "$src" -B "$dir" "$@" && cmake --build "$dir" -j "$jobs"
}
transcripts() { cargo run -q -p emcp-tests --bin transcript-check -- "$@"; }

# 1. The board with emcp added as a subdirectory.
check "board (add_subdirectory) builds" build examples/c-sensor-board "$out/board"
check "board (add_subdirectory) transcripts" transcripts "$out/board/c-sensor-board"

# 2. The host library installed into a prefix other than CMAKE_INSTALL_PREFIX.
install_host() {
    rm -rf "$out/prefix"
    build . "$out/host" && cmake --install "$out/host" --prefix "$out/prefix"
}
check "host library installs" install_host
check "board (find_package) builds" build examples/c-sensor-board "$out/board-installed" \
    -DBOARD_FIND_PACKAGE=ON -DCMAKE_PREFIX_PATH="$out/prefix"
check "board (find_package) transcripts" transcripts "$out/board-installed/c-sensor-board"
board_pkg_config() {
    local pc flags
    pc="$(find "$out/prefix" -name emcp.pc -print -quit)"
    [ -n "$pc" ] || { echo "no emcp.pc under $out/prefix"; return 1; }
    flags="$(PKG_CONFIG_LIBDIR="$(dirname "$pc")" pkg-config --cflags --libs emcp)" || return 1
    echo "pkg-config --cflags --libs emcp: $flags"
    case $flags in *"$out/prefix/"*) ;; *) echo "the flags do not name the prefix"; return 1 ;; esac
    # shellcheck disable=SC2086 # pkg-config's output is a list of words
    "${CC:-cc}" -std=c99 -Wall -Wextra -pedantic -Werror -O2 -DEMCP_PLANS -Iexamples/c-sensor-board \
        examples/c-sensor-board/board.c examples/c-sensor-board/main.c $flags -o "$out/board-pkg-config"
}
check "board (pkg-config) builds" board_pkg_config
check "board (pkg-config) transcripts" transcripts "$out/board-pkg-config"

# 3. The bare-metal library for each toolchain file, linked by a C program.
cross() { # cross TOOLCHAIN RUST-TARGET [CMAKE-ARGS...] (build dir: cross-TOOLCHAIN$suffix)
    local name=$1 target=$2 dir="$out/cross-$1${suffix:-}"
    shift 2
    build tests/cmake/link-check "$dir" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$name.cmake" "$@" &&
        [ -f "$dir/emcp/cargo/$target/release/libemcp_ffi.a" ] && [ -f "$dir/check.elf" ] ||
        { echo "no $target library or no check.elf in $dir"; return 1; }
}
for pair in arm-none-eabi-cortex-m0:thumbv6m-none-eabi arm-none-eabi-cortex-m3:thumbv7m-none-eabi \
    arm-none-eabi-cortex-m4f:thumbv7em-none-eabihf arm-none-eabi-cortex-m33:thumbv8m.main-none-eabihf \
    riscv32imc-unknown-elf:riscv32imc-unknown-none-elf riscv32imac-unknown-elf:riscv32imac-unknown-none-elf; do
    check "${pair%%:*}: ${pair#*:} library, C link" cross "${pair%%:*}" "${pair#*:}"
done

# Cortex-M0 with the firmware's own critical section.
hooks() { # hooks ON|OFF: the link with (ON) or without the firmware's hooks
    suffix=-hooks cross arm-none-eabi-cortex-m0 thumbv6m-none-eabi -DEMCP_CRITICAL_SECTION_SINGLE_CORE=OFF \
        -DCHECK_HOOKS="$1" >"$out/hooks-$1.log" 2>&1
}
hooks_link() {
    hooks ON || { cat "$out/hooks-ON.log"; return 1; }
    arm-none-eabi-nm "$out/cross-arm-none-eabi-cortex-m0-hooks/check.elf" | grep -q ' emcp_critical_section_acquire$' ||
        { echo "the image does not call the hooks"; return 1; }
}
hooks_missing() {
    if hooks OFF; then
        echo "linked without emcp_critical_section_acquire/_release"
        return 1
    fi
    grep -q 'undefined reference to .emcp_critical_section_acquire' "$out/hooks-OFF.log" ||
        { cat "$out/hooks-OFF.log"; return 1; }
}
check "cortex-m0, EMCP_CRITICAL_SECTION_SINGLE_CORE=OFF: links with the firmware's hooks" hooks_link
check "cortex-m0, EMCP_CRITICAL_SECTION_SINGLE_CORE=OFF: fails without them" hooks_missing

# 4. The firmware images through the package (examples/firmware/CMakeLists.txt); the
#    Cortex-M3 one passes the transcripts in QEMU, run as examples/firmware/run.sh runs it.
for board in m0 m3 rv32; do
    check "firmware $board (examples/firmware/CMakeLists.txt) builds" \
        build examples/firmware "$out/firmware-$board" -DFW_BOARD="$board"
done
qemu_m3="$(printf '%q ' /usr/bin/python3 "$root/examples/firmware/relay.py" qemu-system-arm -M mps2-an385 \
    -cpu cortex-m3 -display none -monitor none -semihosting-config enable=on,target=native \
    -kernel "$out/firmware-m3/emcp-firmware.elf")"
# (Built as the firmware is, without emcp's `error-data`.)
check "firmware m3 (CMake) transcripts in QEMU" transcripts --no-error-data "$qemu_m3"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
