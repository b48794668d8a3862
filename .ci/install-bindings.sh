#!/usr/bin/env bash
# Installs what the C ABI and binding suites need, at pinned versions.
# Idempotent: a second run only checks.
#   - cbindgen at the version pinned in scripts/gen-header.sh (header freshness);
#   - .venv-bindings: a Python venv with the contractpin package installed the
#     way users install it (`pip install ./bindings/python`) and pytest.
# gcc, make, pkg-config and Go come with the machine; nothing is fetched for Go.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

CBINDGEN_VERSION="$(sed -n 's/^CBINDGEN_VERSION=//p' scripts/gen-header.sh)"
PYTEST_VERSION=9.2.0
SETUPTOOLS_VERSION=80.9.0

if command -v cbindgen >/dev/null 2>&1 && [ "$(cbindgen --version | awk '{print $2}')" = "$CBINDGEN_VERSION" ]; then
  echo "cbindgen $CBINDGEN_VERSION present"
else
  cargo install cbindgen --version "$CBINDGEN_VERSION" --locked --force
fi

for tool in cc make pkg-config go python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-bindings: $tool is required" >&2; exit 1; }
done

venv="$root/.venv-bindings"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
have() { "$py" -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }
if [ "$(have pytest)" != "$PYTEST_VERSION" ] || [ "$(have setuptools)" != "$SETUPTOOLS_VERSION" ]; then
  "$py" -m pip install -q "pytest==$PYTEST_VERSION" "setuptools==$SETUPTOOLS_VERSION"
fi
# The package itself, as a user installs it (a real install, not editable).
# scripts/test-bindings.sh reinstalls it from the working tree before testing.
"$py" -m pip install -q --no-deps --force-reinstall ./bindings/python
rm -rf bindings/python/build bindings/python/src/*.egg-info
echo "python: $("$py" -c 'import sys; print(sys.version.split()[0])') with contractpin $(have contractpin), pytest $(have pytest)"
