#!/usr/bin/env bash
# The firmware build of emcp-ffi links no allocator.
#
#   scripts/check-no-alloc.sh                      build and check every bare-metal target
#   scripts/check-no-alloc.sh --archive LIB.a...   check existing archives (no build)
#
# Builds emcp-ffi as a no_std release staticlib for every bare-metal target CI builds
# (Cortex-M0+, M3, M4F, M33, RV32IMC, RV32IMAC: docs/porting.md) (`cargo build --release -p emcp-ffi --no-default-features --features legacy,stateless,resources,prompts,completions,logging,pagination,schema-walk --target
# ...`; cargo drops the crate's `cdylib` type for these targets with a warning; should the
# build fail, it retries as `cargo rustc --crate-type staticlib`). Targets come from
# scripts/setup-rust-targets.sh; without a rustup target the Debian build-std route is
# used (RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 ... -Zbuild-std=core).
#
# Per archive: the undefined references of all its members are collected; those no
# member defines are the archive's external needs. An allocator symbol (malloc, free,
# calloc, realloc and their relatives, __rust_alloc, __rust_dealloc, __rust_realloc,
# __rust_alloc_zeroed, the __rg_* / __rdl_* shims, handle_alloc_error) among the
# undefined references, or defined in the archive, fails the check.
# Informational: the core::panicking functions in the archive and, when rust-lld is
# available, those still reachable after a --gc-sections link rooted at every exported
# emcp_* function.
#
# Symbol tool: llvm-nm from the rustup component llvm-tools (added on demand); else
# binutils `nm --target=elf32-little` (a plain host `nm` hands members that embed LLVM
# bitcode to the LLVM gold plugin, which fails on newer bitcode and reports "no symbols"
# for them, silently hiding their references); else `readelf -sW`.
#
# CHECK_NO_ALLOC_TOOL=nm|readelf forces a fallback tool; VERBOSE=1 also lists the
# references resolved inside the archive.
# Details (undefined symbols, tool, build output) go to stderr; one verdict line per
# archive goes to stdout. Exit status: 0 clean, 1 allocator found, 2 tooling/build error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGETS=(thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf
    riscv32imc-unknown-none-elf riscv32imac-unknown-none-elf)
C_ALLOC='^_?(malloc|free|calloc|realloc|reallocf|reallocarray|aligned_alloc|posix_memalign|memalign|valloc|pvalloc|_malloc_r|_free_r|_calloc_r|_realloc_r|_memalign_r)$'
RUST_ALLOC='__rust_(alloc|dealloc|realloc|alloc_zeroed|alloc_error_handler|no_alloc_shim_is_unstable)|__rg_(alloc|dealloc|realloc|alloc_zeroed|oom)|__rdl_(alloc|dealloc|realloc|alloc_zeroed|oom)|handle_alloc_error'

log() { echo "check-no-alloc: $*" >&2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

host="$(rustc -vV | sed -n 's/^host: //p')"
tools_bin="$(rustc --print sysroot)/lib/rustlib/$host/bin"

pick_tool() {
    case "${CHECK_NO_ALLOC_TOOL:-}" in # force one (to test the fallbacks)
    nm | readelf)
        TOOL="$CHECK_NO_ALLOC_TOOL"
        NM="$TOOL"
        log "symbol tool: $TOOL (forced)"
        return 0
        ;;
    esac
    if [ ! -x "$tools_bin/llvm-nm" ] && command -v rustup >/dev/null 2>&1; then
        log "llvm-nm not found; trying: rustup component add llvm-tools"
        rustup component add llvm-tools >&2 || log "rustup component add llvm-tools failed"
    fi
    if [ -x "$tools_bin/llvm-nm" ]; then
        TOOL=llvm-nm
        NM="$tools_bin/llvm-nm"
    elif command -v nm >/dev/null 2>&1; then
        TOOL=nm
        NM=nm
    elif command -v readelf >/dev/null 2>&1; then
        TOOL=readelf
        NM=readelf
    else
        log "no llvm-nm, nm or readelf available"
        exit 2
    fi
    log "symbol tool: $TOOL ($NM)"
}

# symbols ARCHIVE: $work/undef.txt (undefined references), def.txt (defined globals),
# all.txt (every symbol, locals included: LTO internalizes most functions).
symbols() {
    local a="$1"
    case "$TOOL" in
    llvm-nm | nm)
        local nm_=("$NM")
        [ "$TOOL" = nm ] && nm_=(nm --target=elf32-little)
        "${nm_[@]}" -P -u "$a" 2>/dev/null | awk 'NF >= 2 { print $1 }' | sort -u >"$work/undef.txt"
        "${nm_[@]}" -P -g --defined-only "$a" 2>/dev/null | awk 'NF >= 2 { print $1 }' |
            sort -u >"$work/def.txt"
        "${nm_[@]}" -P "$a" 2>/dev/null | awk 'NF >= 2 { print $1 }' | sort -u >"$work/all.txt"
        ;;
    readelf)
        readelf -sW "$a" 2>/dev/null |
            awk '$1 ~ /^[0-9]+:$/ && NF >= 8 && $4 != "SECTION" && $4 != "FILE"' >"$work/elf.txt"
        awk '$7 == "UND" { print $8 }' "$work/elf.txt" | sort -u >"$work/undef.txt"
        awk '$7 != "UND" && $5 != "LOCAL" { print $8 }' "$work/elf.txt" | sort -u >"$work/def.txt"
        awk '{ print $8 }' "$work/elf.txt" | sort -u >"$work/all.txt"
        ;;
    esac
}

# Informational: core::panicking in the archive, and what survives a gc-sections link.
panic_report() {
    local a="$1" name="$2" roots=() s
    if [ "$TOOL" = llvm-nm ]; then
        "$NM" -C "$a" 2>/dev/null | grep 'core::panicking' | sed 's/^[0-9a-f ]*[A-Za-z] //' |
            sort -u >"$work/panic.txt" || true
    elif command -v c++filt >/dev/null 2>&1; then
        grep -E '4core9panicking' "$work/all.txt" | c++filt | sed 's/\[[0-9a-f]*\]//g' |
            sort -u >"$work/panic.txt" || true
    else
        grep -E '4core9panicking' "$work/all.txt" >"$work/panic.txt" || true
    fi
    log "$name: core::panicking functions in the archive: $(wc -l <"$work/panic.txt")"
    sed 's/^/    /' "$work/panic.txt" >&2
    if [ "$TOOL" != llvm-nm ] || [ ! -x "$tools_bin/rust-lld" ]; then
        log "$name: (no rust-lld/llvm-nm: reachability after --gc-sections not checked)"
        return 0
    fi
    while read -r s; do roots+=(-u "$s"); done < <(grep -E '^emcp_' "$work/def.txt")
    if "$tools_bin/rust-lld" -flavor gnu --gc-sections -e emcp_server_init "${roots[@]}" "$a" \
        -o "$work/gc.elf" 2>"$work/lld.err"; then
        "$NM" -C "$work/gc.elf" | grep 'core::panicking' | sed 's/^[0-9a-f ]*[A-Za-z] //' |
            sort -u >"$work/panic_gc.txt" || true
        log "$name: still linked after --gc-sections from the $((${#roots[@]} / 2)) emcp_*" \
            "exports: $(wc -l <"$work/panic_gc.txt")"
        sed 's/^/    /' "$work/panic_gc.txt" >&2
    else
        log "$name: gc-sections probe link failed (informational only):"
        head -n 8 "$work/lld.err" | sed 's/^/    /' >&2
    fi
}

# check ARCHIVE NAME: 0 clean, 1 allocator found.
check() {
    local a="$1" name="$2" bad=0 n_ref n_ext
    symbols "$a"
    if ! grep -qx 'emcp_server_init' "$work/def.txt"; then
        log "$name: $TOOL found no emcp_server_init in $a: cannot read the archive"
        exit 2
    fi
    comm -23 "$work/undef.txt" "$work/def.txt" >"$work/external.txt"
    n_ref="$(wc -l <"$work/undef.txt")"
    n_ext="$(wc -l <"$work/external.txt")"
    log "$name: $a"
    log "$name: $n_ref undefined symbols referenced by its members, $n_ext not defined" \
        "inside the archive (external):"
    sed 's/^/    /' "$work/external.txt" >&2
    if [ "${VERBOSE:-0}" != 0 ]; then
        log "$name: undefined references resolved inside the archive:"
        comm -12 "$work/undef.txt" "$work/def.txt" | sed 's/^/    /' >&2
    fi
    if grep -E "$C_ALLOC" "$work/undef.txt" >"$work/hits.txt" ||
        grep -E "$RUST_ALLOC" "$work/undef.txt" >>"$work/hits.txt"; then
        log "$name: ALLOCATOR symbols referenced:"
        sort -u "$work/hits.txt" | sed 's/^/    /' >&2
        bad=1
    fi
    if { grep -E "$C_ALLOC" "$work/def.txt" || grep -E "$RUST_ALLOC" "$work/all.txt"; } |
        grep -vxFf "$work/undef.txt" | sort -u >"$work/hits.txt" && [ -s "$work/hits.txt" ]; then
        log "$name: ALLOCATOR symbols defined (an allocator is linked in):"
        sed 's/^/    /' "$work/hits.txt" >&2
        bad=1
    fi
    panic_report "$a" "$name"
    if [ "$bad" = 0 ]; then
        echo "$name: OK: no allocator symbol ($n_ref undefined references, $n_ext external)"
    else
        echo "$name: FAIL: allocator symbols in $a"
    fi
    return "$bad"
}

build() {
    local t="$1" env_=() extra=()
    if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$t"; then
        :
    elif [ -x /usr/bin/rustc ]; then
        env_=(RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1)
        extra=(-Zbuild-std=core)
        log "$t: no rustup target; using the build-std route"
    fi
    log "$t: cargo build --release -p emcp-ffi --no-default-features --features legacy,stateless,resources,prompts,completions,logging,pagination,schema-walk --target $t ${extra[*]}"
    if ! env "${env_[@]}" cargo build --release -p emcp-ffi --no-default-features --features legacy,stateless,resources,prompts,completions,logging,pagination,schema-walk --target "$t" \
        "${extra[@]}" 1>&2; then
        log "$t: cargo build failed; retrying with cargo rustc --crate-type staticlib"
        env "${env_[@]}" cargo rustc --release -p emcp-ffi --no-default-features --features legacy,stateless,resources,prompts,completions,logging,pagination,schema-walk --target "$t" \
            "${extra[@]}" --crate-type staticlib 1>&2 || {
            log "$t: build failed"
            exit 2
        }
    fi
}

cd "$root"
pick_tool
status=0
if [ "${1:-}" = "--archive" ]; then
    shift
    [ "$#" -gt 0 ] || { log "--archive needs at least one file"; exit 2; }
    for a in "$@"; do
        check "$a" "$(basename "$a")" || status=1
    done
    exit "$status"
fi

"$root/scripts/setup-rust-targets.sh"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
for t in "${TARGETS[@]}"; do
    build "$t"
    check "$target_dir/$t/release/libemcp_ffi.a" "$t" || status=1
done
exit "$status"
