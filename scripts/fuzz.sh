#!/usr/bin/env bash
# Fuzzes contractpin with cargo-fuzz (libFuzzer + AddressSanitizer).
#
#   scripts/fuzz.sh [--ci] [--seconds N] [target...]
#
# Targets (fuzz/fuzz_targets/): parser writer numbers ffi lock tools_list enforcer
# (default: all). Every target is built with `cargo +nightly fuzz build`,
# then run for N seconds starting from its committed seed corpus
# fuzz/corpus/<target>/ (read-only: new inputs go to a working corpus under
# the fuzz target directory). Any crash, panic, sanitizer report, timeout
# (> 10 s on one input) or out-of-memory fails the script; the reproducer is
# kept in fuzz/artifacts/<target>/ and the command to replay it is printed.
#
#   --seconds N   fuzzing time per target (default 60; with --ci 10)
#   --ci          the CI budget: 10 s per target, 70 s of fuzzing in all
#                 (as many targets at once as there are cores), about
#                 2 minutes with the cold build on 2 cores
#
# Environment: FUZZ_TARGET_DIR (default fuzz/target, gitignored);
# CONTRACTPIN_FUZZ_FALLBACK=1 forces the fallback below (to test it).
#
# If the nightly toolchain or cargo-fuzz is missing (.ci/install-fuzz.sh
# installs both), the script says so loudly and FALLS BACK to the seeded
# property tests of tests/properties.rs and src/proxy/fuzzing.rs, which
# check the same invariants on the stable toolchain (more cases the longer
# --seconds is). That is not fuzzing, and the output says so.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

all_targets=(parser writer numbers ffi lock tools_list enforcer)
ci=0
seconds=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) ci=1 ;;
    --seconds)
      shift
      seconds="${1:-}"
      [[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: --seconds needs a positive integer" >&2; exit 2; }
      ;;
    --seconds=*)
      seconds="${1#--seconds=}"
      [[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: --seconds needs a positive integer" >&2; exit 2; }
      ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *)
      if [[ " ${all_targets[*]} " != *" $1 "* ]]; then
        echo "fuzz.sh: unknown target $1 (targets: ${all_targets[*]})" >&2
        exit 2
      fi
      targets+=("$1")
      ;;
  esac
  shift
done
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
if [ -z "$seconds" ]; then
  if [ "$ci" = 1 ]; then seconds=10; else seconds=60; fi
fi

banner() {
  printf '\n'
  printf '!%.0s' {1..78}
  printf '\n!! %s\n' "$@"
  printf '!%.0s' {1..78}
  printf '\n\n'
}

# --------------------------------------------------------------- fallback

fallback() {
  banner "NOT FUZZING: $1" \
    "Falling back to the seeded property tests (tests/properties.rs and" \
    "src/proxy/fuzzing.rs), which check the same invariants as the fuzz targets" \
    "on the stable toolchain." \
    "Install the fuzzer with: bash .ci/install-fuzz.sh"
  # Scale the cases with the requested time (3000 cases take a few seconds).
  local cases=$(( seconds * ${#targets[@]} * 100 ))
  [ "$cases" -lt 3000 ] && cases=3000
  echo "==> CONTRACTPIN_PROPERTY_CASES=$cases cargo test --test properties"
  CONTRACTPIN_PROPERTY_CASES=$cases cargo test --test properties
  local rc=$?
  # The enforcer target's sessions are checked inside the crate (src/proxy/fuzzing.rs).
  echo "==> CONTRACTPIN_PROPERTY_CASES=$cases cargo test --features std --lib proxy::fuzzing"
  CONTRACTPIN_PROPERTY_CASES=$cases cargo test --features std --lib proxy::fuzzing || rc=1
  banner "fuzz.sh: fallback property tests $( [ $rc -eq 0 ] && echo passed || echo FAILED ); no fuzzing was done"
  exit $rc
}

if [ "${CONTRACTPIN_FUZZ_FALLBACK:-0}" = 1 ]; then
  fallback "CONTRACTPIN_FUZZ_FALLBACK=1 asked for the fallback"
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  fallback "the nightly Rust toolchain is not installed"
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  fallback "cargo-fuzz is not installed"
fi

# --------------------------------------------------------------- build

target_dir="${FUZZ_TARGET_DIR:-$root/fuzz/target}"
echo "==> cargo +nightly fuzz build (sanitizer: address; target dir: $target_dir)"
t0=$SECONDS
if ! cargo +nightly fuzz build --target-dir "$target_dir"; then
  echo "fuzz.sh: building the fuzz targets FAILED" >&2
  exit 1
fi
echo "    built in $((SECONDS - t0)) s"
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bin_dir="$target_dir/$host/release"

# --------------------------------------------------------------- run

# Fuzzes target $1 for $seconds s; prints what it found, and its summary
# line to "$target_dir/fuzz-$1.summary" and the fuzzer's exit status (0: nothing
# found) to "$target_dir/fuzz-$1.rc".
fuzz_one() {
  local t=$1 seeds work artifacts log n_seeds t1 rc runs n_work status a
  seeds="$root/fuzz/corpus/$t"
  work="$target_dir/corpus/$t"
  artifacts="$root/fuzz/artifacts/$t"
  log="$target_dir/fuzz-$t.log"
  mkdir -p "$work" "$artifacts"
  n_seeds=$(find "$seeds" -type f | wc -l)
  echo "==> fuzz $t for ${seconds} s ($n_seeds committed seeds, working corpus $work)"
  t1=$SECONDS
  "$bin_dir/$t" "$work" "$seeds" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  rc=$?
  runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
  n_work=$(find "$work" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    status=ok
  else
    status="FAILED (exit $rc)"
    echo "---- $t: last lines of $log"
    grep -E -m1 -A30 'panicked|ERROR: |SUMMARY|deadly signal|timeout' "$log" || tail -40 "$log"
    for a in "$artifacts"/*; do
      [ -f "$a" ] || continue
      echo "---- reproducer $a ($(wc -c <"$a") bytes):"
      head -c 600 "$a" | od -c | head -20
      echo "---- replay: cargo +nightly fuzz run $t $a   (or: $bin_dir/$t $a)"
    done
  fi
  printf '%-11s %4s s  %10s runs  %4d seeds  %6d in working corpus  %s\n' \
    "$t" "$((SECONDS - t1))" "${runs:-?}" "$n_seeds" "$n_work" "$status" >"$target_dir/fuzz-$t.summary"
  echo "$rc" >"$target_dir/fuzz-$t.rc"
}

# libFuzzer runs on one core: as many targets at once as there are cores,
# each with its output kept apart and printed in target order.
jobs_max=$(nproc 2>/dev/null || echo 1)
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  rm -f "$target_dir/fuzz-$t.rc"
  fuzz_one "$t" >"$target_dir/fuzz-$t.out" 2>&1 &
done
wait
failed=()
summary=()
for t in "${targets[@]}"; do
  [ "$(cat "$target_dir/fuzz-$t.rc" 2>/dev/null)" = 0 ] || failed+=("$t")
  echo
  cat "$target_dir/fuzz-$t.out"
  summary+=("$(cat "$target_dir/fuzz-$t.summary")")
done

echo
echo "fuzz summary (${seconds} s per target; sanitizer: address):"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: FAILED targets: ${failed[*]} (reproducers in fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets, no crash"
