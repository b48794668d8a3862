# Sourced by the test scripts: `lanes FN...` runs the shell functions FN side
# by side, each with its output in a log of its own, then prints each log in
# the order given, with how long the lane took and how it ended. Returns
# non-zero if any lane failed.
#
# For suites that spend their time waiting on child processes or that use one
# core each (test binaries that start MCP servers and proxies, Miri): on the
# 2-core CI machine two lanes finish well before one. Cargo takes its build
# lock only while it compiles, so two `cargo test` lanes compile one after
# the other and run their tests at the same time.
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
