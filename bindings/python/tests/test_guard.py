"""Lock (parse once) and Lock.guard_page (the proxy's run-time decision).

The expected verdicts are the documented ones of the shipped example
(examples/: search_web drifted in its description, read_file in its
annotations, export_data added, translate unchanged; README.md) and the
independent digests of bindings/c/testdata/expected.txt; the expected result
bytes are cut out of the fixtures by text search here.
"""

import json
import subprocess
import sys
import threading

import pytest

import contractpin
from conftest import ROOT, TESTDATA, expected

EXAMPLES = ROOT / "examples"


@pytest.fixture
def example_lock():
    with contractpin.Lock.from_path(EXAMPLES / "contractpin.lock") as lock:
        yield lock


@pytest.fixture
def demo_lock():
    with contractpin.Lock((TESTDATA / "demo.lock").read_bytes()) as lock:
        yield lock


def element(page: str, name: str) -> str:
    """The tool object called `name` of a pretty-printed examples/ page."""
    at = page.index(f'"name": "{name}"')
    start = page.rindex("{", 0, at)
    end = page.find("\n    },\n    {", start)
    if end < 0:
        end = page.index("\n    }\n  ]", start)
    return page[start : end + len("\n    }")]


def test_a_matching_page_passes_byte_for_byte(example_lock):
    page = (EXAMPLES / "tools-list.json").read_bytes()
    for observe in (False, True):
        d = example_lock.guard_page("example", page, observe=observe)
        assert d.result == page
        assert d.passed == ["search_web", "read_file", "translate", "delete_record"]
        assert d.events == [] and d.observe is observe
        assert all(d.callable(n) for n in d.passed)
        assert not d.callable("export_data") and not d.callable("")


def test_the_drifted_example(example_lock):
    page = (EXAMPLES / "drifted-tools-list.json").read_bytes()
    text = page.decode()
    pinned = json.loads((EXAMPLES / "contractpin.lock").read_text())["servers"]["example"]["tools"]
    d = example_lock.guard_page("example", page)
    assert d.passed == ["translate"]
    assert [(e.tool, e.status, e.changed) for e in d.events] == [
        ("search_web", "drifted", ["description"]),
        ("read_file", "drifted", ["annotations"]),
        ("export_data", "unpinned", []),
    ]
    for e in d.events:
        # The live digest is the digest core's for that tool object, not the pin.
        assert e.live_digest == contractpin.tool_digest(element(text, e.tool).encode())
        assert e.live_digest != pinned.get(e.tool, {}).get("digest")
        assert json.loads(e.json) == {
            "changed": e.changed,
            "live": e.live_digest,
            "server": "example",
            "status": e.status,
            "tool": e.tool,
        }
        assert e.json.startswith(b'{"changed":[') and b" " not in e.json
    # The page up to its "[", the translate object, the page from its "]".
    want = text[: text.index("[") + 1] + element(text, "translate") + text[text.rindex("]") :]
    assert d.result == want.encode()
    assert [t["name"] for t in d.to_dict()["tools"]] == ["translate"]
    assert d.callable("translate")
    assert not any(d.callable(n) for n in ("search_web", "read_file", "export_data", "delete_record"))

    o = example_lock.guard_page("example", page, observe=True)
    assert o.result == page and o.events == d.events and o.passed == d.passed
    assert all(o.callable(n) for n in ("search_web", "read_file", "translate", "export_data"))
    assert not o.callable("delete_record")  # pinned, but not on this page


def test_the_demo_drift_has_the_independent_digest(demo_lock):
    d = demo_lock.guard_page("demo", (TESTDATA / "tools-drifted.json").read_bytes())
    assert d.passed == ["add"]
    (e,) = d.events
    assert (e.tool, e.status, e.changed, e.live_digest) == (
        "echo",
        "drifted",
        ["description"],
        expected()["drifted-echo"],
    )


def test_dict_pages(demo_lock):
    page = json.loads((TESTDATA / "tools.json").read_text())["result"]
    d = demo_lock.guard_page("demo", page)
    assert d.passed == ["echo", "add"] and d.events == []
    assert d.to_dict() == page
    page["tools"][0]["description"] += " And more."
    page["nextCursor"] = "2"
    d = demo_lock.guard_page("demo", page)
    assert [e.tool for e in d.events] == ["echo"]
    assert d.to_dict() == {"tools": [page["tools"][1]], "nextCursor": "2"}
    with pytest.raises(ValueError):
        demo_lock.guard_page("demo", {"tools": [], "x": float("inf")})
    with pytest.raises(TypeError):
        demo_lock.guard_page("demo", '{"tools":[]}')  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "page,cls,offset",
    [
        (b'{"tools":[', contractpin.UnexpectedEndError, 10),
        (b'{"tools":[{"name":"a"},{"name":"a"}]}', contractpin.DuplicateToolNameError, 31),
        (b'[{"name":"add"}]', contractpin.NotToolsListError, 0),
        (b"", contractpin.UnexpectedEndError, 0),
    ],
)
def test_a_rejected_page_raises(demo_lock, page, cls, offset):
    with pytest.raises(cls) as info:
        demo_lock.guard_page("demo", page)
    assert info.value.offset == offset


def test_a_response_is_not_a_page(demo_lock):
    # The result member, not the whole JSON-RPC response.
    with pytest.raises(contractpin.NotToolsListError) as info:
        demo_lock.guard_page("demo", (TESTDATA / "tools.json").read_bytes())
    assert info.value.offset == 0


def test_lock_servers_verify_and_errors(demo_lock):
    assert demo_lock.servers == ["demo"]
    with pytest.raises(contractpin.LockUnknownServerError) as info:
        demo_lock.guard_page("nope", b'{"tools":[]}')
    assert info.value.offset is None
    report = demo_lock.verify("demo", (TESTDATA / "tools-drifted.json").read_bytes())
    assert report.exit_code == 1 and report.tools[1].live == expected()["drifted-echo"]
    assert report.json == contractpin.verify(
        (TESTDATA / "demo.lock").read_bytes(), "demo", (TESTDATA / "tools-drifted.json").read_bytes()
    ).json

    bad = (TESTDATA / "demo.lock").read_bytes().replace(b'"tool_count": 2', b'"tool_count": 5')
    with pytest.raises(contractpin.LockInvalidError) as info:
        contractpin.Lock(bad)
    assert info.value.path == "servers.demo.tool_count"
    assert "tool_count is 5" in info.value.detail and info.value.detail in str(info.value)
    with pytest.raises(contractpin.LockSyntaxError) as info:
        contractpin.Lock(b'{"x":')
    assert info.value.offset == 5


def test_close():
    lock = contractpin.Lock((TESTDATA / "demo.lock").read_bytes())
    d = lock.guard_page("demo", (TESTDATA / "tools-drifted.json").read_bytes())
    lock.close()
    lock.close()
    assert d.passed == ["add"]  # results outlive the lock
    with pytest.raises(ValueError, match="closed"):
        lock.guard_page("demo", b'{"tools":[]}')
    with pytest.raises(ValueError, match="closed"):
        lock.verify("demo", b'{"tools":[]}')


def test_threads_share_a_lock(demo_lock):
    drifted = (TESTDATA / "tools-drifted.json").read_bytes()
    failures = []

    def work(observe):
        for _ in range(100):
            d = demo_lock.guard_page("demo", drifted, observe=observe)
            if d.callable("echo") is not observe or d.passed != ["add"]:
                failures.append(d)

    threads = [threading.Thread(target=work, args=(i % 2 == 1,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_close_while_in_use_is_deferred():
    # close() from another thread while calls run: no call sees a freed lock;
    # every call after it is refused.
    lock = contractpin.Lock((TESTDATA / "demo.lock").read_bytes())
    page = (TESTDATA / "tools-drifted.json").read_bytes()
    outcomes = []
    running = threading.Event()

    def work():
        for _ in range(1_000_000):
            try:
                passed = lock.guard_page("demo", page).passed
            except ValueError:
                outcomes.append("closed")
                return
            outcomes.append(passed)
            running.set()
        outcomes.append("never closed")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    assert running.wait(30)
    lock.close()
    for t in threads:
        t.join()
    assert outcomes.count("closed") == 4
    assert all(o == ["add"] for o in outcomes if o != "closed")


def test_mcp_guard_imports_without_mcp():
    code = "import sys, contractpin.mcp_guard as g; assert 'mcp' not in sys.modules; print(g.__all__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "GuardedSession" in out.stdout
