#!/usr/bin/env bash
# Builds libcontractpin -- the C ABI only -- as a shared library (with a
# SONAME) and a static archive. The one build of the C library: the root
# Makefile (`make`, `make install`), the Python wheel and sdist
# (bindings/python/setup.py) and the binding tests all call this script.
#
#   scripts/build-lib.sh [--release|--debug] [--target-dir DIR]
#
# Builds only the library crate, never the CLI or its dependencies:
#
#   cargo rustc --locked [--release] --lib --no-default-features --features "$FEATURES" \
#       --crate-type cdylib --crate-type staticlib --target-dir DIR \
#       -- --print native-static-libs -C link-arg=-Wl,-soname,libcontractpin.so.$ABI_VERSION
#
# Default target directory: ${CARGO_TARGET_DIR:-<repo>/target}/lib, kept apart
# from a `cargo build` of the whole workspace so the two never overwrite each
# other's libcontractpin.{so,a}. Network: none if the crates of Cargo.lock are
# in the cargo cache (`cargo fetch --locked` puts them there; set
# CARGO_NET_OFFLINE=true to forbid any download).
#
# Outputs, in DIR/release (or DIR/debug):
#   libcontractpin.so           the shared library, SONAME libcontractpin.so.$ABI_VERSION
#   libcontractpin.so.$ABI_VERSION  a symlink to it (what programs linked with it load)
#   libcontractpin.a            the static archive
#   contractpin-build.env       VERSION, ABI_VERSION, SONAME, NATIVE_STATIC_LIBS
#                               (shell syntax; the libraries the archive needs,
#                               as printed by rustc --print native-static-libs)
# The last line on stdout is that directory; cargo's output goes to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# The crate features of the C library. `ffi` is the ABI; `std` is needed for
# the panic boundary (catch_unwind), a panic handler and the global allocator
# (the crate is no_std otherwise). Today `std` also pulls the libc crate (used
# by the lock-file writer, which the ABI does not call); nothing else.
FEATURES="${CONTRACTPIN_LIB_FEATURES:-ffi,std}"
# The ABI version in the SONAME. It changes only if the ABI breaks, which
# docs/C_ABI.md rules out (statuses and enum values are never renumbered;
# functions are only added).
ABI_VERSION=0

profile=release
target_dir="${CARGO_TARGET_DIR:-$root/target}/lib"
while [ $# -gt 0 ]; do
  case "$1" in
    --release) profile=release; shift ;;
    --debug) profile=debug; shift ;;
    --target-dir) target_dir="$2"; shift 2 ;;
    --target-dir=*) target_dir="${1#*=}"; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-lib: unknown argument $1 (usage: $0 [--release|--debug] [--target-dir DIR])" >&2; exit 2 ;;
  esac
done
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac

command -v cargo >/dev/null 2>&1 || { echo "build-lib: cargo not found (Rust >= 1.64 is needed; Cargo.toml's rust-version is the real minimum)" >&2; exit 1; }
# `cargo rustc --crate-type` is stable since Rust 1.64.
cargo_minor="$(cargo --version | sed -n 's/^cargo 1\.\([0-9]*\)\..*/\1/p')"
if [ -z "$cargo_minor" ] || [ "$cargo_minor" -lt 64 ]; then
  echo "build-lib: $(cargo --version 2>&1) is too old: cargo rustc --crate-type needs Rust >= 1.64" >&2
  exit 1
fi

version="$(awk '
    /^\[/ { in_pkg = ($0 == "[package]") }
    in_pkg && /^version[ \t]*=/ { gsub(/^version[ \t]*=[ \t]*"|".*$/, ""); print; exit }
' "$root/Cargo.toml")"
soname="libcontractpin.so.$ABI_VERSION"

flags=()
[ "$profile" = release ] && flags=(--release)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "build-lib: cargo rustc ($profile, features $FEATURES) into $target_dir" >&2
set +e
(cd "$root" && cargo rustc --locked "${flags[@]}" --lib --no-default-features --features "$FEATURES" \
  --crate-type cdylib --crate-type staticlib --target-dir "$target_dir" \
  -- --print native-static-libs -C "link-arg=-Wl,-soname,$soname") 2>&1 | tee "$log" >&2
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || { echo "build-lib: cargo rustc failed ($rc)" >&2; exit "$rc"; }

out="$target_dir/$profile"
for f in libcontractpin.so libcontractpin.a; do
  [ -f "$out/$f" ] || { echo "build-lib: $out/$f was not produced" >&2; exit 1; }
done
ln -sfn libcontractpin.so "$out/$soname"

# cargo replays rustc's notes when the build was fresh, so the line is there
# on every run; keep the previous value if it ever is not.
native="$(sed -n 's/.*native-static-libs: //p' "$log" | tail -1)"
if [ -z "$native" ]; then
  if [ -f "$out/contractpin-build.env" ]; then
    native="$(. "$out/contractpin-build.env" && printf '%s' "$NATIVE_STATIC_LIBS")"
  else
    echo "build-lib: rustc printed no native-static-libs line" >&2
    exit 1
  fi
fi
cat > "$out/contractpin-build.env" <<ENV
VERSION='$version'
ABI_VERSION='$ABI_VERSION'
SONAME='$soname'
NATIVE_STATIC_LIBS='$native'
FEATURES='$FEATURES'
PROFILE='$profile'
ENV
echo "$out"
