#!/usr/bin/env bash
# Installs everything the test suite needs, at pinned versions. Idempotent:
# a second run on the same machine only checks. Safe to run by hand.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

step() { printf '\n==> %s\n' "$*"; }

step "Rust toolchain components"
rustup component add clippy rustfmt >/dev/null 2>&1 || true
grep -qx thumbv7em-none-eabihf <<< "$(rustup target list --installed)" || rustup target add thumbv7em-none-eabihf

step "openssl (tests/tls.rs makes its test CA and certificates with it)"
if ! command -v openssl >/dev/null; then
  command -v apt-get >/dev/null || { echo "openssl is missing and apt-get is not available: install openssl" >&2; exit 1; }
  apt-get update -qq && apt-get install -y -qq --no-install-recommends openssl
fi
openssl version

step "Rust crates (fetch once, offline afterwards)"
cargo fetch --locked

for script in install-oracles.sh install-servers.sh install-bindings.sh install-fuzz.sh install-sarif.sh; do
  if [ -f ".ci/$script" ]; then
    step ".ci/$script"
    bash ".ci/$script"
  fi
done

step "Miri on the nightly toolchain (the C ABI tests run under it when present)"
if grep -q '^nightly' <<< "$(rustup toolchain list)"; then
  rustup component add --toolchain nightly miri >/dev/null 2>&1 || echo "miri unavailable: the ABI Miri run will be skipped"
fi

step ".ci/install-cross.sh (aarch64/s390x under qemu-user, Windows under Wine, the Cortex-M4 firmware under qemu-system-arm)"
bash .ci/install-cross.sh
