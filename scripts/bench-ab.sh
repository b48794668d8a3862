#!/usr/bin/env bash
# Before/after timing of one step of the pipeline: the `bench-table` of a base
# revision against the working tree's, in alternating rounds on the same
# machine, so that both see the same load from other tenants.
#
#   scripts/bench-ab.sh BASE [WHAT PAYLOAD]...
#   scripts/bench-ab.sh HEAD pipeline M parse M verify L
#   AB_ROUNDS=12 AB_SECONDS=0.5 scripts/bench-ab.sh main~3 pipeline M
#
# BASE is any git revision; WHAT and PAYLOAD are those of `bench-table profile`
# (pipeline, verify, parse, canonicalize, serde; S, M, L, M-pretty, M-numbers,
# A, or Tn for a list of n tools), or `cli` for the whole `contractpin digest PAYLOAD.json` process (each
# side's own CLI binary; a round's figure is its fastest of at least 30
# processes); the default pair is `pipeline M`. Each round runs both
# binaries once for AB_SECONDS (default 0.4) each, base first in odd rounds and the working tree
# first in even ones, and keeps each run's fastest repetition. The summary
# gives, per binary, the least and the median of those round figures, and the
# change of the median. On a shared host single figures move by 5-10%; a
# change smaller than the spread of the rounds is not a result.
#
# The base is built in a detached worktree under the cargo target directory
# (its own target directory there, so the working tree's build stays warm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [[ $# -lt 1 ]]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
base_rev="$(git rev-parse --verify "$1^{commit}")"
shift
pairs=("$@")
[[ ${#pairs[@]} -eq 0 ]] && pairs=(pipeline M)
if (( ${#pairs[@]} % 2 != 0 )); then
  echo "bench-ab: WHAT and PAYLOAD come in pairs" >&2
  exit 2
fi
rounds="${AB_ROUNDS:-8}"
seconds="${AB_SECONDS:-0.4}"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$target/bench-ab"
mkdir -p "$work"

# Both sides must time the same bytes.
if ! git diff --quiet "$base_rev" -- benches/common tests/support/rng.rs; then
  echo "bench-ab: warning: the payload generator differs from $base_rev; the two sides time different inputs" >&2
fi

base_bin="$work/bench-table-${base_rev:0:12}"
if [[ ! -x "$base_bin" || ! -x "$base_bin-cli" ]]; then
  tree="$work/tree-${base_rev:0:12}"
  # A run stopped half-way may have left its worktree behind.
  rm -rf "$tree"
  git worktree prune
  git worktree add --quiet --detach "$tree" "$base_rev"
  trap 'git worktree remove --force "$tree" 2>/dev/null || true' EXIT
  echo "bench-ab: building the base (${base_rev:0:12}) ..." >&2
  (cd "$tree" && CARGO_TARGET_DIR="$work/target" cargo build --quiet --release -p contractpin-bench-peers -p contractpin-cli)
  cp "$work/target/release/contractpin" "$base_bin-cli"
  cp "$work/target/release/bench-table" "$base_bin.partial"
  mv "$base_bin.partial" "$base_bin"
  git worktree remove --force "$tree"
  trap - EXIT
fi
echo "bench-ab: building the working tree ..." >&2
CARGO_TARGET_DIR="$target" cargo build --quiet --release -p contractpin-bench-peers -p contractpin-cli
new_bin="$work/bench-table-work"
cp "$target/release/bench-table" "$new_bin"
cp "$target/release/contractpin" "$new_bin-cli"
payloads="$work/payloads"
if [[ " ${pairs[*]} " == *" cli "* && ! -f "$payloads/L.json" ]]; then
  "$new_bin" payloads "$payloads" > /dev/null
fi

# The fastest repetition of one run, in ms.
fastest() {
  local ms
  if [[ "$2" == cli ]]; then
    cli_fastest "$1-cli" "$payloads/$3.json"
    return
  fi
  ms="$("$1" profile "$2" "$3" "$seconds" | sed -n 's/.*fastest \([0-9.]*\) ms.*/\1/p')"
  if [[ -z "$ms" ]]; then
    echo "bench-ab: $1 profile $2 $3 printed no fastest time" >&2
    exit 1
  fi
  echo "$ms"
}

# The fastest of at least 30 `contractpin digest FILE` processes (and of as
# many as fit in the round's seconds), in ms.
cli_fastest() {
  python3 - "$1" "$2" "$seconds" <<'PY'
import subprocess, sys, time
cli, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
best, runs, start = float("inf"), 0, time.perf_counter()
while runs < 30 or time.perf_counter() - start < seconds:
    t = time.perf_counter()
    subprocess.run([cli, "digest", path], stdout=subprocess.DEVNULL, check=True)
    best, runs = min(best, time.perf_counter() - t), runs + 1
print(f"{best * 1e3:.3f}")
PY
}

# Least and median of the figures given.
summary() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.5g %.5g\n", v[1], m }'
}

echo "base ${base_rev:0:12} against the working tree; $rounds rounds of ${seconds} s per binary; fastest repetition of each run, ms"
for ((p = 0; p < ${#pairs[@]}; p += 2)); do
  what="${pairs[p]}" payload="${pairs[p + 1]}"
  a=() b=()
  for ((r = 1; r <= rounds; r++)); do
    if (( r % 2 )); then
      a+=("$(fastest "$base_bin" "$what" "$payload")")
      b+=("$(fastest "$new_bin" "$what" "$payload")")
    else
      b+=("$(fastest "$new_bin" "$what" "$payload")")
      a+=("$(fastest "$base_bin" "$what" "$payload")")
    fi
  done
  read -r a_min a_med < <(summary "${a[@]}")
  read -r b_min b_med < <(summary "${b[@]}")
  change="$(awk -v a="$a_med" -v b="$b_med" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }')"
  echo
  echo "$what $payload"
  echo "  rounds base: ${a[*]}"
  echo "  rounds new:  ${b[*]}"
  echo "  base least $a_min, median $a_med; new least $b_min, median $b_med; median $change"
done
