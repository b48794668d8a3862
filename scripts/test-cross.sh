#!/usr/bin/env bash
# The library's tests on other architectures: cross-built with Debian's GNU
# cross toolchains and run under qemu-user, which also serves the tests' file
# reads and program runs (vectors/, python3) from the host.
#
#   scripts/test-cross.sh [TARGET...]   (default: every target below)
#
#   aarch64-unknown-linux-gnu  64-bit ARM, little-endian
#   s390x-unknown-linux-gnu    IBM Z, big-endian
#
# Runs the library's unit tests (`--lib`: SHA-256, JSON, numbers, ...; on
# aarch64 the SHA-256 tests must find the Armv8 instructions, see own_simd) and
# the vector suites: conformance, JSONTestSuite, RFC 8785 test data, ES6
# numbers. The structural index's classifiers of each target (NEON and
# SWAR on aarch64; SWAR, the only one a big-endian host has, on s390x) are
# covered by the unit tests: they hold each one to the exact parser's tape on
# every JSONTestSuite, RFC 8785 and conformance-vector input (json::indexed),
# so the vectors hold for them too.
# The dev-dependency on the crate itself turns on std, ffi and https
# here too, so ring (rustls's provider) is cross-compiled with the target's C
# compiler; it builds for both targets.
#
# Needs, per target: the rustup target (`rustup target add TARGET`, which
# follows the pinned toolchain), gcc-TRIPLE with libc6-dev-ARCH-cross and
# qemu-user (.ci/install.sh installs them). A missing one skips that target
# loudly, or fails under CONTRACTPIN_REQUIRE_TOOLS=1 (as in scripts/test.sh).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# rust target -> GNU triple, qemu-user binary
declare -A triple=([aarch64-unknown-linux-gnu]=aarch64-linux-gnu [s390x-unknown-linux-gnu]=s390x-linux-gnu)
declare -A qemu=([aarch64-unknown-linux-gnu]=qemu-aarch64 [s390x-unknown-linux-gnu]=qemu-s390x)
# Targets with SIMD code of their own (aarch64: NEON and the Armv8 SHA-256).
# qemu-user's default CPU model ("max") has the SHA-256 instructions, so the
# SHA-256 tests must run that back end, not skip it; and the seeded property
# tests run too (the fuzz targets' invariants against the reference
# canonicalizer on generated documents and the fuzz corpora; about 45 s
# under qemu-aarch64).
declare -A own_simd=([aarch64-unknown-linux-gnu]=1)
tests=(--lib --test conformance --test jsontestsuite --test rfc8785_testdata --test es6_numbers)

missing_for() { # TARGET: prints what TARGET lacks, nothing when all is there
  local t=$1 gnu=${triple[$1]}
  rustup target list --installed 2>/dev/null | grep -x "$t" >/dev/null || echo "rustup target $t"
  command -v "$gnu-gcc" >/dev/null || echo "$gnu-gcc"
  [ -d "/usr/$gnu/lib" ] || echo "/usr/$gnu (libc6-dev cross)"
  command -v "${qemu[$t]}" >/dev/null || echo "${qemu[$t]} (qemu-user)"
}

run_target() { # TARGET
  local t=$1 gnu=${triple[$1]} var missing
  missing="$(missing_for "$t" | paste -sd, -)"
  if [ -n "$missing" ]; then
    if [ -n "${CONTRACTPIN_REQUIRE_TOOLS:-}" ]; then
      echo "FAIL: $t needs $missing; CONTRACTPIN_REQUIRE_TOOLS is set, so nothing may be skipped" >&2
      return 1
    fi
    echo "*** SKIPPED $t: needs $missing ***" >&2
    return 0
  fi
  var="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$t")"
  local t0=$SECONDS
  local require=() more=()
  if [ -n "${own_simd[$t]:-}" ]; then
    require=(CONTRACTPIN_REQUIRE_HW_SHA256=1)
    more=(--test properties)
  fi
  echo "--- $t: cargo test ${tests[*]} ${more[*]} under ${qemu[$t]}"
  env "${require[@]}" "${var}_LINKER=$gnu-gcc" "${var}_RUNNER=${qemu[$t]} -L /usr/$gnu" \
    "CC_${t//-/_}=$gnu-gcc" "AR_${t//-/_}=$gnu-ar" \
    cargo test -q --config "profile.dev.package.contractpin.opt-level=1" --target "$t" -p contractpin "${tests[@]}" "${more[@]}" || return 1
  echo "--- $t: ok ($((SECONDS - t0)) s)"
}

targets=("$@")
[ ${#targets[@]} -ne 0 ] || targets=(aarch64-unknown-linux-gnu s390x-unknown-linux-gnu)
failed=0
for t in "${targets[@]}"; do
  [ -n "${triple[$t]:-}" ] || { echo "unknown target $t (known: ${!triple[*]})" >&2; exit 2; }
  run_target "$t" || failed=1
done
exit "$failed"
