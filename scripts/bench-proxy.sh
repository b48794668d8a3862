#!/usr/bin/env bash
# What `contractpin proxy` costs: added round-trip latency (p50 / p99 /
# p99.9) and tools/call throughput against a trivial stdio echo server,
# directly and through the proxy, and guard_page against digest_tools_list on
# large pages. Release builds (see docs/PERFORMANCE.md, "The proxy").
#
#   scripts/bench-proxy.sh            # 20000 measured round trips per side
#   PROXY_BENCH_CALLS=100000 scripts/bench-proxy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p contractpin-cli
CONTRACTPIN_BIN="$PWD/target/release/contractpin" cargo bench --bench proxy
