"""contractpin.Enforcer: the whole run-time check of one session at the
transport (contractpin_enforcer_*, contractpin_decision_*), message by
message, as `contractpin proxy` does it.

The expected verdicts do not come from the enforcer: they follow from the
verdicts README.md documents for the shipped example (examples/: against
contractpin.lock, server "example", tools-list.json passes whole; in
drifted-tools-list.json search_web (description) and read_file
(annotations) drifted, export_data added (unpinned), translate unchanged,
delete_record absent), from the proxy's behaviour README.md ("contractpin
proxy") states (-32602 for a refused tools/call, -32603 with --on-drift
block, the event lines of --log), from JSON-RPC 2.0 (-32700 parse error,
batches) and, for the handshake, from the instructions vectors
(vectors/vectors.json) that testdata/instructions.lock pins (see
test_guard_instructions.py). The stable numbers are read from
include/contractpin.h.
"""

import copy
import ctypes
import json
import pickle
import re
import threading

import pytest

import contractpin
from contractpin import Action, Decision, Enforcer, _lib
from conftest import ROOT, TESTDATA

EXAMPLES = ROOT / "examples"
PAGE = (EXAMPLES / "tools-list.json").read_bytes()
DRIFTED = (EXAMPLES / "drifted-tools-list.json").read_bytes()
HEADER = ROOT / "include" / "contractpin.h"
LIST_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'


def response(rid: int, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":' % rid + result + b"}"


def tools_list(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}' % rid


def call(rid: int, name: str) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": {}}},
        separators=(",", ":"),
    ).encode()


def event(d: Decision, i: int = 0) -> dict:
    return json.loads(d.events[i])


def refused(d: Decision, rid: int, tool: str, reason: str) -> None:
    """A tools/call the proxy refuses: not sent, answered with -32602
    `Unknown tool: NAME`, one call-refused event with the reason."""
    assert d.action is Action.DROP and d.replacement is None
    assert d.forwarded(b"anything") is None
    assert d.reply is not None
    answer = json.loads(d.reply)
    assert (answer["jsonrpc"], answer["id"], answer["error"]["code"]) == ("2.0", rid, -32602)
    assert answer["error"]["message"] == f"Unknown tool: {tool}"
    assert "result" not in answer
    assert d.event_dicts() == [{"reason": reason, "server": "example", "status": "call-refused", "tool": tool}]


def forwarded(d: Decision) -> None:
    assert (d.action, d.replacement, d.reply, d.events) == (Action.FORWARD, None, None, ())


@pytest.fixture
def lock():
    with contractpin.Lock.from_path(EXAMPLES / "contractpin.lock") as lock:
        yield lock


@pytest.fixture
def enforcer(lock):
    with Enforcer(lock, "example") as enforcer:
        yield enforcer


def drifted_listing(enforcer: Enforcer, rid: int = 2) -> Decision:
    forwarded(enforcer.client(tools_list(rid)))
    return enforcer.server(response(rid, DRIFTED))


def test_a_session(enforcer):
    # Nothing is callable before a listing.
    d = enforcer.client(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"translate","arguments":{}}}')
    assert d.action is Action.DROP
    assert json.loads(d.reply)["error"]["code"] == -32602
    assert d.events == (b'{"reason":"no-listing","server":"example","status":"call-refused","tool":"translate"}',)
    refused(d, 1, "translate", "no-listing")

    # The drifted listing: the drifted and the unpinned tools removed.
    request = tools_list(2)
    d = enforcer.client(request)
    forwarded(d)
    assert d.forwarded(request) is request
    answer = response(2, DRIFTED)
    d = enforcer.server(answer)
    assert d.action is Action.REPLACE and d.reply is None
    assert d.forwarded(answer) == d.replacement
    replaced = json.loads(d.replacement)
    assert (replaced["jsonrpc"], replaced["id"]) == ("2.0", 2)
    assert [t["name"] for t in replaced["result"]["tools"]] == ["translate"]
    # translate itself is the server's, untouched.
    (translate,) = [t for t in json.loads(DRIFTED)["tools"] if t["name"] == "translate"]
    assert replaced["result"]["tools"][0] == translate
    events = d.event_dicts()
    assert [(e["status"], e["tool"], e["changed"]) for e in events] == [
        ("drifted", "search_web", ["description"]),
        ("drifted", "read_file", ["annotations"]),
        ("unpinned", "export_data", []),
    ]
    for e, line in zip(events, d.events):
        assert e["server"] == "example" and "at" not in e
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", e["live"])
        # Canonical JSON: keys sorted, no spaces.
        assert line == json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    # export_data's live digest is the one `contractpin approve` pins (README.md).
    assert events[2]["live"] == "sha256:279fe286c68d64143e475e108f8fa1f7bc37ff7876e68605d6282e442dde4dc6"

    # The calls against that listing.
    forwarded(enforcer.client(call(3, "translate")))
    refused(enforcer.client(call(4, "search_web")), 4, "search_web", "drifted")
    refused(enforcer.client(call(5, "read_file")), 5, "read_file", "drifted")
    refused(enforcer.client(call(6, "export_data")), 6, "export_data", "unpinned")
    refused(enforcer.client(call(7, "delete_record")), 7, "delete_record", "not-listed")
    forwarded(enforcer.server(response(3, b'{"content":[{"type":"text","text":"hola"}]}')))

    # The tools changed: nothing is callable until they are listed again.
    forwarded(enforcer.server(LIST_CHANGED))
    refused(enforcer.client(call(8, "translate")), 8, "translate", "list-changed")

    # The clean listing passes whole, byte for byte.
    forwarded(enforcer.client(tools_list(9)))
    d = enforcer.server(response(9, PAGE))
    forwarded(d)
    assert d.forwarded(response(9, PAGE)) == response(9, PAGE)
    for rid, name in enumerate(["delete_record", "translate", "search_web", "read_file"], 10):
        forwarded(enforcer.client(call(rid, name)))
    refused(enforcer.client(call(14, "export_data")), 14, "export_data", "not-listed")
    # Other traffic passes.
    forwarded(enforcer.client(b'{"jsonrpc":"2.0","id":15,"method":"ping"}'))
    forwarded(enforcer.server(b'{"jsonrpc":"2.0","id":15,"result":{}}'))


def test_messages_that_are_not_json_rpc_are_dropped(enforcer):
    d = enforcer.server(b"hello")
    assert (d.action, d.replacement, d.reply) == (Action.DROP, None, None)
    assert len(d.events) == 1
    assert (event(d)["status"], event(d)["server"]) == ("skipped", "example")
    d = enforcer.client(b"not json")
    assert (d.action, d.replacement) == (Action.DROP, None)
    answer = json.loads(d.reply)
    assert (answer["jsonrpc"], answer["id"], answer["error"]["code"]) == ("2.0", None, -32700)
    # Invalid JSON-RPC, and bytes that are not UTF-8, are not passed on either.
    for message in (b'{"jsonrpc":"2.0","id":5}', b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', b""):
        d = enforcer.client(message)
        assert d.action is Action.DROP and d.forwarded(message) is None, message
    # A bytearray or memoryview is read as bytes.
    forwarded(enforcer.client(bytearray(tools_list(1))))
    forwarded(enforcer.client(memoryview(tools_list(2))))


def test_the_summary_counts_the_drops_past_the_first_hundred(enforcer):
    # Past the first 100 of a kind, a dropped line gets no event of its own;
    # the summary counts the rest once, with the words of the proxy's
    # skipped-more line, then starts from zero.
    assert enforcer.summary() == ()
    assert sum(len(enforcer.server(b"junk").events) for _ in range(104)) == 100
    assert enforcer.summary() == (
        b'{"count":4,"reason":"4 more server line(s) that are not JSON-RPC messages were dropped;'
        b' only the first 100 of a session are logged one by one","server":"example","status":"skipped-more"}',
    )
    assert enforcer.summary() == ()
    enforcer.close()
    with pytest.raises(ValueError, match="closed"):
        enforcer.summary()


def test_a_batch_is_split(enforcer):
    drifted_listing(enforcer)
    ping = b'{"jsonrpc":"2.0","id":8,"method":"ping"}'
    batch = b"[" + call(7, "search_web") + b"," + ping + b"]"
    d = enforcer.client(batch)
    assert d.action is Action.REPLACE
    assert json.loads(d.replacement) == [json.loads(ping)]
    assert d.forwarded(batch) == d.replacement
    (answer,) = json.loads(d.reply)
    assert (answer["id"], answer["error"]["code"], answer["error"]["message"]) == (
        7,
        -32602,
        "Unknown tool: search_web",
    )
    assert event(d) == {"reason": "drifted", "server": "example", "status": "call-refused", "tool": "search_web"}
    # A batch of refused calls only: nothing sent, every call answered.
    d = enforcer.client(b"[" + call(9, "export_data") + b"," + call(10, "delete_record") + b"]")
    assert (d.action, d.replacement) == (Action.DROP, None)
    assert [(a["id"], a["error"]["code"]) for a in json.loads(d.reply)] == [(9, -32602), (10, -32602)]
    # A batch the policy lets through whole.
    batch = b"[" + call(11, "translate") + b"," + ping + b"]"
    forwarded(enforcer.client(batch))


def test_observe_mode_reports_and_never_changes(lock):
    with Enforcer(lock, "example", observe=True) as enforcer:
        assert (enforcer.observe, enforcer.block, enforcer.server_name) == (True, False, "example")
        d = drifted_listing(enforcer)
        assert (d.action, d.replacement, d.reply) == (Action.FORWARD, None, None)
        assert [(e["status"], e["tool"]) for e in d.event_dicts()] == [
            ("drifted", "search_web"),
            ("drifted", "read_file"),
            ("unpinned", "export_data"),
        ]
        d = enforcer.client(call(3, "search_web"))
        assert (d.action, d.replacement, d.reply) == (Action.FORWARD, None, None)
        assert d.event_dicts() == [
            {"reason": "drifted", "server": "example", "status": "call-unverified", "tool": "search_web"}
        ]
        forwarded(enforcer.client(call(4, "translate")))


def test_block_answers_the_listing_with_an_error(lock):
    with Enforcer(lock, "example", block=True) as enforcer:
        d = drifted_listing(enforcer, 6)
        assert d.action is Action.REPLACE and d.reply is None
        answer = json.loads(d.replacement)
        assert (answer["jsonrpc"], answer["id"], answer["error"]["code"]) == ("2.0", 6, -32603)
        assert "result" not in answer
        statuses = [(e["status"], e.get("tool")) for e in d.event_dicts()]
        assert statuses[-1] == ("listing-blocked", None)
        assert set(statuses[:-1]) == {("drifted", "search_web"), ("drifted", "read_file"), ("unpinned", "export_data")}
        # Nothing of the blocked listing is callable.
        for rid, name in enumerate(["translate", "search_web"], 7):
            d = enforcer.client(call(rid, name))
            assert d.action is Action.DROP and json.loads(d.reply)["error"]["code"] == -32602
        # A clean listing passes.
        forwarded(enforcer.client(tools_list(9)))
        forwarded(enforcer.server(response(9, PAGE)))
        forwarded(enforcer.client(call(10, "translate")))


def test_a_page_over_the_limits_is_rejected(lock):
    with Enforcer(lock, "example", limits=contractpin.Limits(max_tools=2)) as enforcer:
        d = drifted_listing(enforcer)
        assert d.action is not Action.FORWARD  # fail closed: no tool of it reaches the client
        assert d.replacement is None or b'"tools"' not in d.replacement
        assert [e["status"] for e in d.event_dicts()] == ["page-rejected"]
        assert "tool-limit" in event(d)["reason"]
        assert enforcer.client(call(3, "translate")).action is Action.DROP


def vector_digest(name: str) -> str:
    doc = json.loads((ROOT / "vectors" / "vectors.json").read_text(encoding="utf-8"))
    (v,) = [v for v in doc["vectors"] if v["mode"] == "instructions" and v["name"] == name]
    digest: str = v["digest"]
    return digest


def test_the_handshake_instructions(testdata):
    """instructions.lock pins, for acme, the instructions of initialize.json;
    initialize-drifted.json carries others (test_guard_instructions.py)."""
    plain, injection = vector_digest("instructions-plain"), vector_digest("instructions-injection")
    pinned = (testdata / "initialize.json").read_bytes().strip()
    drifted = (testdata / "initialize-drifted.json").read_bytes().strip()
    cut = (
        b'{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},'
        b'"serverInfo":{"name":"acme","version":"1.0.1"}}'
    )
    initialize = (
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"test","version":"1.0"}}}'
    )
    with contractpin.Lock((testdata / "instructions.lock").read_bytes()) as lock:

        def handshake(result: bytes, **options: bool) -> Decision:
            enforcer = Enforcer(lock, "acme", **options)
            d = enforcer.client(initialize)
            # Passed on; the proxy logs which client connected.
            assert (d.action, d.replacement, d.reply) == (Action.FORWARD, None, None)
            assert [e["status"] for e in d.event_dicts()] == ["client"]
            return enforcer.server(response(0, result))

        for options in ({}, {"observe": True}, {"block": True}, {"ignore_instructions": True}):
            forwarded(handshake(pinned, **options))
        d = handshake(drifted)
        assert (d.action, d.replacement, d.reply) == (Action.REPLACE, response(0, cut), None)
        e = event(d)
        assert (e["status"], e["server"], e["live"], e["pinned"]) == ("instructions-drifted", "acme", injection, plain)
        forwarded(handshake(drifted, ignore_instructions=True))
        d = handshake(drifted, observe=True)
        assert (d.action, d.replacement) == (Action.FORWARD, None)
        assert event(d)["status"] == "instructions-drifted"
        d = handshake(drifted, block=True)
        answer = json.loads(d.replacement)
        assert (d.action, answer["id"], answer["error"]["code"]) == (Action.REPLACE, 0, -32603)
        assert event(d)["status"] == "instructions-drifted"


def test_errors(lock):
    with pytest.raises(contractpin.LockUnknownServerError):
        Enforcer(lock, "nope")
    with pytest.raises(contractpin.LockError):
        Enforcer(lock, "Example")
    with pytest.raises(ValueError):
        Enforcer(lock, "example", observe=True, block=True)
    # A name that is not UTF-8 (a lone surrogate) is the library's refusal.
    with pytest.raises(contractpin.InvalidArgumentError):
        Enforcer(lock, "example\ud800")
    with pytest.raises(TypeError):
        Enforcer(lock, b"example")
    with pytest.raises(TypeError):
        Enforcer(b"{}", "example")
    with Enforcer(lock, "example") as enforcer:
        for bad in ("{}", None, 1):
            with pytest.raises(TypeError):
                enforcer.client(bad)
            with pytest.raises(TypeError):
                enforcer.server(bad)
    closed = contractpin.Lock.from_path(EXAMPLES / "contractpin.lock")
    closed.close()
    with pytest.raises(ValueError, match="closed"):
        Enforcer(closed, "example")


def test_close(lock):
    enforcer = Enforcer(lock, "example")
    d = drifted_listing(enforcer)
    enforcer.close()
    enforcer.close()
    for use in (lambda: enforcer.client(tools_list(3)), lambda: enforcer.server(response(3, PAGE))):
        with pytest.raises(ValueError, match="closed"):
            use()
    # Decisions made stay valid.
    assert [t["name"] for t in json.loads(d.replacement)["result"]["tools"]] == ["translate"]
    with Enforcer(lock, "example") as e:
        forwarded(e.client(tools_list(1)))
    with pytest.raises(ValueError, match="closed"):
        e.client(tools_list(2))


def test_never_copied(enforcer):
    for copier in (copy.copy, copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))):
        with pytest.raises(TypeError):
            copier(enforcer)
    forwarded(enforcer.client(tools_list(1)))
    # A Decision is plain data: it copies and pickles.
    d = enforcer.server(response(1, DRIFTED))
    assert copy.deepcopy(d) == d == pickle.loads(pickle.dumps(d))
    with pytest.raises(AttributeError):
        d.action = Action.FORWARD


def test_the_lock_may_be_closed_after():
    lock = contractpin.Lock.from_path(EXAMPLES / "contractpin.lock")
    enforcer = Enforcer(lock, "example")
    lock.close()
    del lock
    d = drifted_listing(enforcer)
    assert [t["name"] for t in json.loads(d.replacement)["result"]["tools"]] == ["translate"]
    forwarded(enforcer.client(call(3, "translate")))
    refused(enforcer.client(call(4, "search_web")), 4, "search_web", "drifted")
    enforcer.close()


def test_threads_share_an_enforcer(enforcer):
    """A reader and writers on several threads: the calls never overlap (the
    library's object is not used by two calls at once), and each call sees
    one listing or the other."""
    forwarded(enforcer.client(tools_list(1)))
    forwarded(enforcer.server(response(1, PAGE)))
    failures = []
    done = threading.Event()
    allowed = {"translate": {Action.FORWARD}, "search_web": {Action.FORWARD, Action.DROP}}

    def ask(first_id: int) -> None:
        rid = first_id
        while not done.is_set():
            for name, actions in allowed.items():
                rid += 1
                seen = enforcer.client(call(rid, name)).action
                if seen not in actions:
                    failures.append((name, seen))

    threads = [threading.Thread(target=ask, args=(1_000_000 * (i + 1),)) for i in range(4)]
    for t in threads:
        t.start()
    try:
        for i in range(300):
            rid = 100 + i
            enforcer.client(tools_list(rid))
            d = enforcer.server(response(rid, DRIFTED if i % 2 else PAGE))
            assert d.action is (Action.REPLACE if i % 2 else Action.FORWARD)
    finally:
        done.set()
        for t in threads:
            t.join()
    assert not failures


def test_the_stable_numbers():
    header = HEADER.read_text()
    actions = {m[0]: int(m[1]) for m in re.findall(r"CONTRACTPIN_ACTION_(\w+) = (\d+),", header)}
    assert actions == {"DROP": 0, "FORWARD": 1, "REPLACE": 2}
    assert {a.name: a.value for a in Action} == actions
    flags = {m[0]: int(m[1]) for m in re.findall(r"#define CONTRACTPIN_(GUARD_OBSERVE|ENFORCER_\w+) (\d+)", header)}
    assert flags == {"GUARD_OBSERVE": 1, "ENFORCER_BLOCK": 2, "ENFORCER_IGNORE_INSTRUCTIONS": 4}


def test_decision_forwarded():
    message = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert Decision(Action.FORWARD, None, None, ()).forwarded(message) is message
    assert Decision(Action.REPLACE, b"[]", None, ()).forwarded(message) == b"[]"
    assert Decision(Action.DROP, None, b"{}", ()).forwarded(message) is None


def test_the_c_functions_argument_errors(lock):
    """The prototypes of contractpin._lib against the argument checks the
    header documents (100 null-argument, 101 invalid-argument, 103
    index-out-of-range, 105 not-found; a NULL decision is DROP)."""
    lib = _lib.lib
    out = ctypes.c_void_p()
    with lock._borrow() as handle:
        assert lib.contractpin_enforcer_new(handle, b"example", 7, 1 | 2, None, ctypes.byref(out)) == 101
        assert lib.contractpin_enforcer_new(handle, b"example", 7, 8, None, ctypes.byref(out)) == 101
        assert lib.contractpin_enforcer_new(handle, b"\xff", 1, 0, None, ctypes.byref(out)) == 101
        assert lib.contractpin_enforcer_new(handle, b"nope", 4, 0, None, ctypes.byref(out)) == 69
        assert lib.contractpin_enforcer_new(None, b"example", 7, 0, None, ctypes.byref(out)) == 100
        assert lib.contractpin_enforcer_new(handle, b"example", 7, 0, None, None) == 100
        assert out.value is None  # not written on failure
        assert lib.contractpin_enforcer_new(handle, b"example", 7, 0, None, ctypes.byref(out)) == 0
    e = out.value
    assert e
    d = ctypes.c_void_p()
    ptr = ctypes.POINTER(ctypes.c_uint8)()
    n = ctypes.c_size_t(0)
    try:
        message = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"translate"}}'
        assert lib.contractpin_enforcer_client(None, message, len(message), ctypes.byref(d)) == 100
        assert lib.contractpin_enforcer_server(None, message, len(message), ctypes.byref(d)) == 100
        assert lib.contractpin_enforcer_client(e, message, len(message), None) == 100
        assert d.value is None
        # NULL with length 0 is an empty message: dropped.
        assert lib.contractpin_enforcer_client(e, None, 0, ctypes.byref(d)) == 0
        assert lib.contractpin_decision_action(d) == 0  # CONTRACTPIN_ACTION_DROP
        lib.contractpin_decision_free(d)
        assert lib.contractpin_enforcer_client(e, message, len(message), ctypes.byref(d)) == 0
        try:
            assert lib.contractpin_decision_action(d) == 0  # CONTRACTPIN_ACTION_DROP
            assert lib.contractpin_decision_bytes(d, ctypes.byref(ptr), ctypes.byref(n)) == 105
            assert lib.contractpin_decision_reply(d, ctypes.byref(ptr), ctypes.byref(n)) == 0
            reply = ctypes.string_at(ptr, n.value)
            assert json.loads(reply)["error"]["code"] == -32602
            assert ctypes.string_at(ptr, n.value + 1)[-1:] == b"\0"  # followed by a NUL
            assert lib.contractpin_decision_reply(d, None, ctypes.byref(n)) == 100
            assert lib.contractpin_decision_event_count(d) == 1
            assert lib.contractpin_decision_event_json(d, 1, ctypes.byref(ptr), ctypes.byref(n)) == 103
            assert lib.contractpin_decision_event_json(d, 0, None, ctypes.byref(n)) == 100
        finally:
            lib.contractpin_decision_free(d)
        # A NULL decision: DROP, nothing in it.
        assert lib.contractpin_decision_action(None) == 0  # CONTRACTPIN_ACTION_DROP
        assert lib.contractpin_decision_event_count(None) == 0
        assert lib.contractpin_decision_bytes(None, ctypes.byref(ptr), ctypes.byref(n)) == 100
        lib.contractpin_decision_free(None)
        lib.contractpin_enforcer_free(None)
    finally:
        lib.contractpin_enforcer_free(e)
