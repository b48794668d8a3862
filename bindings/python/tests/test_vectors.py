"""Every conformance vector of vectors/vectors.json (see vectors/README.md)."""

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

import contractpin
from conftest import ROOT


def _load() -> List[Dict[str, Any]]:
    path = Path(os.environ.get("CONTRACTPIN_VECTORS", ROOT / "vectors" / "vectors.json"))
    doc = json.loads(path.read_text(encoding="utf-8"))
    vectors = doc["vectors"]
    assert vectors and len(vectors) == doc["count"]
    return vectors


VECTORS = _load()


def _input(v: Dict[str, Any]) -> bytes:
    assert ("input" in v) != ("input_hex" in v), v["name"]
    return v["input"].encode("utf-8") if "input" in v else bytes.fromhex(v["input_hex"])


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _expect_error(v: Dict[str, Any], call: Any, data: bytes) -> None:
    with pytest.raises(contractpin.ContractpinError) as info:
        call(data)
    e = info.value
    assert e.kind == v["error"], str(e)
    assert type(e) is contractpin.errors.ERRORS_BY_KIND[v["error"]]
    assert e.offset is not None and 0 <= e.offset <= len(data)


def test_vector_count():
    assert len(VECTORS) >= 150
    assert {v["mode"] for v in VECTORS} == {"value", "tool", "tools-list", "instructions"}


@pytest.mark.parametrize("v", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector(v: Dict[str, Any]) -> None:
    data = _input(v)
    mode = v["mode"]
    if "error" in v:
        if mode in ("value", "instructions"):
            _expect_error(v, contractpin.canonicalize, data)
        elif mode == "tool":
            _expect_error(v, contractpin.tool_contract, data)
            _expect_error(v, contractpin.tool_digest, data)
        else:
            _expect_error(v, contractpin.digest_tools_list, data)
        return
    want = bytes.fromhex(v["canonical_hex"])
    # instructions (SPEC.md section 13): SHA-256 of the canonical JSON string.
    if mode in ("value", "instructions"):
        got = contractpin.canonicalize(data)
        assert got == want
        assert _sha(got) == v["digest"]
    elif mode == "tool":
        assert contractpin.tool_contract(data) == want
        assert contractpin.tool_digest(data) == v["digest"]
        server = contractpin.digest_tools_list(b"[" + data + b"]")
        (entry,) = server["tools"].values()
        assert entry == {"digest": v["digest"], "fields": v["fields"]}
    elif mode == "tools-list":
        server = contractpin.digest_tools_list(data)
        assert server["digest"] == v["digest"] == _sha(want)
        assert server["tool_count"] == len(v["tools"])
        assert server["tools"] == v["tools"]
        assert list(server["tools"]) == list(v["tools"]), "canonical (UTF-16) tool order"
    else:
        pytest.fail(f"unknown mode {mode}")
