#!/usr/bin/env bash
# Installs the real MCP servers the loopback tests run against, at pinned versions:
#   tests/mcp/node/      npm ci from the committed package-lock.json:
#                        @modelcontextprotocol/server-everything 2026.8.31, server-memory,
#                        server-filesystem, server-sequential-thinking 2026.8.31, sdk 1.32.2
#   .venv-mcp2/          PyPI mcp==2.3.0 (+ pinned deps, tests/mcp/requirements-mcp2.txt)
#   .venv-mcp1/          PyPI mcp==1.30.0 (+ pinned deps, tests/mcp/requirements-mcp1.txt)
# Idempotent: each part records a stamp (hash of its lock file + tool version) and is
# skipped when the stamp still matches, so a second run takes well under a second.
# Works from any clone and any working directory.  Needs node >= 18, npm, python3 >= 3.10.
# FORCE=1 reinstalls everything.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/.." && pwd))"
python="${PYTHON:-python3}"
force="${FORCE:-0}"
t_start=$SECONDS

log() { printf 'install-servers: %s\n' "$*"; }
die() { printf 'install-servers: error: %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null || die "node not found"
command -v npm >/dev/null || die "npm not found"
command -v "$python" >/dev/null || die "$python not found"

# Serialise concurrent runs on this machine (two CI jobs, or a developer and CI).
if command -v flock >/dev/null; then
  exec 9>"${TMPDIR:-/tmp}/contractpin-install-servers.lock"
  flock 9
fi

hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# ---------------------------------------------------------------- npm servers
node_dir="$root/tests/mcp/node"
[ -f "$node_dir/package-lock.json" ] || die "missing $node_dir/package-lock.json"
node_stamp="$node_dir/node_modules/.contractpin-stamp"
want="$(hash_of "$node_dir/package.json" "$node_dir/package-lock.json") node $(node --version)"
if [ "$force" != 1 ] && [ -f "$node_stamp" ] && [ "$(cat "$node_stamp")" = "$want" ]; then
  log "npm servers up to date ($node_dir/node_modules)"
else
  log "npm ci in $node_dir"
  t0=$SECONDS
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$want" >"$node_stamp"
  log "npm ci took $((SECONDS - t0)) s"
fi

# ---------------------------------------------------------------- Python venvs
install_venv() { # name requirements-file expected-mcp-version
  local venv="$root/$1" req="$root/tests/mcp/$2" expect="$3"
  [ -f "$req" ] || die "missing $req"
  local stamp="$venv/.contractpin-stamp"
  local want
  want="$(hash_of "$req") $("$python" -c 'import sys; print("python%d.%d.%d" % sys.version_info[:3])')"
  if [ "$force" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
    log "$1 up to date"
    return
  fi
  log "creating $1 (mcp==$expect)"
  local t0=$SECONDS
  "$python" -m venv --clear "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
  local got
  got="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
  [ "$got" = "$expect" ] || die "$1 has mcp $got, expected $expect"
  printf '%s\n' "$want" >"$stamp"
  log "$1 took $((SECONDS - t0)) s"
}
install_venv .venv-mcp2 requirements-mcp2.txt 2.3.0
install_venv .venv-mcp1 requirements-mcp1.txt 1.30.0

# ---------------------------------------------------------------- report
versions="$(cd "$node_dir" && node -e '
  for (const p of ["sdk", "server-everything", "server-memory", "server-filesystem", "server-sequential-thinking"]) {
    const v = require("./node_modules/@modelcontextprotocol/" + p + "/package.json").version;
    process.stdout.write(`@modelcontextprotocol/${p}@${v} `);
  }')"
log "installed: ${versions}mcp(py2)=$("$root/.venv-mcp2/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') mcp(py1)=$("$root/.venv-mcp1/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
log "done in $((SECONDS - t_start)) s"
