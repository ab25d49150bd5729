#!/usr/bin/env bash
# Installs the C tools the test suite uses when they are missing: a C compiler (cc,
# c++) with the sanitizer runtimes, and valgrind. Debian packages; output on stderr.
set -euo pipefail
exec 1>&2
need=()
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
if [ "${#need[@]}" -gt 0 ]; then
    echo "setup-c-tools: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
echo "setup-c-tools: $(cc --version | head -n1); $(valgrind --version)"
