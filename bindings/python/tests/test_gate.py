"""contractpin.Gate: the library's tool-call gate (contractpin_gate_*), the
session policy of `contractpin proxy` (src/guard/gate.rs), driven with real
page decisions, argument errors and the stable numbers and names; the
scenario of tests/ffi_gate.rs.

The expected verdicts do not come from the gate: they follow from the
verdicts README.md documents for the shipped example (examples/: against
contractpin.lock, tools-list.json passes whole; in drifted-tools-list.json
search_web and read_file drifted, export_data added, translate unchanged,
delete_record absent) and from the policy as docs/C_ABI.md ("What the
embedding client keeps between pages") states it. The stable numbers are
read from include/contractpin.h.
"""

import copy
import ctypes
import gc
import pickle
import re
import threading

import pytest

import contractpin
from contractpin import Gate, PageKind, Refusal, _lib
from contractpin.mcp_guard import ToolRefusedError
from conftest import ROOT

EXAMPLES = ROOT / "examples"
PAGE = (EXAMPLES / "tools-list.json").read_bytes()
DRIFTED = (EXAMPLES / "drifted-tools-list.json").read_bytes()
HEADER = ROOT / "include" / "contractpin.h"

# The example's five tools, in the order of every verdict list below.
TOOLS = ["search_web", "read_file", "translate", "delete_record", "export_data"]

CALLABLE, NO_LISTING, LIST_CHANGED, DRIFTED_, UNPINNED, NOT_LISTED = (
    Refusal.CALLABLE,
    Refusal.NO_LISTING,
    Refusal.LIST_CHANGED,
    Refusal.DRIFTED,
    Refusal.UNPINNED,
    Refusal.NOT_LISTED,
)
# tools-list.json as the current listing: the four pinned tools.
CLEAN = [CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED]


@pytest.fixture
def lock():
    with contractpin.Lock.from_path(EXAMPLES / "contractpin.lock") as lock:
        yield lock


@pytest.fixture
def gate():
    with Gate() as gate:
        yield gate


def verdicts(gate):
    return [gate.check(t) for t in TOOLS]


def feed(gate, lock, page, kind, observe=False):
    """The page decided, given to the gate as `kind`; the decision (and its
    library object) is gone before the gate is asked anything."""
    decision = lock.guard_page("example", page, observe=observe)
    gate.page(decision, kind)
    del decision
    gc.collect()


def test_a_session_of_listings_changes_and_refusals(lock, gate):
    assert verdicts(gate) == [NO_LISTING] * 5
    # A clean listing: the four pinned tools.
    feed(gate, lock, PAGE, PageKind.FIRST)
    assert verdicts(gate) == CLEAN
    assert [gate.callable(t) for t in TOOLS] == [True, True, True, True, False]
    # The drifted listing replaces it.
    feed(gate, lock, DRIFTED, PageKind.FIRST)
    assert verdicts(gate) == [DRIFTED_, DRIFTED_, CALLABLE, NOT_LISTED, UNPINNED]
    # The tools changed: nothing, and a late cursor page adds nothing.
    gate.list_changed()
    assert verdicts(gate) == [LIST_CHANGED] * 5
    feed(gate, lock, PAGE, PageKind.NEXT)
    assert verdicts(gate) == [LIST_CHANGED] * 5
    # Listed again.
    feed(gate, lock, PAGE, PageKind.FIRST)
    assert verdicts(gate) == CLEAN
    # An unrequested page only takes away what it reports.
    feed(gate, lock, DRIFTED, PageKind.UNMATCHED)
    assert verdicts(gate) == [DRIFTED_, DRIFTED_, CALLABLE, CALLABLE, NOT_LISTED]
    # A cursor page of the current listing adds; then one is refused, and
    # the refused listing's later pages add nothing (the reasons the listing
    # kept still say why a tool is refused).
    feed(gate, lock, PAGE, PageKind.NEXT)
    assert verdicts(gate)[:4] == [CALLABLE] * 4
    gate.refused(PageKind.NEXT)
    refused = [DRIFTED_, DRIFTED_, NOT_LISTED, NOT_LISTED, NOT_LISTED]
    assert verdicts(gate) == refused
    feed(gate, lock, PAGE, PageKind.NEXT)
    assert verdicts(gate) == refused
    # A page decided in observe mode gets the proxy's verdicts too (an
    # observe-mode client sends a refused call anyway, and logs why).
    feed(gate, lock, DRIFTED, PageKind.FIRST, observe=True)
    assert verdicts(gate) == [DRIFTED_, DRIFTED_, CALLABLE, NOT_LISTED, UNPINNED]
    # A refused first page leaves nothing.
    gate.refused(PageKind.FIRST)
    assert verdicts(gate) == [DRIFTED_, DRIFTED_, NOT_LISTED, NOT_LISTED, UNPINNED]


def test_a_refused_cursor_page_before_any_listing_or_after_a_change_keeps_that_state(lock, gate):
    gate.refused(PageKind.NEXT)
    feed(gate, lock, PAGE, PageKind.NEXT)
    feed(gate, lock, PAGE, PageKind.UNMATCHED)
    assert verdicts(gate) == [NO_LISTING] * 5
    feed(gate, lock, PAGE, PageKind.FIRST)
    gate.list_changed()
    gate.refused(PageKind.UNMATCHED)
    assert verdicts(gate) == [LIST_CHANGED] * 5


def test_page_kinds_may_be_plain_numbers(lock, gate):
    gate.page(lock.guard_page("example", PAGE), 0)
    gate.refused(1)
    assert verdicts(gate) == [NOT_LISTED] * 5


def test_argument_errors_fail_closed(lock, gate):
    """Every failure leaves the gate refusing until a new listing (an
    unknown kind refused as a first page)."""
    decision = lock.guard_page("example", DRIFTED)
    failing = []
    for bad in (3, -1, 1 << 32):
        failing += [(ValueError, gate.page, (decision, bad)), (ValueError, gate.refused, (bad,))]
    for bad in ("first", None, 0.0, True):
        failing += [(TypeError, gate.page, (decision, bad)), (TypeError, gate.refused, (bad,))]
    failing.append((TypeError, gate.page, (decision.result, PageKind.FIRST)))
    # A GuardResult without its library object: made by hand, or unpickled.
    handmade = contractpin.GuardResult(
        result=PAGE, passed=["search_web"], events=[], observe=False, _callable=frozenset(["search_web"])
    )
    unpickled = pickle.loads(pickle.dumps(decision))
    assert unpickled == decision
    for result in (handmade, unpickled):
        failing.append((ValueError, gate.page, (result, PageKind.NEXT)))
    for error, call, args in failing:
        feed(gate, lock, PAGE, PageKind.FIRST)
        with pytest.raises(error):
            call(*args)
        assert verdicts(gate) == [NOT_LISTED] * 5, (call, args)
        # Refused as a first page: a cursor page adds nothing.
        feed(gate, lock, PAGE, PageKind.NEXT)
        assert verdicts(gate) == [NOT_LISTED] * 5, (call, args)
    feed(gate, lock, PAGE, PageKind.FIRST)
    # Copies share it.
    assert copy.copy(decision)._handle is decision._handle
    assert copy.deepcopy(decision)._handle is decision._handle
    with pytest.raises(TypeError):
        gate.check(b"translate")
    assert verdicts(gate) == CLEAN
    # A name that is not UTF-8 (a lone surrogate) is the library's refusal.
    assert gate.check("translate\ud800") is Refusal.INVALID_ARGUMENT
    assert gate.check("\udcff") is Refusal.INVALID_ARGUMENT
    # The empty name no listing held; names are exact.
    for name in ["", "Translate", "translate ", "translat", "search_web\0"]:
        assert gate.check(name) is NOT_LISTED, repr(name)


def test_the_c_functions_argument_errors(lock):
    """The prototypes of contractpin._lib against the argument checks the
    header documents (100 null-argument, 101 invalid-argument)."""
    lib = _lib.lib
    handle = ctypes.c_void_p()
    assert lib.contractpin_gate_new(ctypes.byref(handle)) == 0 and handle.value
    g = handle.value
    try:
        clean = lock.guard_page("example", PAGE)
        res = lock.guard_page("example", DRIFTED)._handle

        def now():
            return [lib.contractpin_gate_check(g, t.encode(), len(t.encode())) for t in TOOLS]

        # With a gate, each failure leaves it refusing (5: not-listed).
        for failed in (
            lambda: lib.contractpin_gate_page(g, res.value, 3) == 101,
            lambda: lib.contractpin_gate_page(g, None, 0) == 100,
            lambda: lib.contractpin_gate_refused(g, 0xFFFFFFFF) == 101,
        ):
            assert lib.contractpin_gate_page(g, clean._handle.value, 0) == 0
            assert failed()
            assert now() == [5] * 5
        # Without one, nothing happens to any gate.
        assert lib.contractpin_gate_page(g, clean._handle.value, 0) == 0
        assert lib.contractpin_gate_page(None, res.value, 0) == 100
        assert lib.contractpin_gate_refused(None, 0) == 100
        assert lib.contractpin_gate_list_changed(None) == 100
        assert lib.contractpin_gate_new(None) == 100
        lib.contractpin_gate_free(None)
        assert now() == [int(v) for v in CLEAN]
        assert lib.contractpin_gate_check(None, b"translate", 9) == 7
        assert lib.contractpin_gate_check(g, None, 9) == 7
        assert lib.contractpin_gate_check(g, b"\xfftranslate", 10) == 7
        # NULL with length 0 is the empty name, which no listing held.
        assert lib.contractpin_gate_check(g, None, 0) == 5
    finally:
        lib.contractpin_gate_free(g)


def test_the_stable_numbers_names_and_messages():
    header = HEADER.read_text()
    pages = {m[0]: int(m[1]) for m in re.findall(r"#define CONTRACTPIN_PAGE_(\w+) (\d+)", header)}
    assert pages == {"FIRST": 0, "NEXT": 1, "UNMATCHED": 2}
    assert {k.name: k.value for k in PageKind} == pages
    refusals = {m[0]: int(m[1]) for m in re.findall(r"CONTRACTPIN_REFUSAL_(\w+) = (\d+),", header)}
    assert {r.name: r.value for r in Refusal} == refusals
    # The words of `contractpin proxy --log` (SECURITY.md), 0 to 7.
    kinds = [
        "callable",
        "no-listing",
        "list-changed",
        "drifted",
        "unpinned",
        "not-listed",
        "no-name",
        "invalid-argument",
    ]
    assert [r.value for r in Refusal] == list(range(8))
    assert [r.kind for r in Refusal] == kinds
    for r in Refusal:
        assert len(r.message) > 15 and r.message.isascii(), r
        assert bool(r) is (r is not Refusal.CALLABLE)
    assert "notifications/tools/list_changed" in Refusal.LIST_CHANGED.message
    assert Refusal.NOT_LISTED.message == "the tool was not in the latest checked tools/list"
    assert Refusal.NO_LISTING.message.startswith("no tools/list answer has been checked yet")
    for unknown in (8, 99, 0xFFFFFFFF):
        assert _lib.lib.contractpin_refusal_name(unknown) == b"unknown-refusal"
        assert _lib.lib.contractpin_refusal_message(unknown) == b"unknown refusal code"
    with pytest.raises(ValueError):
        Refusal(8)


def test_close():
    gate = Gate()
    gate.close()
    gate.close()
    for use in (
        lambda: gate.check("translate"),
        lambda: gate.callable("translate"),
        gate.list_changed,
        lambda: gate.refused(PageKind.FIRST),
    ):
        with pytest.raises(ValueError, match="closed"):
            use()
    with Gate() as g:
        assert g.check("translate") is NO_LISTING
    with pytest.raises(ValueError, match="closed"):
        g.check("translate")


def test_threads_share_a_gate(lock, gate):
    clean = lock.guard_page("example", PAGE)
    drifted = lock.guard_page("example", DRIFTED)
    gate.page(clean, PageKind.FIRST)
    failures = []
    done = threading.Event()

    # Each check sees one listing or the other (pages and checks do not overlap).
    allowed = {"translate": {CALLABLE}, "search_web": {CALLABLE, DRIFTED_}, "delete_record": {CALLABLE, NOT_LISTED}}

    def ask():
        while not done.is_set():
            for name, verdicts in allowed.items():
                seen = gate.check(name)
                if seen not in verdicts:
                    failures.append((name, seen))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for i in range(500):
        gate.page(drifted if i % 2 else clean, PageKind.FIRST)
    done.set()
    for t in threads:
        t.join()
    assert not failures


def test_tool_refused_error_gives_the_proxy_s_sentence(lock):
    """mcp_guard.ToolRefusedError (importable without mcp): the sentence of
    its refusal, and for a drifted tool the fields that changed."""
    event = {e.tool: e for e in lock.guard_page("example", DRIFTED).events}
    e = ToolRefusedError("search_web", event["search_web"], refusal=Refusal.DRIFTED)
    assert str(e) == (
        "contractpin: refusing to call tool 'search_web': "
        f"{Refusal.DRIFTED.message} (changed: description)"
    )
    assert (e.tool, e.event, e.refusal) == ("search_web", event["search_web"], Refusal.DRIFTED)
    e = ToolRefusedError("x", None, refusal=Refusal.LIST_CHANGED)
    assert str(e) == f"contractpin: refusing to call tool 'x': {Refusal.LIST_CHANGED.message}"
    e = ToolRefusedError("", None, refusal=Refusal.NO_NAME)
    assert str(e) == "contractpin: refusing to call tool '': the request has no tool name"
    # Without a refusal: the event's, or not listed.
    assert ToolRefusedError("export_data", event["export_data"]).refusal is Refusal.UNPINNED
    assert ToolRefusedError("read_file", event["read_file"]).refusal is Refusal.DRIFTED
    assert str(ToolRefusedError("read_file", event["read_file"])).endswith("(changed: annotations)")
    assert ToolRefusedError("x", None).refusal is Refusal.NOT_LISTED
    assert str(ToolRefusedError("x", None, "because")) == "contractpin: refusing to call tool 'x': because"
    assert isinstance(e, PermissionError)


def test_a_gate_or_lock_is_never_copied(lock, gate):
    """Two objects owning one library object would free it twice (an
    adversarial review crashed the interpreter with copy.copy)."""
    for owner in (gate, lock):
        for copier in (copy.copy, copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))):
            with pytest.raises(TypeError):
                copier(owner)
    feed(gate, lock, PAGE, PageKind.FIRST)
    assert verdicts(gate) == CLEAN
