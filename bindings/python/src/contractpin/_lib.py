"""Finding libcontractpin and declaring the C prototypes (ctypes)."""

import ctypes
import ctypes.util
import os
import sys
from pathlib import Path
from typing import Optional

__all__ = ["lib", "library_path", "LibraryNotFound"]


class LibraryNotFound(ImportError):
    """libcontractpin could not be located or loaded."""


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
    directory must not run a library planted there.
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
    fn = getattr(lib, name)
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

_sha256p = ctypes.POINTER(Sha256)
_proto("contractpin_sha256_init", _status, _sha256p)
_proto("contractpin_sha256_update", _status, _sha256p, _bytes, ctypes.c_size_t)
_proto("contractpin_sha256_final", _status, _sha256p, _u8p)
_proto("contractpin_sha256_digest", _status, _bytes, ctypes.c_size_t, _u8p)
_proto("contractpin_sha256_backend", ctypes.c_char_p)
