#!/usr/bin/env bash
# Which critical section a bare-metal C program gets from emcp-ffi on each kind of
# target (docs/porting.md, "Critical sections"): tests/c/critical-section/hooks.c,
# which raises a resource-changed flag, linked against the release staticlib.
#
#   tests/c/critical-section/run.sh
#
# For thumbv6m (Cortex-M0, arm-none-eabi-gcc) and riscv32imc (riscv64-unknown-elf-gcc,
# rv32imc/ilp32), the targets without atomic read-modify-write:
#   - the default library with the firmware's hooks defined: links, and the image
#     calls them;
#   - the same without the hooks: the link fails, naming emcp_critical_section_*;
#   - the library with `critical-section-single-core`, no hooks: links, calls none.
# For thumbv7m (Cortex-M3, atomics): the default library links without hooks.
# Build output goes to stderr; one line per check on stdout, then "N passed, M failed".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$root/target/c-tests/critical-section"
mkdir -p "$out"
cd "$root"
features=legacy,stateless,resources,prompts,completions,logging,pagination,plans,schema-walk
passed=0 failed=0

result() { # result OK|FAIL TEXT
    echo "$1 $2"
    if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

lib() { # lib TARGET [EXTRA-FEATURES] -> the staticlib (a target dir per feature set)
    local dir="$out/lib${2:+-single-core}" extra=${2:-}
    cargo build -q --release -p emcp-ffi --no-default-features --features "$features$extra" \
        --target "$1" --target-dir "$dir" >&2
    echo "$dir/$1/release/libemcp_ffi.a"
}

link() { # link NAME CC FLAGS... -- LIB [DEFINES...]: 0 when the image links
    local name=$1 cc=$2
    shift 2
    local flags=()
    while [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    local a=$1
    shift
    "$cc" "${flags[@]}" -Os -ffreestanding -nostdlib -nostartfiles -Wl,--gc-sections \
        -Wl,-e,entry -Iinclude "$@" tests/c/critical-section/hooks.c "$a" -lgcc \
        -o "$out/$name.elf" 2>"$out/$name.log"
}

calls_hooks() { # calls_hooks NM ELF: the image takes its critical section (from the hooks)
    "$1" "$2" | grep -q ' _critical_section_1_0_acquire$'
}

check_no_atomics() { # TARGET CC NM FLAGS...
    local target=$1 cc=$2 nm=$3
    shift 3
    local plain single
    plain=$(lib "$target")
    single=$(lib "$target" ,critical-section-single-core)
    if link "$target-hooks" "$cc" "$@" -- "$plain" -DWITH_HOOKS &&
        calls_hooks "$nm" "$out/$target-hooks.elf"; then
        result ok "$target: the firmware's hooks link and are called"
    else
        result FAIL "$target: with the firmware's hooks ($out/$target-hooks.log)"
    fi
    if link "$target-no-hooks" "$cc" "$@" -- "$plain"; then
        result FAIL "$target: linked without the firmware's hooks"
    elif grep -q 'undefined reference to .emcp_critical_section_\(acquire\|release\)' \
        "$out/$target-no-hooks.log"; then
        result ok "$target: without hooks the link fails naming them"
    else
        result FAIL "$target: without hooks the link failed otherwise ($out/$target-no-hooks.log)"
    fi
    if link "$target-single-core" "$cc" "$@" -- "$single" &&
        ! "$nm" "$out/$target-single-core.elf" | grep -q emcp_critical_section_ &&
        "$nm" "$out/$target-single-core.elf" | grep -q '_critical_section_1_0_acquire$'; then
        result ok "$target: critical-section-single-core links its own"
    else
        result FAIL "$target: critical-section-single-core ($out/$target-single-core.log)"
    fi
}

check_no_atomics thumbv6m-none-eabi arm-none-eabi-gcc arm-none-eabi-nm -mcpu=cortex-m0 -mthumb
check_no_atomics riscv32imc-unknown-none-elf riscv64-unknown-elf-gcc riscv64-unknown-elf-nm \
    -march=rv32imc -misa-spec=2.2 -mabi=ilp32
if link thumbv7m "arm-none-eabi-gcc" -mcpu=cortex-m3 -mthumb -- "$(lib thumbv7m-none-eabi)" &&
    ! arm-none-eabi-nm "$out/thumbv7m.elf" | grep -q critical_section; then
    result ok "thumbv7m-none-eabi: lock-free, no critical section linked"
else
    result FAIL "thumbv7m-none-eabi: ($out/thumbv7m.log)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
