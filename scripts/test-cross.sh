#!/usr/bin/env bash
# The library's tests on other platforms: cross-built with Debian's GNU
# cross toolchains and run under qemu-user (other architectures) or Wine
# (Windows), which also serve the tests' file reads and program runs
# (vectors/, python3) from the host.
#
#   scripts/test-cross.sh [TARGET...]   (default: every target below)
#
#   aarch64-unknown-linux-gnu  64-bit ARM, little-endian
#   s390x-unknown-linux-gnu    IBM Z, big-endian
#   x86_64-pc-windows-gnu      Windows (MinGW-w64), under Wine
#
# Runs the library's unit tests (`--lib`: SHA-256, JSON, numbers, ...; on
# aarch64 the SHA-256 tests must find the Armv8 instructions, see own_simd) and
# the vector suites: conformance, JSONTestSuite, RFC 8785 test data, ES6
# numbers. The structural index's classifiers of each target (NEON and
# SWAR on aarch64; SWAR, the only one a big-endian host has, on s390x) are
# covered by the unit tests: they hold each one to the exact parser's tape on
# every JSONTestSuite, RFC 8785 and conformance-vector input (json::indexed),
# so the vectors hold for them too.
# On Windows the std layer's own platform code is what differs, so the
# suites of the lock (paths, atomic saves, the file lock, also through the
# C ABI) and the stdio transport (with a server of its own) run too (see
# windows_tests); the C and Go bindings' tests, linked with the C library
# built for Windows, cover the rest of the C ABI there: verification, the
# guard, every vector (windows_bindings). With Node.js for Windows
# (node.exe, .ci/install-cross.sh), the real npm servers over stdio,
# Streamable HTTP and SSE (mcp_real_servers, and proxy_http's HTTP guard
# in front of server-everything) and the CLI's tests that start no Linux
# program run too: init, verify, approve, wrap, the lock's durability, the
# proxy between the TypeScript SDK client and server-everything, and
# Ctrl-C (windows_cli).
# Python, sh and the other Linux programs the remaining tests start are not
# Windows programs: those tests skip loudly (CONTRACTPIN_ABSENT_TOOLS, see
# tests/support/tools.rs) and run on the host. Wine 8 lacks
# bcryptprimitives.dll, which Rust's and Go's runtimes import; a stand-in
# (scripts/wine/bcryptprimitives.c) goes into the Wine prefix.
# The dev-dependency on the crate itself turns on std, ffi and https
# here too, so ring (rustls's provider) is cross-compiled with the target's C
# compiler; it builds for every target.
#
# Needs, per target: the rustup target (`rustup target add TARGET`, which
# follows the pinned toolchain), the target's gcc with its C library
# (gcc-TRIPLE and libc6-dev-ARCH-cross; gcc-mingw-w64-x86-64), and the
# runner (qemu-user; wine64) (.ci/install-cross.sh installs them). A missing
# one skips that target loudly, or fails under CONTRACTPIN_REQUIRE_TOOLS=1
# (as in scripts/test.sh).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# rust target -> GNU triple, and the command that runs its programs here
declare -A triple=([aarch64-unknown-linux-gnu]=aarch64-linux-gnu [s390x-unknown-linux-gnu]=s390x-linux-gnu
  [x86_64-pc-windows-gnu]=x86_64-w64-mingw32)
declare -A runner=([aarch64-unknown-linux-gnu]="qemu-aarch64 -L /usr/aarch64-linux-gnu"
  [s390x-unknown-linux-gnu]="qemu-s390x -L /usr/s390x-linux-gnu" [x86_64-pc-windows-gnu]=wine)
# Targets with SIMD code of their own (aarch64: NEON and the Armv8 SHA-256).
# qemu-user's default CPU model ("max") has the SHA-256 instructions, so the
# SHA-256 tests must run that back end, not skip it; and the seeded property
# tests run too (the fuzz targets' invariants against the reference
# canonicalizer on generated documents and the fuzz corpora; about 45 s
# under qemu-aarch64).
declare -A own_simd=([aarch64-unknown-linux-gnu]=1)
windows_tests=(--test lock --test ffi_abi --test ffi_lock --test stdio_portable --test mcp_real_servers --test proxy_http)
# Node.js for Windows, and the programs that are Linux programs here.
node_win="$root/tests/mcp/node-win"
windows_absent=python3,sh,sleep,kill
# ... minus the checks that run python3 (the vector generator, the
# reference digests, the lock's snapshot oracle): a Linux program, which
# Wine does not start; they hold the same files to the same oracle on every
# platform, and run on the host.
windows_skip=(--skip committed_vectors_match_the_generator
  --skip batches_give_the_reference_digests_for_tools_of_every_size
  --skip a_tampered_snapshot_is_a_snapshot_mismatch
  --skip reading_then_writing_a_lock_with_snapshots_is_byte_identical
  --skip server_facts_are_type_checked_and_live_only)
tests=(--lib --test conformance --test jsontestsuite --test rfc8785_testdata --test es6_numbers)
# The library a little optimised (the vector suites run faster under
# emulation); the CLI's runs use the same, so it is built once.
opt=(--config "profile.dev.package.contractpin.opt-level=1")

missing_for() { # TARGET: prints what TARGET lacks, nothing when all is there
  local t=$1 gnu=${triple[$1]} run=${runner[$1]%% *}
  rustup target list --installed 2>/dev/null | grep -x "$t" >/dev/null || echo "rustup target $t"
  command -v "$gnu-gcc" >/dev/null || echo "$gnu-gcc"
  [ -d "/usr/$gnu/lib" ] || echo "/usr/$gnu (the target's C library)"
  command -v "$run" >/dev/null || echo "$run"
  [[ $t != *windows* ]] || [ -f "$node_win/node.exe" ] || echo "$node_win/node.exe (.ci/install-cross.sh)"
  [[ $t != *windows* ]] || command -v script >/dev/null || echo "script (util-linux)"
}

# Wine: a prefix of its own under the target directory (not ~/.wine), no
# debug chatter, Windows 10, the stand-in bcryptprimitives.dll in its system
# directory (where Rust's and Go's runtimes both look), and node.exe on its
# PATH.
prepare_wine() {
  export WINEPREFIX="${CARGO_TARGET_DIR:-$root/target}/wine-prefix" WINEDEBUG=-all
  mkdir -p "$WINEPREFIX"
  # One wine server for the whole run, kept until 30 s after its last
  # program ends, rather than one that exits 3 s after each test binary: a
  # CI run once saw a test binary end at once, with status 1 and no output,
  # between two others that ran (2026-12-06, not reproduced in three runs
  # since); a server that stays up leaves no start-up or shut-down to race.
  wineserver -p30 2>/dev/null || true
  # The first start of a prefix sets it up (about 10 s).
  wine cmd /c exit >/dev/null 2>&1 || true
  # A new prefix says Windows 7, on which Node.js 20 refuses to start.
  [ "$(wine winecfg -v 2>/dev/null | tr -d '\r')" = win10 ] || wine winecfg -v win10 >/dev/null 2>&1
  x86_64-w64-mingw32-gcc -O2 -Wall -Wextra -Werror -shared \
    -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c || return 1
  # node.exe on the PATH of Windows programs; the Linux-only programs named.
  WINEPATH="$(winepath -w "$node_win")" || return 1
  export WINEPATH CONTRACTPIN_ABSENT_TOOLS="$windows_absent"
}

# The C library for Windows (the C ABI, as scripts/build-lib.sh builds it
# for Linux: libcontractpin.a, contractpin.dll and its import library), then
# the C binding's tests linked with each (-std=c99 -Wall -Wextra -Werror
# -pedantic) and, when Go is here, the Go binding's tests (cgo, linked
# with the archive through a contractpin.pc of its own) and go vet, all
# run under Wine on every vector.
windows_bindings() {
  local t=x86_64-pc-windows-gnu dir="${CARGO_TARGET_DIR:-$root/target}/lib-windows"
  local lib="$dir/$t/release" out="$dir/out" native
  mkdir -p "$out"
  native="$(cargo rustc -q --locked --release --target "$t" --lib --no-default-features --features ffi,std \
    --crate-type cdylib --crate-type staticlib --target-dir "$dir" -- --print native-static-libs 2>&1 |
    sed -n 's/.*native-static-libs: //p' | tail -1)"
  [ -f "$lib/libcontractpin.a" ] && [ -f "$lib/contractpin.dll" ] || { echo "the Windows library did not build" >&2; return 1; }
  local cc=(x86_64-w64-mingw32-gcc -std=c99 -Wall -Wextra -Werror -pedantic -O1 -Iinclude -Ibindings/c/tests)
  # shellcheck disable=SC2086  # $native is a list of linker flags
  "${cc[@]}" bindings/c/tests/*.c "$lib/libcontractpin.a" $native -o "$out/test_static.exe" || return 1
  "${cc[@]}" bindings/c/tests/*.c -L"$lib" -lcontractpin.dll -o "$out/test_dynamic.exe" || return 1
  cp "$lib/contractpin.dll" "$out/"
  wine "$out/test_static.exe" vectors/vectors.tsv bindings/c/testdata || return 1
  wine "$out/test_dynamic.exe" vectors/vectors.tsv bindings/c/testdata || return 1
  if ! command -v go >/dev/null; then
    if [ -n "${CONTRACTPIN_REQUIRE_TOOLS:-}" ]; then
      echo "FAIL: the Go binding's Windows tests need go" >&2
      return 1
    fi
    echo "*** SKIPPED the Go binding on Windows: needs go ***" >&2
    return 0
  fi
  printf 'Name: contractpin\nDescription: the library under test\nVersion: 0\nCflags: -I%s\nLibs: %s %s\n' \
    "$root/include" "$lib/libcontractpin.a" "$native" >"$out/contractpin.pc"
  (cd bindings/go &&
    export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc PKG_CONFIG_PATH="$out" &&
    go vet ./... && go test -c -o "$out/go_test.exe" . &&
    wine "$out/go_test.exe" -test.count=1 -test.v >"$out/go_test.log" 2>&1) || { tail -20 "$out/go_test.log" >&2; return 1; }
  grep -q '^PASS$' "$out/go_test.log" || { tail -20 "$out/go_test.log" >&2; return 1; }
  echo "Go on Windows: $(grep -c -- '--- PASS' "$out/go_test.log") tests and vectors passed, go vet clean"
}

# The CLI's unit tests and every suite, with node.exe: the tests that need a
# Linux program skip loudly, and are counted (they run on the host). Then
# the console test (Ctrl-C) on a pseudo-terminal, where Wine gives it a
# console.
windows_cli() { # CROSS-ENV...
  local log="${CARGO_TARGET_DIR:-$root/target}/windows-cli.log"
  local var=CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER
  env "$@" CONTRACTPIN_ABSENT_TOOLS="$windows_absent,console" \
    cargo test -q "${opt[@]}" --target x86_64-pc-windows-gnu -p contractpin-cli --bins --tests >"$log" 2>&1 ||
    { grep -v 'SKIPPED' "$log" | tail -60 >&2; return 1; }
  # (A terminal's output: carriage returns and escape sequences removed.)
  local console="${CARGO_TARGET_DIR:-$root/target}/windows-console.log"
  env "$@" "$var=$root/scripts/wine/in-console.sh" \
    cargo test -q "${opt[@]}" --target x86_64-pc-windows-gnu -p contractpin-cli --test console_ctrl \
    </dev/null 2>&1 | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' >"$console" ||
    { tail -40 "$console" >&2; return 1; }
  grep -a '^test \|^console_ctrl' "$console"
  # A skipped test returns early, so libtest counts it as passed.
  local passed skipped
  passed="$(grep '^test result' "$log" | awk '{n += $4} END {print n}')"
  skipped="$(grep -o '(CONTRACTPIN_ABSENT_TOOLS: not on this platform)' "$log" | wc -l)"
  echo "CLI on Windows: $((passed - skipped)) tests ran and passed; $skipped more start a Linux program" \
    "($windows_absent) and skipped loudly (they run on the host);" \
    "$(grep -o '\*\*\* SKIPPED part of' "$log" | wc -l) symbolic-link checks skipped (Wine makes no links); log: $log"
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
  local require=() more=() after=()
  if [ -n "${own_simd[$t]:-}" ]; then
    require=(CONTRACTPIN_REQUIRE_HW_SHA256=1)
    more=(--test properties)
  fi
  if [[ $t == *windows* ]]; then
    prepare_wine || return 1
    more=("${windows_tests[@]}")
    after=(-- "${windows_skip[@]}")
  fi
  # The target's linker, runner and C compiler (ring), for every cargo run below.
  local cross=("${var}_LINKER=$gnu-gcc" "${var}_RUNNER=${runner[$t]}" "CC_${t//-/_}=$gnu-gcc" "AR_${t//-/_}=$gnu-ar")
  echo "--- $t: cargo test ${tests[*]} ${more[*]} under ${runner[$t]%% *}"
  env "${require[@]}" "${cross[@]}" \
    cargo test -q "${opt[@]}" --target "$t" -p contractpin "${tests[@]}" "${more[@]}" "${after[@]}" || return 1
  if [[ $t == *windows* ]]; then
    echo "--- $t: the CLI's unit tests and suites under wine"
    windows_cli "${cross[@]}" || return 1
    echo "--- $t: the C and Go bindings under wine"
    windows_bindings || return 1
  fi
  echo "--- $t: ok ($((SECONDS - t0)) s)"
}

targets=("$@")
[ ${#targets[@]} -ne 0 ] || targets=(aarch64-unknown-linux-gnu s390x-unknown-linux-gnu x86_64-pc-windows-gnu)
failed=0
for t in "${targets[@]}"; do
  [ -n "${triple[$t]:-}" ] || { echo "unknown target $t (known: ${!triple[*]})" >&2; exit 2; }
  run_target "$t" || failed=1
done
exit "$failed"
