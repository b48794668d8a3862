"""contractpin: pin MCP tool contracts as SHA-256 digests over RFC 8785
canonical JSON, and verify a live tools/list against a ``contractpin.lock``.

A ctypes binding of libcontractpin. The wheel bundles the library
(``contractpin/libcontractpin.so``); ``CONTRACTPIN_LIB`` (an absolute path)
overrides it, and without a bundled copy the system loader is asked for
``libcontractpin.so.0`` (``make install``). Nothing is ever loaded from the
working directory or a checkout around it; ``library_path`` says what was
loaded.

>>> tool_digest(b'{"name":"echo"}')[:7]
'sha256:'
"""

import contextlib
import ctypes
import enum
import json
import operator
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Mapping, Optional, Tuple, TypeVar, Union

from . import _lib
from ._lib import library_path
from .errors import (
    ERRORS_BY_CODE,
    ArgumentError,
    ContractpinError,
    InternalError,
    JSONError,
    LimitError,
    LockError,
    ToolsListError,
)
from .errors import *  # noqa: F401,F403  (every per-kind exception class)

__all__ = [
    "Action",
    "Decision",
    "Enforcer",
    "Gate",
    "GuardEvent",
    "GuardResult",
    "InstructionsResult",
    "Limits",
    "Lock",
    "PageKind",
    "Refusal",
    "Report",
    "ToolVerdict",
    "canonicalize",
    "digest_tools_list",
    "library_path",
    "tool_contract",
    "tool_digest",
    "verify",
    "verify_server",
    "version",
    "ContractpinError",
    "JSONError",
    "ToolsListError",
    "LimitError",
    "LockError",
    "ArgumentError",
    "InternalError",
]

_lib_ = _lib.lib
_OK = 0
_OUTPUT_TOO_SMALL = 15
_FIELD_COUNT = 5
_ALLOW_NEW = 1
_IGNORE_INSTRUCTIONS = 2
_OBSERVE = 1
_TOOL_STATUS = ("unchanged", "drifted", "added", "removed")
_GUARD_STATUS = {1: "drifted", 2: "unpinned"}
_INSTRUCTIONS_STATUS = ("unchanged", "drifted", "added", "removed", "none", "not-checked")
_INPUTS = ("lock", "tools/list", "initialize result")
_NOT_FOUND = 105


def version() -> str:
    """The version of the loaded library, such as ``"0.1.0"``."""
    text: bytes = _lib_.contractpin_version()
    return text.decode()


# The largest values of the C types of struct contractpin_limits.
_UINT32_MAX = (1 << 32) - 1
_SIZE_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1


@dataclass(frozen=True)
class Limits:
    """Limits on untrusted input; the defaults are the library's.

    Each must fit its C type: ``max_depth`` a ``uint32_t``, ``max_input``
    and ``max_tools`` a ``size_t``. A negative value or one above that
    raises :class:`ValueError` here (a non-integer :class:`TypeError`), so a
    limit is never wrapped into another one (-1 would become "no limit").
    """

    max_depth: int = 256
    max_input: int = 64 << 20
    max_tools: int = 100_000

    def __post_init__(self) -> None:
        for name, top in (("max_depth", _UINT32_MAX), ("max_input", _SIZE_MAX), ("max_tools", _SIZE_MAX)):
            value = getattr(self, name)
            try:
                number = operator.index(value)
            except TypeError:
                raise TypeError(f"Limits.{name} must be an int, not {type(value).__name__}") from None
            if not 0 <= number <= top:
                raise ValueError(f"Limits.{name} must be between 0 and {top}, not {number}")

    def _c(self) -> "ctypes._Pointer[_lib.Limits]":
        return ctypes.pointer(_lib.Limits(self.max_depth, self.max_input, self.max_tools))


def _has_offset(status: int) -> bool:
    return 1 <= status <= 13 or 32 <= status <= 38 or status == 64


def _error(status: int, offset: int) -> ContractpinError:
    name = _lib_.contractpin_status_name(status).decode()
    message = _lib_.contractpin_status_message(status).decode()
    off: Optional[int] = offset if _has_offset(status) else None
    cls = ERRORS_BY_CODE.get(status, ContractpinError)
    where = f" at byte {off}" if off is not None else ""
    return cls(f"{name}{where}: {message}", off)


def _check(status: int, offset: "ctypes.c_size_t") -> None:
    if status != _OK:
        raise _error(status, offset.value)


def _check_input(status: int, offset: "ctypes.c_size_t", which: "ctypes.c_uint32") -> None:
    """:func:`_check` for the calls with several inputs: the error names the
    input its offset is into (``.input``)."""
    if status == _OK:
        return
    e = _error(status, offset.value)
    if e.offset is not None and which.value < len(_INPUTS):
        e = type(e)(f"{e} (in the {_INPUTS[which.value]})", e.offset)
        e.input = _INPUTS[which.value]
    raise e


def _limits(limits: Optional[Limits]) -> Any:
    return limits._c() if limits is not None else None


def _to_bytes(data: object, what: str) -> bytes:
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if not isinstance(data, bytes):
        raise TypeError(f"{what} must be bytes, not {type(data).__name__}")
    return data


def _into_buffer(guess: int, call: Callable[[Any, int, Any, Any], int]) -> bytes:
    cap = guess
    while True:
        buf = (ctypes.c_uint8 * max(cap, 1))()
        out_len = ctypes.c_size_t(0)
        offset = ctypes.c_size_t(0)
        status = call(buf, cap, ctypes.byref(out_len), ctypes.byref(offset))
        if status == _OUTPUT_TOO_SMALL and out_len.value > cap:
            cap = out_len.value
            continue
        _check(status, offset)
        return bytes(buf[: out_len.value])


def canonicalize(data: bytes, *, limits: Optional[Limits] = None) -> bytes:
    """RFC 8785 canonical bytes (``contractpin-canonical-json/1``) of any JSON document."""
    data = _to_bytes(data, "data")
    lp = _limits(limits)
    return _into_buffer(
        len(data) + 64,
        lambda buf, cap, n, off: _lib_.contractpin_canonicalize_with_limits(
            data, len(data), lp, buf, cap, n, off
        ),
    )


def tool_contract(tool: bytes) -> bytes:
    """Canonical bytes of one tool's contract: exactly what the tool digest hashes."""
    tool = _to_bytes(tool, "tool")
    return _into_buffer(
        len(tool) + 64,
        lambda buf, cap, n, off: _lib_.contractpin_tool_contract(tool, len(tool), buf, cap, n, off),
    )


def tool_digest(tool: bytes) -> str:
    """The tool digest of one tool object: ``"sha256:"`` + 64 lowercase hex digits."""
    tool = _to_bytes(tool, "tool")
    text = ctypes.create_string_buffer(72)
    offset = ctypes.c_size_t(0)
    _check(_lib_.contractpin_tool_digest(tool, len(tool), text, ctypes.byref(offset)), offset)
    return text.value.decode()


def _digest_text(raw: "ctypes.Array[ctypes.c_uint8]") -> str:
    text = ctypes.create_string_buffer(72)
    _lib_.contractpin_digest_to_text(raw, text)
    return text.value.decode()


def _name(ptr: Any, length: int) -> str:
    return ctypes.string_at(ptr, length).decode("utf-8") if length else ""


def digest_tools_list(data: bytes, *, limits: Optional[Limits] = None) -> Dict[str, Any]:
    """Digests a tools/list in any accepted shape.

    Returns a dict shaped like a lock file's server entry::

        {"digest": "sha256:...", "tool_count": 2,
         "tools": {"echo": {"digest": "sha256:...", "fields": {"description": "sha256:...", ...}}}}

    ``tools`` keeps the canonical order (UTF-16 code units of the names).
    """
    data = _to_bytes(data, "data")
    server = ctypes.c_void_p()
    offset = ctypes.c_size_t(0)
    status = _lib_.contractpin_digest_tools_list_with_limits(
        data, len(data), _limits(limits), ctypes.byref(server), ctypes.byref(offset)
    )
    _check(status, offset)
    try:
        raw = (ctypes.c_uint8 * 32)()
        _lib_.contractpin_server_digest(server, raw)
        result: Dict[str, Any] = {"digest": _digest_text(raw)}
        count = _lib_.contractpin_server_tool_count(server)
        tools: Dict[str, Any] = {}
        for i in range(count):
            name_ptr = ctypes.POINTER(ctypes.c_uint8)()
            name_len = ctypes.c_size_t(0)
            _lib_.contractpin_server_tool_name(server, i, ctypes.byref(name_ptr), ctypes.byref(name_len))
            _lib_.contractpin_server_tool_digest(server, i, raw)
            entry: Dict[str, Any] = {"digest": _digest_text(raw), "fields": {}}
            for f in range(_FIELD_COUNT):
                if _lib_.contractpin_server_tool_field_digest(server, i, f, raw) == _OK:
                    entry["fields"][_lib_.contractpin_field_name(f).decode()] = _digest_text(raw)
            tools[_name(name_ptr, name_len.value)] = entry
        result["tool_count"] = count
        result["tools"] = tools
        return result
    finally:
        _lib_.contractpin_server_free(server)


@dataclass(frozen=True)
class ToolVerdict:
    """How one pinned or live tool compares with its pin (spec section 6)."""

    name: str
    #: ``"unchanged"``, ``"drifted"``, ``"added"`` or ``"removed"``.
    status: str
    #: For a drifted tool: the contract fields whose digests differ.
    changed_fields: List[str] = field(default_factory=list)
    pinned: Optional[str] = None
    live: Optional[str] = None
    renamed_from: Optional[str] = None
    renamed_to: Optional[str] = None


@dataclass(frozen=True)
class Report:
    """The verdict of :func:`verify` or :func:`verify_server` for one server."""

    #: 0 when the server matches the lock, 1 on any drift.
    exit_code: int
    pinned_digest: Optional[str]
    live_digest: Optional[str]
    tools: List[ToolVerdict]
    #: The stable JSON report (schema ``contractpin_report`` version 1); for
    #: :func:`verify_server`, byte for byte what ``contractpin verify
    #: --format json`` writes for this server.
    json: bytes
    #: The verdict on the server's instructions (:func:`verify_server`):
    #: ``"unchanged"``, ``"drifted"``, ``"added"``, ``"removed"``, ``"none"``
    #: (neither side has any) or ``"not-checked"`` (:func:`verify`, and
    #: ``ignore_instructions``). Drifted and removed fail the server, added
    #: fails it unless ``allow_new``.
    instructions: str = "not-checked"
    #: The pinned and live instructions digests of that verdict, or None.
    pinned_instructions: Optional[str] = None
    live_instructions: Optional[str] = None
    #: Whether ``serverInfo.version`` differs between the lock and the
    #: handshake; None when unknown (either side has no ``serverInfo``, and
    #: always for :func:`verify`). Informational.
    version_changed: Optional[bool] = None

    @property
    def passed(self) -> bool:
        """Whether the server matches the lock."""
        return self.exit_code == 0

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report, parsed."""
        doc: Dict[str, Any] = json.loads(self.json)
        return doc


def verify(
    lock: bytes,
    server: str,
    tools_list: bytes,
    allow_new: bool = False,
    *,
    limits: Optional[Limits] = None,
) -> Report:
    """Verifies a live tools/list against one server of a lock file.

    Raises :class:`LockError` (spec exit code 2) when the lock cannot be used
    or does not name ``server``, and :class:`JSONError` / :class:`ToolsListError`
    / :class:`LimitError` (exit code 1) when the live tools/list is invalid. A
    client enforcing pins refuses the server on any exception and whenever
    ``report.exit_code != 0``.
    """
    lock = _to_bytes(lock, "lock")
    tools_list = _to_bytes(tools_list, "tools_list")
    name = server.encode("utf-8")
    report = ctypes.c_void_p()
    offset = ctypes.c_size_t(0)
    status = _lib_.contractpin_verify_with_limits(
        lock, len(lock), name, len(name), tools_list, len(tools_list),
        _ALLOW_NEW if allow_new else 0, _limits(limits), ctypes.byref(report), ctypes.byref(offset),
    )
    _check(status, offset)
    return _take_report(report)


def _verify_flags(allow_new: bool, ignore_instructions: bool) -> int:
    return (_ALLOW_NEW if allow_new else 0) | (_IGNORE_INSTRUCTIONS if ignore_instructions else 0)


def verify_server(
    lock: bytes,
    server: str,
    initialize_result: Union[bytes, bytearray, memoryview, Mapping[str, Any]],
    tools_list: bytes,
    allow_new: bool = False,
    *,
    ignore_instructions: bool = False,
    limits: Optional[Limits] = None,
) -> Report:
    """``contractpin verify`` of one server in one call: the live tools/list
    and the handshake against the server's entry in a lock file.

    ``initialize_result`` is the ``result`` object of the ``initialize`` (or
    ``server/discover``) response as the server sent it (bytes, or a dict
    written as JSON first): the input of :meth:`Lock.guard_instructions`.
    The verdict includes the instructions (drifted and removed fail, added
    fails unless ``allow_new``; ``ignore_instructions`` is the CLI's
    ``--ignore-instructions``), and :attr:`Report.json` is the CLI's report
    with ``server_info``, ``protocol_version`` and ``instructions`` filled
    in.

    Raises as :func:`verify` does; an error with an offset names the input
    it is into (``.input``: ``"lock"``, ``"tools/list"`` or ``"initialize
    result"``). A result that is not a JSON object, or a whole JSON-RPC
    response, is :class:`UnexpectedByteError`.
    """
    lock = _to_bytes(lock, "lock")
    init = _page_bytes(initialize_result)
    tools_list = _to_bytes(tools_list, "tools_list")
    name = server.encode("utf-8")
    report = ctypes.c_void_p()
    offset = ctypes.c_size_t(0)
    which = ctypes.c_uint32(0)
    status = _lib_.contractpin_verify_server_with_limits(
        lock, len(lock), name, len(name), init, len(init), tools_list, len(tools_list),
        _verify_flags(allow_new, ignore_instructions), _limits(limits), ctypes.byref(report),
        ctypes.byref(offset), ctypes.byref(which),
    )
    _check_input(status, offset, which)
    return _take_report(report)


def _take_report(report: "ctypes.c_void_p") -> Report:
    """Reads a contractpin_report into a Report, and frees it."""
    try:
        raw = (ctypes.c_uint8 * 32)()
        pinned = _digest_text(raw) if _lib_.contractpin_report_pinned_digest(report, raw) == _OK else None
        live = _digest_text(raw) if _lib_.contractpin_report_live_digest(report, raw) == _OK else None
        tools: List[ToolVerdict] = []
        for i in range(_lib_.contractpin_report_tool_count(report)):
            name_ptr = ctypes.POINTER(ctypes.c_uint8)()
            name_len = ctypes.c_size_t(0)
            st = ctypes.c_uint32(0)
            changed = ctypes.c_uint32(0)
            _lib_.contractpin_report_tool(
                report, i, ctypes.byref(name_ptr), ctypes.byref(name_len), ctypes.byref(st), ctypes.byref(changed)
            )
            fields = [
                _lib_.contractpin_field_name(f).decode() for f in range(_FIELD_COUNT) if changed.value & (1 << f)
            ]
            tp = _digest_text(raw) if _lib_.contractpin_report_tool_pinned_digest(report, i, raw) == _OK else None
            tl = _digest_text(raw) if _lib_.contractpin_report_tool_live_digest(report, i, raw) == _OK else None
            other_ptr = ctypes.POINTER(ctypes.c_uint8)()
            other_len = ctypes.c_size_t(0)
            other: Optional[str] = None
            if _lib_.contractpin_report_tool_rename(report, i, None, ctypes.byref(other_ptr), ctypes.byref(other_len)) == _OK:
                other = _name(other_ptr, other_len.value)
            status_name = _TOOL_STATUS[st.value]
            tools.append(
                ToolVerdict(
                    name=_name(name_ptr, name_len.value),
                    status=status_name,
                    changed_fields=fields,
                    pinned=tp,
                    live=tl,
                    renamed_from=other if status_name == "added" else None,
                    renamed_to=other if status_name == "removed" else None,
                )
            )
        ins = ctypes.c_uint32(0)
        _lib_.contractpin_report_instructions(report, ctypes.byref(ins))
        ip = _digest_text(raw) if _lib_.contractpin_report_instructions_pinned_digest(report, raw) == _OK else None
        il = _digest_text(raw) if _lib_.contractpin_report_instructions_live_digest(report, raw) == _OK else None
        version = ctypes.c_int32(0)
        moved = _lib_.contractpin_report_version_changed(report, ctypes.byref(version)) == _OK
        need = ctypes.c_size_t(0)
        _lib_.contractpin_report_json(report, None, 0, ctypes.byref(need))
        buf = (ctypes.c_uint8 * max(need.value, 1))()
        _lib_.contractpin_report_json(report, buf, need.value, ctypes.byref(need))
        return Report(
            exit_code=_lib_.contractpin_report_exit_code(report),
            pinned_digest=pinned,
            live_digest=live,
            tools=tools,
            json=bytes(buf[: need.value]),
            instructions=_INSTRUCTIONS_STATUS[ins.value],
            pinned_instructions=ip,
            live_instructions=il,
            version_changed=(version.value == 1) if moved else None,
        )
    finally:
        _lib_.contractpin_report_free(report)


@dataclass(frozen=True)
class GuardEvent:
    """One tool of a tools/list page that did not match its pin."""

    #: The tool's name.
    tool: str
    #: ``"drifted"`` (pinned under this name, contract changed) or
    #: ``"unpinned"`` (not in the lock).
    status: str
    #: For a drifted tool: the contract members whose digests differ from the
    #: pinned field digests, in canonical order; empty for an unpinned tool.
    changed: List[str]
    #: The live tool digest, ``"sha256:"`` + 64 hex digits.
    live_digest: str
    #: The event as one JSON line (no newline): the log format of
    #: ``contractpin proxy --log``.
    json: bytes


class _GuardResultHandle:
    """The ``contractpin_guard_result *`` behind a :class:`GuardResult`,
    kept so that :meth:`Gate.page` can hand the decision to
    ``contractpin_gate_page``; freed once, when the last reference to it
    goes (the GuardResult and its copies share it: ``copy`` and
    ``deepcopy`` return it, and pickling drops it, so no pointer is ever
    owned twice or used in another process)."""

    __slots__ = ("value",)

    def __init__(self, value: Optional[int]) -> None:
        self.value = value

    def free(self) -> None:
        value, self.value = self.value, None
        if value:
            _lib_.contractpin_guard_result_free(value)

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:  # interpreter shutdown
            pass

    def __copy__(self) -> "_GuardResultHandle":
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> "_GuardResultHandle":
        return self

    def __reduce__(self) -> Any:
        return (_GuardResultHandle, (None,))


@dataclass(frozen=True)
class GuardResult:
    """The decision of :meth:`Lock.guard_page` for one tools/list page:
    exactly what ``contractpin proxy`` would do with it.

    It keeps the library's result object until it is garbage-collected (so
    the page's bytes are held twice meanwhile): :meth:`Gate.page` gives that
    object to the session's gate."""

    #: The result object to hand on in place of the page: in enforce mode
    #: the page with every event's tool removed from ``tools``, in observe mode
    #: (or when every tool passed) the page itself. Every other byte is the
    #: server's.
    result: bytes
    #: The tools that matched their pins, in page order.
    passed: List[str]
    #: The tools that did not, in page order.
    events: List[GuardEvent]
    #: Whether the page was decided in observe mode.
    observe: bool
    _callable: FrozenSet[str] = field(repr=False)
    _handle: Optional[_GuardResultHandle] = field(default=None, repr=False, compare=False)

    def callable(self, name: str) -> bool:
        """Whether the client may call tool ``name``: a passing tool of this
        page, and in observe mode a reported one too. A tool that is not on
        this page is never callable."""
        return name in self._callable

    def to_dict(self) -> Dict[str, Any]:
        """:attr:`result`, parsed."""
        doc: Dict[str, Any] = json.loads(self.result)
        return doc


def _span(call: Callable[[Any, Any], int]) -> bytes:
    """Bytes owned by a library object, returned through (pointer, length)."""
    ptr = ctypes.POINTER(ctypes.c_uint8)()
    length = ctypes.c_size_t(0)
    status = call(ctypes.byref(ptr), ctypes.byref(length))
    if status != _OK:
        raise _error(status, 0)
    return ctypes.string_at(ptr, length.value) if length.value else b""


def _page_bytes(page: Union[bytes, bytearray, memoryview, Mapping[str, Any]]) -> bytes:
    if isinstance(page, Mapping):
        # Strict JSON: NaN and infinities cannot be written (ValueError).
        return json.dumps(page, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return _to_bytes(page, "page")


def _take_guard_result(res: "ctypes.c_void_p", observe: bool) -> GuardResult:
    """Reads a contractpin_guard_result into a GuardResult, which keeps it
    (for :meth:`Gate.page`; freed with the GuardResult); frees it on error."""
    handle = _GuardResultHandle(res.value)
    try:
        result = _span(lambda p, n: _lib_.contractpin_guard_result_bytes(res, p, n))
        passed = [
            _span(lambda p, n: _lib_.contractpin_guard_result_passed_name(res, i, p, n)).decode("utf-8")
            for i in range(_lib_.contractpin_guard_result_passed_count(res))
        ]
        events: List[GuardEvent] = []
        for i in range(_lib_.contractpin_guard_result_event_count(res)):
            name_ptr = ctypes.POINTER(ctypes.c_uint8)()
            name_len = ctypes.c_size_t(0)
            st = ctypes.c_uint32(0)
            changed = ctypes.c_uint32(0)
            raw = (ctypes.c_uint8 * 32)()
            status = _lib_.contractpin_guard_result_event(
                res, i, ctypes.byref(name_ptr), ctypes.byref(name_len), ctypes.byref(st), ctypes.byref(changed), raw
            )
            if status != _OK:
                raise _error(status, 0)
            events.append(
                GuardEvent(
                    tool=_name(name_ptr, name_len.value),
                    status=_GUARD_STATUS[st.value],
                    changed=[
                        _lib_.contractpin_field_name(f).decode()
                        for f in range(_FIELD_COUNT)
                        if changed.value & (1 << f)
                    ],
                    live_digest=_digest_text(raw),
                    json=_span(lambda p, n: _lib_.contractpin_guard_result_event_json(res, i, p, n)),
                )
            )
        # The library decides what is callable; every name on the page is asked.
        names = [n.encode("utf-8") for n in passed] + [e.tool.encode("utf-8") for e in events]
        allowed = frozenset(
            n.decode("utf-8") for n in names if _lib_.contractpin_guard_result_callable(res, n, len(n)) == 1
        )
        return GuardResult(
            result=result, passed=passed, events=events, observe=observe, _callable=allowed, _handle=handle
        )
    except BaseException:
        handle.free()
        raise


@dataclass(frozen=True)
class InstructionsResult:
    """The decision of :meth:`Lock.guard_instructions` on the ``instructions``
    of one handshake result: exactly what ``contractpin proxy`` would do."""

    #: ``"unchanged"``, ``"drifted"``, ``"added"`` (none pinned),
    #: ``"removed"`` (pinned, none live) or ``"none"`` (neither side has any).
    #: A live member that is not a string is drifted (added when none is
    #: pinned).
    status: str
    #: The live instructions digest, ``"sha256:"`` + 64 hex digits; ``None``
    #: when there is none (removed, none, or not a string).
    live_digest: Optional[str]
    #: Whether the instructions were cut out of :attr:`result` (drifted or
    #: added, in enforce mode).
    removed: bool
    #: The result object to hand on: the server's bytes, without the
    #: ``instructions`` member when :attr:`removed`.
    result: bytes
    #: The event as one JSON line (no newline), the format of ``contractpin
    #: proxy --log`` without ``at``; ``None`` when the instructions match (or
    #: neither side has any).
    json: Optional[bytes]

    def to_dict(self) -> Dict[str, Any]:
        """:attr:`result`, parsed."""
        doc: Dict[str, Any] = json.loads(self.result)
        return doc


def _take_instructions_result(res: "ctypes.c_void_p") -> InstructionsResult:
    """Reads a contractpin_guard_instructions_result, and frees it."""
    try:
        st = ctypes.c_uint32(0)
        has_live = ctypes.c_int32(0)
        removed = ctypes.c_int32(0)
        raw = (ctypes.c_uint8 * 32)()
        status = _lib_.contractpin_guard_instructions_result_verdict(
            res, ctypes.byref(st), ctypes.byref(has_live), raw, ctypes.byref(removed)
        )
        if status != _OK:
            raise _error(status, 0)
        result = _span(lambda p, n: _lib_.contractpin_guard_instructions_result_bytes(res, p, n))
        line: Optional[bytes] = None
        try:
            line = _span(lambda p, n: _lib_.contractpin_guard_instructions_result_event_json(res, p, n))
        except ContractpinError as e:
            if e.code != _NOT_FOUND:
                raise
        return InstructionsResult(
            status=_INSTRUCTIONS_STATUS[st.value],
            live_digest=_digest_text(raw) if has_live.value == 1 else None,
            removed=removed.value == 1,
            result=result,
            json=line,
        )
    finally:
        _lib_.contractpin_guard_instructions_result_free(res)


_Self = TypeVar("_Self", bound="_Closing")


class _Closing:
    """``with`` and garbage collection for a class owning a library handle
    in ``_handle`` that ``close()`` releases."""

    _handle: Any

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Self) -> _Self:
        return self

    def __copy__(self) -> Any:
        # Two objects owning one library object would free it twice.
        raise TypeError(f"a contractpin.{type(self).__name__} owns a library object: share it, do not copy it")

    def __deepcopy__(self, memo: Any) -> Any:
        return self.__copy__()

    def __reduce__(self) -> Any:
        return self.__copy__()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            try:
                self.close()
            except Exception:  # interpreter shutdown
                pass


class Lock(_Closing):
    """A ``contractpin.lock`` parsed and validated once, to verify or guard
    any number of tools/list documents against it at run time.

    Raises :class:`LockError` (with ``.path``, the JSON path of the problem,
    and ``.detail``) when the lock cannot be used. Immutable: one Lock may be
    shared by threads and asyncio tasks. The library object is released by
    :meth:`close` (or ``with Lock(...) as lock:``), else when the Lock is
    garbage-collected.
    """

    def __init__(self, data: bytes) -> None:
        data = _to_bytes(data, "lock")
        handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        offset = ctypes.c_size_t(0)
        status = _lib_.contractpin_lock_parse(
            data, len(data), ctypes.byref(handle), ctypes.byref(error), ctypes.byref(offset)
        )
        if status != _OK:
            path = detail = ""
            if error.value:
                try:
                    path = _span(lambda p, n: _lib_.contractpin_lock_error_path(error, p, n)).decode("utf-8")
                    detail = _span(lambda p, n: _lib_.contractpin_lock_error_detail(error, p, n)).decode("utf-8")
                finally:
                    _lib_.contractpin_lock_error_free(error)
            e = _error(status, offset.value)
            if detail:
                e = type(e)(f"{e}: {path or '(document)'}: {detail}", e.offset)
            if isinstance(e, LockError):
                e.path, e.detail = path, detail
            raise e
        self._handle: Optional[int] = handle.value
        self._mutex = threading.Lock()
        self._users = 0
        self._closing = False
        names = []
        for i in range(_lib_.contractpin_lock_server_count(self._handle)):
            names.append(_span(lambda p, n: _lib_.contractpin_lock_server_name(self._handle, i, p, n)).decode("utf-8"))
        #: The server names, in the lock's order.
        self.servers: List[str] = names

    @classmethod
    def from_path(cls, path: "Union[str, os.PathLike[str]]") -> "Lock":
        """Reads and parses a lock file."""
        with open(path, "rb") as f:
            return cls(f.read())

    @contextlib.contextmanager
    def _borrow(self) -> Iterator[int]:
        """The handle, kept alive (close() defers the free) during the block."""
        with self._mutex:
            if self._handle is None or self._closing:
                raise ValueError("contractpin.Lock is closed")
            self._users += 1
            handle = self._handle
        try:
            yield handle
        finally:
            with self._mutex:
                self._users -= 1
                free = self._closing and self._users == 0
                if free:
                    self._handle = None
            if free:
                _lib_.contractpin_lock_free(handle)

    def close(self) -> None:
        """Releases the library object (once no call in another thread is
        still using it); the Lock cannot be used afterwards. Results already
        obtained stay valid."""
        with self._mutex:
            if self._handle is None or self._closing:
                return
            self._closing = True
            if self._users:
                return  # the last user frees it
            handle, self._handle = self._handle, None
        _lib_.contractpin_lock_free(handle)


    def verify(
        self, server: str, tools_list: bytes, allow_new: bool = False, *, limits: Optional[Limits] = None
    ) -> Report:
        """:func:`verify` against this lock, without parsing it again."""
        tools_list = _to_bytes(tools_list, "tools_list")
        name = server.encode("utf-8")
        report = ctypes.c_void_p()
        offset = ctypes.c_size_t(0)
        with self._borrow() as handle:
            status = _lib_.contractpin_lock_verify(
                handle, name, len(name), tools_list, len(tools_list),
                _ALLOW_NEW if allow_new else 0, _limits(limits), ctypes.byref(report), ctypes.byref(offset),
            )
        _check(status, offset)
        return _take_report(report)

    def verify_server(
        self,
        server: str,
        initialize_result: Union[bytes, bytearray, memoryview, Mapping[str, Any]],
        tools_list: bytes,
        allow_new: bool = False,
        *,
        ignore_instructions: bool = False,
        limits: Optional[Limits] = None,
    ) -> Report:
        """:func:`verify_server` against this lock, without parsing it again."""
        init = _page_bytes(initialize_result)
        tools_list = _to_bytes(tools_list, "tools_list")
        name = server.encode("utf-8")
        report = ctypes.c_void_p()
        offset = ctypes.c_size_t(0)
        which = ctypes.c_uint32(0)
        with self._borrow() as handle:
            status = _lib_.contractpin_lock_verify_server(
                handle, name, len(name), init, len(init), tools_list, len(tools_list),
                _verify_flags(allow_new, ignore_instructions), _limits(limits), ctypes.byref(report),
                ctypes.byref(offset), ctypes.byref(which),
            )
        _check_input(status, offset, which)
        return _take_report(report)

    def guard_page(
        self,
        server: str,
        page: Union[bytes, bytearray, memoryview, Mapping[str, Any]],
        observe: bool = False,
        *,
        limits: Optional[Limits] = None,
    ) -> GuardResult:
        """Decides one tools/list page against the pins of ``server``: the
        decision of ``contractpin proxy``.

        ``page`` is the ``result`` object of a tools/list response,
        ``{"tools": [...], ...}``, as bytes (kept byte for byte when it passes)
        or as a dict (written as JSON first). A drifted or unpinned tool is an
        event; it is removed from :attr:`GuardResult.result` and is not
        callable, unless ``observe`` keeps it (and still reports it).

        Fails closed: raises :class:`LockUnknownServerError` when the lock has
        no such server, and :class:`JSONError` / :class:`ToolsListError` /
        :class:`LimitError` (with ``.offset``) when the page is rejected;
        then nothing of the page may be used.
        """
        res = self._guard(_lib_.contractpin_guard_page, server, page, observe, limits)
        return _take_guard_result(res, observe)

    def guard_instructions(
        self,
        server: str,
        result: Union[bytes, bytearray, memoryview, Mapping[str, Any]],
        observe: bool = False,
        *,
        limits: Optional[Limits] = None,
    ) -> InstructionsResult:
        """Decides the ``instructions`` of one handshake result against the
        lock's ``instructions_digest`` for ``server``: the decision of
        ``contractpin proxy``.

        ``result`` is the ``result`` object of the ``initialize`` (or
        ``server/discover``) response, as bytes (kept byte for byte but for
        a cut member) or as a dict (written as JSON first). Drifted or added
        instructions are cut out of :attr:`InstructionsResult.result` unless
        ``observe`` keeps them (still reported); removed ones are only
        reported.

        Fails closed: raises :class:`LockUnknownServerError` when the lock has
        no such server, and :class:`JSONError` / :class:`LimitError` /
        :class:`JsonRpcErrorError` (with ``.offset``) when the result is
        rejected (invalid JSON, not a JSON object, a whole JSON-RPC response:
        :class:`UnexpectedByteError`); then nothing of it may be used.
        """
        res = self._guard(_lib_.contractpin_guard_instructions, server, result, observe, limits)
        return _take_instructions_result(res)

    def _guard(
        self,
        function: Callable[..., int],
        server: str,
        value: Union[bytes, bytearray, memoryview, Mapping[str, Any]],
        observe: bool,
        limits: Optional[Limits],
    ) -> ctypes.c_void_p:
        """Calls a guard function of the C ABI (``contractpin_guard_page`` or
        ``contractpin_guard_instructions``: the same arguments) and returns its
        result handle, raising on failure."""
        data = _page_bytes(value)
        name = server.encode("utf-8")
        res = ctypes.c_void_p()
        offset = ctypes.c_size_t(0)
        with self._borrow() as handle:
            status = function(
                handle, name, len(name), data, len(data), _OBSERVE if observe else 0,
                _limits(limits), ctypes.byref(res), ctypes.byref(offset),
            )
        _check(status, offset)
        return res


class PageKind(enum.IntEnum):
    """How a tools/list page relates to the session's listing, for
    :meth:`Gate.page` and :meth:`Gate.refused` (the header's
    ``CONTRACTPIN_PAGE_*``)."""

    #: The answer to a ``tools/list`` request without a cursor: it starts a
    #: new listing.
    FIRST = 0
    #: The answer to a ``tools/list`` request with a cursor: a later page of
    #: the current listing.
    NEXT = 1
    #: A ``tools`` result that answers none of the client's ``tools/list``
    #: requests: it can only take tools away.
    UNMATCHED = 2


class Refusal(enum.IntEnum):
    """The verdict of :meth:`Gate.check` (the header's
    ``contractpin_refusal``, stable numbers): :attr:`CALLABLE` (0, the only
    falsy one) lets the call through, every other value refuses it.
    :attr:`kind` is the stable word (the proxy's ``--log`` word) and
    :attr:`message` the sentence ``contractpin proxy`` gives its client,
    both from the library."""

    #: The tool passed on the current listing: send the call.
    CALLABLE = 0
    #: No listing has been given yet: list the tools first.
    NO_LISTING = 1
    #: ``notifications/tools/list_changed`` came after the latest listing.
    LIST_CHANGED = 2
    #: The latest listing reported the tool as drifted.
    DRIFTED = 3
    #: The latest listing reported the tool as not pinned.
    UNPINNED = 4
    #: The latest listing did not hold the tool, or was refused.
    NOT_LISTED = 5
    #: The ``tools/call`` request names no tool (for a client's own check of
    #: the request; :meth:`Gate.check` never returns it).
    NO_NAME = 6
    #: The name is not UTF-8 (a ``str`` with a lone surrogate): refused.
    INVALID_ARGUMENT = 7

    @property
    def kind(self) -> str:
        """The stable word: ``"callable"``, ``"no-listing"``,
        ``"list-changed"``, ``"drifted"``, ``"unpinned"``, ``"not-listed"``,
        ``"no-name"`` or ``"invalid-argument"``."""
        text: bytes = _lib_.contractpin_refusal_name(self.value)
        return text.decode()

    @property
    def message(self) -> str:
        """A one-line English reason (what ``contractpin proxy`` gives its
        client after ``contractpin proxy: ``)."""
        text: bytes = _lib_.contractpin_refusal_message(self.value)
        return text.decode()


def _page_kind(kind: PageKind) -> PageKind:
    """``kind`` as a :class:`PageKind`: ``TypeError`` for a non-integer,
    ``ValueError`` for another number (never wrapped into a ``uint32_t``)."""
    if isinstance(kind, bool) or not isinstance(kind, int):
        raise TypeError(f"kind must be a contractpin.PageKind, not {type(kind).__name__}")
    return PageKind(kind)


class Gate(_Closing):
    """Which tools a client may call right now, across the pages,
    notifications and refusals of one session: the library's
    ``contractpin_gate``, the state ``contractpin proxy`` keeps per session
    (``src/guard/gate.rs``), so a client that embeds the guard refuses
    exactly the calls the proxy refuses. The policy is the library's; this
    class only feeds it:

    - :meth:`page` with each page's :class:`GuardResult` that the client
      passed on, and the page's :class:`PageKind`;
    - :meth:`refused` for each page it did not pass on (the guard raised,
      the client blocked the listing, reading it failed);
    - :meth:`list_changed` for each ``notifications/tools/list_changed``;
    - :meth:`check` (or :meth:`callable`) before sending each
      ``tools/call``: send it only on :attr:`Refusal.CALLABLE`.

    One gate per session. Calls on one Gate are serialized (a mutex), so it
    may be shared by threads. The library object is released by
    :meth:`close` (or ``with Gate() as gate:``), else when the Gate is
    garbage-collected; a closed Gate raises ``ValueError``.
    """

    def __init__(self) -> None:
        handle = ctypes.c_void_p()
        status = _lib_.contractpin_gate_new(ctypes.byref(handle))
        if status != _OK:
            raise _error(status, 0)
        self._handle: Optional[int] = handle.value
        self._mutex = threading.Lock()

    @contextlib.contextmanager
    def _use(self) -> Iterator[int]:
        """The handle, with the mutex held (no other call and no close()
        meanwhile)."""
        with self._mutex:
            if self._handle is None:
                raise ValueError("contractpin.Gate is closed")
            yield self._handle

    def _call(self, status: int) -> None:
        if status != _OK:
            raise _error(status, 0)

    def page(self, result: GuardResult, kind: PageKind) -> None:
        """Gives the gate the decision of one page the client passed on
        (:meth:`Lock.guard_page`'s result): with :attr:`PageKind.FIRST` a
        new listing whose callable tools are the page's passing ones; with
        :attr:`PageKind.NEXT` the page's passing tools join the current
        listing (none after :meth:`list_changed` or a refused page); with
        :attr:`PageKind.UNMATCHED` (any other response whose result has a
        ``tools`` member) the page's reported tools become uncallable and
        none is added. A page decided in observe mode gives the same
        verdicts: an observe-mode client sends a refused call anyway and
        logs why, as ``contractpin proxy --mode observe`` does.

        ``TypeError`` for another kind of argument, ``ValueError`` for
        another kind number or a GuardResult without its library object (one
        not made by :meth:`Lock.guard_page`, or unpickled). Fails closed: on
        any of these the gate refuses as :meth:`refused` does (an unknown
        kind as :attr:`PageKind.FIRST`)."""
        try:
            if not isinstance(result, GuardResult):
                raise TypeError(f"result must be a contractpin.GuardResult, not {type(result).__name__}")
            number = _page_kind(kind)
            # `result` holds the handle (and so the library object) alive for the call.
            res = result._handle
            if res is None or res.value is None:
                raise ValueError("the GuardResult has no library object (make it with Lock.guard_page)")
        except (TypeError, ValueError):
            self._refuse(kind)
            raise
        with self._use() as gate:
            self._call(_lib_.contractpin_gate_page(gate, res.value, number))

    def refused(self, kind: PageKind) -> None:
        """A page of ``kind`` that was not passed on: nothing is callable
        until a new listing, and the refused listing's later cursor pages
        add nothing. Argument errors as in :meth:`page`, after refusing as
        a first page."""
        self._refuse(kind)
        _page_kind(kind)

    def _refuse(self, kind: Any) -> None:
        """:meth:`refused` for ``kind``, or as a first page when ``kind`` is
        no page kind (fail closed)."""
        try:
            number = _page_kind(kind)
        except (TypeError, ValueError):
            number = PageKind.FIRST
        with self._use() as gate:
            self._call(_lib_.contractpin_gate_refused(gate, number))

    def list_changed(self) -> None:
        """The server sent ``notifications/tools/list_changed``: nothing is
        callable until the tools are listed again."""
        with self._use() as gate:
            self._call(_lib_.contractpin_gate_list_changed(gate))

    def check(self, name: str) -> Refusal:
        """Whether a ``tools/call`` for tool ``name`` may be sent now:
        :attr:`Refusal.CALLABLE` (falsy) for a tool that passed on the
        current listing, the reason otherwise. Names are exact. A name with
        a lone surrogate (not UTF-8) is :attr:`Refusal.INVALID_ARGUMENT`;
        ``TypeError`` for a name that is not a ``str``."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        # surrogatepass: a lone surrogate reaches the library as bytes that
        # are not UTF-8, which it refuses.
        data = name.encode("utf-8", "surrogatepass")
        with self._use() as gate:
            verdict: int = _lib_.contractpin_gate_check(gate, data, len(data))
        return Refusal(verdict)

    def callable(self, name: str) -> bool:
        """Whether :meth:`check` lets ``name`` through."""
        return self.check(name) is Refusal.CALLABLE

    def close(self) -> None:
        """Releases the library object (after any call in another thread);
        the Gate cannot be used afterwards."""
        with self._mutex:
            handle, self._handle = self._handle, None
        if handle is not None:
            _lib_.contractpin_gate_free(handle)


class Action(enum.IntEnum):
    """What to do with one message (:attr:`Decision.action`; the header's
    ``contractpin_action``, stable numbers)."""

    #: Pass nothing on (0: a zeroed value fails closed).
    DROP = 0
    #: Pass the message on as received.
    FORWARD = 1
    #: Pass on :attr:`Decision.replacement` instead.
    REPLACE = 2


@dataclass(frozen=True)
class Decision:
    """The decision of :meth:`Enforcer.client` or :meth:`Enforcer.server`
    on one message: exactly what ``contractpin proxy`` does with it. A copy
    of the library's decision (which is freed at once): plain bytes."""

    #: What to do with the message; :meth:`forwarded` applies it.
    action: Action
    #: For :attr:`Action.REPLACE`: the complete JSON-RPC message or batch to
    #: pass on instead (no newline); ``None`` otherwise.
    replacement: Optional[bytes]
    #: The answer to send back to the message's sender (no newline): a
    #: refused ``tools/call``'s ``-32602`` ``Unknown tool`` error, the
    #: ``-32700``/``-32600`` error for a client message that is not JSON-RPC,
    #: for a batch the answers to the elements not passed on; ``None`` when
    #: there is none (always for :meth:`Enforcer.server`).
    reply: Optional[bytes]
    #: The events, in the order they happened, each one canonical JSON
    #: object: the line ``contractpin proxy --log`` writes, without ``at``
    #: (add your own time). Server-controlled text in them is JSON-escaped
    #: but otherwise as sent.
    events: Tuple[bytes, ...]

    def forwarded(self, message: bytes) -> Optional[bytes]:
        """What to pass on in place of ``message`` (the bytes this decision
        was made on): ``message`` for :attr:`Action.FORWARD`, the
        :attr:`replacement` for :attr:`Action.REPLACE`, ``None`` (nothing)
        for :attr:`Action.DROP`."""
        if self.action is Action.FORWARD:
            return message
        if self.action is Action.REPLACE:
            return self.replacement
        return None

    def event_dicts(self) -> List[Dict[str, Any]]:
        """:attr:`events`, parsed."""
        return [json.loads(line) for line in self.events]


def _optional_span(call: Callable[[Any, Any], int]) -> Optional[bytes]:
    """:func:`_span`, or None when the library has none (not-found)."""
    try:
        return _span(call)
    except ContractpinError as e:
        if e.code != _NOT_FOUND:
            raise
        return None


def _take_decision(d: "ctypes.c_void_p") -> Decision:
    """Reads a contractpin_decision into a Decision, and frees it."""
    try:
        action = Action(_lib_.contractpin_decision_action(d))
        replacement = _optional_span(lambda p, n: _lib_.contractpin_decision_bytes(d, p, n))
        reply = _optional_span(lambda p, n: _lib_.contractpin_decision_reply(d, p, n))
        events = tuple(
            _span(lambda p, n: _lib_.contractpin_decision_event_json(d, i, p, n))
            for i in range(_lib_.contractpin_decision_event_count(d))
        )
        if action is Action.REPLACE and replacement is None:
            raise InternalError("contractpin: a REPLACE decision without its bytes")
        return Decision(action=action, replacement=replacement, reply=reply, events=events)
    finally:
        _lib_.contractpin_decision_free(d)


_ENFORCER_BLOCK = 2
_ENFORCER_IGNORE_INSTRUCTIONS = 4


class Enforcer(_Closing):
    """The whole run-time check of one session with one server, at the
    transport: the library's ``contractpin_enforcer``, what ``contractpin
    proxy`` does to every message, for a client that owns its transport.
    Give it every message the client sends (:meth:`client`) and every one
    the server sent (:meth:`server`), the exact bytes (a stdio line without
    its newline, an HTTP body), and do what the :class:`Decision` says:
    pass on :meth:`Decision.forwarded` (nothing when ``None``), and send
    :attr:`Decision.reply`, when there is one, back to the sender. It keeps
    the session's state itself: the requests' ids, the listings, the
    ``notifications/tools/list_changed``, the call policy of :class:`Gate`.

    ``lock`` is a :class:`Lock` (the server's pins are copied: it may be
    closed afterwards) and ``server`` the server's key in it. By default
    it enforces, as ``contractpin proxy``: drifted and unpinned tools are
    removed from the listings (and drifted instructions from the handshake),
    a ``tools/call`` of a tool the latest listing did not pass is dropped
    and answered with a ``-32602`` ``Unknown tool`` error. ``observe=True``
    is ``--mode observe`` (report, never change or refuse); ``block=True``
    is ``--on-drift block`` (such a listing is answered with a ``-32603``
    error instead; not with ``observe``: :class:`ValueError`);
    ``ignore_instructions=True`` is ``--ignore-instructions``; ``limits``
    applies to each ``tools`` page.

    Raises :class:`LockUnknownServerError` when the lock has no such server.
    :meth:`client` and :meth:`server` take bytes (else ``TypeError``) and
    otherwise raise only when the library fails (:class:`InternalError`,
    never on a message's content): then pass nothing on (fail closed). One
    enforcer per session; its calls are serialized (a mutex), so the
    messages are decided in the order the session sees them, and it may be
    shared by a reading and a writing thread. The library object is released by :meth:`close` (or ``with``),
    else when the Enforcer is garbage-collected; a closed Enforcer raises
    ``ValueError``.
    """

    def __init__(
        self,
        lock: Lock,
        server: str,
        *,
        observe: bool = False,
        block: bool = False,
        ignore_instructions: bool = False,
        limits: Optional[Limits] = None,
    ) -> None:
        self._mutex = threading.Lock()
        self._handle: Optional[int] = None
        if not isinstance(lock, Lock):
            raise TypeError(f"lock must be a contractpin.Lock, not {type(lock).__name__}")
        if not isinstance(server, str):
            raise TypeError(f"server must be a str, not {type(server).__name__}")
        if observe and block:
            raise ValueError(
                "observe and block exclude each other "
                "(contractpin proxy refuses --mode observe with --on-drift block)"
            )
        flags = (
            (_OBSERVE if observe else 0)
            | (_ENFORCER_BLOCK if block else 0)
            | (_ENFORCER_IGNORE_INSTRUCTIONS if ignore_instructions else 0)
        )
        # surrogatepass: a lone surrogate reaches the library as bytes that
        # are not UTF-8, which it refuses (InvalidArgumentError).
        name = server.encode("utf-8", "surrogatepass")
        handle = ctypes.c_void_p()
        with lock._borrow() as lock_handle:
            status = _lib_.contractpin_enforcer_new(
                lock_handle, name, len(name), flags, _limits(limits), ctypes.byref(handle)
            )
        if status != _OK:
            raise _error(status, 0)
        self._handle = handle.value
        #: The server's key in the lock.
        self.server_name = server
        #: Whether it only observes (``--mode observe``).
        self.observe = bool(observe)
        #: Whether it answers a listing with drifted or unpinned tools with
        #: an error (``--on-drift block``).
        self.block = bool(block)
        #: Whether the handshake's instructions are not compared
        #: (``--ignore-instructions``).
        self.ignore_instructions = bool(ignore_instructions)

    def client(self, message: Union[bytes, bytearray, memoryview]) -> Decision:
        """Decides one message (or batch) the client is about to send to the
        server. A ``tools/call`` of a tool the latest listing did not pass
        is :attr:`Action.DROP` with a ``-32602`` ``Unknown tool``
        :attr:`~Decision.reply` (in enforce mode); a message that is not
        JSON-RPC is dropped and answered with ``-32700`` or ``-32600`` (a
        request by its own id when only a limit stopped the parser: nested
        too deep, too long); a batch may be :attr:`Action.REPLACE` (the elements to send) with a
        reply (the answers to the others); every other message is
        :attr:`Action.FORWARD`."""
        return self._decide(_lib_.contractpin_enforcer_client, message)

    def server(self, message: Union[bytes, bytearray, memoryview]) -> Decision:
        """Decides one message (or batch) the server sent, before the client
        reads it (never a :attr:`~Decision.reply`). A ``tools`` result with
        drifted or unpinned tools is :attr:`Action.REPLACE`: those tools
        removed, every other byte kept (with ``block``, a ``-32603`` error
        for that id instead), as is a handshake result with drifted
        instructions; a message that is not JSON-RPC (or that the strict
        parser refuses) is :attr:`Action.DROP`."""
        return self._decide(_lib_.contractpin_enforcer_server, message)

    def summary(self) -> Tuple[bytes, ...]:
        """The ``skipped-more`` events of the session: how many more messages
        of each kind (stray output, refused messages) were dropped without a
        ``skipped`` event of their own since the last summary (only the
        first 100 of each kind in a session get one), one event per kind
        with a ``count``, none when nothing went unreported; the counts
        start from zero again. ``contractpin proxy`` logs one at most once a
        minute while such messages keep coming, and one at the end of the
        session: call it as often as you log, and once at the end."""
        d = ctypes.c_void_p()
        with self._mutex:
            if self._handle is None:
                raise ValueError("contractpin.Enforcer is closed")
            status = _lib_.contractpin_enforcer_summary(self._handle, ctypes.byref(d))
        if status != _OK:
            raise _error(status, 0)
        return _take_decision(d).events

    def _decide(self, function: Callable[..., int], message: Union[bytes, bytearray, memoryview]) -> Decision:
        data = _to_bytes(message, "message")
        d = ctypes.c_void_p()
        with self._mutex:
            if self._handle is None:
                raise ValueError("contractpin.Enforcer is closed")
            status = function(self._handle, data, len(data), ctypes.byref(d))
        if status != _OK:
            raise _error(status, 0)
        return _take_decision(d)

    def close(self) -> None:
        """Releases the library object (after any call in another thread);
        the Enforcer cannot be used afterwards. Decisions already made stay
        valid."""
        with self._mutex:
            handle, self._handle = self._handle, None
        if handle is not None:
            _lib_.contractpin_enforcer_free(handle)
