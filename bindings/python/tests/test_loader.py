"""Where `import contractpin` loads libcontractpin from (contractpin/_lib.py).

Only three places: CONTRACTPIN_LIB (an absolute path), the copy inside the
package, or the system loader. Never the working directory or a contractpin
checkout around it: a library planted there runs code at load time (its ELF
constructors), so importing contractpin inside an untrusted directory (a
cloned repository, a CI workspace) must not load it.

Each import runs in a fresh interpreter, in a planted directory, against the
same installed package as this test process.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest

import contractpin

PACKAGE = Path(contractpin.__file__).resolve().parent
BUNDLED = PACKAGE / "libcontractpin.so"
LOADED = Path(contractpin.library_path)

# A shared library whose constructor writes a marker file: proof that it was loaded.
PLANTED_C = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen(MARKER, "a");
    if (f) { fputs("planted library loaded\n", f); fclose(f); }
}
"""


def _plant(tmp: Path) -> Path:
    """A fake contractpin checkout in tmp, planted libraries everywhere the
    old loader looked (and in the working directory itself); returns the
    marker path."""
    marker = tmp / "MARKER"
    src = tmp / "planted.c"
    src.write_text(PLANTED_C)
    lib = tmp / "planted.so"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        subprocess.run(
            [cc, "-shared", "-fPIC", f'-DMARKER="{marker}"', "-o", str(lib), str(src)], check=True
        )
    else:
        # Without a compiler: a file that is not a library. Loading it fails,
        # so a loader that tries it breaks the import.
        lib.write_bytes(b"not an ELF file\n")
    (tmp / "Cargo.toml").write_text('[package]\nname = "contractpin"\nversion = "0.1.0"\n')
    (tmp / "include").mkdir()
    (tmp / "include" / "contractpin.h").write_text("/* planted */\n")
    for d in ("target/release", "target/debug", "target/lib/release", "target/lib/debug", "."):
        (tmp / d).mkdir(parents=True, exist_ok=True)
        for name in ("libcontractpin.so", "libcontractpin.so.0"):
            shutil.copyfile(lib, tmp / d / name)
    (tmp / "sub" / "dir").mkdir(parents=True)
    return marker


def _env(pythonpath: Path, **extra: str) -> Dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CONTRACTPIN_LIB", "CONTRACTPIN_LIB_DIR", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH")
    }
    env["PYTHONPATH"] = str(pythonpath)
    env.update(extra)
    return env


def _import(cwd: Path, env: Dict[str, str]) -> "subprocess.CompletedProcess[str]":
    code = "import contractpin; print(contractpin.library_path); print(contractpin.version())"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)


def _package_copy(tmp: Path) -> Path:
    """The package's Python files without a bundled library; returns the sys.path entry."""
    dest = tmp / "site" / "contractpin"
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("*.so*", "__pycache__"))
    return dest.parent


@pytest.mark.parametrize("where", [".", "sub/dir", "target/release"])
def test_planted_library_in_the_working_directory_is_not_loaded(tmp_path: Path, where: str) -> None:
    marker = _plant(tmp_path)
    # CONTRACTPIN_LIB_DIR was honoured by the old loader; it is ignored now.
    env = _env(PACKAGE.parent, CONTRACTPIN_LIB_DIR=str(tmp_path / "target" / "release"))
    result = _import(tmp_path / where, env)
    assert not marker.exists(), f"the planted library was loaded: {result.stdout}{result.stderr}"
    if BUNDLED.is_file():
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[0] == str(BUNDLED)
    else:
        # No bundled copy (an editable install, say): the system loader, or a clear error.
        assert result.returncode == 0 or "LibraryNotFound" in result.stderr, result.stderr
        assert str(tmp_path) not in result.stdout


def test_without_a_bundled_copy_the_working_directory_is_not_searched(tmp_path: Path) -> None:
    marker = _plant(tmp_path)
    site = _package_copy(tmp_path)
    result = _import(tmp_path, _env(site))
    assert not marker.exists(), f"the planted library was loaded: {result.stdout}{result.stderr}"
    if result.returncode == 0:
        # Installed system-wide on this machine: whatever the loader found is not in tmp.
        assert str(tmp_path) not in result.stdout
    else:
        assert "LibraryNotFound" in result.stderr and "libcontractpin not found" in result.stderr


def test_system_loader_finds_the_soname_on_ld_library_path(tmp_path: Path) -> None:
    site = _package_copy(tmp_path)
    libdir = tmp_path / "prefix" / "lib"
    libdir.mkdir(parents=True)
    shutil.copyfile(LOADED, libdir / "libcontractpin.so.0")
    work = tmp_path / "work"
    work.mkdir()
    result = _import(work, _env(site, LD_LIBRARY_PATH=str(libdir)))
    assert result.returncode == 0, result.stderr
    path, version = result.stdout.splitlines()
    assert path == "libcontractpin.so.0" and version == contractpin.version()


def test_contractpin_lib_is_an_explicit_choice(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "libcontractpin-copy.so"
    copy.parent.mkdir()
    shutil.copyfile(LOADED, copy)
    result = _import(tmp_path, _env(PACKAGE.parent, CONTRACTPIN_LIB=str(copy)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == str(copy)
    # A missing file is an error, not a fallback to the bundled copy.
    result = _import(tmp_path, _env(PACKAGE.parent, CONTRACTPIN_LIB=str(tmp_path / "missing.so")))
    assert result.returncode != 0 and "is not a file" in result.stderr
    # A relative path would be resolved against the working directory: refused.
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    marker = _plant(cwd)
    result = _import(cwd, _env(PACKAGE.parent, CONTRACTPIN_LIB="target/release/libcontractpin.so"))
    assert result.returncode != 0 and "absolute path" in result.stderr
    assert not marker.exists()


def test_the_loaded_library_is_reported() -> None:
    env_lib: Optional[str] = os.environ.get("CONTRACTPIN_LIB")
    if env_lib:
        assert contractpin.library_path == env_lib
    elif BUNDLED.is_file():
        assert contractpin.library_path == str(BUNDLED)
    else:
        assert contractpin.library_path in ("libcontractpin.so.0", "libcontractpin.so")


@pytest.mark.parametrize(
    "value,why",
    [
        (":", "an empty element"),
        ("{lib}:", "an empty element"),
        (":{lib}", "an empty element"),
        ("{lib}::{lib}", "an empty element"),
        ("{lib};", "an empty element"),  # glibc splits on ';' too
        (".", "the relative element '.'"),
        ("{lib}:sub/dir", "the relative element 'sub/dir'"),
    ],
)
def test_the_system_loader_is_not_asked_when_its_path_reaches_the_working_directory(
    tmp_path: Path, value: str, why: str
) -> None:
    """ld.so reads an empty element of LD_LIBRARY_PATH as the working
    directory (and a relative one against it): the SONAME fallback would
    load the library planted there (an adversarial review found it did),
    even behind a directory that holds the real library, when that one is
    missing. Refused with the cause named."""
    marker = _plant(tmp_path)
    for d in ("sub/dir",):
        for name in ("libcontractpin.so", "libcontractpin.so.0"):
            shutil.copyfile(tmp_path / "planted.so", tmp_path / d / name)
    site = _package_copy(tmp_path)
    empty = tmp_path / "empty-lib"  # an absolute directory without the library
    empty.mkdir()
    value = value.format(lib=empty)
    result = _import(tmp_path, _env(site, LD_LIBRARY_PATH=value))
    assert not marker.exists(), f"the planted library was loaded: {result.stdout}{result.stderr}"
    assert result.returncode != 0, result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("contractpin._lib.LibraryNotFound: "), result.stderr
    assert f"LD_LIBRARY_PATH={value!r} has {why}, which the system loader resolves against the working directory" in last


def test_an_empty_ld_library_path_is_not_a_search_path(tmp_path: Path) -> None:
    """LD_LIBRARY_PATH="" is not searched by ld.so (no element): the system
    loader is asked as without it, and nothing is loaded from here."""
    marker = _plant(tmp_path)
    site = _package_copy(tmp_path)
    result = _import(tmp_path, _env(site, LD_LIBRARY_PATH=""))
    assert not marker.exists(), f"the planted library was loaded: {result.stdout}{result.stderr}"
    assert "working directory" not in result.stderr, result.stderr
    if result.returncode != 0:
        assert "libcontractpin not found" in result.stderr and "system loader:" in result.stderr, result.stderr
