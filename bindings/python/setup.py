"""Build steps of the contractpin wheel and sdist (metadata: pyproject.toml).

The wheel holds the ctypes package and the native library,
``contractpin/libcontractpin.so``, built by ``scripts/build-lib.sh`` (the C ABI
only: ``cargo rustc --release --lib --no-default-features --features ffi,std``).
It is tagged ``py3-none-<platform>``: any Python 3 (ctypes, no extension
module, no Python ABI), one OS and CPU. For PyPI, ``auditwheel repair --plat
manylinux_2_34_x86_64`` retags the built wheel (requirements-repair.txt,
README.md); it changes no file but the wheel's WHEEL and RECORD.

- ``python -m build --wheel bindings/python`` (from a checkout) runs
  ``../../scripts/build-lib.sh``;
- ``python -m build --sdist bindings/python`` copies the Rust sources the
  library needs into the sdist's ``rust/`` directory (the workspace manifests,
  ``Cargo.lock``, ``src/``, ``include/``, the build script), so that
  ``pip install contractpin-X.tar.gz`` builds the library with cargo
  (``--locked``; no network if the crates are in the cargo cache, or set
  ``CARGO_NET_OFFLINE=true``);
- ``CONTRACTPIN_PREBUILT_LIB=/path/to/libcontractpin.so`` bundles an already
  built library instead of running cargo (scripts/test-bindings.sh does, to
  test the library it built).

The bundled copy is stripped (``strip --strip-unneeded``) when ``strip`` is on
PATH. Linux only (the SONAME and the ``.so`` name).
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist as _sdist
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
LIB_NAME = "libcontractpin.so"
# In the sdist the Rust sources sit here; in a checkout they are two levels up.
SDIST_RUST = "rust"


def _log(message: str) -> None:
    print(f"contractpin build: {message}", file=sys.stderr, flush=True)


def _rust_tree() -> Path:
    """The directory holding Cargo.toml and scripts/build-lib.sh."""
    for tree in (HERE / SDIST_RUST, HERE.parent.parent):
        if (tree / "Cargo.toml").is_file() and (tree / "scripts" / "build-lib.sh").is_file():
            return tree
    raise SystemExit(
        f"contractpin build: no Rust sources found (neither {HERE / SDIST_RUST} nor a contractpin "
        "checkout around bindings/python); set CONTRACTPIN_PREBUILT_LIB to a built libcontractpin.so"
    )


def _native_library() -> Path:
    prebuilt = os.environ.get("CONTRACTPIN_PREBUILT_LIB")
    if prebuilt:
        path = Path(prebuilt)
        if not path.is_file():
            raise SystemExit(f"contractpin build: CONTRACTPIN_PREBUILT_LIB={prebuilt} is not a file")
        _log(f"bundling the prebuilt {path}")
        return path
    tree = _rust_tree()
    script = tree / "scripts" / "build-lib.sh"
    _log(f"building the library: bash {script} --release")
    result = subprocess.run(["bash", str(script), "--release"], stdout=subprocess.PIPE, check=False)
    if result.returncode != 0:
        raise SystemExit(f"contractpin build: {script} failed ({result.returncode})")
    out = Path(result.stdout.decode().strip().splitlines()[-1])
    return out / LIB_NAME


class build_py(_build_py):
    """Adds libcontractpin.so to the package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            _log("editable install: no library bundled (set CONTRACTPIN_LIB)")
            return
        lib = _native_library()
        dest = Path(self.build_lib) / "contractpin" / LIB_NAME
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib, dest)
        os.chmod(dest, 0o755)
        strip = shutil.which("strip")
        if strip:
            subprocess.run([strip, "--strip-unneeded", str(dest)], check=True)
        else:
            _log("strip not found: the bundled library keeps its debug information")
        _log(f"bundled {dest} ({dest.stat().st_size} bytes)")


class BinaryDistribution(Distribution):
    """A platform wheel: the package holds a native library."""

    def has_ext_modules(self) -> bool:
        return True


class bdist_wheel(_bdist_wheel):
    """Tagged py3-none-<platform>: ctypes needs no particular Python ABI."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> "tuple[str, str, str]":
        _, _, platform = super().get_tag()
        return "py3", "none", platform


def _git_files(repo: Path, paths: List[str]) -> List[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-z", "--", *paths], stdout=subprocess.PIPE, check=True
    ).stdout.decode()
    return [p for p in out.split("\0") if p]


def _declared_tests(manifest: Path) -> List[str]:
    """The names of the `[[test]]` targets a manifest declares (each at the
    default path, tests/NAME.rs)."""
    text = manifest.read_text(encoding="utf-8")
    return re.findall(r'^\[\[test\]\]\s*\nname\s*=\s*"([^"]+)"', text, flags=re.M)


def _rust_sources(repo: Path) -> List[str]:
    """The files of a checkout that `cargo rustc --lib` of the root package needs.

    cargo loads every workspace member's manifest (and their target files) even
    to build one package, so each member directory is included; of the root
    package, the manifest, the lock file, the library sources, the header, the
    bench and test targets Cargo.toml declares (cargo refuses a manifest whose
    declared targets are missing), and the build script.
    """
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
            cwd=repo,
            stdout=subprocess.PIPE,
            check=True,
        ).stdout
    )
    root = repo.resolve()
    paths = ["Cargo.toml", "Cargo.lock", "LICENSE", "build.rs", "src", "include", "benches", "scripts/build-lib.sh"]
    paths += [f"tests/{name}.rs" for name in _declared_tests(repo / "Cargo.toml")]
    for package in meta["packages"]:
        member = Path(package["manifest_path"]).resolve().parent
        if member != root:
            paths.append(member.relative_to(root).as_posix())
    files = _git_files(repo, paths)
    for required in ("Cargo.toml", "Cargo.lock", "src/lib.rs", "scripts/build-lib.sh"):
        if required not in files:
            raise SystemExit(f"contractpin sdist: {required} is not tracked by git in {repo}")
    return files


class sdist(_sdist):
    """Adds the Rust sources under rust/."""

    def make_release_tree(self, base_dir: str, files: List[str]) -> None:
        super().make_release_tree(base_dir, files)
        dest = Path(base_dir) / SDIST_RUST
        if (HERE / SDIST_RUST / "Cargo.toml").is_file():
            # An sdist made from an unpacked sdist.
            shutil.copytree(HERE / SDIST_RUST, dest, ignore=shutil.ignore_patterns("target"))
            return
        repo = HERE.parent.parent
        sources = _rust_sources(repo)
        for rel in sources:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / rel, target)
        _log(f"sdist: {len(sources)} Rust source files under {SDIST_RUST}/")


setup(
    distclass=BinaryDistribution,
    cmdclass={"build_py": build_py, "bdist_wheel": bdist_wheel, "sdist": sdist},
)
