"""Lock.guard_instructions (the proxy's decision on a handshake result's
``instructions``).

testdata/instructions.lock pins, for server ``acme``, the digest of vector
``instructions-plain`` of vectors/vectors.json (made by vectors/reference.py)
and none for ``bare``; initialize.json carries those instructions (one letter
escaped), initialize-drifted.json the text of vector ``instructions-injection``.
The expected digests are read from vectors.json, the expected bytes written
out here.
"""

import json

import pytest

import contractpin
from conftest import ROOT, TESTDATA

CUT = (
    b'{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},'
    b'"serverInfo":{"name":"acme","version":"1.0.1"}}\n'
)


def vector_digest(name: str) -> str:
    doc = json.loads((ROOT / "vectors" / "vectors.json").read_text(encoding="utf-8"))
    (v,) = [v for v in doc["vectors"] if v["mode"] == "instructions" and v["name"] == name]
    return v["digest"]


PLAIN = vector_digest("instructions-plain")
INJECTION = vector_digest("instructions-injection")


@pytest.fixture
def lock():
    with contractpin.Lock((TESTDATA / "instructions.lock").read_bytes()) as lock:
        yield lock


def test_pinned_instructions_pass_byte_for_byte(lock):
    result = (TESTDATA / "initialize.json").read_bytes()
    for observe in (False, True):
        r = lock.guard_instructions("acme", result, observe)
        assert (r.status, r.live_digest, r.removed, r.result, r.json) == ("unchanged", PLAIN, False, result, None)


def test_drifted_instructions_are_cut_unless_observed(lock):
    drifted = (TESTDATA / "initialize-drifted.json").read_bytes()
    r = lock.guard_instructions("acme", drifted)
    assert (r.status, r.live_digest, r.removed, r.result) == ("drifted", INJECTION, True, CUT)
    assert "instructions" not in r.to_dict()
    assert json.loads(r.json) == {
        "live": INJECTION,
        "pinned": PLAIN,
        "reason": "the server's instructions differ from the pinned ones; removed from the handshake result",
        "server": "acme",
        "status": "instructions-drifted",
    }
    o = lock.guard_instructions("acme", drifted, observe=True)
    assert (o.status, o.removed, o.result) == ("drifted", False, drifted)
    assert json.loads(o.json)["reason"].endswith("kept (observe mode)")


def test_added_removed_none_and_not_a_string(lock):
    drifted = (TESTDATA / "initialize-drifted.json").read_bytes()
    a = lock.guard_instructions("bare", drifted)
    assert (a.status, a.live_digest, a.removed, a.result) == ("added", INJECTION, True, CUT)
    assert json.loads(a.json)["status"] == "instructions-added"
    r = lock.guard_instructions("acme", {"capabilities": {}})
    assert (r.status, r.live_digest, r.removed, r.result) == ("removed", None, False, b'{"capabilities":{}}')
    assert json.loads(r.json) == {
        "pinned": PLAIN,
        "reason": "the server's instructions were removed; nothing to hide",
        "server": "acme",
        "status": "instructions-removed",
    }
    n = lock.guard_instructions("bare", b'{"instructions":null}')
    assert (n.status, n.json) == ("none", None)
    s = lock.guard_instructions("acme", b'{"a":1,"instructions":7}')
    assert (s.status, s.live_digest, s.removed, s.result) == ("drifted", None, True, b'{"a":1}')


def test_fails_closed(lock):
    with pytest.raises(contractpin.UnexpectedByteError) as e:
        lock.guard_instructions("acme", b'{"jsonrpc":"2.0","id":1,"result":{"instructions":"x"}}')
    assert e.value.offset == 24
    with pytest.raises(contractpin.JsonRpcErrorError):
        lock.guard_instructions("acme", b'{"jsonrpc":"2.0","id":1,"error":{"code":1}}')
    with pytest.raises(contractpin.DuplicateKeyError) as e:
        lock.guard_instructions("acme", b'{"instructions":"a","instructions":"b"}')
    assert e.value.offset == 20
    with pytest.raises(contractpin.LockUnknownServerError):
        lock.guard_instructions("nope", b"{}")
    with pytest.raises(contractpin.SizeLimitError):
        lock.guard_instructions("acme", b"{}   ", limits=contractpin.Limits(max_input=4))
