#!/usr/bin/env bash
# The whole test suite. Run after .ci/install.sh (or just run .ci/run).
# Every suite runs even if an earlier one fails; the summary lists failures
# and the script exits non-zero if any suite failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CARGO_TERM_COLOR=never
# Here every test runs: a test whose program (python3, node, cbindgen,
# openssl, an installed MCP server) is missing fails instead of skipping
# (tests/support/tools.rs). Only the `hermetic` suite below unsets it.
export CONTRACTPIN_REQUIRE_TOOLS=1

passed=0
failed=0
failures=()

suite() {
  local name="$1"
  shift
  printf '\n==> [%s] %s\n' "$name" "$*"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    printf '<== [%s] ok (%d s)\n' "$name" $((SECONDS - t0))
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf '<== [%s] FAILED (%d s)\n' "$name" $((SECONDS - t0))
  fi
}

core_has_no_dependencies() {
  # The library with its default features, and with none: only itself.
  local tree flags
  for flags in "" "--no-default-features"; do
    # shellcheck disable=SC2086
    tree="$(cargo tree -p contractpin -e normal $flags --prefix none 2>&1)" || { echo "$tree"; return 1; }
    echo "cargo tree -p contractpin -e normal $flags: $tree"
    [ "$(printf '%s\n' "$tree" | grep -c .)" -eq 1 ] && grep -q '^contractpin v' <<< "$tree" || return 1
  done
}

# Every feature of the library builds on its own (a build, not a test: the
# tests' dev-dependency on the crate itself turns on std, ffi and https).
feature_matrix() {
  local f
  for f in "" alloc std ffi mcp-http https; do
    echo "cargo build -p contractpin --lib --no-default-features --features '$f'"
    cargo build -q -p contractpin --lib --no-default-features --features "$f" || return 1
  done
}

# `cargo test` on a machine with only the Rust toolchain: python3, node,
# npm, cbindgen and openssl hidden from PATH. It must pass, and the tests
# that need them must say that they skipped.
hermetic() {
  local bin log
  bin="$(bash scripts/hermetic-path.sh "${CARGO_TARGET_DIR:-$root/target}/hermetic-bin")" || return 1
  log="${CARGO_TARGET_DIR:-$root/target}/hermetic.log"
  env -u CONTRACTPIN_REQUIRE_TOOLS PATH="$bin" cargo test --no-fail-fast > "$log" 2>&1
  local rc=$?
  grep -E '^test result:' "$log" | awk '{p+=$4; f+=$6} END {printf "hermetic cargo test: %d passed, %d failed\n", p, f}'
  echo "hermetic cargo test: $(grep -c '\*\*\* SKIPPED' "$log") tests skipped for a missing program (log: $log)"
  [ "$rc" -eq 0 ] || { grep -E '^(test .* FAILED|failures:|---- )' "$log" | head -40; return 1; }
  grep -q '\*\*\* SKIPPED' "$log" || { echo "hermetic: nothing skipped, so nothing was hidden"; return 1; }
}

# The portable back ends forced on (RustCrypto-style --cfg), both in one
# build, in a target directory of its own so the main one keeps its build:
# the portable SHA-256 (no SHA-NI, no AVX-512 lanes) and the SWAR scanning and
# structural index (no SSE2/AVX2). The two are independent of each other; the
# native ones run in `cargo test`.
portable_cfgs="--cfg contractpin_portable_sha256 --cfg contractpin_portable_simd"
portable() {
  RUSTFLAGS="$portable_cfgs" \
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/portable" \
    cargo test -p contractpin --lib --test conformance --test jsontestsuite --test properties
}

# Clippy on the host, then on the library as the other builds compile it:
# with the portable back ends forced, for aarch64 (the Armv8 SHA-256 back
# end; with std and without it, whose detection differs) and s390x (no SHA-NI,
# no AVX2 or AVX-512 code), for macOS on Apple silicon (no Linux memory
# calls; the SHA-256 instructions enabled at compile time; the std layers
# without https, whose ring needs Apple's C toolchain), for Windows (the
# library with its tests, and the CLI) and for the bare-metal Cortex-M4
# target without alloc. Code that only some of these builds use must be
# cfg'd to them, not left as dead code elsewhere. (No dependency is checked.)
clippy_all() {
  local dir="${CARGO_TARGET_DIR:-target}/clippy" rc=0 t
  cargo clippy --all-targets --all-features -- -D warnings || rc=1
  # Each override alone and both (each gates code of its own in `cpu`).
  for cfgs in "$portable_cfgs" "${portable_cfgs% --cfg*}" "${portable_cfgs#*_sha256 }"; do
    RUSTFLAGS="$cfgs" CARGO_TARGET_DIR="$dir/portable" cargo clippy -q -p contractpin --lib -- -D warnings || rc=1
  done
  for t in aarch64-unknown-linux-gnu s390x-unknown-linux-gnu; do
    CARGO_TARGET_DIR="$dir/cross" cargo clippy -q -p contractpin --lib --target "$t" -- -D warnings || rc=1
  done
  CARGO_TARGET_DIR="$dir/cross" cargo clippy -q -p contractpin --lib --no-default-features \
    --target aarch64-unknown-linux-gnu -- -D warnings || rc=1
  CARGO_TARGET_DIR="$dir/cross" cargo clippy -q -p contractpin --lib --features std,ffi,mcp-http \
    --target aarch64-apple-darwin -- -D warnings || rc=1
  CARGO_TARGET_DIR="$dir/cross" cargo clippy -q -p contractpin --lib --tests --features std,ffi,mcp-http \
    --target x86_64-pc-windows-gnu -- -D warnings || rc=1
  CARGO_TARGET_DIR="$dir/cross" cargo clippy -q -p contractpin-cli --bins --tests \
    --target x86_64-pc-windows-gnu -- -D warnings || rc=1
  CARGO_TARGET_DIR="$dir/cross" cargo clippy -q -p contractpin --lib --no-default-features \
    --target thumbv7em-none-eabihf -- -D warnings || rc=1
  return "$rc"
}

# Installed test programs (node_modules, the .venv-* virtualenvs) are never
# tracked: a committed link to them breaks every other checkout.
no_installed_files_tracked() {
  ! git ls-files | grep -E '(^|/)(node_modules|\.venv[^/]*)(/|$)'
}
suite tracked-files no_installed_files_tracked
suite fmt cargo fmt --all --check
suite clippy clippy_all
suite core-deps core_has_no_dependencies
suite docs env RUSTDOCFLAGS="-D warnings" cargo doc -p contractpin --no-deps --all-features
suite feature-matrix feature_matrix
suite no-std-bare-metal bash smoke/no_std/run.sh
suite cargo-test cargo test
suite hermetic hermetic
suite portable portable
suite cross-qemu-wine bash scripts/test-cross.sh
suite vectors-fresh python3 vectors/make_vectors.py --check
suite number-tables-fresh python3 scripts/gen_number_tables.py --check
suite vectors-oracles python3 vectors/oracles/check_vectors.py
suite mcp-fake-server python3 -m pytest -q tests/mcp/test_fake_server.py
suite mcp-expected-digests python3 tests/mcp/expected_digests.py
suite bindings bash scripts/test-bindings.sh
suite miri-core bash scripts/miri-core.sh
suite packages bash scripts/test-packages.sh
suite fuzz bash scripts/fuzz.sh --ci
suite readme-examples python3 scripts/check-readme-examples.py
suite readme-quickstart bash scripts/readme-quickstart.sh

printf '\n'
if [ "$failed" -ne 0 ]; then
  printf 'failed suites: %s\n' "${failures[*]}"
fi
printf 'suites: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
