#!/usr/bin/env bash
# Builds libcontractpin and runs the C ABI binding suites:
#   header  include/contractpin.h is fresh (pinned cbindgen) -- scripts/gen-header.sh --check
#   C       bindings/c: static and dynamic links, ASan+UBSan, example, pkg-config, symbols
#   Go      bindings/go: go vet (default and contractpin_inrepo tags), go test -race
#           (every vector, examples), linked through `#cgo pkg-config: contractpin`
#           with a contractpin.pc for the library under test;
#           bindings/go/mcpguard (own module): the Enforcer under the MCP Go SDK
#           v1.8.0 client, gofmt, go vet, go test -race against a real SDK server
#           pinned by the CLI
#   Python  bindings/python: the package installed with the library under test
#           bundled (CONTRACTPIN_PREBUILT_LIB), then pytest (every vector, README
#           example, where the library is loaded from), mypy --strict, plus a
#           Python 3.9 smoke test when python3.9 is installed
#   CLI reports  bindings/c/testdata/verify-server/report-*.json (what the suites
#           compare contractpin_lock_verify_server's report with) are still what
#           `contractpin verify --format json` writes: gen.sh --check
#   Python MCP  contractpin.mcp_guard and contractpin.Enforcer with the MCP
#           Python SDK 1.30.0 and 2.3.0 (.venv-mcp1, .venv-mcp2 from
#           .ci/install-servers.sh) against server-everything and
#           tests/mcp/fake_server.py over stdio
#   Miri    the ABI tests under `cargo +nightly miri` (scripts/miri-abi.sh), when
#           the nightly toolchain has Miri; about 4 minutes on the 2-core CI
#           machine. CONTRACTPIN_SKIP_MIRI=1 skips it.
#
#   scripts/test-bindings.sh            # dev profile: scripts/build-lib.sh --debug (target/lib/debug)
#   scripts/test-bindings.sh --release  # scripts/build-lib.sh --release (target/lib/release)
#
# The library is built by scripts/build-lib.sh (the library crate with the C
# ABI only, as `make install` and the wheel build it). Set CONTRACTPIN_LIB_DIR
# to test an already built library instead (no build). Run
# .ci/install-bindings.sh first (cbindgen, .venv-bindings). Every suite runs;
# exits non-zero if any failed. The installed packages (make install, wheel,
# sdist, a Go module outside the repository) are tested by scripts/test-packages.sh.
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
  echo "building libcontractpin ($profile): scripts/build-lib.sh --$profile"
  out="$(bash scripts/build-lib.sh "--$profile" | tail -1)" && [ -n "$out" ] ||
    { echo "bindings: scripts/build-lib.sh failed" >&2; exit 1; }
  export CONTRACTPIN_LIB_DIR="$out"
fi
lib_dir="$(cd "$CONTRACTPIN_LIB_DIR" && pwd)" || { echo "bindings: $CONTRACTPIN_LIB_DIR is not a directory" >&2; exit 1; }
export CONTRACTPIN_LIB_DIR="$lib_dir"
for f in libcontractpin.a libcontractpin.so; do
  [ -f "$lib_dir/$f" ] || { echo "bindings: $lib_dir/$f missing" >&2; exit 1; }
done
echo "library: $lib_dir"

run header bash scripts/gen-header.sh --check

run c make -s -C bindings/c test CONTRACTPIN_LIB_DIR="$lib_dir"

go_suite() {
  # The default build links through pkg-config (as against an installed
  # library): a contractpin.pc naming the library under test, and an rpath.
  local pc hdr
  pc="$(mktemp -d)"
  # Go's build cache does not track include/contractpin.h (outside the
  # package): a define naming its digest rebuilds the binding when it changes.
  hdr="$(sha256sum include/contractpin.h | cut -c1-16)"
  sh bindings/c/gen-pc.sh --prefix "$root" --libdir "$lib_dir" --includedir "$root/include" \
    --native-static-libs "$(. "$lib_dir/contractpin-build.env" 2>/dev/null && echo "$NATIVE_STATIC_LIBS")" \
    > "$pc/contractpin.pc" || return 1
  (
    cd bindings/go &&
      export CGO_ENABLED=1 PKG_CONFIG_PATH="$pc" CGO_LDFLAGS="-Wl,-rpath,$lib_dir" \
        CGO_CFLAGS="-O2 -g -DCONTRACTPIN_HEADER_DIGEST=$hdr" &&
      go vet ./... &&
      go vet -tags contractpin_inrepo ./... &&
      go test -race -count=1 -v ./... > "$root/bindings/go/test.log" 2>&1
  )
  local rc=$?
  # bindings/go/mcpguard (the Enforcer under the official MCP Go SDK's client)
  # is a module of its own, which `./...` above does not enter; its tests pin
  # their server with the CLI (CONTRACTPIN_CLI).
  local mrc=0 cli="${CARGO_TARGET_DIR:-$root/target}/debug/contractpin"
  cargo build -q -p contractpin-cli &&
    (
      cd bindings/go/mcpguard &&
        export CGO_ENABLED=1 PKG_CONFIG_PATH="$pc" CGO_LDFLAGS="-Wl,-rpath,$lib_dir" \
          CGO_CFLAGS="-O2 -g -DCONTRACTPIN_HEADER_DIGEST=$hdr" CONTRACTPIN_CLI="$cli" &&
        unformatted="$(gofmt -l .)" && { [ -z "$unformatted" ] || { echo "gofmt: $unformatted" >&2; false; }; } &&
        go vet ./... &&
        go vet -tags contractpin_inrepo ./... &&
        go test -race -count=1 -v ./... > "$root/bindings/go/mcpguard/test.log" 2>&1
    ) || mrc=1
  rm -rf "$pc"
  if [ -f bindings/go/test.log ]; then
    grep -E '^(--- FAIL|FAIL|ok|panic)' bindings/go/test.log || true
    [ $rc -ne 0 ] && tail -40 bindings/go/test.log
    echo "Go: $(grep -c '^--- PASS' bindings/go/test.log) tests and examples passed ($(grep -cE '^ +--- PASS: TestVectors/' bindings/go/test.log) vectors), $(grep -cE '^ *--- FAIL' bindings/go/test.log) failed (go vet clean, go test -race)"
    rm -f bindings/go/test.log
  fi
  if [ -f bindings/go/mcpguard/test.log ]; then
    grep -E '^(--- FAIL|FAIL|ok|panic)' bindings/go/mcpguard/test.log || true
    [ $mrc -ne 0 ] && tail -40 bindings/go/mcpguard/test.log
    echo "Go mcpguard: $(grep -c '^--- PASS' bindings/go/mcpguard/test.log) tests and examples passed, $(grep -cE '^ *--- FAIL' bindings/go/mcpguard/test.log) failed (gofmt, go vet clean, go test -race, go-sdk v1.8.0)"
    rm -f bindings/go/mcpguard/test.log
  fi
  [ $rc -eq 0 ] && [ $mrc -eq 0 ]
}
run go go_suite

python_suite() {
  local py="$root/.venv-bindings/bin/python"
  if [ ! -x "$py" ]; then
    echo "bindings: .venv-bindings missing; run .ci/install-bindings.sh" >&2
    return 1
  fi
  # Test the package as installed (not the source tree), freshly from the
  # working tree, with the library under test bundled as the wheel bundles it
  # (no cargo run: CONTRACTPIN_PREBUILT_LIB), and loaded from there: no
  # CONTRACTPIN_LIB.
  CONTRACTPIN_PREBUILT_LIB="$lib_dir/libcontractpin.so" \
    "$py" -m pip install -q --no-deps --no-build-isolation --force-reinstall ./bindings/python || return 1
  rm -rf bindings/python/build bindings/python/src/*.egg-info
  # The import finds the installed package, which loads its bundled copy.
  (cd bindings/python && env -u CONTRACTPIN_LIB "$py" - <<'PY') || return 1
import sysconfig
from pathlib import Path

import contractpin

package = Path(contractpin.__file__).resolve().parent
site = Path(sysconfig.get_paths()["platlib"]).resolve()
assert package == site / "contractpin", f"imported {package}, not the installed package in {site}"
assert contractpin.library_path == str(package / "libcontractpin.so"), contractpin.library_path
print(f"python: the installed package loads {contractpin.library_path}")
PY
  (cd bindings/python && env -u CONTRACTPIN_LIB "$py" -m pytest -q -p no:cacheprovider tests) || return 1
  # The package's type hints hold (py.typed): mypy --strict, pinned in requirements-lint.txt.
  "$py" -m mypy --strict --cache-dir=/dev/null bindings/python/src/contractpin || return 1
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

python_mcp_suite() {
  # contractpin.mcp_guard against the official MCP Python SDK, both
  # generations (.venv-mcp1: mcp 1.30.0, .venv-mcp2: mcp 2.3.0, from
  # .ci/install-servers.sh), over stdio to server-everything and
  # tests/mcp/fake_server.py, with a lock the CLI writes at test time. The
  # package from the source tree, the library under test through
  # CONTRACTPIN_LIB. A missing venv, node, server or CLI fails the step.
  cargo build -q -p contractpin-cli || return 1
  local cli="${CARGO_TARGET_DIR:-$root/target}/debug/contractpin" rc=0 v
  for v in 1 2; do
    local py="$root/.venv-mcp$v/bin/python"
    if [ ! -x "$py" ]; then
      echo "bindings: .venv-mcp$v missing; run .ci/install-servers.sh" >&2
      rc=1
      continue
    fi
    echo "mcp_guard with $("$py" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))' 2>&1)"
    (cd bindings/python/tests_mcp &&
      CONTRACTPIN_LIB="$lib_dir/libcontractpin.so" CONTRACTPIN_CLI="$cli" CONTRACTPIN_REPO="$root" \
        PYTHONPATH="$root/bindings/python/src" "$py" -m unittest -v test_mcp_guard test_mcp_enforcer) || rc=1
  done
  return $rc
}
run python-mcp python_mcp_suite

# The reference reports of the one-call verify (contractpin_lock_verify_server)
# are still what `contractpin verify --format json` writes for that server.
cli_reports() {
  cargo build -q -p contractpin-cli || return 1
  sh bindings/c/testdata/verify-server/gen.sh --check "${CARGO_TARGET_DIR:-$root/target}/debug/contractpin"
}
run cli-reports cli_reports

# Miri on the ABI tests: scripts/miri-abi.sh (scripts/test.sh runs it as a
# suite of its own, in the background, with CONTRACTPIN_SKIP_MIRI=1 here).
if [ "${CONTRACTPIN_SKIP_MIRI:-0}" = 1 ]; then
  summary+=("miri: skipped (CONTRACTPIN_SKIP_MIRI=1)")
elif cargo +nightly miri --version >/dev/null 2>&1; then
  run miri bash scripts/miri-abi.sh
else
  summary+=("miri: skipped (no nightly toolchain with Miri)")
fi

printf '\nbindings summary:\n'
printf '  %s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ]
