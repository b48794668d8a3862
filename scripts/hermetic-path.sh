#!/usr/bin/env bash
# Prints a PATH for a machine that has the Rust toolchain and a base system
# but no Python, Node, npm, cbindgen or openssl: a directory of links to
# every program on the current PATH except those. `cargo test` must pass
# under it (tests that need a hidden tool skip, saying so); scripts/test.sh
# runs that check as the `hermetic` suite.
#
#   PATH="$(scripts/hermetic-path.sh DIR)" cargo test
set -euo pipefail
dir="${1:?usage: $0 DIR}"
rm -rf "$dir"
mkdir -p "$dir"
hidden='^(python[0-9.]*(-config)?|pip[0-9.]*|pydoc[0-9.]*|pytest|node|nodejs|npm|npx|corepack|cbindgen|openssl|c_rehash)$'
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  case "$d" in */.pyenv/shims | */.pyenv/bin | */node_modules/.bin | */.venv*) continue ;; esac
  for f in "$d"/*; do
    name="${f##*/}"
    [ -x "$f" ] && [ ! -d "$f" ] || continue
    [[ "$name" =~ $hidden ]] && continue
    [ -e "$dir/$name" ] || ln -s "$f" "$dir/$name"
  done
done
for t in python3 node npm cbindgen openssl; do
  if PATH="$dir" command -v "$t" > /dev/null 2>&1; then
    echo "hermetic-path: $t is still reachable" >&2
    exit 1
  fi
done
printf '%s\n' "$dir"
