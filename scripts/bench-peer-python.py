#!/usr/bin/env python3
"""Python peer for scripts/bench-table.sh: json + rfc8785 (0.1.4) + hashlib.

Usage: bench-peer-python.py PAYLOAD.json BUDGET_SECONDS

Computes the full pipeline (tool, field and server digests, spec sections 2
and 4) the straightforward way, then times it for about BUDGET_SECONDS and
prints one JSON line: {"server", "tools": [[name, digest], ...], "median_s",
"min_s", "runs"}. Integers are parsed as floats (rfc8785 refuses integers of
magnitude >= 2^53, and JSON numbers are doubles anyway).
"""
import hashlib
import json
import statistics
import sys
import time

import rfc8785


def _no_constant(name):
    raise ValueError(f"non-JSON constant {name}")


def tools_of(doc):
    def page(p):
        obj = p.get("result", p) if isinstance(p, dict) else p
        return obj.get("tools", []) if isinstance(obj, dict) else []

    if isinstance(doc, list):
        first = doc[0] if doc else None
        paged = isinstance(first, dict) and "name" not in first and ("tools" in first or "result" in first)
        return [t for p in doc for t in page(p)] if paged else doc
    return page(doc)


def pipeline(text):
    doc = json.loads(text, parse_int=float, parse_constant=_no_constant)
    server = {}
    out = []
    for tool in tools_of(doc):
        contract = {
            "name": tool["name"],
            "description": tool.get("description"),
            "inputSchema": tool.get("inputSchema"),
        }
        for key in ("outputSchema", "annotations"):
            if tool.get(key) is not None:
                contract[key] = tool[key]
        digest = "sha256:" + hashlib.sha256(rfc8785.dumps(contract)).hexdigest()
        for value in contract.values():
            hashlib.sha256(rfc8785.dumps(value)).digest()
        server[tool["name"]] = digest
        out.append([tool["name"], digest])
    return "sha256:" + hashlib.sha256(rfc8785.dumps(server)).hexdigest(), out


def main():
    path, budget = sys.argv[1], float(sys.argv[2])
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    server, tools = pipeline(text)
    samples = []
    start = time.perf_counter()
    while len(samples) < 3 or time.perf_counter() - start < budget:
        t = time.perf_counter()
        pipeline(text)
        samples.append(time.perf_counter() - t)
    print(json.dumps({
        "server": server,
        "tools": tools,
        "median_s": statistics.median(samples),
        "min_s": min(samples),
        "runs": len(samples),
    }))


if __name__ == "__main__":
    main()
