#!/usr/bin/env python3
"""A stdio MCP server for gen.sh: answers `initialize` with the bytes of
live-initialize.json (verbatim, its line breaks made spaces) and `tools/list`
with the `result` of live-tools.json, both read from the working directory;
any other request (`server/discover`, so the client falls back to
`initialize`) gets JSON-RPC error -32601. Notifications are ignored."""
import json
import sys


def main() -> None:
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(msg["id"]).encode()
        method = msg.get("method")
        if method == "initialize":
            with open("live-initialize.json", "rb") as f:
                body = b',"result":' + f.read().strip().replace(b"\n", b" ")
        elif method == "tools/list":
            with open("live-tools.json", "rb") as f:
                doc = json.load(f)
            body = b',"result":' + json.dumps(doc.get("result", doc)).encode()
        else:
            body = b',"error":{"code":-32601,"message":"method not found"}'
        sys.stdout.buffer.write(head + body + b"}\n")
        sys.stdout.buffer.flush()


main()
