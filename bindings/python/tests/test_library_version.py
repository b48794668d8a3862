"""The library `import contractpin` loads must be a libcontractpin of a
version the binding is written for (contractpin/_lib.py BINDING_VERSION,
compatible()), with every function the binding declares; anything else is
LibraryNotFound (LibraryVersionError for a version), never a binding that
runs against another ABI or a raw AttributeError.

The libraries are built here with the C compiler: shims that report another
version and forward every other function to the library under test (or
forward nothing). Each import runs in a fresh interpreter with
CONTRACTPIN_LIB naming the shim.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest

import contractpin
from contractpin import _lib
from conftest import ROOT

PACKAGE = Path(contractpin.__file__).resolve().parent
LOADED = Path(contractpin.library_path)

# Reports VERSION; with FORWARD linked against the real library (dlsym on
# the shim's handle finds every other function there), without it a library
# that has only the version functions.
SHIM_C = r"""
#include <stdint.h>
const char *contractpin_version(void) { return VERSION; }
uint32_t contractpin_version_major(void) { return MAJOR; }
uint32_t contractpin_version_minor(void) { return MINOR; }
uint32_t contractpin_version_patch(void) { return PATCH; }
"""


def _cc() -> str:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("these tests build shim libraries: a C compiler (cc or gcc) must be on PATH")
    return cc


def _real_library(tmp: Path) -> Path:
    """A copy of the library under test named by its SONAME, to link against."""
    real = tmp / "real"
    real.mkdir(exist_ok=True)
    dest = real / "libcontractpin.so.0"
    if not dest.exists():
        if not LOADED.is_absolute():
            pytest.fail(f"the library under test was loaded by name ({LOADED}); set CONTRACTPIN_LIB")
        shutil.copyfile(LOADED, dest)
    return real


def _shim(tmp: Path, version: str, forward: bool = True, source: str = SHIM_C) -> Path:
    major, minor, patch = version.split(".")
    src = tmp / f"shim-{version}.c"
    src.write_text(source)
    out = tmp / f"libcontractpin-{version}{'' if forward else '-alone'}.so"
    cmd = [_cc(), "-shared", "-fPIC", f'-DVERSION="{version}"', f"-DMAJOR={major}", f"-DMINOR={minor}",
           f"-DPATCH={patch}", "-o", str(out), str(src)]
    if forward:
        # Needed although the shim calls nothing in it (--no-as-needed).
        real = _real_library(tmp)
        cmd += ["-Wl,--no-as-needed", f"-L{real}", "-l:libcontractpin.so.0", f"-Wl,-rpath,{real}"]
    subprocess.run(cmd, check=True)
    return out


def _import(tmp: Path, library: Path, code: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
    env: Dict[str, str] = {
        k: v for k, v in os.environ.items() if k not in ("CONTRACTPIN_LIB", "LD_LIBRARY_PATH", "LD_PRELOAD")
    }
    env["PYTHONPATH"] = str(PACKAGE.parent)
    env["CONTRACTPIN_LIB"] = str(library)
    code = code or (
        "import contractpin\n"
        "print(contractpin.version())\n"
        "print(contractpin.canonicalize(b'{\"b\":1,\"a\":2}').decode())\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env, capture_output=True, text=True)


def _bump(version: str, part: int) -> str:
    numbers = [int(n) for n in version.split(".")]
    numbers[part] += 1
    for later in range(part + 1, 3):
        numbers[later] = 0
    return ".".join(map(str, numbers))


def test_the_binding_version_is_the_release_version() -> None:
    """BINDING_VERSION is the header's, pyproject.toml's and Cargo.toml's."""
    header = (ROOT / "include" / "contractpin.h").read_text()
    match = re.search(r'#define CONTRACTPIN_VERSION_STRING "([^"]+)"', header)
    assert match is not None
    assert _lib.BINDING_VERSION == match.group(1)
    pyproject = (ROOT / "bindings" / "python" / "pyproject.toml").read_text()
    assert f'\nversion = "{_lib.BINDING_VERSION}"\n' in pyproject
    assert f'\nversion = "{_lib.BINDING_VERSION}"\n' in (ROOT / "Cargo.toml").read_text()
    # The library under test is one the binding accepts.
    assert _lib.compatible(contractpin.version())


@pytest.mark.parametrize(
    "library,binding,ok",
    [
        ("0.1.0", "0.1.0", True),
        ("0.1.7", "0.1.0", True),  # the patch is not compared
        ("0.1.0", "0.1.3", True),
        ("0.2.0", "0.1.0", False),  # 0.x: every minor release may break the ABI
        ("0.0.9", "0.1.0", False),
        ("1.1.0", "0.1.0", False),
        ("1.0.0", "1.0.0", True),
        ("1.3.2", "1.2.0", True),  # 1.x: a newer minor only adds functions
        ("1.1.9", "1.2.0", False),  # an older one may lack some
        ("2.0.0", "1.2.0", False),
        ("0.1.0", "1.0.0", False),
    ],
)
def test_compatible(library: str, binding: str, ok: bool) -> None:
    assert _lib.compatible(library, binding) is ok


@pytest.mark.parametrize("part", [0, 1])
def test_a_library_of_another_version_is_refused(tmp_path: Path, part: int) -> None:
    other = _bump(_lib.BINDING_VERSION, part)
    shim = _shim(tmp_path, other)
    result = _import(tmp_path, shim)
    assert result.returncode != 0, result.stdout
    last = result.stderr.strip().splitlines()[-1]
    # Both versions are named.
    assert last.startswith(f"contractpin._lib.LibraryVersionError: contractpin: {shim} is libcontractpin {other}, "
                           "but this binding needs"), result.stderr
    assert f"(the binding is {_lib.BINDING_VERSION})" in last, result.stderr
    # An ImportError, a LibraryNotFound, with both versions as attributes.
    code = (
        "try:\n"
        "    import contractpin\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, type(e).__mro__[1].__name__, e.library_version, e.binding_version)\n"
    )
    result = _import(tmp_path, shim, code)
    assert result.stdout.split() == ["LibraryVersionError", "LibraryNotFound", other, _lib.BINDING_VERSION], (
        result.stdout + result.stderr
    )


def test_a_library_of_a_compatible_version_is_used(tmp_path: Path) -> None:
    """Another patch version passes; the shim forwards the rest to the real library."""
    other = _bump(_lib.BINDING_VERSION, 2)
    result = _import(tmp_path, _shim(tmp_path, other))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [other, '{"a":2,"b":1}']


def test_a_library_missing_a_function_is_refused(tmp_path: Path) -> None:
    """The right version but not the whole ABI: LibraryNotFound naming the
    missing function, not AttributeError."""
    result = _import(tmp_path, _shim(tmp_path, _lib.BINDING_VERSION, forward=False))
    assert result.returncode != 0, result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("contractpin._lib.LibraryNotFound: ") and "has no function contractpin_status_name:" in last, (
        result.stderr
    )
    # A shared library that is not libcontractpin at all.
    result = _import(tmp_path, _shim(tmp_path, "7.7.7", forward=False, source="int unrelated;\n"))
    last = result.stderr.strip().splitlines()[-1]
    assert result.returncode != 0, result.stdout
    assert last.startswith("contractpin._lib.LibraryNotFound: ") and "has no function contractpin_version:" in last, (
        result.stderr
    )
