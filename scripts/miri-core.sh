#!/usr/bin/env bash
# Miri on the core's own `unsafe` code (suite `miri-core` of scripts/test.sh;
# the C ABI's runs in scripts/test-bindings.sh).
#
# What runs, in two lanes side by side (scripts/lanes.sh; Miri interprets on
# one core), about two minutes on the 2-core CI machine:
#
#   scans     the unit tests of `arch` (the SSE2 lanes, the block skips),
#             `json::index` (the structural index), `json::indexed` (the
#             tape over it), `json::string_scan` and `jcs::string`;
#   canon     the unit tests of `json::onepass` (the chunked copies into
#             the output's slack), then two tests of tests/conformance.rs
#             that take every tools-list vector through the whole digest
#             path of a reused `Context` (the index on SSE2, the one-pass
#             canonicalizer, the batch hasher, field digests; under Miri
#             the fast path runs as it does natively with AVX2, see
#             `json::parser::parse_fast`).
#
# Their randomized tests run one round in three hundred and their
# exhaustive loops one value in thirteen under Miri (`rounds` and `STEP` in
# tests/support/rng.rs): enough to take every path, while the native run
# keeps the whole search.
#
# What Miri cannot run: the AVX2 and AVX-512 classifiers, SHA-NI, the
# AVX-512 SHA-256 lanes and CPUID (Miri has no inline assembly and reports
# only the baseline target features); they are `cfg(not(miri))`, and each
# is held to its portable twin by the native tests. `mem`'s mappings are
# `cfg(not(miri))` too. SHA-256 under Miri is the portable code, which has
# no `unsafe`.
#
# Without a nightly toolchain with Miri the suite says so and passes, as the
# C ABI's Miri run does (.ci/install.sh installs both).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lanes.sh
export CARGO_TERM_COLOR=never
# The tests read the committed vectors and test files; no integer is ever
# used as a pointer (strict provenance), which the code keeps to.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation -Zmiri-strict-provenance}"

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "*** SKIPPED: no nightly toolchain with Miri (rustup component add --toolchain nightly miri)"
  exit 0
fi

# The features of the C ABI's Miri run, so that the two share one build.
miri_test() {
  cargo +nightly miri test -p contractpin --no-default-features --features ffi,std "$@" 2>&1 |
    grep -E '^(test result|error|failures)|Undefined Behavior|^---- '
  return "${PIPESTATUS[0]}"
}
scans() {
  miri_test --lib -- arch:: json::index json::indexed json::string_scan jcs::string
}
canon() {
  miri_test --lib -- json::onepass &&
    miri_test --test conformance -- --exact the_context_pipeline_gives_the_vector_field_digests \
      the_verify_path_gives_the_vector_digests
}

# Miri's sysroot, then the build, once: two lanes would both make them.
out="$(cargo +nightly miri setup 2>&1)" || { echo "$out"; exit 1; }
out="$(miri_test --lib --test conformance --no-run)" ||
  { echo "$out"; exit 1; }
lanes scans canon
