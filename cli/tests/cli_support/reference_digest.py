#!/usr/bin/env python3
"""Independent reference for the CLI tests: contract digests (spec sections 2-4)
computed with the Python standard library only, never calling contractpin.

    reference_digest.py [--json] FILE             # a tools/list result object or a bare array
    reference_digest.py [--json] --fake SCENARIO  # the tools tests/mcp/fake_server.py serves

Prints the server digest on the first line, then `<tool digest> <name>` per tool
(sorted by name in UTF-16 order); with --json, the lock's server entry
({"digest", "tool_count", "tools": {name: {"digest", "fields"}}}).
The digests come from vectors/reference.py, the project's one independent reference.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The one independent reference implementation (standard library only).
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "vectors"))
import reference  # noqa: E402


def digest(tools):
    """The lock's server entry for a list of tool objects (spec sections 2-4)."""
    data = json.dumps(tools, ensure_ascii=False).encode("utf-8")
    server, entries = reference.tools_list(data)
    return {"digest": reference.digest(server), "tool_count": len(entries), "tools": entries}


def main():
    args = sys.argv[1:]
    as_json = args[:1] == ["--json"]
    if as_json:
        args = args[1:]
    if args[0] == "--fake":
        sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "mcp"))
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
