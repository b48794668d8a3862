"""verify_server / Lock.verify_server (``contractpin verify`` of one server in
one call: the tools/list and the handshake result).

The expected reports are bindings/c/testdata/verify-server/report-*.json,
written by ``contractpin verify --format json`` for the same lock, handshake
and tools/list (verify-server/gen.sh; scripts/test-bindings.sh re-checks
them with the CLI). The instructions digests are read from
vectors/vectors.json (vectors/reference.py); the rest is written out here.
"""

import json

import pytest

import contractpin
from conftest import ROOT, TESTDATA

SERVER = TESTDATA / "verify-server"
LOCK = (SERVER / "server.lock").read_bytes()
TOOLS = (TESTDATA / "tools.json").read_bytes()


def vector_digest(name: str) -> str:
    doc = json.loads((ROOT / "vectors" / "vectors.json").read_text(encoding="utf-8"))
    (v,) = [v for v in doc["vectors"] if v["mode"] == "instructions" and v["name"] == name]
    return v["digest"]


PLAIN = vector_digest("instructions-plain")
INJECTION = vector_digest("instructions-injection")

# report, server, handshake, tools/list, flags, exit code, instructions
# status, pinned and live digest, version_changed
CASES = [
    ("report-match.json", "acme", "initialize.json", "tools.json", {}, 0, "unchanged", PLAIN, PLAIN, False),
    ("report-drifted.json", "acme", "initialize-drifted.json", "tools.json", {}, 1, "drifted", PLAIN, INJECTION, True),
    ("report-drifted-ignore.json", "acme", "initialize-drifted.json", "tools.json",
     {"ignore_instructions": True}, 0, "not-checked", None, None, True),
    ("report-removed.json", "acme", "verify-server/initialize-removed.json", "tools-drifted.json", {}, 1,
     "removed", PLAIN, None, False),
    ("report-added.json", "bare", "initialize.json", "tools.json", {}, 1, "added", None, PLAIN, False),
    ("report-added-allow-new.json", "bare", "initialize.json", "tools.json", {"allow_new": True}, 0,
     "added", None, PLAIN, False),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_both_calls_write_the_cli_report(case):
    report, server, init, tools, flags, exit_code, status, pinned, live, moved = case
    want = (SERVER / report).read_bytes()
    init_bytes = (TESTDATA / init).read_bytes()
    tools_bytes = (TESTDATA / tools).read_bytes()
    with contractpin.Lock(LOCK) as lock:
        reports = [
            contractpin.verify_server(LOCK, server, init_bytes, tools_bytes, **flags),
            lock.verify_server(server, init_bytes, tools_bytes, **flags),
        ]
    for r in reports:
        assert r.json == want
        assert (r.exit_code, r.instructions, r.pinned_instructions, r.live_instructions) == (
            exit_code, status, pinned, live
        )
        assert r.version_changed is moved
        assert r.passed == (exit_code == 0)


def test_a_dict_result_is_written_as_json_first():
    init = json.loads((TESTDATA / "initialize-drifted.json").read_bytes())
    r = contractpin.verify_server(LOCK, "acme", init, TOOLS)
    assert (r.instructions, r.live_instructions, r.version_changed) == ("drifted", INJECTION, True)
    assert r.to_dict()["servers"][0]["server_info"]["live"]["version"] == "1.0.1"


def test_verify_reports_check_no_facts():
    r = contractpin.verify(LOCK, "acme", TOOLS)
    assert (r.exit_code, r.instructions, r.pinned_instructions, r.version_changed) == (0, "not-checked", None, None)
    assert r.to_dict()["servers"][0]["instructions"] is None


def test_bad_inputs_fail_closed_and_name_their_input():
    with pytest.raises(contractpin.UnexpectedByteError) as e:
        contractpin.verify_server(LOCK, "acme", b'{"jsonrpc":"2.0","id":1,"result":{}}', TOOLS)
    assert (e.value.offset, e.value.input) == (24, "initialize result")
    assert "at byte 24" in str(e.value) and "initialize result" in str(e.value)
    with contractpin.Lock(LOCK) as lock:
        with pytest.raises(contractpin.DuplicateKeyError) as e:
            lock.verify_server("acme", b'{"serverInfo":1,"serverInfo":2}', TOOLS)
        assert (e.value.offset, e.value.input) == (16, "initialize result")
        with pytest.raises(contractpin.ToolNotObjectError) as e:
            lock.verify_server("acme", b"{}", b"[7]")
        assert (e.value.offset, e.value.input) == (1, "tools/list")
        with pytest.raises(contractpin.LockUnknownServerError) as e:
            lock.verify_server("nope", b"{}", TOOLS)
        assert (e.value.offset, e.value.input) == (None, None)
    with pytest.raises(contractpin.LockSyntaxError) as e:
        contractpin.verify_server(b'{"a"', "acme", b"{}", TOOLS)
    assert (e.value.offset, e.value.input) == (4, "lock")
