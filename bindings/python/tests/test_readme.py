"""The README examples: the plain ones run (from the repository root, as
written); an `# excerpt of PATH` block is checked line for line against that
file, which another suite runs (bindings/python/tests_mcp)."""

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
    excerpts = 0
    try:
        with contextlib.redirect_stdout(out):
            for block in blocks:
                lines = block.rstrip("\n").split("\n")
                m = re.match(r"^# excerpt of (\S+)$", lines[0])
                if m:
                    source = (ROOT / m.group(1)).read_text().split("\n")
                    body = lines[1:]
                    assert any(source[i : i + len(body)] == body for i in range(len(source))), m.group(1)
                    excerpts += 1
                    continue
                exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(old)
    assert excerpts == 1
    assert out.getvalue() == (
        "unchanged add []\ndrifted echo ['description']\n"  # verify
        "drifted echo ['description']\n"  # guard_page
    )
