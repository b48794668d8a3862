#!/usr/bin/env bash
# Installs the independent canonicalization oracles at pinned versions.
# Idempotent: a second run only checks.
#   - PyPI rfc8785 (vectors/oracles/requirements.txt) for oracle_rfc8785.py;
#   - npm canonicalize (vectors/oracles/package-lock.json) for canon.mjs;
#   - pytest, if missing.
# Used by tests/differential.rs and vectors/oracles/check_vectors.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

RFC8785_VERSION="$(sed -n 's/^rfc8785==//p' vectors/oracles/requirements.txt)"
CANONICALIZE_VERSION="$(sed -n 's/.*"canonicalize": *"\([0-9.]*\)".*/\1/p' vectors/oracles/package.json)"

for tool in python3 node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-oracles: $tool is required" >&2; exit 1; }
done

have_rfc8785="$(python3 -c 'import rfc8785, importlib.metadata as m; print(m.version("rfc8785"))' 2>/dev/null || true)"
if [ "$have_rfc8785" = "$RFC8785_VERSION" ]; then
  echo "rfc8785 $RFC8785_VERSION present"
else
  python3 -m pip install -q -r vectors/oracles/requirements.txt
fi

mod="vectors/oracles/node_modules/canonicalize/package.json"
have_canon="$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$root/$mod" 2>/dev/null || true)"
if [ "$have_canon" = "$CANONICALIZE_VERSION" ]; then
  echo "canonicalize $CANONICALIZE_VERSION present"
else
  npm ci --prefix vectors/oracles --no-audit --no-fund
fi

if python3 -c 'import pytest' >/dev/null 2>&1; then
  echo "pytest present"
else
  python3 -m pip install -q pytest
fi
