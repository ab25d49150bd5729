# Where a panic could start in a firmware image, named by the crate of the calling
# function: the calls examples/firmware/panic_paths.py finds into code that reaches
# core::panicking. Sourced (from the repository's root) by benches/firmware/net.sh
# and benches/firmware/boards.sh:
#
#   panic_sites ELF [OPTION...] one line per call site: CRATE, a tab, the callee
#                               (OPTION: panic_paths.py's, e.g. --source CRATE,...)
#   panic_sites_by_crate ELF    "smoltcp 29, embassy_net 12, emcp 2" (most first), or "none"

panic_sites() {
    python3 examples/firmware/panic_paths.py "${@:2}" "$1" | sed -E 's/^ +//' | awk -F '  ->  ' '{
        caller = $1
        sub(/^</, "", caller); sub(/^&(mut )?/, "", caller)
        if (caller ~ /^_+defmt/) caller = "defmt"
        sub(/::.*/, "", caller)
        printf "%s\t%s\n", caller, $2
    }'
}

panic_sites_by_crate() {
    panic_sites "$1" | cut -f1 | sort | uniq -c | sort -rn | awk '{
        n = $1; $1 = ""; sub(/^ /, "")
        printf "%s%s %d", (NR > 1 ? ", " : ""), $0, n
    } END { if (NR == 0) printf "none" }'
}
