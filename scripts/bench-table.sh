#!/usr/bin/env bash
# Prints the benchmark table of docs/PERFORMANCE.md: contractpin against its
# peers (Rust serde_json_canonicalizer / serde_jcs + sha2, Python json + rfc8785
# + hashlib, Node JSON.parse + canonicalize + crypto) and the SHA-256 floor, in
# one run, on the seeded payloads of benches/common/payloads.rs.
#
#   scripts/bench-table.sh            # about two minutes on a 2-core machine
#   BENCH_BUDGET_MS=1000 scripts/bench-table.sh   # longer, steadier runs
#
# Pinned peers: rfc8785==0.1.4 (PyPI) and canonicalize@5.1.0 (npm). The ones in
# vectors/oracles/ are used when present; otherwise they are installed once
# under the cargo target directory. A peer that cannot be set up is reported
# as "not run" rather than failing the table.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target"
tools="$target/bench-tools"
mkdir -p "$tools"

echo "building (release) ..." >&2
cargo build --quiet --release -p contractpin-bench-peers
if cargo build --quiet --release --bin contractpin 2>"$tools/cli-build.log"; then
  export BENCH_CLI="${BENCH_CLI:-$target/release/contractpin}"
else
  echo "note: the contractpin CLI did not build (see $tools/cli-build.log); its row is skipped" >&2
fi

# Python peer: a Python that can import rfc8785 0.1.4.
if [[ -z "${BENCH_PYTHON:-}" ]]; then
  # The system python3 (where .ci/install-oracles.sh puts rfc8785), then our own venv.
  for py in python3 "$tools/venv/bin/python"; do
    if command -v "$py" >/dev/null && "$py" -c 'import rfc8785, sys; sys.exit(rfc8785.__version__ != "0.1.4")' 2>/dev/null; then
      BENCH_PYTHON="$py"; break
    fi
  done
fi
if [[ -z "${BENCH_PYTHON:-}" ]]; then
  echo "installing rfc8785==0.1.4 into $tools/venv ..." >&2
  if python3 -m venv "$tools/venv" >&2 && "$tools/venv/bin/pip" install -q rfc8785==0.1.4 >&2; then
    BENCH_PYTHON="$tools/venv/bin/python"
  fi
fi
export BENCH_PYTHON="${BENCH_PYTHON:-}"

# Node peer: a node_modules directory holding canonicalize 5.1.0.
if command -v node >/dev/null; then
  export BENCH_NODE="${BENCH_NODE:-node}"
  if [[ -z "${BENCH_NODE_PATH:-}" ]]; then
    for nm in "$root/vectors/oracles/node_modules" "$tools/node/node_modules"; do
      if [[ -f "$nm/canonicalize/lib/canonicalize.js" ]]; then BENCH_NODE_PATH="$nm"; break; fi
    done
  fi
  if [[ -z "${BENCH_NODE_PATH:-}" ]]; then
    echo "installing canonicalize@5.1.0 into $tools/node ..." >&2
    if npm install --silent --no-audit --no-fund --prefix "$tools/node" canonicalize@5.1.0 >&2; then
      BENCH_NODE_PATH="$tools/node/node_modules"
    fi
  fi
  export BENCH_NODE_PATH="${BENCH_NODE_PATH:-}"
fi

export BENCH_DIR="${BENCH_DIR:-$tools/payloads}"
exec "$target/release/bench-table"
