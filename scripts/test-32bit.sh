#!/usr/bin/env bash
# The core's unit tests and the in-process simulator tests (transcripts, exhaustion,
# HTTP, input, policy, stack) built for a 32-bit target and run on this host:
# i686-unknown-linux-gnu, where `usize` is 32 bits as on a Cortex-M. Several hot paths
# of the core have a fast form chosen on 64-bit targets (`cfg(emcp_fast)`, core/build.rs)
# and a plain form elsewhere; the fuzzers and most of the suite run the 64-bit build, so
# this runs the plain forms' logic on a 32-bit word under the same tests. (The
# firmware stages run the real Cortex-M build end to end under QEMU.)
#
#   scripts/test-32bit.sh
#
# Installs what is missing: the rustup target i686-unknown-linux-gnu and Debian's
# gcc-multilib (the 32-bit C runtime the linker needs). Build output to stderr; the test
# report to stdout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target=i686-unknown-linux-gnu
if ! rustup target list --installed | grep -qx "$target"; then
    echo "test-32bit.sh: rustup target add $target" >&2
    rustup target add "$target" >&2
fi
if ! dpkg -s gcc-multilib >/dev/null 2>&1; then
    echo "test-32bit.sh: installing gcc-multilib" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-multilib >&2
fi

CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/i686" \
    cargo test -p emcp -p emcp-tests --lib --tests --target "$target"
