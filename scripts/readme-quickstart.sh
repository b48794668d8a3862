#!/usr/bin/env bash
# Runs the first command of README.md exactly as written and checks it succeeds,
# so the README's promise stays true.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cmd="$(grep -m1 '^cargo run' README.md | sed 's/ *#.*$//')"
echo "README command: $cmd"
[ -n "$cmd" ] || { echo "no 'cargo run' line in README.md" >&2; exit 1; }
bash -c "$cmd"
