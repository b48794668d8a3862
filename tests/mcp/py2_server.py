#!/usr/bin/env python3
"""Real MCP server built on PyPI mcp 2.x (``mcp.server.mcpserver.MCPServer``).

Run with the mcp 2.x venv:
    .venv-mcp2/bin/python tests/mcp/py2_server.py                       # stdio
    .venv-mcp2/bin/python tests/mcp/py2_server.py --transport http --port 38200
    .venv-mcp2/bin/python tests/mcp/py2_server.py --transport sse  --port 38201
HTTP always binds 127.0.0.1.  Endpoint: http://127.0.0.1:PORT/mcp (http),
http://127.0.0.1:PORT/sse (sse).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import ToolAnnotations  # noqa: E402

import py_tools  # noqa: E402


def main() -> None:
    args = py_tools.parse_args("py2_server.py")
    server = MCPServer(name="contractpin-py2", version="1.0.0", log_level=args.log_level)
    py_tools.register(server.add_tool, ToolAnnotations)
    if args.transport == "stdio":
        server.run("stdio")
    elif args.transport == "http":
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=args.port,
            json_response=args.json_response,
            stateless_http=args.stateless,
        )
    else:
        server.run("sse", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
