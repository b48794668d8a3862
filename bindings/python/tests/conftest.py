"""Shared paths for the tests.

The data (vectors/, bindings/c/testdata/, the README) come from the contractpin
repository: the one holding these tests, or CONTRACTPIN_REPO when the tests
run from a copy outside it (scripts/test-packages.sh does, against an
installed wheel). The package under test is whatever `import contractpin`
finds; nothing here puts the source tree on sys.path.
"""

import os
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("CONTRACTPIN_REPO") or Path(__file__).resolve().parents[3])
TESTDATA = ROOT / "bindings" / "c" / "testdata"


@pytest.fixture
def testdata() -> Path:
    return TESTDATA


def expected() -> dict:
    """testdata/expected.txt: digests computed independently with hashlib."""
    out = {}
    for line in (TESTDATA / "expected.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            out[key] = value
    return out
