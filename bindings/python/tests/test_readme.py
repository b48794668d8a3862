"""The README example runs (from the repository root, as written)."""

import contextlib
import io
import os
import re

from conftest import ROOT


def test_readme_example():
    text = (ROOT / "bindings" / "python" / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "no python example in README.md"
    old = os.getcwd()
    os.chdir(ROOT)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            for block in blocks:
                exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(old)
    assert out.getvalue() == "unchanged add []\ndrifted echo ['description']\n"
