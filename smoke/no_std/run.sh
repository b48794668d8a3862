#!/usr/bin/env bash
# Builds the no_std smoke crate for bare metal and runs its tests on the host.
#
# Cargo builds every crate type a dependency declares (contractpin declares
# staticlib and cdylib for C users), and those final artifacts need a panic
# handler that a library must not impose. So the core is built as an rlib
# with `cargo rustc --crate-type rlib`, and this crate is compiled by rustc
# directly against it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target=thumbv7em-none-eabihf
out="${CARGO_TARGET_DIR:-$root/target}/smoke"
mkdir -p "$out"
export CARGO_TARGET_DIR="$out/cargo"

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  rustup target add "$target"
fi

# 1. The core for bare metal, and the smoke staticlib against it.
(cd "$root" && cargo rustc -q --lib --crate-type rlib --no-default-features --release --target "$target")
core_dir="$CARGO_TARGET_DIR/$target/release"
rustc --edition 2021 --crate-name contractpin_nostd_smoke --crate-type staticlib \
  --target "$target" -C opt-level=s -C panic=abort \
  --extern contractpin="$core_dir/libcontractpin.rlib" -L dependency="$core_dir/deps" \
  "$here/smoke.rs" -o "$out/libsmoke-$target.a"
echo "built $out/libsmoke-$target.a ($(wc -c <"$out/libsmoke-$target.a") bytes)"

# 2. No allocator anywhere: no reference to the global allocator shims.
symbols="$(nm "$out/libsmoke-$target.a" 2>/dev/null || true)"
if grep -E '__rust_(alloc|dealloc|realloc)|__rg_alloc' <<<"$symbols"; then
  echo "FAIL: the bare-metal build references a global allocator" >&2
  exit 1
fi
grep -q ' T smoke_digest$' <<<"$symbols" || { echo "FAIL: smoke_digest not exported" >&2; exit 1; }
echo "no allocator symbols; smoke_digest exported"

# 3. The same code on the host: the core without default features (no alloc),
#    the smoke tests with the std test harness.
(cd "$root" && cargo rustc -q --lib --crate-type rlib --no-default-features --release)
host_dir="$CARGO_TARGET_DIR/release"
rustc --edition 2021 --test --crate-name contractpin_nostd_smoke \
  --extern contractpin="$host_dir/libcontractpin.rlib" -L dependency="$host_dir/deps" \
  "$here/smoke.rs" -o "$out/smoke-host-test"
"$out/smoke-host-test"
