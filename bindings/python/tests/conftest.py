"""Shared paths for the tests."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
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
