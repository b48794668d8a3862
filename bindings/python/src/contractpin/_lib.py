"""Finding libcontractpin and declaring the C prototypes (ctypes)."""

import ctypes
import ctypes.util
import os
import re
import sys
from pathlib import Path
from typing import Optional, Tuple

__all__ = ["lib", "library_path", "BINDING_VERSION", "LibraryNotFound", "LibraryVersionError", "compatible"]

#: The libcontractpin version this binding is written for: the header's
#: ``CONTRACTPIN_VERSION_STRING`` (and ``Cargo.toml``, ``pyproject.toml``) of
#: its release. The library loaded must be :func:`compatible` with it.
BINDING_VERSION = "0.1.0"


class LibraryNotFound(ImportError):
    """libcontractpin could not be located or loaded, or what was loaded is
    not a libcontractpin this binding can use."""


class LibraryVersionError(LibraryNotFound):
    """The library loaded is a libcontractpin of a version this binding
    cannot use (see :func:`compatible`)."""

    def __init__(self, path: str, library_version: str, binding_version: str) -> None:
        super().__init__(
            f"contractpin: {path} is libcontractpin {library_version}, but this binding needs "
            f"{_rule(binding_version)}. Install the library of the binding's release, or the binding "
            "of the library's (the wheel bundles a matching library).",
            path=path,
        )
        #: What the library reports (``contractpin_version()``).
        self.library_version = library_version
        #: :data:`BINDING_VERSION`.
        self.binding_version = binding_version


def _numbers(version: str) -> Tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def compatible(library_version: str, binding_version: str = BINDING_VERSION) -> bool:
    """Whether a library of ``library_version`` serves a binding written for
    ``binding_version`` (``"MAJOR.MINOR.PATCH"``): the same major version,
    and while it is 0 the same minor version (semver: before 1.0 every minor
    release may change the ABI); from 1.0 on, a library minor version at
    least the binding's (the ABI only gains functions within a major
    version). The patch version is not compared."""
    library, binding = _numbers(library_version), _numbers(binding_version)
    if library[0] != binding[0]:
        return False
    return library[1] == binding[1] if binding[0] == 0 else library[1] >= binding[1]


def _rule(binding_version: str) -> str:
    major, minor = _numbers(binding_version)
    if major == 0:
        return f"libcontractpin {major}.{minor}.x (the binding is {binding_version})"
    return f"libcontractpin {major}.x, x >= {minor} (the binding is {binding_version})"


def _file_name() -> str:
    if sys.platform == "darwin":
        return "libcontractpin.dylib"
    if sys.platform == "win32":
        return "contractpin.dll"
    return "libcontractpin.so"


# What the system loader is asked for: the SONAME scripts/build-lib.sh sets
# (`make install` puts it in PREFIX/lib).
_SONAME = "libcontractpin.so.0"


def _open(path: str) -> "tuple[ctypes.CDLL, str]":
    try:
        return ctypes.CDLL(path), path
    except OSError as e:
        raise LibraryNotFound(f"contractpin: cannot load {path}: {e}") from e


def _unsafe_search_path() -> Optional[str]:
    """Why asking the system loader for a bare name could load a library
    from the working directory, if it could: an empty or relative element in
    its search path. glibc's ld.so reads an empty element of
    ``LD_LIBRARY_PATH`` (``:/usr/lib``, ``/usr/lib:``, ``a::b``) as the
    working directory and resolves a relative one against it; it splits on
    ``:`` and ``;``. dyld (macOS) reads ``DYLD_LIBRARY_PATH`` and
    ``DYLD_FALLBACK_LIBRARY_PATH``. None when every element is absolute."""
    if sys.platform == "darwin":
        names: "tuple[str, ...]" = ("DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH")
    elif sys.platform == "win32":
        return None
    else:
        names = ("LD_LIBRARY_PATH",)
    for var in names:
        value = os.environ.get(var)
        if not value:  # unset or empty: not searched at all
            continue
        for element in re.split("[:;]", value):
            if not os.path.isabs(element):
                what = "an empty element" if element == "" else f"the relative element {element!r}"
                return (
                    f"{var}={value!r} has {what}, which the system loader resolves against the "
                    "working directory"
                )
    return None


def _load() -> "tuple[ctypes.CDLL, str]":
    """Loads libcontractpin from exactly one of three places, in this order:

    1. ``CONTRACTPIN_LIB``, the path of a shared library: an explicit choice,
       nothing else is tried;
    2. the copy inside this package (the wheel bundles it);
    3. the system loader: ``ctypes.util.find_library("contractpin")``, then the
       SONAME ``libcontractpin.so.0`` (``make install``, with ``LD_LIBRARY_PATH``
       for a prefix the loader does not search).

    Never the working directory, and never a checkout found by walking up
    from it or from this file: importing contractpin inside an untrusted
    directory must not run a library planted there. The system loader is
    not asked when its search path would reach the working directory (an
    empty or relative element of ``LD_LIBRARY_PATH``; see
    :func:`_unsafe_search_path`): ``LibraryNotFound`` instead.

    The library found must then be a libcontractpin :func:`compatible` with
    :data:`BINDING_VERSION` with every function the binding declares
    (:class:`LibraryVersionError`, :class:`LibraryNotFound`).
    """
    env_lib = os.environ.get("CONTRACTPIN_LIB")
    if env_lib:
        if not os.path.isabs(env_lib):
            raise LibraryNotFound(f"contractpin: CONTRACTPIN_LIB must be an absolute path, not {env_lib!r}")
        if not os.path.isfile(env_lib):
            raise LibraryNotFound(f"contractpin: CONTRACTPIN_LIB={env_lib} is not a file")
        return _open(env_lib)
    bundled = Path(__file__).resolve().parent / _file_name()
    if bundled.is_file():
        return _open(str(bundled))
    tried = [str(bundled)]
    unsafe = _unsafe_search_path()
    if unsafe is not None:
        raise LibraryNotFound(
            f"contractpin: libcontractpin not found at {bundled}, and the system loader was not asked: "
            f"{unsafe}. Remove that element, or set CONTRACTPIN_LIB to the shared library's absolute path."
        )
    names = []
    found = ctypes.util.find_library("contractpin")
    if found:
        names.append(found)
    if sys.platform.startswith("linux"):
        names.append(_SONAME)
    for name in names:
        # A bare name (no slash): dlopen searches LD_LIBRARY_PATH, the
        # ld.so cache and the system directories, not the working directory.
        if os.sep in name:
            tried.append(f"{name} (skipped: find_library returned a path)")
            continue
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            tried.append(f"{name} (system loader: {e})")
    listed = "\n  ".join(tried)
    raise LibraryNotFound(
        "contractpin: libcontractpin not found. Install the contractpin wheel (it bundles the "
        "library), install the C library system-wide (`make install` in the contractpin "
        "repository), or set CONTRACTPIN_LIB to the shared library's absolute path. Tried:\n  "
        f"{listed}"
    )


lib, library_path = _load()

_u8p = ctypes.POINTER(ctypes.c_uint8)
_sizep = ctypes.POINTER(ctypes.c_size_t)
_status = ctypes.c_uint32


class Limits(ctypes.Structure):
    """struct contractpin_limits."""

    _fields_ = [
        ("max_depth", ctypes.c_uint32),
        ("max_input", ctypes.c_size_t),
        ("max_tools", ctypes.c_size_t),
    ]


class Sha256(ctypes.Structure):
    """struct contractpin_sha256: 128 bytes, aligned like uint64_t, private contents."""

    _fields_ = [("opaque", ctypes.c_uint64 * 16)]


# Every function of include/contractpin.h is declared below, the package's
# own calls and the rest (``lib`` is public): a function left to the ctypes
# defaults would return a C int and take unchecked arguments.
# tests/test_prototypes.py checks each declaration against the header.
def _proto(name: str, restype: Optional[type], *argtypes: type) -> None:
    try:
        fn = getattr(lib, name)
    except AttributeError as e:
        raise LibraryNotFound(
            f"contractpin: {library_path} has no function {name}: not a libcontractpin this binding "
            f"can use (it needs {_rule(BINDING_VERSION)}, built with the C ABI)",
            path=library_path,
        ) from e
    fn.restype = restype
    fn.argtypes = list(argtypes)


_bytes = ctypes.c_char_p  # input buffers (bytes or None)
_limitsp = ctypes.POINTER(Limits)
_vp = ctypes.c_void_p
_vpp = ctypes.POINTER(ctypes.c_void_p)

_proto("contractpin_version", ctypes.c_char_p)
_proto("contractpin_version_major", ctypes.c_uint32)
_proto("contractpin_version_minor", ctypes.c_uint32)
_proto("contractpin_version_patch", ctypes.c_uint32)


def _check_version() -> None:
    """The library's version against :data:`BINDING_VERSION`, before any
    other function is looked up (a library of another version may lack
    them, or give them other meanings)."""
    reported = lib.contractpin_version()
    text = reported.decode("utf-8", "replace") if reported else "(no version)"
    numbers = f"{lib.contractpin_version_major()}.{lib.contractpin_version_minor()}.{lib.contractpin_version_patch()}"
    if not compatible(numbers):
        raise LibraryVersionError(library_path, text if text == numbers else f"{text} ({numbers})", BINDING_VERSION)


_check_version()
_proto("contractpin_status_name", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_status_message", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_field_name", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_limits_default", Limits)
_proto("contractpin_canonicalize", _status, _bytes, ctypes.c_size_t, _u8p, ctypes.c_size_t, _sizep, _sizep)
_proto(
    "contractpin_canonicalize_with_limits",
    _status, _bytes, ctypes.c_size_t, _limitsp, _u8p, ctypes.c_size_t, _sizep, _sizep,
)
_proto("contractpin_tool_contract", _status, _bytes, ctypes.c_size_t, _u8p, ctypes.c_size_t, _sizep, _sizep)
_proto("contractpin_tool_digest", _status, _bytes, ctypes.c_size_t, ctypes.c_char_p, _sizep)
_proto("contractpin_tool_digest_bytes", _status, _bytes, ctypes.c_size_t, _u8p, _sizep)
_proto("contractpin_digest_to_text", _status, _u8p, ctypes.c_char_p)
_proto("contractpin_digest_tools_list", _status, _bytes, ctypes.c_size_t, _vpp, _sizep)
_proto("contractpin_digest_tools_list_with_limits", _status, _bytes, ctypes.c_size_t, _limitsp, _vpp, _sizep)
_proto("contractpin_server_free", None, _vp)
_proto("contractpin_server_digest", _status, _vp, _u8p)
_proto("contractpin_server_tool_count", ctypes.c_size_t, _vp)
_proto("contractpin_server_tool_name", _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_server_tool_digest", _status, _vp, ctypes.c_size_t, _u8p)
_proto("contractpin_server_tool_field_digest", _status, _vp, ctypes.c_size_t, ctypes.c_uint32, _u8p)
_proto("contractpin_server_tool_fields", _status, _vp, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint32))
_proto("contractpin_server_find_tool", _status, _vp, _bytes, ctypes.c_size_t, _sizep)
_proto(
    "contractpin_verify",
    _status, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t,
    ctypes.c_uint32, _vpp, _sizep,
)
_proto(
    "contractpin_verify_with_limits",
    _status, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t,
    ctypes.c_uint32, _limitsp, _vpp, _sizep,
)
_proto("contractpin_report_free", None, _vp)
_proto("contractpin_report_exit_code", ctypes.c_int32, _vp)
_proto("contractpin_report_tool_count", ctypes.c_size_t, _vp)
_proto("contractpin_report_counts", _status, _vp, _sizep, _sizep, _sizep, _sizep)
_proto(
    "contractpin_report_tool",
    _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep,
    ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
)
_proto("contractpin_report_tool_rename", _status, _vp, ctypes.c_size_t, _sizep, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_report_tool_pinned_digest", _status, _vp, ctypes.c_size_t, _u8p)
_proto("contractpin_report_tool_live_digest", _status, _vp, ctypes.c_size_t, _u8p)
_proto("contractpin_report_pinned_digest", _status, _vp, _u8p)
_proto("contractpin_report_live_digest", _status, _vp, _u8p)
_proto("contractpin_report_json", _status, _vp, _u8p, ctypes.c_size_t, _sizep)
_proto("contractpin_lock_parse", _status, _bytes, ctypes.c_size_t, _vpp, _vpp, _sizep)
_proto("contractpin_lock_free", None, _vp)
_proto("contractpin_lock_server_count", ctypes.c_size_t, _vp)
_proto("contractpin_lock_server_name", _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep)
_proto(
    "contractpin_lock_verify",
    _status, _vp, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, ctypes.c_uint32, _limitsp, _vpp, _sizep,
)
_proto(
    "contractpin_verify_server_with_limits",
    _status, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t,
    ctypes.c_uint32, _limitsp, _vpp, _sizep, ctypes.POINTER(ctypes.c_uint32),
)
_proto(
    "contractpin_lock_verify_server",
    _status, _vp, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t,
    ctypes.c_uint32, _limitsp, _vpp, _sizep, ctypes.POINTER(ctypes.c_uint32),
)
_proto("contractpin_report_instructions", _status, _vp, ctypes.POINTER(ctypes.c_uint32))
_proto("contractpin_report_instructions_pinned_digest", _status, _vp, _u8p)
_proto("contractpin_report_instructions_live_digest", _status, _vp, _u8p)
_proto("contractpin_report_version_changed", _status, _vp, ctypes.POINTER(ctypes.c_int32))
_proto("contractpin_lock_error_free", None, _vp)
_proto("contractpin_lock_error_status", _status, _vp)
_proto("contractpin_lock_error_offset", _status, _vp, _sizep)
_proto("contractpin_lock_error_path", _status, _vp, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_lock_error_detail", _status, _vp, ctypes.POINTER(_u8p), _sizep)
_proto(
    "contractpin_guard_page",
    _status, _vp, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, ctypes.c_uint32, _limitsp, _vpp, _sizep,
)
_proto("contractpin_guard_result_free", None, _vp)
_proto("contractpin_guard_result_bytes", _status, _vp, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_guard_result_passed_count", ctypes.c_size_t, _vp)
_proto("contractpin_guard_result_passed_name", _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_guard_result_event_count", ctypes.c_size_t, _vp)
_proto(
    "contractpin_guard_result_event",
    _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep,
    ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32), _u8p,
)
_proto("contractpin_guard_result_event_json", _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_guard_result_callable", ctypes.c_int32, _vp, _bytes, ctypes.c_size_t)
_proto(
    "contractpin_guard_instructions",
    _status, _vp, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, ctypes.c_uint32, _limitsp, _vpp, _sizep,
)
_proto("contractpin_guard_instructions_result_free", None, _vp)
_proto(
    "contractpin_guard_instructions_result_verdict",
    _status, _vp, ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_int32), _u8p,
    ctypes.POINTER(ctypes.c_int32),
)
_proto("contractpin_guard_instructions_result_bytes", _status, _vp, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_guard_instructions_result_event_json", _status, _vp, ctypes.POINTER(_u8p), _sizep)

# The tool-call gate (src/ffi/gate.rs): handles as void pointers, page kinds
# as uint32_t, a contractpin_refusal (a uint32_t enum) as c_uint32.
_proto("contractpin_gate_new", _status, _vpp)
_proto("contractpin_gate_free", None, _vp)
_proto("contractpin_gate_page", _status, _vp, _vp, ctypes.c_uint32)
_proto("contractpin_gate_refused", _status, _vp, ctypes.c_uint32)
_proto("contractpin_gate_list_changed", _status, _vp)
_proto("contractpin_gate_check", ctypes.c_uint32, _vp, _bytes, ctypes.c_size_t)
_proto("contractpin_refusal_name", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_refusal_message", ctypes.c_char_p, ctypes.c_uint32)

# The transport enforcer (src/ffi/enforcer.rs): enforcer and decision
# handles as void pointers, a contractpin_action (a uint32_t enum) as c_uint32.
_proto("contractpin_enforcer_new", _status, _vp, _bytes, ctypes.c_size_t, ctypes.c_uint32, _limitsp, _vpp)
_proto("contractpin_enforcer_free", None, _vp)
_proto("contractpin_enforcer_client", _status, _vp, _bytes, ctypes.c_size_t, _vpp)
_proto("contractpin_enforcer_server", _status, _vp, _bytes, ctypes.c_size_t, _vpp)
_proto("contractpin_enforcer_summary", _status, _vp, _vpp)
_proto("contractpin_decision_free", None, _vp)
_proto("contractpin_decision_action", ctypes.c_uint32, _vp)
_proto("contractpin_decision_bytes", _status, _vp, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_decision_reply", _status, _vp, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_decision_event_count", ctypes.c_size_t, _vp)
_proto("contractpin_decision_event_json", _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep)

_sha256p = ctypes.POINTER(Sha256)
_proto("contractpin_sha256_init", _status, _sha256p)
_proto("contractpin_sha256_update", _status, _sha256p, _bytes, ctypes.c_size_t)
_proto("contractpin_sha256_final", _status, _sha256p, _u8p)
_proto("contractpin_sha256_digest", _status, _bytes, ctypes.c_size_t, _u8p)
_proto("contractpin_sha256_backend", ctypes.c_char_p)
