#!/bin/sh
# Generates include/contractpin.h from src/ffi with the pinned cbindgen.
#
#   scripts/gen-header.sh            # rewrite include/contractpin.h
#   scripts/gen-header.sh OUT.h      # write elsewhere (tests/ffi_header.rs does)
#   scripts/gen-header.sh --check    # exit 1 if the committed header is stale
#
# cbindgen reads only src/ffi/mod.rs and its submodules, so the rest of the
# crate never leaks into the header. The version macros
# CONTRACTPIN_VERSION_{MAJOR,MINOR,PATCH,STRING} come from Cargo.toml and
# replace the @CONTRACTPIN_VERSION_MACROS@ marker of cbindgen.toml.
set -eu

# The one pinned cbindgen version (.ci/install-bindings.sh reads it from here).
CBINDGEN_VERSION=0.29.4

root=$(cd "$(dirname "$0")/.." && pwd)
check=0
out="$root/include/contractpin.h"
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) out=$1 ;;
esac

if ! command -v cbindgen >/dev/null 2>&1; then
    echo "gen-header: cbindgen not found; install it with .ci/install-bindings.sh" \
        "(cargo install cbindgen --version $CBINDGEN_VERSION --locked)" >&2
    exit 2
fi
have=$(cbindgen --version | awk '{print $2}')
if [ "$have" != "$CBINDGEN_VERSION" ]; then
    echo "gen-header: cbindgen $have found, $CBINDGEN_VERSION required" \
        "(cargo install cbindgen --version $CBINDGEN_VERSION --locked --force)" >&2
    exit 2
fi

# version = "X.Y.Z" of the [package] table.
version=$(awk '
    /^\[/ { in_pkg = ($0 == "[package]") }
    in_pkg && /^version[ \t]*=/ { gsub(/^version[ \t]*=[ \t]*"|".*$/, ""); print; exit }
' "$root/Cargo.toml")
case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "gen-header: cannot read the package version from Cargo.toml" >&2; exit 2 ;;
esac
core=${version%%[-+]*}
major=${core%%.*}
rest=${core#*.}
minor=${rest%%.*}
patch=${rest#*.}

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.2"' EXIT
(cd "$root" && cbindgen --quiet --config cbindgen.toml --output "$tmp" src/ffi/mod.rs)
awk -v major="$major" -v minor="$minor" -v patch="$patch" -v version="$version" '
    $0 == "/* @CONTRACTPIN_VERSION_MACROS@ */" {
        print ""
        print "/** Major version of the library this header belongs to. */"
        print "#define CONTRACTPIN_VERSION_MAJOR " major
        print "/** Minor version of the library this header belongs to. */"
        print "#define CONTRACTPIN_VERSION_MINOR " minor
        print "/** Patch version of the library this header belongs to. */"
        print "#define CONTRACTPIN_VERSION_PATCH " patch
        print "/** Version of the library this header belongs to, as a string. */"
        print "#define CONTRACTPIN_VERSION_STRING \"" version "\""
        found = 1
        next
    }
    { print }
    END { if (!found) exit 3 }
' "$tmp" > "$tmp.2" || { echo "gen-header: version marker missing from cbindgen output" >&2; exit 2; }

if [ "$check" = 1 ]; then
    if cmp -s "$tmp.2" "$out"; then
        echo "gen-header: include/contractpin.h is up to date"
        exit 0
    fi
    echo "gen-header: include/contractpin.h is stale; run scripts/gen-header.sh" >&2
    diff -u "$out" "$tmp.2" >&2 || true
    exit 1
fi
mkdir -p "$(dirname "$out")"
cp "$tmp.2" "$out"
