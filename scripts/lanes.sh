# Sourced by scripts/miri-core.sh and scripts/miri-abi.sh: `lanes FN...` runs
# the shell functions FN side by side, each with its output in a log of its
# own, then prints each log in the order given, with how long the lane took
# and how it ended. Returns non-zero if any lane failed.
#
# For work that keeps one core busy each and nothing else: Miri's test
# binaries. Cargo takes its build lock only while it compiles, so `cargo
# miri test` lanes build once and then run side by side. (`cargo test`
# itself was tried as a library lane and a CLI lane: 401 -> 390 s in CI,
# because its tests keep both cores busy already and the library lane
# needed a build of its own; it stays one command.)
lanes() {
  local dir name i rc=0
  local -a pids=()
  dir="$(mktemp -d)" || return 1
  for name in "$@"; do
    (
      t0=$SECONDS
      "$name"
      code=$?
      printf -- '--- lane %s: %s after %d s\n' "$name" \
        "$([ "$code" -eq 0 ] && echo ok || echo "FAILED (exit $code)")" $((SECONDS - t0))
      exit "$code"
    ) > "$dir/$name.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || rc=1
  done
  for name in "$@"; do
    printf -- '--- lane %s output:\n' "$name"
    cat "$dir/$name.log"
  done
  rm -rf "$dir"
  return "$rc"
}
