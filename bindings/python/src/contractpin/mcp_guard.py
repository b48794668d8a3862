"""Run-time enforcement for clients of the official MCP Python SDK (``mcp``
1.x and 2.x): the decision of ``contractpin proxy``, inside the client.

``mcp`` is imported only when these functions run, so ``contractpin`` has no
dependency on it. ::

    import contractpin
    from contractpin.mcp_guard import GuardedSession

    lock = contractpin.Lock.from_path("contractpin.lock")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        guarded = GuardedSession(session, lock, "everything")
        init = await guarded.initialize()  # drifted or unpinned instructions removed
        tools = (await guarded.list_tools()).tools  # drifted and unpinned tools removed
        await guarded.call_tool("echo", {"message": "hi"})  # ToolRefusedError if not passed

Each ``tools/list`` page is decided as the server sent it: the raw result
object (every member, before the SDK's models drop the ones they do not
know) goes through :meth:`contractpin.Lock.guard_page`, and the filtered
result is then validated into the SDK's ``ListToolsResult``. Deciding on a
re-serialised ``ListToolsResult`` instead would see a different contract
wherever a model drops or rewrites members (unknown annotation keys, for
one) and call pinned tools drifted. One difference with the proxy remains,
in the SDK: it parses the JSON-RPC message before this module sees it, so a
response with a duplicate key is read as the SDK reads it (the proxy
rejects it).

The handshake is guarded the same way: :meth:`GuardedSession.initialize`
(or :func:`guarded_initialize`) runs the SDK's own ``initialize()`` (and, in
mcp 2.x, ``discover()``) with the result object taken as the server sent it,
decided by :meth:`contractpin.Lock.guard_instructions` (the server's
``instructions`` against the lock's ``instructions_digest``), and only then
validated into the SDK's ``InitializeResult`` (``DiscoverResult``), which
the SDK adopts: drifted or unpinned instructions never reach the session.
A session that was already initialised cannot be guarded after the fact
(``RuntimeError``).

Results are validated into the SDK's models as the SDK's own
``send_request`` validates them: by alias only (``by_name=False``), so a
``output_schema`` or ``next_cursor`` member that mcp 2.x's models would
also accept, and the SDK itself ignores, is not read in place of
``outputSchema`` or ``nextCursor``.

:class:`GuardedSession` keeps the call policy of ``contractpin proxy``
for the session it wraps: a :class:`contractpin.Gate`, the library's
``contractpin_gate`` (``src/guard/gate.rs``, the one home of the policy),
which it feeds each page's decision, each refused page and each
``notifications/tools/list_changed``, and asks before each ``tools/call``:
no tool is callable before a listing is checked; after
``notifications/tools/list_changed`` none is until the tools are listed
again; a refused page leaves none until a new listing; a cursor page adds
its tools only to a listing that is current. A refusal's sentence is the
proxy's (:attr:`contractpin.Refusal.message`). It watches the session's
notifications (the SDK's ``message_handler`` still gets every one), and
while it guards a session,
the session's own ``list_tools()`` is the guarded one, so the listings the
SDK makes by itself (mcp 2.x re-lists when a called tool's output schema is
unknown) are decided too, and the session's ``send_request`` refuses every
``tools/call`` for a tool that is not callable (:class:`ToolRefusedError`,
nothing sent), whoever sends it: the session's own ``call_tool()`` (which
mcp 2.x's ``Client`` and ``ClientSessionGroup`` call), mcp 1.x's
``experimental.call_tool_as_task()``, a raw request. A session has one
guard: a later :class:`GuardedSession` for it replaces the earlier one's
policy there. SDK internals below ``send_request`` (mcp 2.x's dispatcher)
are not guarded.
"""

import contextvars
import importlib
import json
import logging
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import Gate, GuardEvent, GuardResult, InstructionsResult, Lock, PageKind, Refusal

__all__ = ["GuardedSession", "ToolRefusedError", "guarded_initialize", "guarded_list_tools"]

logger = logging.getLogger("contractpin")

EventHandler = Callable[[GuardEvent], None]
InstructionsHandler = Callable[[InstructionsResult], None]


class ToolRefusedError(PermissionError):
    """A ``tools/call`` the guard refused: the tool did not pass its pin on
    the last listing (drifted, unpinned), was never listed, or the server
    announced that its tools changed since. Nothing was sent to the
    server.

    The message is ``contractpin: refusing to call tool 'NAME': `` and the
    sentence ``contractpin proxy`` gives its client for the
    :attr:`refusal` (:attr:`contractpin.Refusal.message`), followed for a
    drifted tool by the fields that changed; ``why`` replaces that
    sentence."""

    def __init__(
        self,
        tool: str,
        event: Optional[GuardEvent],
        why: Optional[str] = None,
        *,
        refusal: Optional[Refusal] = None,
    ) -> None:
        if refusal is None:
            status = event.status if event is not None else ""
            refusal = _REFUSAL_OF_STATUS.get(status, Refusal.NOT_LISTED)
        if why is None:
            why = refusal.message
            if refusal is Refusal.DRIFTED and event is not None:
                why += f" (changed: {', '.join(event.changed) or 'the tool digest'})"
        super().__init__(f"contractpin: refusing to call tool {tool!r}: {why}")
        #: The tool's name.
        self.tool = tool
        #: The guard event behind a drifted or unpinned refusal (the fields
        #: that changed, the live digest, the log line); None otherwise.
        self.event = event
        #: Why: the gate's verdict (:class:`contractpin.Refusal`; its
        #: ``kind`` is the word of ``contractpin proxy --log``).
        self.refusal = refusal


# The refusal a guard event's status gives (a gate refuses a reported tool
# for the reason its latest listing reported).
_REFUSAL_OF_STATUS = {"drifted": Refusal.DRIFTED, "unpinned": Refusal.UNPINNED}


# The refused call :meth:`GuardedSession.call_tool` has logged (observe
# mode) for the session call it is awaiting: ``[name]`` until the guarded
# ``send_request`` sees that call and empties it, so it is logged once (a
# task started meanwhile inherits the same list, and its own call of that
# name, once the list is empty, is logged again).
_LOGGED_CALL: "contextvars.ContextVar[Optional[List[str]]]" = contextvars.ContextVar(
    "contractpin_logged_call", default=None
)


def _log_unverified_call(server: str, tool: Optional[str], refusal: Refusal) -> None:
    """The line ``contractpin proxy --mode observe`` logs for a call it
    forwards although the gate refuses it (without its ``at`` time)."""
    # A call that names no tool is logged with the empty name, as the proxy does.
    fields = {"reason": refusal.kind, "server": server, "status": "call-unverified", "tool": tool or ""}
    logger.warning("%s", json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def _log_event(event: GuardEvent) -> None:
    logger.warning("%s", event.json.decode("utf-8"))


def _log_instructions(decision: InstructionsResult) -> None:
    if decision.json is not None:
        logger.warning("%s", decision.json.decode("utf-8"))


_raw_type: Any = None


def _raw_result_type() -> Any:
    """A pydantic model that keeps a result object as the parsed JSON dict
    (both SDK generations accept a model class as ``result_type``)."""
    global _raw_type
    if _raw_type is None:
        pydantic = importlib.import_module("pydantic")
        _raw_type = pydantic.RootModel[Dict[str, Any]]
    return _raw_type


def _sent(message: Any) -> Tuple[Optional[str], Any]:
    """The ``method`` and ``params`` of a request or notification as the SDK
    sends it: read from ``model_dump(by_alias=True, mode="json",
    exclude_none=True)``, as both generations dump it (mcp 1.x wraps the
    request in a ``ClientRequest`` root model, whose dump is the
    request's), so a message of any model class is seen as the server will
    see it."""
    dump = getattr(message, "model_dump", None)
    data = dump(by_alias=True, mode="json", exclude_none=True) if callable(dump) else message
    if not isinstance(data, dict):
        return None, None
    method = data.get("method")
    return (method if isinstance(method, str) else None), data.get("params")


def _call_name(params: Any) -> Optional[str]:
    """The tool a ``tools/call``'s ``params`` name (None if they name none)."""
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def _has_cursor(params: Any) -> bool:
    """Whether a tools/list request's ``params``, as sent, go on with a
    listing (a cursor page): ``cursor`` is present and not null."""
    return isinstance(params, dict) and params.get("cursor") is not None


def _validate(model: Any, doc: Dict[str, Any]) -> Any:
    """``model`` from a result object the way the SDK's ``send_request``
    validates one: by alias only (mcp 2.x's models accept field names too,
    which the SDK refuses with ``by_name=False``); pydantic before 2.11 has
    no such option and reads aliases only."""
    # A pydantic TypeAdapter (which mcp 2.x's send_request also takes)
    # validates with validate_python.
    validate = getattr(model, "model_validate", None) or model.validate_python
    try:
        return validate(doc, by_name=False)
    except TypeError:
        return validate(doc)


# First pages whose decisions GuardedSession keeps for served listings.
_SERVED_KEPT = 8


def _served_form(result: Any) -> Dict[str, Any]:
    """A ListToolsResult as a response cache serves it back: its dump, by
    alias."""
    doc: Dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return doc


def _served_key(doc: Dict[str, Any]) -> str:
    """The key of a served form: its JSON, keys sorted."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def _is_tools_list_changed(message: Any) -> bool:
    """Whether a message the SDK hands its ``message_handler`` is
    ``notifications/tools/list_changed`` (mcp 1.x wraps notifications in a
    ``ServerNotification`` root model; 2.x hands the notification itself)."""
    inner = getattr(message, "root", message)
    return getattr(inner, "method", None) == "notifications/tools/list_changed"


# The attribute of a GuardedSession's send_request (and send_notification)
# wrapper that holds the function it wraps (a later GuardedSession for the
# same session wraps that one, not the earlier guard), and the one that holds
# the GuardedSession.
_UNGUARDED = "__contractpin_unguarded__"
_GUARD = "__contractpin_guard__"


def _list_request(cursor: Optional[str], params: Any) -> Any:
    """The SDK's tools/list request for ``cursor`` or ``params`` (as its
    ``list_tools()`` takes them)."""
    types = importlib.import_module("mcp.types")
    if params is None and cursor is not None:
        params = types.PaginatedRequestParams(cursor=cursor)
    return types.ListToolsRequest(params=params)


async def _fetch_page(send: Callable[..., Any], request: Any) -> Dict[str, Any]:
    """The result object of one tools/list ``request``, as the server sent
    it, through ``send`` (a session's ``send_request``)."""
    raw = await send(request, _raw_result_type())
    page: Dict[str, Any] = raw.root
    return page


def _absorb(session: Any, result: Any, complete: bool) -> Any:
    """Hands the guarded listing to the SDK's own per-tool state, as its
    ``list_tools()`` would (the output schemas ``call_tool()`` validates
    structured results against; in 2.x also the x-mcp-header maps). SDK
    internals: used only where present."""
    absorb = getattr(session, "_absorb_tool_listing", None)  # mcp 2.x
    if callable(absorb):
        # The SDK's own, not a GuardedSession's wrapper of it (which is for
        # the listings the session did not fetch).
        absorb = getattr(absorb, _UNGUARDED, absorb)
        return absorb(result, complete=complete)
    schemas = getattr(session, "_tool_output_schemas", None)  # mcp 1.x
    if isinstance(schemas, dict):
        for tool in result.tools:
            schemas[tool.name] = tool.outputSchema
    return result


async def _guarded_page(
    session: Any,
    send: Callable[..., Any],
    lock: Lock,
    server: str,
    request: Any,
    paged: bool,
    observe: bool,
    on_event: Optional[EventHandler],
) -> Tuple[Any, GuardResult]:
    """One tools/list ``request`` (``paged``: with a cursor) sent through
    ``send``, its page decided: the SDK's ``ListToolsResult`` of what
    passed, and the decision."""
    page = await _fetch_page(send, request)
    decision = lock.guard_page(server, page, observe=observe)
    for event in decision.events:
        (on_event or _log_event)(event)
    doc = json.loads(decision.result)
    types = importlib.import_module("mcp.types")
    result = _validate(types.ListToolsResult, doc)
    complete = not paged and doc.get("nextCursor") is None
    return _absorb(session, result, complete), decision


async def guarded_list_tools(
    session: Any,
    lock: Lock,
    server: str,
    *,
    cursor: Optional[str] = None,
    observe: bool = False,
    on_event: Optional[EventHandler] = None,
) -> Any:
    """``session.list_tools()`` for one page, decided against the pins of
    ``server`` in ``lock``: returns the SDK's ``mcp.types.ListToolsResult``
    without the drifted and unpinned tools (with them when ``observe``).

    Each such tool is passed to ``on_event`` (default: a warning on the
    ``contractpin`` logger with the proxy's JSON log line). Raises what
    :meth:`contractpin.Lock.guard_page` raises for a page it rejects, and the
    SDK's errors for a failed request. Refusing calls to removed tools is
    the caller's job here; :class:`GuardedSession` does both.
    """
    request = _list_request(cursor, None)
    send = session.send_request
    result, _ = await _guarded_page(session, send, lock, server, request, cursor is not None, observe, on_event)
    return result


async def _guarded_handshake(
    session: Any,
    lock: Lock,
    server: str,
    observe: bool,
    on_instructions: Optional[InstructionsHandler],
    run: Callable[[], Any],
) -> Tuple[Any, InstructionsResult]:
    """Runs the SDK's handshake ``run()`` with its result guarded on the way
    in: ``send_request`` for ``InitializeResult`` and ``send_discover`` (mcp
    2.x) are shadowed on the session for the duration."""
    types = importlib.import_module("mcp.types")
    decisions = []

    def guard(raw: Dict[str, Any]) -> Dict[str, Any]:
        decision = lock.guard_instructions(server, raw, observe=observe)
        decisions.append(decision)
        if decision.json is not None:
            (on_instructions or _log_instructions)(decision)
        doc: Dict[str, Any] = json.loads(decision.result)
        return doc

    send_request = session.send_request
    send_discover = getattr(session, "send_discover", None)
    # What the session itself holds (a GuardedSession's send_request, say),
    # put back afterwards; deleting it would unguard the session.
    own = getattr(session, "__dict__", {})
    saved = {attr: own[attr] for attr in ("send_request", "send_discover") if attr in own}

    async def guarded_request(request: Any, result_type: Any, *args: Any, **kwargs: Any) -> Any:
        if result_type is not types.InitializeResult:
            return await send_request(request, result_type, *args, **kwargs)
        raw = await send_request(request, _raw_result_type(), *args, **kwargs)
        return _validate(types.InitializeResult, guard(raw.root))

    async def guarded_discover(*args: Any, **kwargs: Any) -> Any:
        assert send_discover is not None
        return guard(await send_discover(*args, **kwargs))

    # A GuardedSession made during the handshake wraps the shim (so the
    # handshake's result is still guarded) and sees the guard under it.
    setattr(guarded_request, _GUARD, getattr(send_request, _GUARD, None))
    session.send_request = guarded_request
    if send_discover is not None:
        session.send_discover = guarded_discover
    try:
        result = await run()
    finally:
        shims = {"send_request": guarded_request, "send_discover": guarded_discover}
        for attr, shim in shims.items():
            held = getattr(session, "__dict__", {}).get(attr)
            if held is not shim:
                # Replaced meanwhile (a GuardedSession made during the
                # handshake wraps the shim): left as it is, still guarded.
                continue
            if attr in saved:
                setattr(session, attr, saved[attr])
            else:
                delattr(session, attr)
    if not decisions:
        raise RuntimeError(
            "contractpin: the session was initialised before it was guarded; its instructions "
            "were not checked (call guarded_initialize() instead of session.initialize())"
        )
    return result, decisions[-1]


async def guarded_initialize(
    session: Any,
    lock: Lock,
    server: str,
    *,
    observe: bool = False,
    on_instructions: Optional[InstructionsHandler] = None,
) -> Any:
    """``session.initialize()`` with the server's ``instructions`` decided
    against the lock's ``instructions_digest`` for ``server``: returns (and
    the SDK adopts) the ``InitializeResult`` without drifted or unpinned
    instructions (with them when ``observe``).

    Instructions that do not match (drifted, added, removed) are passed to
    ``on_instructions`` as the :class:`contractpin.InstructionsResult`
    (default: a warning on the ``contractpin`` logger with the proxy's JSON
    log line). Raises what :meth:`contractpin.Lock.guard_instructions` raises
    for a result it rejects, the SDK's errors for a failed handshake, and
    ``RuntimeError`` for a session initialised already.
    """
    result, _ = await _guarded_handshake(
        session, lock, server, observe, on_instructions, session.initialize
    )
    return result


class GuardedSession:
    """Wraps an ``mcp.ClientSession`` (1.x or 2.x): :meth:`initialize`
    removes instructions that do not match their pin from the handshake
    result, :meth:`list_tools` removes the tools that do not match their pins, and
    :meth:`call_tool` refuses every tool that did not pass on the current
    listing (:class:`ToolRefusedError`, nothing sent), and so does every
    other way the session sends a ``tools/call`` (its ``send_request`` is
    guarded: the session's own ``call_tool``, ``experimental``, raw
    requests). Every other attribute is the session's.

    The call policy is the library's (:class:`contractpin.Gate`, the gate
    ``contractpin proxy`` keeps per session), fed by this wrapper.
    A listing starts with a request without a cursor (which forgets what
    earlier listings allowed) and goes on with the cursors the server gives.
    If a page is rejected (the guard's exceptions, see
    :meth:`contractpin.Lock.guard_page`) nothing stays callable until the
    next successful listing, and the rejected listing's later cursor pages
    add nothing. After ``notifications/tools/list_changed`` nothing is
    callable until the tools are listed again (the session's notifications
    are watched; its ``message_handler`` still gets every one). While
    guarded, the session's own ``list_tools`` is :meth:`list_tools`, so the
    listings the SDK makes by itself are decided too. The last
    :class:`GuardedSession` made for a session is the one its
    ``send_request`` consults. ``observe`` keeps drifted and unpinned
    tools in the listing, still reports them to ``on_event``, and sends
    every call: one the gate refuses is logged as ``contractpin proxy
    --mode observe`` logs it (a ``call-unverified`` line with the refusal's
    word on the ``contractpin`` logger), not refused.
    """

    def __init__(
        self,
        session: Any,
        lock: Lock,
        server: str,
        *,
        observe: bool = False,
        on_event: Optional[EventHandler] = None,
    ) -> None:
        self.session = session
        self.lock = lock
        self.server = server
        self.observe = observe
        self.on_event = on_event
        # The session's call policy: the library's gate, fed every page,
        # refused page and list_changed notification, asked before every
        # tools/call.
        self._gate = Gate()
        # Details for ToolRefusedError, not the decision: the latest event
        # of each tool while the gate refuses it for that event's reason
        # (drifted, unpinned), so it stays within what the gate keeps.
        self._events: Dict[str, GuardEvent] = {}
        # The ListToolsResult send_request last handed back, which the SDK's
        # list_tools then absorbs (not a served listing).
        self._handed: Any = None
        # The decisions of the latest first pages, by the served form of the
        # result they gave (a response cache serves that form back).
        self._served: Dict[str, GuardResult] = {}
        #: The decision for the last page listed.
        self.last_decision: Optional[GuardResult] = None
        #: The decision on the handshake's instructions (after
        #: :meth:`initialize` or :meth:`discover`).
        self.instructions_decision: Optional[InstructionsResult] = None
        self._watch(session)

    def _watch(self, session: Any) -> None:
        """Sees the session's ``notifications/tools/list_changed`` (through
        its ``message_handler``, which still gets every message), makes the
        session's own ``list_tools`` the guarded one, and puts every
        ``tools/call`` the session sends through :meth:`callable`."""
        # Checked before anything of the session changes.
        send = getattr(session, "send_request", None)
        if not callable(send):
            raise TypeError("contractpin: GuardedSession needs a session with send_request (mcp.ClientSession)")
        earlier = getattr(send, _GUARD, None)
        if isinstance(earlier, GuardedSession) and not earlier.observe and self.observe:
            raise ValueError(
                "contractpin: the session is guarded in enforce mode; an observe-mode GuardedSession "
                "would let its refused calls through"
            )
        inner = getattr(session, "_message_handler", None)
        if callable(inner):

            async def watch(message: Any) -> None:
                if _is_tools_list_changed(message):
                    self._gate.list_changed()
                await inner(message)

            session._message_handler = watch
        if callable(getattr(session, "list_tools", None)):
            session.list_tools = self.list_tools
        # Every request of the SDK goes through send_request (1.x and 2.x):
        # call_tool, experimental.call_tool_as_task (1.x), the callers holding
        # the session (2.x Client.call_tool, ClientSessionGroup.call_tool),
        # its listings and raw requests alike.
        self._send = getattr(send, _UNGUARDED, send)

        async def send_request(request: Any, result_type: Any, *args: Any, **kwargs: Any) -> Any:
            method, params = _sent(request)
            if method == "tools/call":
                self._check_call(_call_name(params))
            elif method == "tools/list" and result_type is not _raw_result_type():
                # A listing this guard did not start (a raw request, the
                # SDK's own): decided and given to the gate all the same.
                result, decision = await self._list(request, _has_cursor(params), *args, **kwargs)
                types = importlib.import_module("mcp.types")
                if result_type is not types.ListToolsResult:
                    return _validate(result_type, json.loads(decision.result))
                # The SDK's list_tools absorbs what it gets back: decided once.
                self._handed = result
                return result
            return await self._send(request, result_type, *args, **kwargs)

        setattr(send_request, _UNGUARDED, self._send)
        setattr(send_request, _GUARD, self)
        session.send_request = send_request
        self._watch_served_listings(session)
        notify = getattr(session, "send_notification", None)
        if callable(notify):
            unguarded_notify = getattr(notify, _UNGUARDED, notify)

            async def send_notification(notification: Any, *args: Any, **kwargs: Any) -> Any:
                # A tools/call sent as a notification is a call all the same
                # (the proxy refuses one as it refuses the request).
                method, params = _sent(notification)
                if method == "tools/call":
                    self._check_call(_call_name(params))
                return await unguarded_notify(notification, *args, **kwargs)

            setattr(send_notification, _UNGUARDED, unguarded_notify)
            session.send_notification = send_notification

    def _watch_served_listings(self, session: Any) -> None:
        """mcp 2.x: a ``Client`` with a response cache serves a listing
        without sending a request (from a store other clients may fill) and
        hands it to the session's ``_absorb_tool_listing``: decided there
        too, as a first page, from the SDK's models as the model will see
        them, and cut down to the tools that passed (enforce mode)."""
        absorb = getattr(session, "_absorb_tool_listing", None)
        if not callable(absorb):
            return
        plain = getattr(absorb, _UNGUARDED, absorb)

        def absorb_listing(result: Any, *args: Any, **kwargs: Any) -> Any:
            if result is self._handed:
                self._handed = None  # decided on its way back from send_request
            else:
                self._decide_served(result)
            return plain(result, *args, **kwargs)

        setattr(absorb_listing, _UNGUARDED, plain)
        session._absorb_tool_listing = absorb_listing

    def _decide_served(self, result: Any) -> None:
        """A served ``ListToolsResult`` decided and given to the gate as a
        first page (refused, and the error raised, if it cannot be)."""
        try:
            # A listing this guard decided from the server's own page, served
            # back: that decision (the SDK's models drop members the pin may
            # hold, so the served models alone could read as drifted).
            doc = _served_form(result)
            decision = self._served.get(_served_key(doc))
            if decision is None:
                page = json.dumps(doc).encode("utf-8")
                decision = self.lock.guard_page(self.server, page, observe=self.observe)
                for event in decision.events:
                    (self.on_event or _log_event)(event)
            self._gate.page(decision, PageKind.FIRST)
        except BaseException:
            self._gate.refused(PageKind.FIRST)
            self.last_decision = None
            raise
        if not self.observe:
            passed = set(decision.passed)
            result.tools = [tool for tool in result.tools if tool.name in passed]
        self._keep_events(decision)
        self.last_decision = decision

    async def initialize(self, *, on_instructions: Optional[InstructionsHandler] = None) -> Any:
        """The session's ``initialize()``, its instructions guarded (see
        :func:`guarded_initialize`); the decision is kept in
        :attr:`instructions_decision`. ``on_instructions`` defaults to a
        warning on the ``contractpin`` logger."""
        result, decision = await _guarded_handshake(
            self.session, self.lock, self.server, self.observe, on_instructions, self.session.initialize
        )
        self.instructions_decision = decision
        return result

    async def discover(self, *, on_instructions: Optional[InstructionsHandler] = None) -> Any:
        """mcp 2.x: the session's ``discover()`` (``server/discover``), its
        instructions guarded as :meth:`initialize` guards them."""
        result, decision = await _guarded_handshake(
            self.session, self.lock, self.server, self.observe, on_instructions, self.session.discover
        )
        self.instructions_decision = decision
        return result

    async def list_tools(self, cursor: Optional[str] = None, *, params: Any = None) -> Any:
        """One page of tools/list (``cursor`` or ``params`` as in the SDK),
        guarded: the SDK's ``ListToolsResult`` with only the tools the
        model may see."""
        request = _list_request(cursor, params)
        result, _ = await self._list(request, _has_cursor(_sent(request)[1]))
        return result

    async def _list(self, request: Any, paged: bool, *args: Any, **kwargs: Any) -> Tuple[Any, GuardResult]:
        """A tools/list ``request`` (any the session sends; ``paged``: with a
        cursor, as sent; ``args`` and ``kwargs`` go with it, as to
        ``send_request``), its page decided and given to the gate (refused
        on any failure): the SDK's ``ListToolsResult`` of what passed, and
        the decision."""
        kind = PageKind.NEXT if paged else PageKind.FIRST

        def send(request: Any, result_type: Any) -> Any:
            return self._send(request, result_type, *args, **kwargs)

        try:
            result, decision = await _guarded_page(
                self.session, send, self.lock, self.server, request, paged, self.observe, self.on_event
            )
            self._gate.page(decision, kind)
        except BaseException:
            self._gate.refused(kind)
            self.last_decision = None
            raise
        self._keep_events(decision)
        self.last_decision = decision
        if kind is PageKind.FIRST:
            self._served[_served_key(_served_form(result))] = decision
            while len(self._served) > _SERVED_KEPT:
                del self._served[next(iter(self._served))]
        return result, decision

    def _keep_events(self, decision: GuardResult) -> None:
        """Keeps the page's events for :class:`ToolRefusedError`, and only
        those of the tools the gate now refuses for the event's reason."""
        for event in decision.events:
            self._events[event.tool] = event
        self._events = {
            tool: event
            for tool, event in self._events.items()
            if self._gate.check(tool) is _REFUSAL_OF_STATUS.get(event.status)
        }

    def callable(self, name: str) -> bool:
        """Whether :meth:`call_tool` lets ``name`` through: the gate's
        verdict; in observe mode every call goes through."""
        return self.observe or self._gate.callable(name)

    def _check_call(self, name: Optional[str]) -> bool:
        """:class:`ToolRefusedError` unless the gate lets ``name`` through
        (``None``: the request names no tool); in observe mode a refusal is
        logged, once, and the call goes through. Whether it logged."""
        refusal = Refusal.NO_NAME if name is None else self._gate.check(name)
        if refusal is Refusal.CALLABLE:
            return False
        if self.observe:
            pending = _LOGGED_CALL.get()
            if pending and name is not None and pending[0] == name:
                pending.clear()  # call_tool logged this call
                return False
            _log_unverified_call(self.server, name, refusal)
            return True
        if name is None:
            raise ToolRefusedError("", None, refusal=refusal)
        event = self._events.get(name)
        if event is not None and _REFUSAL_OF_STATUS.get(event.status) is not refusal:
            event = None  # not why the gate refuses it now
        raise ToolRefusedError(name, event, refusal=refusal)

    async def call_tool(self, name: str, arguments: Optional[Dict[str, Any]] = None, *args: Any, **kwargs: Any) -> Any:
        """``session.call_tool`` for a tool that passed on the current
        listing; :class:`ToolRefusedError` for any other."""
        logged = self._check_call(name)
        # The session's guarded send_request checks the call again (the
        # SDK's call_tool goes through it), without logging it twice.
        token = _LOGGED_CALL.set([name] if logged else None)
        try:
            return await self.session.call_tool(name, arguments, *args, **kwargs)
        finally:
            _LOGGED_CALL.reset(token)

    def __getattr__(self, attr: str) -> Any:
        # Only once the session is set (copy and pickle probe attributes of
        # an instance that has none yet).
        if attr == "session" or "session" not in self.__dict__:
            raise AttributeError(attr)
        return getattr(self.session, attr)
