#!/usr/bin/env bash
# Installs what scripts/fuzz.sh needs: a nightly Rust toolchain (minimal
# profile) and cargo-fuzz at a pinned version. Idempotent: each step is
# skipped when already done, so a second run only checks.
# If either cannot be installed, scripts/fuzz.sh falls back to the seeded
# property tests and says so; this script then warns instead of failing CI.
set -uo pipefail
cd "$(cd "$(dirname "$0")/.." && pwd)"

CARGO_FUZZ_VERSION=0.13.2

if rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "nightly: $(rustup run nightly rustc --version)"
else
  echo "installing the nightly toolchain (minimal profile)"
  rustup toolchain install nightly --profile minimal ||
    echo "WARNING: could not install nightly; scripts/fuzz.sh will fall back to property tests" >&2
fi

installed="$(cargo fuzz --version 2>/dev/null | awk '{print $2}')"
if [ "$installed" = "$CARGO_FUZZ_VERSION" ]; then
  echo "cargo-fuzz: $installed"
else
  echo "installing cargo-fuzz $CARGO_FUZZ_VERSION (found: ${installed:-none})"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked ||
    echo "WARNING: could not install cargo-fuzz; scripts/fuzz.sh will fall back to property tests" >&2
fi

# Fetch the fuzz crate's dependencies (its own workspace and lock file).
if [ -f fuzz/Cargo.lock ]; then
  cargo fetch --locked --manifest-path fuzz/Cargo.toml >/dev/null 2>&1 || true
fi
exit 0
