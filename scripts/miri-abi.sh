#!/usr/bin/env bash
# Miri on the C ABI's `unsafe` code (suite `miri-abi` of scripts/test.sh, and
# the last step of scripts/test-bindings.sh): tests/ffi_abi.rs,
# tests/ffi_verify.rs, tests/ffi_lock.rs, tests/ffi_guard.rs,
# tests/ffi_guard_instructions.rs, tests/ffi_gate.rs, tests/ffi_enforcer.rs and
# tests/ffi_verify_server.rs (the exports
# called from Rust: pointer casts, the caller-allocated SHA-256 state,
# out-parameter writes) under `cargo +nightly miri`, on a plain build (SSE2).
#
# Miri interprets on one core, so the test binaries run in two lanes side by
# side (scripts/lanes.sh), split by their time under Miri on the CI machine
# (ffi_guard 130 s, ffi_verify_server 98 s, ffi_lock 83 s, ffi_verify 79 s,
# ffi_abi 25 s, ffi_guard_instructions 17 s): about 4 minutes on 2 cores.
#
# Without a nightly toolchain with Miri the script says so and passes, as
# scripts/miri-core.sh does (.ci/install.sh installs both).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lanes.sh
export CARGO_TERM_COLOR=never

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "*** SKIPPED: no nightly toolchain with Miri (rustup component add --toolchain nightly miri)"
  exit 0
fi

miri_run() {
  cargo +nightly miri test --no-default-features --features ffi,std "$@" 2>&1 |
    grep -E '^(test result|error|failures)|Undefined Behavior'
  return "${PIPESTATUS[0]}"
}
miri_lane_a() { miri_run --test ffi_guard --test ffi_verify --test ffi_abi --test ffi_enforcer; }
miri_lane_b() { miri_run --test ffi_verify_server --test ffi_lock --test ffi_guard_instructions --test ffi_gate; }

# Miri's sysroot, then the build, once: two lanes would both make them.
out="$(cargo +nightly miri setup 2>&1)" || { echo "$out"; exit 1; }
out="$(miri_run --test ffi_guard --test ffi_verify --test ffi_abi --test ffi_verify_server \
  --test ffi_lock --test ffi_guard_instructions --test ffi_gate --test ffi_enforcer --no-run)" || { echo "$out"; exit 1; }
lanes miri_lane_a miri_lane_b
