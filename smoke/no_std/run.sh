#!/usr/bin/env bash
# The contractpin core on bare metal (thumbv7em-none-eabihf, a Cortex-M4F):
#   1. the smoke staticlib builds and references no allocator;
#   2. its tests pass on the host against the same no-default-features core;
#   3. a firmware of our own (firmware.rs, rt.rs, link.x) runs under
#      qemu-system-arm on the mps2-an386 board (Cortex-M4), digests every
#      `tool` vector of vectors/vectors.tsv and a 4 KB tool, and prints the
#      digests over semihosting; they must equal the vector file's, and the
#      run must end through semihosting exit with status 0. Its flash size
#      and the peak stack of digesting the 4 KB tool are printed (and kept in
#      target/smoke/reach.txt; docs/EMBEDDED.md quotes them).
# Step 3 needs python3 (embed.py), qemu-system-arm and the llvm-tools rustup
# component (llvm-size, llvm-nm): when one is missing it is skipped loudly,
# or fails under CONTRACTPIN_REQUIRE_TOOLS=1 (as in scripts/test.sh).
#
# Cargo builds every crate type a dependency declares (contractpin declares
# staticlib and cdylib for C users), and those final artifacts need a panic
# handler that a library must not impose. So the core is built as an rlib
# with `cargo rustc --crate-type rlib`, and the crates here are compiled by
# rustc directly against it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target=thumbv7em-none-eabihf
out="${CARGO_TARGET_DIR:-$root/target}/smoke"
mkdir -p "$out"
out="$(cd "$out" && pwd)" # absolute: include! resolves a relative path from firmware.rs
export CARGO_TARGET_DIR="$out/cargo"

if ! rustup target list --installed 2>/dev/null | grep -x "$target" >/dev/null; then
  rustup target add "$target"
fi

no_allocator() { # FILE: fails if FILE references the global allocator
  if nm "$1" 2>/dev/null | grep -E '__rust_(alloc|dealloc|realloc)|__rg_alloc' >&2; then
    echo "FAIL: $1 references a global allocator" >&2
    return 1
  fi
}

# 1. The core for bare metal, and the smoke staticlib against it.
(cd "$root" && cargo rustc -q --lib --crate-type rlib --no-default-features --release --target "$target")
core_dir="$CARGO_TARGET_DIR/$target/release"
rustc --edition 2021 --crate-name contractpin_nostd_smoke --crate-type staticlib \
  --target "$target" -C opt-level=s -C panic=abort \
  --extern contractpin="$core_dir/libcontractpin.rlib" -L dependency="$core_dir/deps" \
  "$here/smoke.rs" -o "$out/libsmoke-$target.a"
echo "built $out/libsmoke-$target.a ($(wc -c <"$out/libsmoke-$target.a") bytes)"
no_allocator "$out/libsmoke-$target.a"
nm "$out/libsmoke-$target.a" 2>/dev/null | grep -c ' T smoke_digest$' >/dev/null || { echo "FAIL: smoke_digest not exported" >&2; exit 1; }
echo "no allocator symbols; smoke_digest exported"

# 2. The same code on the host: the core without default features (no alloc),
#    the smoke tests with the std test harness.
(cd "$root" && cargo rustc -q --lib --crate-type rlib --no-default-features --release)
host_dir="$CARGO_TARGET_DIR/release"
rustc --edition 2021 --test --crate-name contractpin_nostd_smoke \
  --extern contractpin="$host_dir/libcontractpin.rlib" -L dependency="$host_dir/deps" \
  "$here/smoke.rs" -o "$out/smoke-host-test"
"$out/smoke-host-test"

# 3. The firmware under QEMU.
llvm_bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
missing=()
command -v python3 >/dev/null || missing+=(python3)
command -v qemu-system-arm >/dev/null || missing+=(qemu-system-arm)
[ -x "$llvm_bin/llvm-size" ] || missing+=("llvm-tools (rustup component add llvm-tools)")
if [ "${#missing[@]}" -ne 0 ]; then
  if [ -n "${CONTRACTPIN_REQUIRE_TOOLS:-}" ]; then
    echo "FAIL: the firmware run needs ${missing[*]}; CONTRACTPIN_REQUIRE_TOOLS is set, so nothing may be skipped" >&2
    exit 1
  fi
  echo "*** SKIPPED the firmware run under qemu-system-arm: needs ${missing[*]} ***" >&2
  exit 0
fi

python3 "$here/embed.py" "$root/vectors/vectors.tsv" "$out/vectors.rs" "$out/expected.txt"
firmware() { # NAME SOURCE: links SOURCE (with rt.rs, link.x) into $out/NAME.elf
  SMOKE_VECTORS="$out/vectors.rs" rustc --edition 2021 --crate-name "contractpin_$1" --crate-type bin \
    --target "$target" -C opt-level=s -C panic=abort -C link-arg=-T"$here/link.x" \
    --extern contractpin="$core_dir/libcontractpin.rlib" -L dependency="$core_dir/deps" \
    "$2" -o "$out/$1.elf"
}
firmware firmware "$here/firmware.rs"
firmware baseline "$here/baseline.rs"
if command -v clippy-driver >/dev/null; then # these files are in no Cargo package
  for f in firmware baseline smoke; do
    kind=bin; [ "$f" = smoke ] && kind=staticlib
    SMOKE_VECTORS="$out/vectors.rs" clippy-driver --edition 2021 --crate-type "$kind" --target "$target" \
      -C panic=abort -D warnings --extern contractpin="$core_dir/libcontractpin.rlib" \
      -L dependency="$core_dir/deps" "$here/$f.rs" --emit=metadata -o "$out/clippy-$f.rmeta"
  done
fi
no_allocator "$out/firmware.elf"

log="$out/firmware.log"
qemu=(qemu-system-arm -M mps2-an386 -cpu cortex-m4 -display none -serial none -monitor none
  -semihosting-config enable=on,target=native -kernel)
# Semihosting output goes to QEMU's stderr.
set +e
timeout 60 "${qemu[@]}" "$out/firmware.elf" </dev/null >"$log" 2>&1
status=$?
set -e
if [ "$status" -ne 0 ]; then
  cat "$log"
  [ "$status" -eq 124 ] && echo "FAIL: the firmware did not exit within 60 s" >&2
  echo "FAIL: the firmware ended with status $status (101 panic, 102 fault)" >&2
  exit 1
fi
if ! diff -u "$out/expected.txt" <(grep '^vector ' "$log"); then
  echo "FAIL: the firmware's digests differ from vectors/vectors.tsv (- expected, + printed)" >&2
  exit 1
fi
echo "firmware under qemu-system-arm -M mps2-an386: $(wc -l <"$out/expected.txt") tool digests equal the vectors"
# The stack measurement, checked on a function with a 1024-byte local array.
calibration=$(sed -n 's/^stack calibration-1024 //p' "$log")
if ! [ "${calibration:-0}" -ge 1024 ] || ! [ "$calibration" -le 1280 ]; then
  echo "FAIL: the stack measurement gave ${calibration:-nothing} bytes for a 1024-byte local array" >&2
  exit 1
fi

# Flash: text + rodata + data (the image in flash) of each ELF.
flash() { "$llvm_bin/llvm-size" -A "$1" | awk '$1 ~ /^\.(vector_table|text|rodata|data)$/ {s += $2} END {print s}'; }
fw=$(flash "$out/firmware.elf")
base=$(flash "$out/baseline.elf")
inputs=$(python3 -c 'import re,sys; print(sum(len(m) // 4 for m in re.findall(r"b\"((?:\\x..)*)\"", open(sys.argv[1]).read())))' "$out/vectors.rs")
named=$("$llvm_bin/llvm-nm" --print-size --demangle -t d "$out/firmware.elf" |
  awk '$3 ~ /^[tTrR]$/ && ($4 ~ /^<?contractpin::/) {s += $2} END {print s + 0}')
stack=$(sed -n 's/^stack tool-4k //p' "$log")
[ -n "$stack" ] || { echo "FAIL: the firmware printed no stack measurement" >&2; exit 1; }
scratch=$(sed -n 's/^scratch tool-4k //p' "$log")
{
  echo "firmware flash (text+rodata+data): $fw bytes"
  echo "runtime-only baseline flash: $base bytes"
  echo "embedded test inputs: $inputs bytes"
  echo "core's part (firmware - baseline - inputs): $(( fw - base - inputs )) bytes"
  echo "symbols named contractpin::*: $named bytes"
  echo "tool-4k scratch (nodes bytes): $scratch"
  echo "tool-4k peak stack: $stack bytes (painted; a 1024-byte local array measures $calibration)"
} | tee "$out/reach.txt"
