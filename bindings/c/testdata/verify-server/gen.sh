#!/bin/sh
# The C ABI's one-call verify (contractpin_lock_verify_server) must write the
# same JSON report as `contractpin verify --format json`. This makes that
# reference with the CLI, from a stdio server (serve.py) answering with the
# handshake results and tools/list documents of bindings/c/testdata:
#
#   sh gen.sh CLI            # rewrite server.lock (contractpin init) and report-*.json
#   sh gen.sh --check CLI    # verify with the committed server.lock; exit 1 if a
#                            # report-*.json differs from what the CLI writes now
#
# CLI is the contractpin binary (target/debug/contractpin). server.lock pins
# server `acme` with its instructions (vector instructions-plain, from
# ../initialize.json) and `bare` without (init --ignore-instructions); both
# run `python3 serve.py`. Each case below is: report name, server, the
# handshake result and tools/list the server answers with, verify flags.
# The binding tests (tests/ffi_verify_server.rs, bindings/c/tests,
# bindings/go, bindings/python/tests) give the same inputs to the C ABI and
# compare its report with these files byte for byte.
set -eu
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
cli=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
data=$(dirname "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/serve.py" "$work/"
cd "$work"

serve() { # HANDSHAKE TOOLS: what the server answers with next
    cp "$data/$1" live-initialize.json
    cp "$data/$2" live-tools.json
}

if [ $check = 1 ]; then
    cp "$here/server.lock" server.lock
else
    serve initialize.json tools.json
    "$cli" init --lock server.lock --name acme -- python3 serve.py >/dev/null
    "$cli" init --lock server.lock --name bare --ignore-instructions -- python3 serve.py >/dev/null
    cp server.lock "$here/server.lock"
fi

failed=0
while read -r report server handshake tools flags; do
    serve "$handshake" "$tools"
    # shellcheck disable=SC2086  # $flags is zero or more words
    "$cli" verify --lock server.lock --server "$server" --format json $flags > "$report" || true
    if [ $check = 1 ]; then
        if ! cmp -s "$report" "$here/$report"; then
            echo "gen.sh: $report differs from what the CLI writes:" >&2
            diff "$here/$report" "$report" >&2 || true
            failed=1
        fi
    else
        cp "$report" "$here/$report"
    fi
done <<'CASES'
report-match.json acme initialize.json tools.json
report-drifted.json acme initialize-drifted.json tools.json
report-drifted-ignore.json acme initialize-drifted.json tools.json --ignore-instructions
report-removed.json acme verify-server/initialize-removed.json tools-drifted.json
report-added.json bare initialize.json tools.json
report-added-allow-new.json bare initialize.json tools.json --allow-new
CASES
[ $check = 1 ] && [ $failed = 0 ] && echo "gen.sh: the CLI writes every report-*.json"
exit $failed
