"""Every function of include/contractpin.h has its ctypes prototype in
contractpin._lib, and the prototype matches the header's.

``_lib.lib`` is public: a function left with ctypes' defaults (no
``argtypes``, ``restype`` a C int) would truncate a returned pointer or
``size_t`` and pass unchecked arguments. The expected ctypes type of each
parameter and return type is derived from its C type in the header.
"""

import ctypes
import hashlib
import re
from typing import Dict, List, Optional, Tuple

import pytest

import contractpin
from contractpin import _lib
from conftest import ROOT

HEADER = ROOT / "include" / "contractpin.h"

_u8p = ctypes.POINTER(ctypes.c_uint8)

# C type -> the ctypes types a prototype may declare for it.
SCALARS: Dict[str, Tuple[Optional[type], ...]] = {
    "void": (None,),
    "size_t": (ctypes.c_size_t,),
    "uint32_t": (ctypes.c_uint32,),
    "int32_t": (ctypes.c_int32,),
    "contractpin_status": (ctypes.c_uint32,),
    "contractpin_refusal": (ctypes.c_uint32,),
    "contractpin_action": (ctypes.c_uint32,),
    "const char *": (ctypes.c_char_p,),
    "char *": (ctypes.c_char_p,),
    # Input bytes: from Python bytes (c_char_p) or a ctypes buffer.
    "const uint8_t *": (ctypes.c_char_p, _u8p),
    "uint8_t *": (_u8p,),
    "const uint8_t **": (ctypes.POINTER(_u8p),),
    "size_t *": (ctypes.POINTER(ctypes.c_size_t),),
    "uint32_t *": (ctypes.POINTER(ctypes.c_uint32),),
    "int32_t *": (ctypes.POINTER(ctypes.c_int32),),
    "struct contractpin_limits": (_lib.Limits,),
    "const struct contractpin_limits *": (ctypes.POINTER(_lib.Limits),),
    "struct contractpin_sha256 *": (ctypes.POINTER(_lib.Sha256),),
}
# The enums of the header are uint32_t typedefs.
ENUMS = ("contractpin_status", "contractpin_guard_status", "contractpin_instructions_status", "contractpin_input")


def expected_types(c_type: str) -> Tuple[Optional[type], ...]:
    c_type = " ".join(c_type.split())
    if c_type in SCALARS:
        return SCALARS[c_type]
    for enum in ENUMS:
        if c_type == f"{enum} *":
            return (ctypes.POINTER(ctypes.c_uint32),)
    # The opaque library objects: handles as void pointers.
    if re.fullmatch(r"(const )?struct contractpin_\w+ \*", c_type):
        return (ctypes.c_void_p,)
    if re.fullmatch(r"struct contractpin_\w+ \*\*", c_type):
        return (ctypes.POINTER(ctypes.c_void_p),)
    raise AssertionError(f"no ctypes mapping for the C type {c_type!r}: add one to this test")


def header_functions() -> List[Tuple[str, str, List[str]]]:
    """(name, return type, parameter types) of every function the header declares."""
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    out = []
    for m in re.finditer(r"^([A-Za-z_][\w \*]*?)\s*\b(contractpin_\w+)\s*\(([^)]*)\)\s*;", text, re.M):
        ret, name, params = m.group(1), m.group(2), " ".join(m.group(3).split())
        types = [] if params in ("", "void") else [re.sub(r"\s*\b\w+$", "", p.strip()) for p in params.split(",")]
        out.append((name, ret, types))
    return out


FUNCTIONS = header_functions()


def test_the_header_parses():
    # The exported functions: as many as `make -C bindings/c symbols` counts.
    # Guards against a header change that would make the parser above miss some.
    declared = set(re.findall(r"\b(contractpin_[a-z0-9_]+)\(", HEADER.read_text()))
    assert {name for name, _, _ in FUNCTIONS} == declared
    assert len(FUNCTIONS) > 60


@pytest.mark.parametrize("name,ret,params", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_every_function_has_its_prototype(name, ret, params):
    fn = getattr(_lib.lib, name)
    assert fn.argtypes is not None, f"{name}: no argtypes declared in contractpin/_lib.py"
    assert len(fn.argtypes) == len(params), f"{name}: {len(fn.argtypes)} argtypes, the header has {len(params)}"
    for i, (declared, c_type) in enumerate(zip(fn.argtypes, params)):
        assert declared in expected_types(c_type), f"{name}: parameter {i} ({c_type}) declared {declared}"
    assert fn.restype in expected_types(ret), f"{name}: returns {ret}, declared {fn.restype}"


def test_struct_layouts():
    size = int(re.search(r"#define CONTRACTPIN_SHA256_STATE_SIZE (\d+)", HEADER.read_text()).group(1))
    assert ctypes.sizeof(_lib.Sha256) == size
    assert ctypes.alignment(_lib.Sha256) == ctypes.alignment(ctypes.c_uint64)
    assert [(f, t) for f, t in _lib.Limits._fields_] == [
        ("max_depth", ctypes.c_uint32),
        ("max_input", ctypes.c_size_t),
        ("max_tools", ctypes.c_size_t),
    ]


def test_the_functions_the_package_does_not_wrap_work():
    lib = _lib.lib
    major, minor, patch = (int(x) for x in contractpin.version().split("-")[0].split("+")[0].split("."))
    assert (lib.contractpin_version_major(), lib.contractpin_version_minor(), lib.contractpin_version_patch()) == (
        major,
        minor,
        patch,
    )
    assert lib.contractpin_sha256_backend() in (b"sha-ni", b"arm-sha2", b"portable")

    message = b"abc" * 1000
    state = _lib.Sha256()
    out = (ctypes.c_uint8 * 32)()
    assert lib.contractpin_sha256_init(ctypes.byref(state)) == 0
    assert lib.contractpin_sha256_update(ctypes.byref(state), message[:1001], 1001) == 0
    assert lib.contractpin_sha256_update(ctypes.byref(state), message[1001:], len(message) - 1001) == 0
    assert lib.contractpin_sha256_final(ctypes.byref(state), out) == 0
    assert bytes(out) == hashlib.sha256(message).digest()
    assert lib.contractpin_sha256_digest(message, len(message), out) == 0
    assert bytes(out) == hashlib.sha256(message).digest()
    zeroed = _lib.Sha256()
    assert lib.contractpin_sha256_update(ctypes.byref(zeroed), b"x", 1) == 101  # invalid-argument

    doc = b'{"b":1,"a":2}'
    buf = (ctypes.c_uint8 * 64)()
    n, off = ctypes.c_size_t(0), ctypes.c_size_t(0)
    assert lib.contractpin_canonicalize(doc, len(doc), buf, len(buf), ctypes.byref(n), ctypes.byref(off)) == 0
    assert bytes(buf[: n.value]) == b'{"a":2,"b":1}'

    tool = b'{"name":"echo"}'
    assert lib.contractpin_tool_digest_bytes(tool, len(tool), out, ctypes.byref(off)) == 0
    assert "sha256:" + bytes(out).hex() == contractpin.tool_digest(tool)
