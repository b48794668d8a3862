#!/bin/sh
# Writes a pkg-config file for libcontractpin to stdout.
#
#   bindings/c/gen-pc.sh [--prefix DIR] [--libdir DIR] [--includedir DIR] > contractpin.pc
#
# Defaults: prefix /usr/local, libdir PREFIX/lib, includedir PREFIX/include.
# Install libcontractpin.{so,a} into libdir, include/contractpin.h into
# includedir, and the .pc file into a directory on PKG_CONFIG_PATH. Then:
#   dynamic: cc app.c $(pkg-config --cflags --libs contractpin)
#   static:  cc app.c $(pkg-config --cflags contractpin) \
#              "$(pkg-config --variable=libdir contractpin)/libcontractpin.a" \
#              $(pkg-config --variable=native_static_libs contractpin)
# (Libs.private lists the same system libraries for `pkg-config --static`.)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=/usr/local
libdir=
includedir=
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=$2; shift 2 ;;
        --libdir) libdir=$2; shift 2 ;;
        --includedir) includedir=$2; shift 2 ;;
        *) echo "gen-pc: unknown argument $1" >&2; exit 2 ;;
    esac
done
version=$(awk '
    /^\[/ { in_pkg = ($0 == "[package]") }
    in_pkg && /^version[ \t]*=/ { gsub(/^version[ \t]*=[ \t]*"|".*$/, ""); print; exit }
' "$root/Cargo.toml")
# The system libraries a Rust staticlib needs on Linux/glibc, as printed by
# `cargo rustc --lib --crate-type staticlib -- --print native-static-libs`.
native=${CONTRACTPIN_NATIVE_STATIC_LIBS:--lgcc_s -lutil -lrt -lpthread -lm -ldl -lc}
cat <<PC
prefix=$prefix
libdir=${libdir:-\${prefix\}/lib}
includedir=${includedir:-\${prefix\}/include}
native_static_libs=$native

Name: contractpin
Description: Pin MCP tool contracts as SHA-256 digests over RFC 8785 canonical JSON (C ABI)
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -lcontractpin
Libs.private: $native
PC
