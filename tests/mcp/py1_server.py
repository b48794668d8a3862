#!/usr/bin/env python3
"""Real MCP server built on PyPI mcp 1.x (``mcp.server.fastmcp.FastMCP``).

Run with the mcp 1.x venv:
    .venv-mcp1/bin/python tests/mcp/py1_server.py                       # stdio
    .venv-mcp1/bin/python tests/mcp/py1_server.py --transport http --port 38210
    .venv-mcp1/bin/python tests/mcp/py1_server.py --transport sse  --port 38211
HTTP always binds 127.0.0.1.  Endpoint: http://127.0.0.1:PORT/mcp (http),
http://127.0.0.1:PORT/sse (sse).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp.server.fastmcp import FastMCP  # noqa: E402
from mcp.types import ToolAnnotations  # noqa: E402

import py_tools  # noqa: E402


def main() -> None:
    args = py_tools.parse_args("py1_server.py")
    server = FastMCP(
        name="contractpin-py1",
        host="127.0.0.1",
        port=args.port or 8000,
        json_response=args.json_response,
        stateless_http=args.stateless,
        log_level=args.log_level,
    )
    py_tools.register(server.add_tool, ToolAnnotations)
    server.run({"stdio": "stdio", "http": "streamable-http", "sse": "sse"}[args.transport])


if __name__ == "__main__":
    main()
