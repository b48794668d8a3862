#!/usr/bin/env python3
"""Checks that every README.md code block that starts with an
`excerpt of <path>` comment is, line for line, a contiguous part of that
file. The files themselves are compiled and run by the test suites, so the
README's examples are too."""
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
text = (root / "README.md").read_text(encoding="utf-8")
blocks = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
checked = 0
failures = []
for block in blocks:
    lines = block.rstrip("\n").split("\n")
    m = re.match(r"^(?://|#) excerpt of (\S+)$", lines[0])
    if not m:
        continue
    body = lines[1:]
    source = (root / m.group(1)).read_text(encoding="utf-8").split("\n")
    found = any(source[i:i + len(body)] == body for i in range(len(source) - len(body) + 1))
    if not found:
        failures.append(m.group(1))
    checked += 1
if checked < 3:
    failures.append(f"expected at least 3 excerpts, found {checked}")
for f in failures:
    print(f"README excerpt differs from its source: {f}")
print(f"readme examples: {checked - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
