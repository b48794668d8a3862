"""contractpin.Enforcer at the transport of the official MCP Python SDK.

The SDK's own ClientSession (mcp 1.x or 2.x) talks to a stdio server over a
small transport (``enforced_stdio`` below, the SDK's stdio_client reduced to
what a test needs) that hands every line to an Enforcer before anything
else reads it: each line the server writes through ``enforcer.server()``
(the raw bytes, before the SDK parses them), each message the session sends
through ``enforcer.client()``; what the Decision passes on is sent on, and
its ``reply`` goes back into the session's read stream as if the server
had answered. The session is not wrapped or patched: whatever it sends or
receives passes the enforcer.

scripts/test-bindings.sh runs it like test_mcp_guard (.venv-mcp1: mcp
1.30.0, .venv-mcp2: mcp 2.3.0; the package from bindings/python/src, the
library under test in CONTRACTPIN_LIB). Every prerequisite is required: a
missing one fails the run, it is never skipped.

The lock is written at test time by the contractpin CLI (CONTRACTPIN_CLI):
`contractpin init` of tests/mcp/fake_server.py in its `ok` scenario (server
"fake"; "fake-instr" with instructions). The expected verdicts follow from
the fake server's scenarios (tests/mcp/SCENARIOS.md): `drift-description`
changes send_email's description, `added-tool` adds export_contacts,
`cloak` poisons send_email for every client not named contractpin (the CLI
saw the baseline), `swap` poisons send_email and sends
notifications/tools/list_changed after the second tools/call. Its --record
log shows what it received: a refused call never reaches it.

    CONTRACTPIN_LIB=$PWD/target/lib/debug/libcontractpin.so PYTHONPATH=bindings/python/src \\
        .venv-mcp2/bin/python -m unittest discover -s bindings/python/tests_mcp -p 'test_mcp_enforcer.py' -v
"""

import asyncio
import contextlib
import importlib.metadata
import json
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Dict, List, Optional, Tuple

import contractpin

from mcp_support import announce, close_state
from mcp_support import DRIFTED_TEXT, FAKE_TOOLS, PINNED_TEXT, TIMEOUT, fake_servers, pin, received, require
from mcp_support import fake_args as _fake_args

try:
    import anyio
    import mcp
    import mcp.shared.exceptions
    from mcp import ClientSession
    from mcp.shared.message import SessionMessage
except ImportError as e:  # fail, never skip
    raise RuntimeError(f"test_mcp_enforcer needs the MCP Python SDK (mcp) in {sys.executable}") from e

MCP2 = not importlib.metadata.version("mcp").startswith("1.")
# The exception the session raises for a JSON-RPC error answer.
SDK_ERROR: type = getattr(mcp.shared.exceptions, "McpError", None) or getattr(mcp.shared.exceptions, "MCPError")

_state: Dict[str, Any] = {}


# ---------------------------------------------------------------- the transport


def _parse(data: bytes) -> List[Any]:
    """The SDK's messages (or the parse error, as the SDK's stdio_client
    passes it on) of bytes the enforcer passed on: one message, or each
    element of a batch."""
    doc = json.loads(data)
    elements = [json.dumps(e).encode() for e in doc] if isinstance(doc, list) else [data]
    out: List[Any] = []
    for element in elements:
        try:
            if MCP2:
                message = mcp.types.jsonrpc_message_adapter.validate_json(element, by_name=False)
            else:
                message = mcp.types.JSONRPCMessage.model_validate_json(element)
        except ValueError as e:
            out.append(e)
            continue
        out.append(SessionMessage(message))
    return out


def _dump(message: Any) -> bytes:
    """A session's message as its SDK's stdio_client writes it."""
    if MCP2:
        text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
    else:
        text = message.model_dump_json(by_alias=True, exclude_none=True)
    return text.encode("utf-8")


@contextlib.asynccontextmanager
async def enforced_stdio(
    enforcer: contractpin.Enforcer,
    argv: List[str],
    errlog: Any,
    on_event: Callable[[Dict[str, Any]], None],
) -> AsyncIterator[Tuple[Any, Any]]:
    """Starts ``argv`` as a stdio MCP server and yields (read, write)
    streams for a ClientSession, every message passing ``enforcer`` first.
    A failing enforcer call ends the transport (fail closed)."""
    process = await anyio.open_process(argv, stderr=errlog)
    to_session, session_reads = anyio.create_memory_object_stream(0)
    session_writes, from_session = anyio.create_memory_object_stream(0)

    def decided(decision: contractpin.Decision) -> contractpin.Decision:
        for event in decision.event_dicts():
            on_event(event)
        return decision

    async def deliver(stream: Any, data: bytes) -> None:
        for item in _parse(data):
            await stream.send(item)

    async def server_to_client() -> None:
        assert process.stdout is not None
        buffer = b""
        async with to_session:
            async for chunk in process.stdout:
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    passed = decided(enforcer.server(line)).forwarded(line)
                    if passed is not None:
                        await deliver(to_session, passed)

    async def client_to_server(replies: Any) -> None:
        assert process.stdin is not None
        async with replies, from_session:
            async for session_message in from_session:
                line = _dump(session_message.message)
                decision = decided(enforcer.client(line))
                passed = decision.forwarded(line)
                if passed is not None:
                    await process.stdin.send(passed + b"\n")
                if decision.reply is not None:  # the answer to the session, instead of the server's
                    await deliver(replies, decision.reply)

    async with anyio.create_task_group() as tg:
        tg.start_soon(server_to_client)
        tg.start_soon(client_to_server, to_session.clone())
        try:
            yield session_reads, session_writes
        finally:
            with anyio.CancelScope(shield=True):
                await session_writes.aclose()
                with contextlib.suppress(Exception):
                    await process.stdin.aclose()
                with anyio.move_on_after(5):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            tg.cancel_scope.cancel()


# ---------------------------------------------------------------- the tests


def setUpModule() -> None:
    require("test_mcp_enforcer", [])
    tmp = Path(tempfile.mkdtemp(prefix="contractpin-mcp-enforcer-"))
    lock_path = tmp / "contractpin.lock"
    pin(lock_path, fake_servers())
    _state.update(tmp=tmp, lock=contractpin.Lock(lock_path.read_bytes()))
    announce(contractpin.library_path)


def tearDownModule() -> None:
    close_state(_state)


def names(result: Any) -> List[str]:
    assert isinstance(result, mcp.types.ListToolsResult), type(result)
    return [t.name for t in result.tools]


def text(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"))


class EnforcerTransportTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.events: List[Dict[str, Any]] = []

    @contextlib.asynccontextmanager
    async def session(
        self, scenario: str, server: str = "fake", instructions: Optional[str] = None, **options: Any
    ) -> AsyncIterator[Any]:
        """An initialized ClientSession to the fake server in ``scenario``,
        through an Enforcer for ``server`` of the lock."""
        self.record = _state["tmp"] / f"{self.id()}.{scenario}.jsonl"
        argv = [sys.executable] + _fake_args(scenario, self.record, instructions)
        with open(_state["tmp"] / "server-stderr.log", "a") as errlog, contractpin.Enforcer(
            _state["lock"], server, **options
        ) as enforcer:
            async with enforced_stdio(enforcer, argv, errlog, self.events.append) as (read, write):
                async with ClientSession(read, write) as session:
                    self.initialized = await session.initialize()
                    yield session

    def calls(self) -> List[str]:
        return [p["name"] for m, p in received(self.record) if m == "tools/call"]

    def statuses(self) -> List[Tuple[str, Optional[str]]]:
        return [(e["status"], e.get("tool")) for e in self.events if e["status"] != "client"]

    async def refused(self, session: Any, tool: str, reason: str) -> None:
        """The session's call fails with the SDK's error for the enforcer's
        -32602 answer; the event says why."""
        before = len(self.events)
        with self.assertRaises(SDK_ERROR) as caught:
            await session.call_tool(tool, {})
        error = caught.exception.error
        self.assertEqual((error.code, error.message), (-32602, f"Unknown tool: {tool}"))
        self.assertIn("contractpin proxy:", json.dumps(error.data))  # the enforcer's answer, not the server's
        self.assertEqual(self.events[before:],
                         [{"reason": reason, "server": "fake", "status": "call-refused", "tool": tool}])

    async def test_a_drifted_tool_is_never_listed_nor_called(self) -> None:
        async def run() -> None:
            async with self.session("drift-description") as session:
                await self.refused(session, "get_weather", "no-listing")  # nothing before a listing
                self.events.clear()
                self.assertEqual(names(await session.list_tools()), ["get_weather", "search_docs"])
                self.assertEqual(self.statuses(), [("drifted", "send_email")])
                self.assertEqual(self.events[-1]["changed"], ["description"])
                await self.refused(session, "send_email", "drifted")
                reply = await session.call_tool("get_weather", {"city": "Paris"})
                self.assertIn("called get_weather", text(reply))
                reply = await session.call_tool("search_docs", {"query": "pins"})
                self.assertIn("hit for pins", text(reply))

        await asyncio.wait_for(run(), TIMEOUT)
        self.assertEqual(self.calls(), ["get_weather", "search_docs"])

    async def test_an_added_tool_is_never_listed_nor_called(self) -> None:
        async def run() -> None:
            async with self.session("added-tool") as session:
                self.assertEqual(names(await session.list_tools()), FAKE_TOOLS)
                self.assertEqual(self.statuses(), [("unpinned", "export_contacts")])
                await self.refused(session, "export_contacts", "unpinned")
                self.assertIn("called send_email", text(await session.call_tool("send_email", {"to": "a@b.c"})))

        await asyncio.wait_for(run(), TIMEOUT)
        self.assertEqual(self.calls(), ["send_email"])

    async def test_a_cloaking_server_is_caught_on_the_wire(self) -> None:
        """The CLI pinned the baseline; the SDK's client is shown a poisoned
        send_email, which the enforcer removes."""

        async def run() -> None:
            async with self.session("cloak") as session:
                self.assertEqual(names(await session.list_tools()), ["get_weather", "search_docs"])
                await self.refused(session, "send_email", "drifted")

        await asyncio.wait_for(run(), TIMEOUT)
        self.assertEqual(self.calls(), [])

    async def test_a_tool_swapped_mid_session_is_refused_until_listed_again(self) -> None:
        async def run() -> None:
            async with self.session("swap") as session:
                self.assertEqual(names(await session.list_tools()), FAKE_TOOLS)
                await session.call_tool("get_weather", {"city": "Paris"})
                await session.call_tool("search_docs", {"query": "q"})
                # notifications/tools/list_changed follows the second answer.
                # Until the enforcer has read it, a call may still pass.
                for _ in range(200):
                    try:
                        await session.call_tool("get_weather", {"city": "Oslo"})
                    except SDK_ERROR:
                        break
                    await asyncio.sleep(0.025)
                self.assertEqual(self.events[-1]["reason"], "list-changed")
                self.assertEqual(names(await session.list_tools()), ["get_weather", "search_docs"])
                await self.refused(session, "send_email", "drifted")
                await session.call_tool("get_weather", {"city": "Rome"})

        await asyncio.wait_for(run(), TIMEOUT)
        calls = self.calls()
        self.assertEqual(calls[:2] + calls[-1:], ["get_weather", "search_docs", "get_weather"])
        self.assertNotIn("send_email", calls)

    async def test_observe_mode_lists_and_calls_everything(self) -> None:
        async def run() -> None:
            async with self.session("drift-description", observe=True) as session:
                self.assertEqual(names(await session.list_tools()), FAKE_TOOLS)
                self.assertEqual(self.statuses(), [("drifted", "send_email")])
                self.assertIn("called send_email", text(await session.call_tool("send_email", {"to": "a@b.c"})))
                self.assertEqual(self.events[-1],
                                 {"reason": "drifted", "server": "fake", "status": "call-unverified",
                                  "tool": "send_email"})

        await asyncio.wait_for(run(), TIMEOUT)
        self.assertEqual(self.calls(), ["send_email"])

    async def test_drifted_instructions_never_reach_the_session(self) -> None:
        async def run() -> None:
            async with self.session("ok", "fake-instr", instructions=DRIFTED_TEXT):
                self.assertIsNone(self.initialized.instructions)
                self.assertEqual([e["status"] for e in self.events if e["status"] != "client"],
                                 ["instructions-drifted"])
            self.events.clear()
            async with self.session("ok", "fake-instr", instructions=PINNED_TEXT):
                self.assertEqual(self.initialized.instructions, PINNED_TEXT)
                self.assertEqual(self.statuses(), [])

        await asyncio.wait_for(run(), TIMEOUT)


if __name__ == "__main__":
    unittest.main()
