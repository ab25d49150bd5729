#!/usr/bin/env bash
# Miri (undefined-behaviour checker) over the core's unit tests.
#
#   scripts/miri.sh [extra args for the test binary]
#   scripts/miri.sh --setup      # only install nightly's Miri and build its sysroot
#
# Installs the nightly toolchain's `miri` and `rust-src` components with rustup when
# missing. Proptest cases are cut to 2 (Miri runs ~1000x slower than native), and the
# JSON number/scanner tests and the word-at-a-time search sweep are skipped: together
# they take over 15 minutes under Miri (they ran clean on 2026-11-30). So are the
# schema's differential property tests (4,096 cases each, set in the test) and the
# writer's and `same_unescaped`'s every-length sweeps, which took the stage past 15
# minutes on 2026-12-01, and the registry's ~20,000 tool shapes (likewise): they
# compare safe code against a reference, which the native runs (`cargo test`,
# `scripts/test-32bit.sh`) cover; and the const JSON validator's proptests against
# the scanner (a minute under Miri, most of it generating Unicode text). Likewise, for
# the same reason (safe code, compared with a reference or swept over many inputs, each
# several minutes under Miri on 2026-12-02: `cargo miri nextest run` timed every test):
# the schema's many-arguments sweep, the two forms of descriptor names, of plan `enum`
# items, of base64, of the writer's strings (every short string with each escape at
# three places, over four minutes) and of the word-at-a-time byte search, the
# big-blob streaming (the small content tests run the same writers), and the writer's
# number, base64 and string round trips against `core::fmt`, a reference encoder or
# the scanner (together a minute and a half). What stays runs the dependencies'
# unsafe code (heapless, serde-json-core) through every layer of the core. Build output
# to stderr; the test report to stdout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then
    echo "miri.sh: installing nightly with miri and rust-src" >&2
    rustup toolchain install nightly --profile minimal --component miri,rust-src >&2
fi
cargo +nightly miri setup >&2
[ "${1:-}" = --setup ] && exit 0

CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/miri" PROPTEST_CASES=2 \
    MIRIFLAGS="-Zmiri-disable-isolation" \
    cargo +nightly miri test -p emcp --lib -- \
    --skip every_length_and_position --skip json::number --skip json::scanner \
    --skip answers_as_the_reference --skip plans_answer_as_the_reference \
    --skip most_generated_schemas_compile --skip escapes_at_every_position_of_short_strings \
    --skip same_unescaped_tests::as_defined --skip tools_are_written_as_their_pieces \
    --skip konst::tests::agrees --skip schema::tests::many_arguments \
    --skip names_open_the_same_in_both_forms --skip enum_item_at_forms_agree \
    --skip base64::tests::forms_agree --skip writer::tests::forms_agree::strings \
    --skip swar::tests::matches_bytewise --skip writer::tests::base64_ \
    --skip strings_round_trip --skip writer::tests::floats --skip decimal \
    --skip writer::tests::integers \
    --skip big_blob_streams_and_failed_read_is_internal_error "$@"
