"""The Python API over the C ABI: values, exceptions, limits, verification."""

import ctypes
import dataclasses
import json
import threading

import pytest

import contractpin
from conftest import ROOT, TESTDATA, expected


def test_version_matches_cargo():
    cargo = (ROOT / "Cargo.toml").read_text()
    assert f'version = "{contractpin.version()}"' in cargo


def test_canonicalize():
    got = contractpin.canonicalize(b'{"b":1,"a":[1.0,"\\u0041",1e21,-0]}')
    assert got == b'{"a":[1,"A",1e+21,0],"b":1}'
    # Longer than the first buffer guess: grows.
    doc = b"[" + b"1e20," * 40 + b"1e20]"
    assert contractpin.canonicalize(doc) == b"[" + b"100000000000000000000," * 40 + b"100000000000000000000]"
    assert contractpin.canonicalize(bytearray(b"[]")) == b"[]"
    with pytest.raises(TypeError):
        contractpin.canonicalize("[]")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "doc,cls,kind,offset",
    [
        (b'{"a":1,}', contractpin.UnexpectedByteError, "unexpected-byte", 7),
        (b"", contractpin.UnexpectedEndError, "unexpected-end", 0),
        (b'{"a":1,"a":2}', contractpin.DuplicateKeyError, "duplicate-key", 7),
        (b"[1] x", contractpin.TrailingDataError, "trailing-data", 4),
        (b"\xef\xbb\xbf{}", contractpin.ByteOrderMarkError, "byte-order-mark", 0),
        (b"[01]", contractpin.InvalidNumberError, "invalid-number", 1),
    ],
)
def test_errors(doc, cls, kind, offset):
    with pytest.raises(cls) as info:
        contractpin.canonicalize(doc)
    e = info.value
    assert isinstance(e, contractpin.ContractpinError) and isinstance(e, contractpin.JSONError)
    assert (e.kind, e.offset) == (kind, offset)
    assert str(e).startswith(f"{kind} at byte {offset}: ")


def test_every_library_status_has_a_class():
    lib = contractpin._lib.lib
    for code in range(1, 1000):
        name = lib.contractpin_status_name(code).decode()
        if name != "unknown-status":
            cls = contractpin.errors.ERRORS_BY_CODE[code]
            assert (cls.kind, cls.code) == (name, code)
    assert len(contractpin.errors.ERRORS_BY_KIND) == len(contractpin.errors.ERRORS_BY_CODE)


def test_tool_digest_and_contract():
    tool = (
        b'{"name":"echo","title":"ignored","inputSchema":{"type":"object","properties":'
        b'{"text":{"type":"string"}}},"description":"Echo back"}'
    )
    assert contractpin.tool_digest(tool) == (
        "sha256:6f03644ed9f8359b37fef4fee1a2525b6f6bf05124ec4fbb4af7fd17e01e0c13"
    )
    assert contractpin.tool_contract(tool) == (
        b'{"description":"Echo back","inputSchema":{"properties":{"text":{"type":"string"}},'
        b'"type":"object"},"name":"echo"}'
    )
    with pytest.raises(contractpin.NameNotStringError) as info:
        contractpin.tool_digest(b'{"name":1}')
    assert info.value.offset == 8 and isinstance(info.value, contractpin.ToolsListError)


def test_digest_tools_list():
    want = expected()
    server = contractpin.digest_tools_list((TESTDATA / "tools.json").read_bytes())
    assert server["digest"] == want["server"]
    assert server["tool_count"] == 2
    assert list(server["tools"]) == ["add", "echo"]
    for name, entry in server["tools"].items():
        assert entry["digest"] == want[f"tool {name}"]
    assert set(server["tools"]["echo"]["fields"]) == {"annotations", "description", "inputSchema", "name"}
    assert set(server["tools"]["add"]["fields"]) == {"description", "inputSchema", "name", "outputSchema"}
    # Same shape as the lock's server entry.
    lock = json.loads((TESTDATA / "demo.lock").read_text())
    pinned = lock["servers"]["demo"]
    assert {k: pinned[k] for k in ("digest", "tool_count", "tools")} == server
    with pytest.raises(contractpin.DuplicateToolNameError):
        contractpin.digest_tools_list(b'{"tools":[{"name":"a"},{"name":"a"}]}')
    assert contractpin.digest_tools_list(b"[]")["tool_count"] == 0


def test_names_with_nul_and_non_ascii():
    server = contractpin.digest_tools_list('[{"name":"\\ud83d\\ude00"},{"name":"\ufffd"},{"name":"a\\u0000b"}]'.encode())
    assert list(server["tools"]) == ["a\x00b", "\U0001F600", "\ufffd"]


def test_limits():
    assert contractpin.Limits() == contractpin.Limits(256, 64 << 20, 100_000)
    with pytest.raises(contractpin.DepthLimitError) as info:
        contractpin.canonicalize(b"[[[1]]]", limits=contractpin.Limits(max_depth=2))
    assert isinstance(info.value, contractpin.LimitError) and info.value.offset == 2
    with pytest.raises(contractpin.ToolLimitError):
        contractpin.digest_tools_list(b'[{"name":"a"},{"name":"b"}]', limits=contractpin.Limits(max_tools=1))
    with pytest.raises(contractpin.SizeLimitError):
        contractpin.canonicalize(b"[10]", limits=contractpin.Limits(max_input=3))
    # Deep nesting is an error, never a crash.
    with pytest.raises(contractpin.DepthLimitError):
        contractpin.canonicalize(b"[" * 100_000 + b"]" * 100_000)


SIZE_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1


@pytest.mark.parametrize(
    "field,value",
    [
        ("max_depth", -1),
        ("max_depth", 1 << 32),  # would wrap to 0
        ("max_depth", (1 << 32) + 10),  # would wrap to 10
        ("max_input", -1),  # would wrap to SIZE_MAX
        ("max_input", SIZE_MAX + 6),  # would wrap to 5
        ("max_tools", -1),  # would wrap to SIZE_MAX: no limit
        ("max_tools", SIZE_MAX + 1),
    ],
)
def test_limits_out_of_range_raise(field, value):
    # Out of the C type's range: refused, never wrapped into another limit.
    with pytest.raises(ValueError, match=f"Limits.{field} must be between 0 and "):
        contractpin.Limits(**{field: value})
    with pytest.raises(ValueError):
        dataclasses.replace(contractpin.Limits(), **{field: value})


def test_limits_at_the_edges_of_their_c_types():
    widest = contractpin.Limits(max_depth=(1 << 32) - 1, max_input=SIZE_MAX, max_tools=SIZE_MAX)
    assert contractpin.canonicalize(b"[[1]]", limits=widest) == b"[[1]]"
    assert contractpin.digest_tools_list(b'[{"name":"a"}]', limits=widest)["tool_count"] == 1
    zero = contractpin.Limits(max_depth=0, max_input=0, max_tools=0)
    with pytest.raises(contractpin.SizeLimitError):
        contractpin.canonicalize(b"[]", limits=zero)
    with pytest.raises(TypeError, match="Limits.max_depth must be an int"):
        contractpin.Limits(max_depth=1.5)  # type: ignore[arg-type]


def test_verify():
    want = expected()
    lock = (TESTDATA / "demo.lock").read_bytes()
    report = contractpin.verify(lock, "demo", (TESTDATA / "tools.json").read_bytes())
    assert report.passed and report.exit_code == 0
    assert report.pinned_digest == report.live_digest == want["server"]

    report = contractpin.verify(lock, "demo", (TESTDATA / "tools-drifted.json").read_bytes())
    assert report.exit_code == 1
    echo = report.tools[1]
    assert (echo.name, echo.status, echo.changed_fields) == ("echo", "drifted", ["description"])
    assert (echo.pinned, echo.live) == (want["tool echo"], want["drifted-echo"])
    doc = report.to_dict()
    assert doc["exit_code"] == 1 and doc["servers"][0]["summary"]["drifted"] == 1

    added = (TESTDATA / "tools-added.json").read_bytes()
    report = contractpin.verify(lock, "demo", added)
    assert report.exit_code == 1 and report.tools[2].status == "added" and report.tools[2].pinned is None
    assert contractpin.verify(lock, "demo", added, allow_new=True).exit_code == 0

    renamed = (TESTDATA / "tools.json").read_bytes().replace(b'"name": "echo"', b'"name": "echo2"')
    tools = contractpin.verify(lock, "demo", renamed).tools
    assert (tools[1].name, tools[1].status, tools[1].renamed_to) == ("echo", "removed", "echo2")
    assert (tools[2].name, tools[2].status, tools[2].renamed_from) == ("echo2", "added", "echo")


@pytest.mark.parametrize(
    "lock_edit,server,cls",
    [
        (lambda b: b, "nope", contractpin.LockUnknownServerError),
        (lambda b: b[:20], "demo", contractpin.LockSyntaxError),
        (lambda b: b.replace(b'"contractpin": "1"', b'"contractpin": "2"'), "demo", contractpin.LockUnsupportedVersionError),
        (lambda b: b.replace(b'"tool_count": 2', b'"tool_count": 3'), "demo", contractpin.LockInvalidError),
    ],
)
def test_verify_lock_errors(lock_edit, server, cls):
    lock = lock_edit((TESTDATA / "demo.lock").read_bytes())
    with pytest.raises(cls) as info:
        contractpin.verify(lock, server, (TESTDATA / "tools.json").read_bytes())
    assert isinstance(info.value, contractpin.LockError)
    if cls is contractpin.LockSyntaxError:
        assert info.value.offset == 20


def test_verify_bad_live_list():
    lock = (TESTDATA / "demo.lock").read_bytes()
    with pytest.raises(contractpin.JsonRpcErrorError):
        contractpin.verify(lock, "demo", b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}')


def test_threads():
    lock = (TESTDATA / "demo.lock").read_bytes()
    live = (TESTDATA / "tools.json").read_bytes()
    want = expected()["server"]
    failures = []

    def work():
        for _ in range(50):
            if contractpin.digest_tools_list(live)["digest"] != want or contractpin.verify(lock, "demo", live).exit_code:
                failures.append(1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
