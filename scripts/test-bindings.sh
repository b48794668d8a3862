#!/usr/bin/env bash
# Builds libcontractpin and runs the C ABI binding suites:
#   header  include/contractpin.h is fresh (pinned cbindgen) -- scripts/gen-header.sh --check
#   C       bindings/c: static and dynamic links, ASan+UBSan, example, pkg-config, symbols
#   Go      bindings/go: go vet, go test -race (every vector, examples)
#   Python  bindings/python: pytest (every vector, README example), plus a
#           Python 3.9 smoke test when python3.9 is installed
#   Miri    tests/ffi_abi.rs and tests/ffi_verify.rs under `cargo +nightly miri`
#           (the unsafe code of src/ffi), when the nightly toolchain has Miri;
#           about 2 minutes cold. CONTRACTPIN_SKIP_MIRI=1 skips it.
#
#   scripts/test-bindings.sh            # dev profile: `cargo build --lib` (target/debug)
#   scripts/test-bindings.sh --release  # `cargo build --release --lib` (target/release)
#
# The library is built with the default features into the cargo target
# directory (CARGO_TARGET_DIR, default ./target). Set CONTRACTPIN_LIB_DIR to
# test an already built library instead (no build). Run .ci/install-bindings.sh
# first (cbindgen, .venv-bindings). Every suite runs; exits non-zero if any failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

profile=debug
case "${1:-}" in
  --release) profile=release ;;
  --debug | "") ;;
  *) echo "usage: $0 [--release|--debug]" >&2; exit 2 ;;
esac

failed=()
summary=()
run() {
  local name="$1"
  shift
  printf '\n--> [bindings/%s] %s\n' "$name" "$*"
  if "$@"; then
    summary+=("$name: ok")
  else
    summary+=("$name: FAILED")
    failed+=("$name")
  fi
}

if [ -z "${CONTRACTPIN_LIB_DIR:-}" ]; then
  target="${CARGO_TARGET_DIR:-$root/target}"
  case "$target" in /*) ;; *) target="$root/$target" ;; esac
  flags=()
  [ "$profile" = release ] && flags=(--release)
  echo "building libcontractpin ($profile)"
  cargo build --lib "${flags[@]}" || { echo "bindings: cargo build failed" >&2; exit 1; }
  export CONTRACTPIN_LIB_DIR="$target/$profile"
fi
lib_dir="$CONTRACTPIN_LIB_DIR"
for f in libcontractpin.a libcontractpin.so; do
  [ -f "$lib_dir/$f" ] || { echo "bindings: $lib_dir/$f missing" >&2; exit 1; }
done
echo "library: $lib_dir"

run header bash scripts/gen-header.sh --check

run c make -s -C bindings/c test CONTRACTPIN_LIB_DIR="$lib_dir"

go_suite() {
  (
    cd bindings/go &&
      export CGO_ENABLED=1 CGO_LDFLAGS="-L$lib_dir -Wl,-rpath,$lib_dir" &&
      go vet ./... &&
      go test -race -count=1 -v ./... > "$root/bindings/go/test.log" 2>&1
  )
  local rc=$?
  if [ -f bindings/go/test.log ]; then
    grep -E '^(--- FAIL|FAIL|ok|panic)' bindings/go/test.log || true
    [ $rc -ne 0 ] && tail -40 bindings/go/test.log
    echo "Go: $(grep -c '^--- PASS' bindings/go/test.log) tests and examples passed ($(grep -cE '^ +--- PASS: TestVectors/' bindings/go/test.log) vectors), $(grep -cE '^ *--- FAIL' bindings/go/test.log) failed (go vet clean, go test -race)"
    rm -f bindings/go/test.log
  fi
  return $rc
}
run go go_suite

python_suite() {
  local py="$root/.venv-bindings/bin/python"
  if [ ! -x "$py" ]; then
    echo "bindings: .venv-bindings missing; run .ci/install-bindings.sh" >&2
    return 1
  fi
  # Test the package as installed (not the source tree), freshly from the working tree.
  "$py" -m pip install -q --no-deps --no-build-isolation --force-reinstall ./bindings/python || return 1
  rm -rf bindings/python/build bindings/python/src/*.egg-info
  (cd bindings/python && CONTRACTPIN_LIB="$lib_dir/libcontractpin.so" "$py" -m pytest -q -p no:cacheprovider tests) || return 1
  # The oldest supported Python, when this machine has it (plain or via pyenv).
  local py39=""
  for cand in python3.9 "$(pyenv root 2>/dev/null)"/versions/3.9*/bin/python3.9; do
    if "$cand" -c 'import sys; assert sys.version_info[:2] == (3, 9)' >/dev/null 2>&1; then
      py39="$cand"
      break
    fi
  done
  if [ -n "$py39" ]; then
    CONTRACTPIN_LIB="$lib_dir/libcontractpin.so" PYTHONPATH=bindings/python/src "$py39" - <<'PY' || return 1
import contractpin as c
assert c.canonicalize(b'{"b":1,"a":[1.0]}') == b'{"a":[1],"b":1}'
lock = open("bindings/c/testdata/demo.lock", "rb").read()
assert c.verify(lock, "demo", open("bindings/c/testdata/tools-drifted.json", "rb").read()).exit_code == 1
try:
    c.canonicalize(b"[01]")
except c.InvalidNumberError as e:
    assert e.offset == 1
else:
    raise AssertionError("accepted [01]")
print("Python 3.9 smoke test: ok")
PY
  else
    echo "Python 3.9 not installed: smoke test skipped"
  fi
}
run python python_suite

miri_suite() {
  cargo +nightly miri test --no-default-features --features ffi,std \
    --test ffi_abi --test ffi_verify 2>&1 | grep -E '^(test result|error|failures)|Undefined Behavior' 
  return "${PIPESTATUS[0]}"
}
if [ "${CONTRACTPIN_SKIP_MIRI:-0}" = 1 ]; then
  summary+=("miri: skipped (CONTRACTPIN_SKIP_MIRI=1)")
elif cargo +nightly miri --version >/dev/null 2>&1; then
  run miri miri_suite
else
  summary+=("miri: skipped (no nightly toolchain with Miri)")
fi

printf '\nbindings summary:\n'
printf '  %s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ]
