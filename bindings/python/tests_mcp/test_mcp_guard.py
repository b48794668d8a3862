"""contractpin.mcp_guard against the official MCP Python SDK and real servers.

Runs with the Python of an environment that has the SDK (``mcp`` 1.x or
2.x); scripts/test-bindings.sh runs it with .venv-mcp1 (mcp 1.30.0) and
.venv-mcp2 (mcp 2.3.0), the package from bindings/python/src and the library
under test in CONTRACTPIN_LIB. Plain unittest (those environments have no
pytest); pytest collects it too. Every prerequisite is required: a missing
one fails the run, it is never skipped.

The lock is written at test time by the contractpin CLI (CONTRACTPIN_CLI,
default target/debug/contractpin): `contractpin init` of the reference
server-everything over stdio, and of tests/mcp/fake_server.py in its `ok`
scenario. The client then connects with the SDK's stdio_client to
server-everything (everything passes, a call goes through) and to the fake
server's `drift-description` (send_email's description changed) and
`added-tool` (export_contacts added) scenarios: the drifted or unpinned tool
is removed from the SDK's ListToolsResult and a call to it is refused before
anything is sent (the fake server's --record log shows no tools/call); in
observe mode it is kept, reported and called.

    CONTRACTPIN_LIB=$PWD/target/lib/debug/libcontractpin.so PYTHONPATH=bindings/python/src \\
        .venv-mcp2/bin/python -m unittest discover -s bindings/python/tests_mcp -v
"""

import asyncio
import contextlib
import copy
import importlib.metadata
import json
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
import warnings
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List, Optional, Tuple

import contractpin
from contractpin.mcp_guard import GuardedSession, ToolRefusedError, guarded_initialize, guarded_list_tools

from mcp_support import announce, close_state
from mcp_support import DRIFTED_TEXT, FAKE_TOOLS, PINNED_TEXT, ROOT, TIMEOUT, fake_servers, pin, received, require
from mcp_support import fake_args as _fake_args

EVERYTHING = ROOT / "tests/mcp/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
# A tool with an annotation key the SDK's models may not know.
VENDOR_PAGE = {
    "tools": [
        {
            "name": "lookup",
            "description": "Look a word up.",
            "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
            "annotations": {"readOnlyHint": True, "vendorHint": {"tier": 2}},
        }
    ]
}

try:
    import mcp
    from mcp import ClientSession, StdioServerParameters, stdio_client
except ImportError as e:  # fail, never skip
    raise RuntimeError(f"test_mcp_guard needs the MCP Python SDK (mcp) in {sys.executable}") from e

_state: Dict[str, Any] = {}


def ref_instructions_digest(text: str) -> str:
    """The instructions digest by vectors/reference.py (not the library)."""
    sys.path.insert(0, str(ROOT / "vectors"))
    try:
        reference = importlib.import_module("reference")
    finally:
        sys.path.pop(0)
    digest: str = reference.digest(reference.es_string(text).encode("utf-8"))
    return digest


def setUpModule() -> None:
    node = shutil.which("node")
    require(
        "test_mcp_guard",
        [
            ("node on PATH", node is not None),
            (f"server-everything at {EVERYTHING} (.ci/install-servers.sh)", EVERYTHING.is_file()),
        ],
    )
    tmp = Path(tempfile.mkdtemp(prefix="contractpin-mcp-guard-"))
    lock_path = tmp / "contractpin.lock"
    (tmp / "vendor.json").write_text(json.dumps(VENDOR_PAGE))
    pin(
        lock_path,
        [("everything", ["--", str(node), str(EVERYTHING), "stdio"])]
        + fake_servers()
        + [("vendor", ["--file", str(tmp / "vendor.json")])],
    )
    _state.update(tmp=tmp, node=node, lock_path=lock_path, lock_bytes=lock_path.read_bytes())
    _state["lock"] = contractpin.Lock(_state["lock_bytes"])
    announce(contractpin.library_path)


def tearDownModule() -> None:
    close_state(_state)


def pinned(server: str) -> Dict[str, Any]:
    entry: Dict[str, Any] = json.loads(_state["lock_bytes"])["servers"][server]
    return entry


@contextlib.asynccontextmanager
async def connect(command: str, args: List[str], initialize: bool = True) -> AsyncIterator[Any]:
    errlog = open(_state["tmp"] / "server-stderr.log", "a")
    try:
        params = StdioServerParameters(command=command, args=args)
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                if initialize:
                    await session.initialize()
                yield session
    finally:
        errlog.close()


def names(result: Any) -> List[str]:
    assert isinstance(result, mcp.types.ListToolsResult), type(result)
    return [t.name for t in result.tools]


def next_cursor(result: Any) -> Optional[str]:
    """nextCursor (mcp 1.x) or next_cursor (mcp 2.x)."""
    cursor: Optional[str] = getattr(result, "next_cursor", getattr(result, "nextCursor", None))
    return cursor


class GuardTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.lock: contractpin.Lock = _state["lock"]
        self.events: List[contractpin.GuardEvent] = []

    def fake(self, scenario: str) -> Tuple[Path, Any]:
        record = _state["tmp"] / f"{self.id()}.{scenario}.jsonl"
        return record, connect(sys.executable, _fake_args(scenario, record))

    async def test_server_everything_passes_and_is_called(self) -> None:
        async def run() -> None:
            async with connect(_state["node"], [str(EVERYTHING), "stdio"]) as session:
                guarded = GuardedSession(session, self.lock, "everything", on_event=self.events.append)
                result = await guarded.list_tools()
                self.assertEqual(sorted(names(result)), sorted(pinned("everything")["tools"]))
                self.assertEqual(len(result.tools), pinned("everything")["tool_count"])
                self.assertEqual(self.events, [])
                decision = guarded.last_decision
                assert decision is not None
                self.assertEqual(decision.events, [])
                self.assertEqual(sorted(decision.passed), sorted(pinned("everything")["tools"]))
                self.assertTrue(guarded.callable("echo"))
                self.assertFalse(guarded.callable("no-such-tool"))
                reply = await guarded.call_tool("echo", {"message": "pinned hello"})
                self.assertIn("pinned hello", json.dumps(reply.model_dump(mode="json")))
                with self.assertRaises(ToolRefusedError) as refused:
                    await guarded.call_tool("no-such-tool", {})
                self.assertIsNone(refused.exception.event)
                # The function form gives the same listing.
                again = await guarded_list_tools(session, self.lock, "everything")
                self.assertEqual(names(again), names(result))
                # Against the fake server's pins every tool of server-everything
                # is unpinned: nothing is left, nothing is callable.
                other = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                self.assertEqual(names(await other.list_tools()), [])
                self.assertEqual({e.status for e in self.events}, {"unpinned"})
                self.assertEqual(len(self.events), len(result.tools))
                with self.assertRaises(ToolRefusedError):
                    await other.call_tool("echo", {"message": "x"})

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_a_drifted_description_is_removed_and_refused(self) -> None:
        record, session_cm = self.fake("drift-description")

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                result = await guarded.list_tools()
                self.assertEqual(names(result), ["get_weather", "search_docs"])
                self.assertEqual([(e.tool, e.status, e.changed) for e in self.events],
                                 [("send_email", "drifted", ["description"])])
                event = self.events[0]
                self.assertNotEqual(event.live_digest, pinned("fake")["tools"]["send_email"]["digest"])
                line = json.loads(event.json)
                self.assertEqual(line, {"changed": ["description"], "live": event.live_digest,
                                        "server": "fake", "status": "drifted", "tool": "send_email"})
                with self.assertRaises(ToolRefusedError) as refused:
                    await guarded.call_tool("send_email", {"to": "a@example.com"})
                self.assertEqual(refused.exception.event, event)
                self.assertIn("the tool's contract differs from the one pinned in contractpin.lock "
                              "(changed: description)", str(refused.exception))
                self.assertTrue(guarded.callable("get_weather"))
                # The function form, with the default handler (a warning).
                with self.assertLogs("contractpin", "WARNING") as logs:
                    again = await guarded_list_tools(session, self.lock, "fake")
                self.assertEqual(names(again), ["get_weather", "search_docs"])
                self.assertEqual(logs.records[0].getMessage(), event.json.decode())

        await asyncio.wait_for(run(), TIMEOUT)
        methods = [m for m, _ in received(record)]
        self.assertEqual(methods.count("tools/list"), 2, methods)
        self.assertNotIn("tools/call", methods)

    async def test_a_tool_swapped_mid_session_is_refused_until_listed_again(self) -> None:
        """Scenario swap: after the second call the server poisons send_email
        and sends notifications/tools/list_changed. Nothing is callable until
        the tools are listed again; then send_email is removed (an
        adversarial review found the guard ignored the notification)."""
        record, session_cm = self.fake("swap")

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                self.assertEqual(names(await guarded.list_tools()), FAKE_TOOLS)
                await guarded.call_tool("get_weather", {"city": "Paris"})
                await guarded.call_tool("search_docs", {"query": "q"})
                for _ in range(200):
                    if not guarded.callable("get_weather"):
                        break
                    await asyncio.sleep(0.025)
                with self.assertRaises(ToolRefusedError) as refused:
                    await guarded.call_tool("get_weather", {"city": "Oslo"})
                self.assertIn("notifications/tools/list_changed", str(refused.exception))
                self.assertEqual(names(await guarded.list_tools()), ["get_weather", "search_docs"])
                self.assertEqual([(e.tool, e.status) for e in self.events], [("send_email", "drifted")])
                with self.assertRaises(ToolRefusedError):
                    await guarded.call_tool("send_email", {"to": "a@example.com"})
                await guarded.call_tool("get_weather", {"city": "Rome"})

        await asyncio.wait_for(run(), TIMEOUT)
        calls = [p["name"] for m, p in received(record) if m == "tools/call"]
        self.assertEqual(calls, ["get_weather", "search_docs", "get_weather"])

    async def test_the_sessions_own_list_tools_is_guarded(self) -> None:
        """While guarded, the listings the SDK (or the application) makes with
        the session's own list_tools() are decided too."""
        record, session_cm = self.fake("drift-description")

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                self.assertEqual(names(await session.list_tools()), ["get_weather", "search_docs"])
                self.assertEqual([e.tool for e in self.events], ["send_email"])
                self.assertTrue(guarded.callable("get_weather"))
                self.assertFalse(guarded.callable("send_email"))

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_an_added_tool_is_removed_unless_observed(self) -> None:
        record, session_cm = self.fake("added-tool")

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                self.assertEqual(names(await guarded.list_tools()), FAKE_TOOLS)
                self.assertEqual([(e.tool, e.status, e.changed) for e in self.events],
                                 [("export_contacts", "unpinned", [])])
                with self.assertRaises(ToolRefusedError) as refused:
                    await guarded.call_tool("export_contacts")
                self.assertIn("the tool is not pinned in contractpin.lock", str(refused.exception))
                # An observe-mode guard cannot downgrade an enforcing one.
                with self.assertRaises(ValueError):
                    GuardedSession(session, self.lock, "fake", observe=True)
                with self.assertRaises(ToolRefusedError):
                    await session.call_tool("export_contacts")
                # The refused guard changed nothing: the session still lists
                # (reporting export_contacts again).
                self.assertEqual(names(await session.list_tools()), FAKE_TOOLS)

        await asyncio.wait_for(run(), TIMEOUT)
        self.assertEqual([m for m, _ in received(record) if m == "tools/call"], [])

        record, session_cm = self.fake("added-tool")

        async def observe() -> None:
            async with session_cm as session:
                observing = GuardedSession(session, self.lock, "fake", observe=True,
                                           on_event=self.events.append)
                result = await observing.list_tools()
                self.assertEqual(names(result), FAKE_TOOLS + ["export_contacts"])
                self.assertEqual(len(self.events), 3)
                self.assertTrue(observing.callable("export_contacts"))
                # Let through to the server (which answers every tools/call).
                with self.assertLogs("contractpin", "WARNING") as logs:
                    await observing.call_tool("export_contacts")
                self.assertEqual(len(logs.output), 1)
                self.assertIn('"reason":"unpinned"', logs.output[0])

        await asyncio.wait_for(observe(), TIMEOUT)
        calls = [p["name"] for m, p in received(record) if m == "tools/call"]
        self.assertEqual(calls, ["export_contacts"])

    async def test_pages_are_guarded_one_by_one(self) -> None:
        record, session_cm = self.fake("one-per-page")

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                seen: List[str] = []
                result = await guarded.list_tools()
                seen += names(result)
                self.assertFalse(guarded.callable("search_docs"))
                while next_cursor(result) is not None:
                    result = await guarded.list_tools(next_cursor(result))
                    seen += names(result)
                self.assertEqual(seen, FAKE_TOOLS)
                self.assertEqual(self.events, [])
                self.assertTrue(all(guarded.callable(n) for n in FAKE_TOOLS))
                # A new listing starts over.
                self.assertEqual(names(await guarded.list_tools()), ["get_weather"])
                self.assertFalse(guarded.callable("send_email"))

        await asyncio.wait_for(run(), TIMEOUT)
        cursors = [(p or {}).get("cursor") for m, p in received(record) if m == "tools/list"]
        self.assertEqual(cursors, [None, "cursor-1", "cursor-2", None])


def call_request(name: str, arguments: Dict[str, Any]) -> Any:
    """A tools/call request as the SDK builds one (mcp 1.x wraps it in a
    ClientRequest root model; 2.x sends the request model itself)."""
    request = mcp.types.CallToolRequest(params=mcp.types.CallToolRequestParams(name=name, arguments=arguments))
    return mcp.types.ClientRequest(request) if importlib.metadata.version("mcp").startswith("1.") else request


class SessionPathsTest(unittest.IsolatedAsyncioTestCase):
    """Every tools/call the wrapped session sends is decided, not only
    GuardedSession.call_tool: the session's own call_tool (what mcp 2.x's
    Client and ClientSessionGroup call), its send_request with a raw
    request, mcp 1.x's experimental.call_tool_as_task (an adversarial review
    found all of them reached the server for an unpinned tool)."""

    async def asyncSetUp(self) -> None:
        self.lock: contractpin.Lock = _state["lock"]
        self.events: List[contractpin.GuardEvent] = []

    def fake(self, scenario: str, initialize: bool = True) -> Tuple[Path, Any]:
        record = _state["tmp"] / f"{self.id()}.{scenario}.jsonl"
        return record, connect(sys.executable, _fake_args(scenario, record), initialize)

    async def test_every_tools_call_the_session_sends_is_guarded(self) -> None:
        record, session_cm = self.fake("added-tool", initialize=False)

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                # The guarded handshake leaves the session guarded.
                await guarded.initialize()
                with self.assertRaises(ToolRefusedError) as refused:
                    await session.call_tool("get_weather", {"city": "Paris"})
                self.assertIn("no tools/list answer has been checked yet", str(refused.exception))
                self.assertEqual(names(await session.list_tools()), FAKE_TOOLS)
                with self.assertRaises(ToolRefusedError) as refused:
                    await guarded.call_tool("export_contacts", {})
                expected = (str(refused.exception), refused.exception.event)
                self.assertIn("the tool is not pinned in contractpin.lock", expected[0])
                result_type = mcp.types.CallToolResult
                paths = {
                    "session.call_tool": lambda: session.call_tool("export_contacts", {}),
                    "session.send_request": lambda: session.send_request(
                        call_request("export_contacts", {}), result_type),
                    "session.send_request, bare request": lambda: session.send_request(
                        mcp.types.CallToolRequest(params=mcp.types.CallToolRequestParams(name="export_contacts")),
                        result_type),
                    "guarded.send_request": lambda: guarded.send_request(
                        call_request("export_contacts", {}), result_type),
                }
                experimental = getattr(session, "experimental", None)  # mcp 1.x
                if hasattr(experimental, "call_tool_as_task"):
                    paths["experimental.call_tool_as_task"] = lambda: guarded.experimental.call_tool_as_task(
                        "export_contacts", {})
                for label, path in paths.items():
                    with self.subTest(label), self.assertRaises(ToolRefusedError) as refused:
                        await path()
                    self.assertEqual((str(refused.exception), refused.exception.event), expected, label)
                # Pinned tools go through, by every path.
                await session.call_tool("get_weather", {"city": "Paris"})
                await session.send_request(call_request("search_docs", {"query": "q"}), result_type)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # mcp 1.x's experimental tasks API
            await asyncio.wait_for(run(), TIMEOUT)
        calls = [p["name"] for m, p in received(record) if m == "tools/call"]
        self.assertEqual(calls, ["get_weather", "search_docs"])

    async def test_a_session_group_s_calls_are_guarded(self) -> None:
        """ClientSessionGroup (mcp 1.x and 2.x) holds the session and calls its
        call_tool: after notifications/tools/list_changed (scenario swap) its
        calls are refused until the tools are listed again."""
        record, session_cm = self.fake("swap")

        async def run() -> None:
            async with session_cm as session:
                guarded = GuardedSession(session, self.lock, "fake", on_event=self.events.append)
                group = mcp.ClientSessionGroup()
                await group.connect_with_session(mcp.types.Implementation(name="fake", version="1"), session)
                self.assertEqual(sorted(group.tools), FAKE_TOOLS)
                await group.call_tool("get_weather", {"city": "Paris"})
                await group.call_tool("search_docs", {"query": "q"})
                for _ in range(200):
                    if not guarded.callable("get_weather"):
                        break
                    await asyncio.sleep(0.025)
                with self.assertRaises(ToolRefusedError) as refused:
                    await group.call_tool("get_weather", {"city": "Oslo"})
                self.assertIn("notifications/tools/list_changed", str(refused.exception))

        await asyncio.wait_for(run(), TIMEOUT)
        calls = [p["name"] for m, p in received(record) if m == "tools/call"]
        self.assertEqual(calls, ["get_weather", "search_docs"])

    async def test_mcp2_client_calls_are_guarded(self) -> None:
        """mcp 2.x's Client.call_tool calls its session's call_tool (mcp 1.x
        has no Client: the test checks that it has none)."""
        if not hasattr(mcp, "Client"):
            self.assertTrue(importlib.metadata.version("mcp").startswith("1."))
            return
        record = _state["tmp"] / f"{self.id()}.jsonl"
        params = StdioServerParameters(command=sys.executable, args=_fake_args("added-tool", record))

        async def run() -> None:
            async with mcp.Client(params, mode="legacy") as client:
                guarded = GuardedSession(client.session, self.lock, "fake", on_event=self.events.append)
                self.assertEqual(names(await client.list_tools()), FAKE_TOOLS)
                with self.assertRaises(ToolRefusedError) as refused:
                    await client.call_tool("export_contacts", {})
                self.assertIn("the tool is not pinned in contractpin.lock", str(refused.exception))
                self.assertFalse(guarded.callable("export_contacts"))
                await client.call_tool("get_weather", {"city": "Paris"})

        await asyncio.wait_for(run(), TIMEOUT)
        calls = [p["name"] for m, p in received(record) if m == "tools/call"]
        self.assertEqual(calls, ["get_weather"])


class InstructionsTest(unittest.IsolatedAsyncioTestCase):
    """GuardedSession.initialize / guarded_initialize: the handshake's
    instructions against the digest `contractpin init` pinned for fake-instr
    (expected digests from vectors/reference.py)."""

    async def asyncSetUp(self) -> None:
        self.lock: contractpin.Lock = _state["lock"]
        self.seen: List[contractpin.InstructionsResult] = []

    def fake(self, instructions: Optional[str], initialize: bool = False) -> Any:
        return connect(sys.executable, _fake_args("ok", instructions=instructions), initialize)

    def test_the_lock_pins_the_reference_digest(self) -> None:
        self.assertEqual(pinned("fake-instr")["instructions_digest"], ref_instructions_digest(PINNED_TEXT))

    async def test_pinned_instructions_reach_the_session(self) -> None:
        async def run() -> None:
            async with self.fake(PINNED_TEXT) as session:
                guarded = GuardedSession(session, self.lock, "fake-instr")
                result = await guarded.initialize(on_instructions=self.seen.append)
                self.assertEqual(result.instructions, PINNED_TEXT)
                decision = guarded.instructions_decision
                assert decision is not None
                self.assertEqual((decision.status, decision.live_digest, decision.removed),
                                 ("unchanged", ref_instructions_digest(PINNED_TEXT), False))
                self.assertEqual(self.seen, [])
                # The handshake went on as the SDK's: tools are listed.
                self.assertEqual(names(await guarded.list_tools()), FAKE_TOOLS)

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_drifted_instructions_are_removed_unless_observed(self) -> None:
        live = ref_instructions_digest(DRIFTED_TEXT)

        async def run() -> None:
            async with self.fake(DRIFTED_TEXT) as session:
                guarded = GuardedSession(session, self.lock, "fake-instr")
                result = await guarded.initialize(on_instructions=self.seen.append)
                self.assertIsNone(result.instructions)
                adopted = getattr(session, "initialize_result", None)  # mcp 2.x keeps it
                if adopted is not None:
                    self.assertIsNone(adopted.instructions)
                self.assertEqual([(d.status, d.live_digest, d.removed) for d in self.seen],
                                 [("drifted", live, True)])
                line = json.loads(self.seen[0].json or b"")
                self.assertEqual(line, {
                    "live": live,
                    "pinned": ref_instructions_digest(PINNED_TEXT),
                    "reason": "the server's instructions differ from the pinned ones; removed from the handshake result",
                    "server": "fake-instr",
                    "status": "instructions-drifted",
                })
            async with self.fake(DRIFTED_TEXT) as session:
                with self.assertLogs("contractpin", "WARNING") as logs:
                    result = await guarded_initialize(session, self.lock, "fake-instr", observe=True)
                self.assertEqual(result.instructions, DRIFTED_TEXT)
                self.assertEqual(json.loads(logs.records[0].getMessage())["reason"],
                                 "the server's instructions differ from the pinned ones; kept (observe mode)")

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_unpinned_instructions_are_removed(self) -> None:
        async def run() -> None:
            async with self.fake(DRIFTED_TEXT) as session:
                result = await guarded_initialize(session, self.lock, "fake", on_instructions=self.seen.append)
                self.assertIsNone(result.instructions)
                self.assertEqual([(d.status, d.live_digest) for d in self.seen],
                                 [("added", ref_instructions_digest(DRIFTED_TEXT))])
            async with self.fake(None) as session:
                result = await guarded_initialize(session, self.lock, "fake-instr", on_instructions=self.seen.append)
                self.assertIsNone(result.instructions)
                self.assertEqual(self.seen[-1].status, "removed")

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_a_guard_made_during_the_handshake_stays(self) -> None:
        """A GuardedSession made while guarded_initialize runs (here in its
        on_instructions callback) wraps the handshake's shim; the handshake
        must not take it off the session when it ends (an adversarial review
        found the session's tools/call unguarded afterwards)."""
        made: List[GuardedSession] = []

        async def run() -> None:
            async with self.fake(DRIFTED_TEXT) as session:
                def on_instructions(decision: contractpin.InstructionsResult) -> None:
                    made.append(GuardedSession(session, self.lock, "fake-instr"))

                await guarded_initialize(session, self.lock, "fake-instr", on_instructions=on_instructions)
                self.assertEqual(len(made), 1)
                with self.assertRaises(ToolRefusedError):
                    await session.call_tool("send_email", {})  # no listing on this guard yet
                await made[0].list_tools()
                await session.call_tool("send_email", {})  # listed and pinned: sent

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_an_initialised_session_cannot_be_guarded_after_the_fact(self) -> None:
        async def run() -> None:
            async with self.fake(DRIFTED_TEXT, initialize=True) as session:
                if not hasattr(session, "initialize_result"):
                    # mcp 1.x sends initialize again: that one is guarded.
                    result = await guarded_initialize(session, self.lock, "fake-instr",
                                                      on_instructions=self.seen.append)
                    self.assertIsNone(result.instructions)
                    return
                with self.assertRaises(RuntimeError):
                    await guarded_initialize(session, self.lock, "fake-instr")

        await asyncio.wait_for(run(), TIMEOUT)


class ExampleTest(unittest.TestCase):
    """bindings/python/examples/mcp_guard_client.py, the README's example."""

    def run_example(self, *args: str) -> "subprocess.CompletedProcess[str]":
        example = ROOT / "bindings/python/examples/mcp_guard_client.py"
        return subprocess.run(
            [sys.executable, str(example), str(_state["lock_path"]), *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    def test_the_example_client(self) -> None:
        fake = [sys.executable] + _fake_args("drift-description")
        run = self.run_example("fake", "--call", "send_email", "--call", "get_weather", "--", *fake)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertEqual(lines[:2], ["tool get_weather", "tool search_docs"])
        self.assertEqual(
            lines[2],
            "call send_email: refused: contractpin: refusing to call tool 'send_email': "
            "the tool's contract differs from the one pinned in contractpin.lock (changed: description)",
        )
        # Sent to the server (which answers every tools/call).
        self.assertTrue(lines[3].startswith("call get_weather: sent"), lines[3])
        logged = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
        self.assertEqual([(e["tool"], e["status"], e["changed"]) for e in logged],
                         [("send_email", "drifted", ["description"])])

        run = self.run_example("fake", "--observe", "--", *fake)
        self.assertEqual(run.stdout.splitlines(), ["tool " + n for n in FAKE_TOOLS])
        run = self.run_example("everything", "--call", "echo", "--", _state["node"], str(EVERYTHING), "stdio")
        self.assertIn("call echo: sent", run.stdout.splitlines(), run.stderr)


class StubSession:
    """Answers tools/list with VENDOR_PAGE the way ClientSession.send_request
    does (validating the raw result object into the requested type)."""

    def __init__(self) -> None:
        self.calls: List[str] = []

    async def send_request(self, request: Any, result_type: Any, *args: Any, **kwargs: Any) -> Any:
        assert request.method == "tools/list"
        return result_type.model_validate(json.loads(json.dumps(VENDOR_PAGE)))

    async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> str:
        self.calls.append(name)
        return "called"


class RawPageTest(unittest.IsolatedAsyncioTestCase):
    async def test_the_raw_result_is_decided_not_the_sdk_model(self) -> None:
        lock: contractpin.Lock = _state["lock"]
        stub = StubSession()
        guarded = GuardedSession(stub, lock, "vendor")
        self.assertEqual(names(await guarded.list_tools()), ["lookup"])
        self.assertEqual(guarded.last_decision and guarded.last_decision.events, [])
        self.assertEqual(await guarded.call_tool("lookup", {"word": "x"}), "called")
        self.assertEqual(stub.calls, ["lookup"])
        # What the SDK's model keeps of the same page: mcp 2.x drops the
        # unknown annotation key, so deciding on it would call the tool drifted.
        typed = mcp.types.ListToolsResult.model_validate(VENDOR_PAGE)
        dumped = typed.model_dump(by_alias=True, exclude_unset=True, mode="json")
        events = lock.guard_page("vendor", dumped).events
        if "vendorHint" in json.dumps(dumped):
            self.assertEqual(events, [])
        else:
            self.assertEqual([(e.tool, e.changed) for e in events], [("lookup", ["annotations"])])


class PagedStub:
    """Answers tools/list from a script: the raw result object for each
    request, by cursor (None for the first page)."""

    def __init__(self, pages: Dict[Optional[str], Dict[str, Any]]) -> None:
        self.pages = pages
        self.calls: List[str] = []
        self.options: List[Dict[str, Any]] = []

    async def send_request(self, request: Any, result_type: Any, *args: Any, **kwargs: Any) -> Any:
        self.options.append(kwargs)
        cursor = getattr(request.params, "cursor", None) if request.params is not None else None
        return result_type.model_validate(json.loads(json.dumps(self.pages[cursor])))

    async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> str:
        self.calls.append(name)
        return "called"


class SendingStub(PagedStub):
    """A PagedStub whose call_tool sends a tools/call request through its
    send_request, as the SDK's ClientSession does."""

    def __init__(self, pages: Dict[Optional[str], Dict[str, Any]]) -> None:
        super().__init__(pages)
        self.sent: List[str] = []

    async def send_request(self, request: Any, result_type: Any, *args: Any, **kwargs: Any) -> Any:
        inner = getattr(request, "root", request)
        if getattr(inner, "method", None) == "tools/call":
            self.sent.append(inner.params.name)
            return "called"
        return await PagedStub.send_request(self, request, result_type, *args, **kwargs)

    async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> str:
        result: str = await self.send_request(call_request(name, arguments or {}), None)
        return result


class NotifyingStub(PagedStub):
    """A PagedStub that records the notifications it sends."""

    def __init__(self, pages: Dict[Optional[str], Dict[str, Any]]) -> None:
        super().__init__(pages)
        self.notified: List[str] = []

    async def send_notification(self, notification: Any, *args: Any, **kwargs: Any) -> None:
        self.notified.append(notification["method"])


class AbsorbingStub(PagedStub):
    """A PagedStub whose list_tools does what mcp 2.x's does: send the
    request through send_request, then absorb the result."""

    def __init__(self, pages: Dict[Optional[str], Dict[str, Any]]) -> None:
        super().__init__(pages)
        self.absorbed = 0

    def _absorb_tool_listing(self, result: Any, *, complete: bool) -> Any:
        self.absorbed += 1
        return result

    async def list_tools(self, cursor: Optional[str] = None) -> Any:
        params = mcp.types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        result = await self.send_request(mcp.types.ListToolsRequest(params=params), mcp.types.ListToolsResult)
        return self._absorb_tool_listing(result, complete=False)


class PolicyTest(unittest.IsolatedAsyncioTestCase):
    """The call policy of contractpin proxy (src/guard/gate.rs), kept by
    GuardedSession (findings of an adversarial review, 2026-12-07)."""

    async def test_a_refused_listing_s_cursor_pages_add_nothing(self) -> None:
        lock: contractpin.Lock = _state["lock"]
        lookup = VENDOR_PAGE["tools"][0]
        stub = PagedStub({None: {"tools": [lookup, lookup], "nextCursor": "c2"}, "c2": {"tools": [lookup]}})
        guarded = GuardedSession(stub, lock, "vendor")
        with self.assertRaises(contractpin.ContractpinError):
            await guarded.list_tools()
        self.assertEqual(names(await guarded.list_tools("c2")), ["lookup"])
        self.assertFalse(guarded.callable("lookup"))
        # Nor before any listing.
        guarded = GuardedSession(stub, lock, "vendor")
        await guarded.list_tools("c2")
        with self.assertRaises(ToolRefusedError) as refused:
            await guarded.call_tool("lookup", {})
        self.assertIn("no tools/list answer has been checked yet", str(refused.exception))
        self.assertEqual(stub.calls, [])

    async def test_observe_sends_a_refused_call_and_logs_it_once(self) -> None:
        """Observe mode is the proxy's: the call the gate refuses is sent,
        with one call-unverified line naming the refusal's word."""
        lock: contractpin.Lock = _state["lock"]
        stub = PagedStub({None: {"tools": []}})
        guarded = GuardedSession(stub, lock, "vendor", observe=True)
        with self.assertLogs("contractpin", "WARNING") as logs:
            self.assertEqual(await guarded.call_tool("lookup", {}), "called")
        self.assertEqual(stub.calls, ["lookup"])
        self.assertEqual(
            logs.output,
            ['WARNING:contractpin:{"reason":"no-listing","server":"vendor","status":"call-unverified","tool":"lookup"}'],
        )
        # A session whose call_tool sends through its (guarded) send_request,
        # as the SDK's does: still one line for the one call.
        sending = SendingStub({None: {"tools": []}})
        guarded = GuardedSession(sending, lock, "vendor", observe=True)
        with self.assertLogs("contractpin", "WARNING") as logs:
            await guarded.call_tool("lookup", {})
        self.assertEqual(sending.sent, ["lookup"])
        self.assertEqual(
            logs.output,
            ['WARNING:contractpin:{"reason":"no-listing","server":"vendor","status":"call-unverified","tool":"lookup"}'],
        )
        # Enforce mode refuses the same call, and sends nothing.
        enforcing = GuardedSession(PagedStub({None: {"tools": []}}), lock, "vendor")
        with self.assertRaises(ToolRefusedError) as refused:
            await enforcing.call_tool("lookup", {})
        self.assertIs(refused.exception.refusal, contractpin.Refusal.NO_LISTING)

    async def test_every_listing_the_session_sends_is_decided(self) -> None:
        """A raw tools/list sent through the session (not list_tools) is
        decided and given to the gate like any listing; params given as a
        dict with a cursor make a cursor page, as the proxy reads the
        request as sent (an adversarial review found both unguarded)."""
        lock: contractpin.Lock = _state["lock"]
        lookup = VENDOR_PAGE["tools"][0]
        extra = {"name": "export", "inputSchema": {"type": "object"}}
        stub = PagedStub({None: {"tools": [lookup, extra], "nextCursor": "c2"}, "c2": {"tools": [lookup]}})
        stub._message_handler = lambda message: asyncio.sleep(0)
        guarded = GuardedSession(stub, lock, "vendor")
        raw = await stub.send_request(mcp.types.ListToolsRequest(), mcp.types.ListToolsResult,
                                      request_read_timeout_seconds=5)
        self.assertEqual(names(raw), ["lookup"])
        # The request's own options reach the session (a review found them dropped).
        self.assertEqual(stub.options[-1], {"request_read_timeout_seconds": 5})
        # A TypeAdapter result type, as mcp 2.x's send_request takes.
        adapter = importlib.import_module("pydantic").TypeAdapter(mcp.types.ListToolsResult)
        self.assertEqual(names(await stub.send_request(mcp.types.ListToolsRequest(), adapter)), ["lookup"])
        self.assertIs(guarded._gate.check("export"), contractpin.Refusal.UNPINNED)
        self.assertTrue(guarded.callable("lookup"))
        # After a change, a cursor page given as a dict adds nothing.
        await stub._message_handler(types.SimpleNamespace(method="notifications/tools/list_changed"))
        self.assertEqual(names(await guarded.list_tools(params={"cursor": "c2"})), ["lookup"])
        with self.assertRaises(ToolRefusedError) as refused:
            await guarded.call_tool("lookup", {})
        self.assertIs(refused.exception.refusal, contractpin.Refusal.LIST_CHANGED)
        self.assertEqual(stub.calls, [])

    async def test_the_sdks_own_list_tools_decides_each_page_once(self) -> None:
        """The SDK's list_tools called past the guard's attribute (unbound,
        or bound before the guard) sends through the guarded send_request,
        then absorbs the result; that result is not decided again as a
        served first page (a review found a cursor page after a list change
        made callable that way on mcp 2.x)."""
        lock: contractpin.Lock = _state["lock"]
        cursor = "c2"
        lookup = VENDOR_PAGE["tools"][0]
        stub = AbsorbingStub({None: {"tools": [], "nextCursor": cursor}, cursor: {"tools": [lookup]}})
        stub._message_handler = lambda message: asyncio.sleep(0)
        guarded = GuardedSession(stub, lock, "vendor")
        await guarded.list_tools()
        await stub._message_handler(types.SimpleNamespace(method="notifications/tools/list_changed"))
        await AbsorbingStub.list_tools(stub, cursor)  # the SDK's own, unbound
        self.assertIs(guarded._gate.check("lookup"), contractpin.Refusal.LIST_CHANGED)

    async def test_a_served_copy_of_a_decided_listing_keeps_its_decision(self) -> None:
        """A response cache serves back the listing the guard returned, as
        the SDK's models hold it (mcp 2.x's drop members they do not know,
        such as vendorHint here; 1.x's keep them): judged by the decision on
        the server's own page, not read as drifted (a review found pinned
        tools refused that way on mcp 2.x)."""
        lock: contractpin.Lock = _state["lock"]
        stub = AbsorbingStub({None: {"tools": [VENDOR_PAGE["tools"][0]]}})
        guarded = GuardedSession(stub, lock, "vendor")
        result = await guarded.list_tools()
        served = mcp.types.ListToolsResult.model_validate(
            result.model_dump(by_alias=True, mode="json", exclude_none=True)
        )
        stub._absorb_tool_listing(served, complete=True)  # as the Client does with a hit
        self.assertEqual(names(served), ["lookup"])
        self.assertTrue(guarded.callable("lookup"))

    async def test_a_tools_call_notification_is_a_call(self) -> None:
        lock: contractpin.Lock = _state["lock"]
        stub = NotifyingStub({None: {"tools": []}})
        GuardedSession(stub, lock, "vendor")
        with self.assertRaises(ToolRefusedError):
            await stub.send_notification({"method": "tools/call", "params": {"name": "lookup"}})
        await stub.send_notification({"method": "notifications/cancelled", "params": {"requestId": 1}})
        self.assertEqual(stub.notified, ["notifications/cancelled"])

    async def test_a_guarded_session_copies_without_recursion(self) -> None:
        lock: contractpin.Lock = _state["lock"]
        guarded = GuardedSession(PagedStub({None: {"tools": []}}), lock, "vendor")
        self.assertIs(copy.copy(guarded).session, guarded.session)
        with self.assertRaises(TypeError):
            copy.copy(lock)

    @unittest.skipUnless(hasattr(mcp, "Client"), "mcp 2.x: Client and its response cache")
    async def test_a_listing_served_from_a_shared_cache_is_decided(self) -> None:
        """mcp 2.x's Client serves a cached listing without a request,
        possibly one another (unguarded) client stored: the guard decides
        it where the session absorbs it (an adversarial review found the
        poisoned description served and its tool callable)."""
        lock: contractpin.Lock = _state["lock"]
        cache = importlib.import_module("mcp.client")
        store = cache.InMemoryResponseCacheStore()

        def config() -> Any:
            return cache.CacheConfig(store=store, partition="team", target_id="fake", default_ttl_ms=600000)

        def params(scenario: str) -> Any:
            return StdioServerParameters(command=sys.executable, args=_fake_args(scenario))

        async def run() -> None:
            async with mcp.Client(params("ok"), mode="legacy", cache=config()) as client:
                guarded = GuardedSession(client.session, lock, "fake")
                self.assertEqual(names(await client.list_tools()), FAKE_TOOLS)
                self.assertTrue(guarded.callable("send_email"))
                # Another client of the same target stores a drifted listing.
                async with mcp.Client(params("drift-description"), mode="legacy", cache=config()) as other:
                    drifted = await other.list_tools(cache_mode="refresh")
                    self.assertIn("send_email", names(drifted))
                served = await client.list_tools()  # a cache hit: no request
                self.assertEqual(names(served), ["get_weather", "search_docs"])
                self.assertIs(guarded._gate.check("send_email"), contractpin.Refusal.DRIFTED)

        await asyncio.wait_for(run(), TIMEOUT)

    async def test_results_are_read_by_alias_as_the_sdk_reads_them(self) -> None:
        """mcp 2.x's models also accept `output_schema`; the SDK's own
        send_request does not, and neither does the guard (the pin has no
        outputSchema, the SDK would validate call results against this one)."""
        lock: contractpin.Lock = _state["lock"]
        lookup = dict(VENDOR_PAGE["tools"][0])
        lookup["output_schema"] = {"type": "object", "description": "INJECTED", "required": ["ok"]}
        guarded = GuardedSession(PagedStub({None: {"tools": [lookup]}}), lock, "vendor")
        result = await guarded.list_tools()
        tool = result.tools[0]
        # The SDK's typed field (2.x: output_schema; 1.x: outputSchema, where
        # `output_schema` stays an extra member, as the SDK keeps it too).
        field = "output_schema" if "output_schema" in type(tool).model_fields else "outputSchema"
        self.assertIsNone(getattr(tool, field))
        self.assertTrue(guarded.callable("lookup"))


class PageTest(unittest.TestCase):
    """Lock.guard_page on dicts, as the SDK hands result objects over."""

    def test_dict_pages(self) -> None:
        lock: contractpin.Lock = _state["lock"]
        page = {"tools": [{"name": "zzz", "inputSchema": {"type": "object"}}], "nextCursor": None}
        decision = lock.guard_page("fake", page)
        self.assertEqual(decision.to_dict(), {"tools": [], "nextCursor": None})
        self.assertEqual(decision.events[0].status, "unpinned")
        with self.assertRaises(contractpin.LockUnknownServerError):
            lock.guard_page("nope", page)
        with self.assertRaises(ValueError):
            lock.guard_page("fake", {"tools": [], "x": float("nan")})


if __name__ == "__main__":
    unittest.main()
