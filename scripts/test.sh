#!/usr/bin/env bash
# The whole test suite. Run after .ci/install.sh (or just run .ci/run).
# Every suite runs even if an earlier one fails; the summary lists failures
# and the script exits non-zero if any suite failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CARGO_TERM_COLOR=never

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
  local tree
  tree="$(cargo tree -e normal --no-default-features --prefix none 2>&1)" || { echo "$tree"; return 1; }
  echo "$tree"
  [ "$(printf '%s\n' "$tree" | grep -c .)" -eq 1 ] && printf '%s\n' "$tree" | grep -q '^contractpin v'
}

suite fmt cargo fmt --all --check
suite clippy cargo clippy --all-targets --all-features -- -D warnings
suite core-deps core_has_no_dependencies
suite docs env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --all-features
suite core-no-std-tests cargo test --no-default-features --features alloc --lib
suite no-std-bare-metal bash smoke/no_std/run.sh
suite cargo-test cargo test
suite sha256-portable cargo test --features force-portable-sha256 --lib --test conformance
suite vectors-fresh python3 vectors/make_vectors.py --check
suite number-tables-fresh python3 scripts/gen_number_tables.py --check
suite vectors-oracles python3 vectors/oracles/check_vectors.py
suite mcp-fake-server python3 -m pytest -q tests/mcp/test_fake_server.py
suite mcp-expected-digests python3 tests/mcp/expected_digests.py
suite bindings bash scripts/test-bindings.sh
suite fuzz bash scripts/fuzz.sh --ci
suite readme-examples python3 scripts/check-readme-examples.py
suite readme-quickstart bash scripts/readme-quickstart.sh

printf '\n'
if [ "$failed" -ne 0 ]; then
  printf 'failed suites: %s\n' "${failures[*]}"
fi
printf 'suites: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
