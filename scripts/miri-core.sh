#!/usr/bin/env bash
# Miri on the core's own `unsafe` code (suite `miri-core` of scripts/test.sh;
# the C ABI's is scripts/miri-abi.sh).
#
# It builds for a CPU with SSE2, AVX2, POPCNT, BMI1, BMI2 and SHA-NI
# (`-C target-feature`, in a target directory of its own): Miri interprets
# those instructions, and under Miri `crate::cpu` reports the build's
# target features instead of reading CPUID, so the back ends the build
# targets are the ones that run (arch::tests::under_miri_the_targeted_back_ends_run
# fails otherwise); once more with AVX-512, and once for aarch64, where NEON
# runs. What runs, in four lanes side by side (scripts/lanes.sh; Miri
# interprets on one core), about 4 to 5 minutes on the 2-core CI machine:
#
#   scans     the unit tests of `arch` (the SSE2 and AVX2 classifiers and
#             block skips against the SWAR twin and the naive masks),
#             `cpu`, `json::index` (the structural index, with the AVX2
#             UTF-8 check and the POPCNT/BMI1 refill), `json::string_scan`,
#             `jcs::string`, and SHA-NI against the known answers and the
#             portable back end (`sha256::tests`, `sha256::many`: one, two
#             and four streams, the multi-stream kernels' SSE4.1 build
#             called directly too; the long ones are left to the commands in
#             docs/SECURITY.md);
#   neon      the scans built for aarch64-unknown-linux-gnu (Miri interprets
#             that target's code on this host; in a target directory of its
#             own, without the x86 features): `arch` (the NEON class
#             searches and block classifier against the SWAR twin and the
#             naive masks), `json::index`, `json::string_scan`,
#             `jcs::string`;
#   avx512    built for a CPU with AVX-512 F, BW and VL as well (in a
#             target directory of its own): `arch` (the AVX-512 classifier
#             against the others and the naive masks), `json::index` (the
#             index on the AVX-512 classifier), the sixteen AVX-512 SHA-256
#             lanes against the portable compression
#             (`sha256::tests::compress16_matches_portable_from_random_states`),
#             and both builds of SHA-NI's two- and four-stream kernels, the
#             AVX-512 VL one included
#             (`sha256::tests::both_builds_of_the_multi_stream_kernels_match_portable`);
#   canon     the unit tests of `json::onepass` (the chunked copies into
#             the output's slack; its wide build, which BMI2 selects: one
#             source, so one check) and `json::indexed`, then every tools-list
#             vector through a reused `Context` with field digests
#             (tests/conformance.rs): the AVX2 index, the one-pass
#             canonicalizer, the batch hasher on SHA-NI.
#
# The parser-level tests run each input through the build's classifier
# only (`arch::parser_test_classifiers`; `arch`'s own tests compare them
# all), their randomized tests one round in three hundred and their
# exhaustive loops one value in thirteen (`rounds` and `STEP` in
# tests/support/rng.rs): enough to take every path, while the native run
# keeps the whole search.
#
# Not here: the AVX-512 VBMI2 `flatten` of the index (Miri "can't call
# foreign function `llvm.x86.avx512.mask.compress.b.512`"), the Armv8 SHA-256
# instructions (`cfg(not(miri))`: Miri "can't call foreign function
# `llvm.aarch64.crypto.sha256h`"), and `mem`'s mappings (`cfg(not(miri))`).
# `flatten` and the Armv8 back end are held to their portable twins by the
# native tests (the Armv8 one under qemu, scripts/test-cross.sh), and
# `flatten` is fuzzed under ASan. A plain Miri build (the C ABI's run,
# scripts/miri-abi.sh) runs SSE2, and there the parser takes the index
# path even though SSE2 does not check UTF-8 (`json::parser::parse_fast`).
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

export RUSTFLAGS="-C target-feature=+avx2,+popcnt,+bmi1,+bmi2,+sha,+ssse3,+sse4.1"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/miri-simd"
miri_test() {
  cargo +nightly miri test -p contractpin --no-default-features --features ffi,std "$@" 2>&1 |
    grep -E '^(test result|error|failures)|Undefined Behavior|^---- '
  return "${PIPESTATUS[0]}"
}
scans() {
  miri_test --lib -- arch:: cpu:: json::index:: json::string_scan jcs::string \
    sha256::many::tests::spans sha256::tests::fips_examples_hardware \
    sha256::tests::python_prefixes_hardware sha256::tests::compress_abc_block_hardware \
    sha256::tests::backends_agree_on_compress_from_random_states sha256::tests::pair_known_answers \
    sha256::tests::both_builds_of_the_multi_stream_kernels_match_portable \
    sha256::tests::hardware_is_never_used
}
neon_test() {
  RUSTFLAGS="" CARGO_TARGET_DIR="$CARGO_TARGET_DIR-neon" \
    miri_test --target aarch64-unknown-linux-gnu --lib "$@"
}
neon() { neon_test -- arch:: json::index:: json::string_scan jcs::string; }
avx512_test() {
  RUSTFLAGS="$RUSTFLAGS,+avx512f,+avx512bw,+avx512vl" CARGO_TARGET_DIR="$CARGO_TARGET_DIR-avx512" \
    miri_test --lib "$@"
}
avx512() {
  avx512_test -- arch:: json::index:: sha256::tests::compress16_matches_portable_from_random_states \
    sha256::tests::both_builds_of_the_multi_stream_kernels_match_portable
}
canon() {
  miri_test --lib -- json::onepass json::indexed &&
    miri_test --test conformance -- --exact the_context_pipeline_gives_the_vector_field_digests
}

# Miri's sysroots, then the builds, once: the lanes would each make them.
for target in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu; do
  out="$(cargo +nightly miri setup --target "$target" 2>&1)" || { echo "$out"; exit 1; }
done
out="$(miri_test --lib --test conformance --no-run)" || { echo "$out"; exit 1; }
out="$(neon_test --no-run)" || { echo "$out"; exit 1; }
out="$(avx512_test --no-run)" || { echo "$out"; exit 1; }
lanes scans neon avx512 canon
