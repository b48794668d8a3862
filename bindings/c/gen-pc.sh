#!/bin/sh
# Writes a pkg-config file for libcontractpin to stdout.
#
#   bindings/c/gen-pc.sh [--prefix DIR] [--libdir DIR] [--includedir DIR]
#                        [--native-static-libs "LIBS"] > contractpin.pc
#
# `make install` (the root Makefile) runs it; the C tests run it for the
# build directory. Defaults: prefix /usr/local, libdir PREFIX/lib, includedir
# PREFIX/include; the native static libraries default to what
# scripts/build-lib.sh recorded (rustc --print native-static-libs).
#   dynamic: cc app.c $(pkg-config --cflags --libs contractpin)
#   static:  cc app.c $(pkg-config --static --cflags --libs contractpin)
#            when libdir holds only libcontractpin.a (`make install LIB_TYPES=static`);
#            with both installed, the linker prefers the .so for -lcontractpin, so name the archive:
#            cc app.c $(pkg-config --cflags contractpin) \
#              "$(pkg-config --variable=libdir contractpin)/libcontractpin.a" \
#              $(pkg-config --variable=native_static_libs contractpin)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=/usr/local
libdir=
includedir=
native=${CONTRACTPIN_NATIVE_STATIC_LIBS:-}
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=$2; shift 2 ;;
        --libdir) libdir=$2; shift 2 ;;
        --includedir) includedir=$2; shift 2 ;;
        --native-static-libs) native=$2; shift 2 ;;
        *) echo "gen-pc: unknown argument $1" >&2; exit 2 ;;
    esac
done
version=$(awk '
    /^\[/ { in_pkg = ($0 == "[package]") }
    in_pkg && /^version[ \t]*=/ { gsub(/^version[ \t]*=[ \t]*"|".*$/, ""); print; exit }
' "$root/Cargo.toml")
# The system libraries a Rust staticlib needs: scripts/build-lib.sh records
# rustc's `--print native-static-libs` line; this is its value on Linux/glibc.
native=${native:--lgcc_s -lutil -lrt -lpthread -lm -ldl -lc}
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
