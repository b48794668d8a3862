"""Finding libcontractpin and declaring the C prototypes (ctypes)."""

import ctypes
import ctypes.util
import os
import sys
from pathlib import Path
from typing import List, Optional

__all__ = ["lib", "library_path", "LibraryNotFound"]


class LibraryNotFound(ImportError):
    """libcontractpin could not be located or loaded."""


def _file_name() -> str:
    if sys.platform == "darwin":
        return "libcontractpin.dylib"
    if sys.platform == "win32":
        return "contractpin.dll"
    return "libcontractpin.so"


def _repo_candidates() -> List[Path]:
    """target/{release,debug} of a contractpin checkout above this file or the cwd."""
    found: List[Path] = []
    starts = [Path(__file__).resolve().parent, Path.cwd().resolve()]
    for start in starts:
        for base in [start, *start.parents]:
            if (base / "Cargo.toml").is_file() and (base / "include" / "contractpin.h").is_file():
                for profile in ("release", "debug"):
                    found.append(base / "target" / profile / _file_name())
                break
    return found


def _candidates() -> List[Path]:
    env_lib = os.environ.get("CONTRACTPIN_LIB")
    if env_lib:
        # An explicit choice: nothing else is tried.
        return [Path(env_lib)]
    found: List[Path] = []
    env_dir = os.environ.get("CONTRACTPIN_LIB_DIR")
    if env_dir:
        found.append(Path(env_dir) / _file_name())
    found.extend(_repo_candidates())
    return found


def _load() -> "tuple[ctypes.CDLL, str]":
    tried = _candidates()
    for path in tried:
        if path.is_file():
            try:
                return ctypes.CDLL(str(path)), str(path)
            except OSError as e:
                raise LibraryNotFound(f"contractpin: cannot load {path}: {e}") from e
    if not os.environ.get("CONTRACTPIN_LIB"):
        system = ctypes.util.find_library("contractpin")
        if system:
            try:
                return ctypes.CDLL(system), system
            except OSError:
                pass
    listed = "\n  ".join(str(p) for p in tried) or "(no candidates)"
    raise LibraryNotFound(
        "contractpin: libcontractpin not found. Build it with `cargo build --release` in the "
        "contractpin repository, or set CONTRACTPIN_LIB to the shared library's path "
        f"(or CONTRACTPIN_LIB_DIR to its directory). Tried:\n  {listed}"
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


def _proto(name: str, restype: Optional[type], *argtypes: type) -> None:
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_bytes = ctypes.c_char_p  # input buffers (bytes or None)
_limitsp = ctypes.POINTER(Limits)
_vp = ctypes.c_void_p
_vpp = ctypes.POINTER(ctypes.c_void_p)

_proto("contractpin_version", ctypes.c_char_p)
_proto("contractpin_status_name", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_status_message", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_field_name", ctypes.c_char_p, ctypes.c_uint32)
_proto("contractpin_limits_default", Limits)
_proto(
    "contractpin_canonicalize_with_limits",
    _status, _bytes, ctypes.c_size_t, _limitsp, _u8p, ctypes.c_size_t, _sizep, _sizep,
)
_proto("contractpin_tool_contract", _status, _bytes, ctypes.c_size_t, _u8p, ctypes.c_size_t, _sizep, _sizep)
_proto("contractpin_tool_digest", _status, _bytes, ctypes.c_size_t, ctypes.c_char_p, _sizep)
_proto("contractpin_digest_to_text", _status, _u8p, ctypes.c_char_p)
_proto("contractpin_digest_tools_list_with_limits", _status, _bytes, ctypes.c_size_t, _limitsp, _vpp, _sizep)
_proto("contractpin_server_free", None, _vp)
_proto("contractpin_server_digest", _status, _vp, _u8p)
_proto("contractpin_server_tool_count", ctypes.c_size_t, _vp)
_proto("contractpin_server_tool_name", _status, _vp, ctypes.c_size_t, ctypes.POINTER(_u8p), _sizep)
_proto("contractpin_server_tool_digest", _status, _vp, ctypes.c_size_t, _u8p)
_proto("contractpin_server_tool_field_digest", _status, _vp, ctypes.c_size_t, ctypes.c_uint32, _u8p)
_proto(
    "contractpin_verify_with_limits",
    _status, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t, _bytes, ctypes.c_size_t,
    ctypes.c_uint32, _limitsp, _vpp, _sizep,
)
_proto("contractpin_report_free", None, _vp)
_proto("contractpin_report_exit_code", ctypes.c_int32, _vp)
_proto("contractpin_report_tool_count", ctypes.c_size_t, _vp)
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
