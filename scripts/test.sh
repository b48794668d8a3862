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

# Busy and niced jiffies of all cores, and all jiffies, from /proc/stat
# (Linux; nothing elsewhere, and then no share is printed).
cpu_jiffies() {
  awk '/^cpu /{print $2+$4+$7+$8, $3, $2+$3+$4+$5+$6+$7+$8; exit}' /proc/stat 2>/dev/null
}
# "cores N% busy" between two cpu_jiffies readings (the niced background
# suites' share after the "+").
cpu_share() {
  local b0 n0 t0 b1 n1 t1
  read -r b0 n0 t0 <<< "$1"
  read -r b1 n1 t1 <<< "$2"
  [ -n "${t1:-}" ] && [ "$t1" -gt "$t0" ] || return 0
  printf ', cores %d%% busy + %d%% background' $(((b1 - b0) * 100 / (t1 - t0))) $(((n1 - n0) * 100 / (t1 - t0)))
}

# A suite's result: counted, and its closing line.
record() {
  local name="$1" rc="$2" secs="$3" share="${4:-}"
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    printf '<== [%s] ok (%d s%s)\n' "$name" "$secs" "$share"
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf '<== [%s] FAILED (%d s%s)\n' "$name" "$secs" "$share"
  fi
}

suite() {
  local name="$1" c0 rc
  shift
  printf '\n==> [%s] %s\n' "$name" "$*"
  local t0=$SECONDS
  c0="$(cpu_jiffies)"
  "$@"
  rc=$?
  record "$name" "$rc" $((SECONDS - t0)) "$(cpu_share "$c0" "$(cpu_jiffies)")"
}

# Suites that only compute (Miri interprets on one core per lane and waits
# on nothing) run in the background, one after the other, at the lowest
# priority (nice 19): they take the cores the suites in the foreground leave
# idle (`cargo test` keeps about 60% of two cores busy while its tests run),
# and yield them as soon as a foreground suite wants them. Each one's output
# goes to a log; background_report waits for them and prints each in order
# with its result.
background_dir=""
background_pid=""
background_names=()
background() {
  local spec name
  background_dir="$(mktemp -d)" || return 1
  for spec in "$@"; do background_names+=("${spec%%=*}"); done
  (
    renice -n 19 -p "$BASHPID" > /dev/null
    for spec in "$@"; do
      name="${spec%%=*}"
      t0=$SECONDS
      bash -c "${spec#*=}" > "$background_dir/$name.log" 2>&1
      echo "$? $((SECONDS - t0))" > "$background_dir/$name.rc"
    done
  ) &
  background_pid=$!
}
background_report() {
  local name rc secs t0=$SECONDS
  [ -n "$background_pid" ] || return 0
  wait "$background_pid"
  printf '\n(waited %d s for the background suites)\n' $((SECONDS - t0))
  for name in "${background_names[@]}"; do
    printf '\n==> [%s] (in the background, nice 19)\n' "$name"
    cat "$background_dir/$name.log"
    read -r rc secs < "$background_dir/$name.rc" 2>/dev/null || { rc=1 secs=0; }
    record "$name" "$rc" "$secs"
  done
  rm -rf "$background_dir"
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
  # The std layer without the HTTP transports (the benchmarks' feature set).
  CARGO_TARGET_DIR="$dir/std" cargo clippy -q -p contractpin --lib --features std -- -D warnings || rc=1
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
background "miri-core=bash scripts/miri-core.sh" "miri-abi=bash scripts/miri-abi.sh"
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
suite bindings env CONTRACTPIN_SKIP_MIRI=1 bash scripts/test-bindings.sh
suite packages bash scripts/test-packages.sh
suite fuzz bash scripts/fuzz.sh --ci
suite readme-examples python3 scripts/check-readme-examples.py
suite readme-quickstart bash scripts/readme-quickstart.sh
background_report

printf '\n'
if [ "$failed" -ne 0 ]; then
  printf 'failed suites: %s\n' "${failures[*]}"
fi
printf 'suites: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
