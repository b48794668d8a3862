#!/usr/bin/env bash
# Installs the official SARIF 2.1.0 validator at a pinned version:
#   tests/sarif/   npm ci from the committed package-lock.json:
#                  @microsoft/sarif-multitool 5.7.0 (its linux package ships a
#                  self-contained .NET binary, Sarif.Multitool; no .NET install needed)
# Used by cli/tests/cli_sarif.rs (`sarif-multitool validate`). Idempotent: a stamp
# (hash of the lock file + node version) skips a second run. FORCE=1 reinstalls.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/sarif"
command -v node >/dev/null || { echo "install-sarif: node not found" >&2; exit 1; }
command -v npm >/dev/null || { echo "install-sarif: npm not found" >&2; exit 1; }
stamp="$dir/node_modules/.contractpin-stamp"
want="$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -d' ' -f1) node $(node --version)"
if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "install-sarif: sarif-multitool up to date"
else
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  bin="$dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
  # Its postinstall only sets this bit; set it here too in case scripts were not run.
  [ -f "$bin" ] && chmod u+x "$bin"
  printf '%s\n' "$want" >"$stamp"
fi
# sed reads to the end (head -1 would exit first: SIGPIPE under pipefail)
"$dir/node_modules/.bin/sarif-multitool" --version 2>&1 | sed -n 1p
