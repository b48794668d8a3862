#!/usr/bin/env python3
"""Independent reference for the CLI tests: contract digests (spec sections 2-4)
computed with the Python standard library only, never calling contractpin.

    reference_digest.py [--json] FILE             # a tools/list result object or a bare array
    reference_digest.py [--json] --fake SCENARIO  # the tools tests/mcp/fake_server.py serves

Prints the server digest on the first line, then `<tool digest> <name>` per tool
(sorted by name in UTF-16 order); with --json, the lock's server entry
({"digest", "tool_count", "tools": {name: {"digest", "fields"}}}).
Limited on purpose: non-integral numbers are refused (the CLI fixtures have none),
so the reference never has to reimplement ECMAScript number formatting.
"""
import hashlib
import json
import os
import sys


def canon(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != int(v) or abs(v) >= 1e21:
            raise SystemExit("reference_digest.py: non-integral number not supported")
        return str(int(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    items = sorted(v.items(), key=lambda kv: kv[0].encode("utf-16-be"))
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(x) for k, x in items) + "}"


def h(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def contract(tool):
    c = {"name": tool["name"], "description": tool.get("description"), "inputSchema": tool.get("inputSchema")}
    for k in ("outputSchema", "annotations"):
        if tool.get(k) is not None:
            c[k] = tool[k]
    return c


def digest(tools):
    out = {}
    for t in tools:
        c = contract(t)
        if t["name"] in out:
            raise SystemExit("duplicate tool name")
        out[t["name"]] = {"digest": h(canon(c)), "fields": {k: h(canon(v)) for k, v in c.items()}}
    server = h(canon({n: e["digest"] for n, e in out.items()}))
    return {"digest": server, "tool_count": len(out), "tools": out}


def main():
    args = sys.argv[1:]
    as_json = args[:1] == ["--json"]
    if as_json:
        args = args[1:]
    if args[0] == "--fake":
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "mcp"))
        import fake_server as fs  # noqa: E402

        class A:
            scenario = args[1]
            versions = fs.HANDSHAKE_VERSIONS
            tools = None
            count = 1000
            page_size = 0
            delay = None
            delay_methods = "tools/list"
        core = fs.Core(A)
        tools = [json.loads(t) for t in core.tools]
    else:
        doc = json.load(open(args[0], encoding="utf-8"))
        tools = doc["tools"] if isinstance(doc, dict) else doc
    entry = digest(tools)
    if as_json:
        print(json.dumps(entry, ensure_ascii=False, sort_keys=True, indent=2))
        return
    print(entry["digest"])
    for name in sorted(entry["tools"], key=lambda n: n.encode("utf-16-be")):
        print(entry["tools"][name]["digest"], name)


main()
