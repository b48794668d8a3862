#!/usr/bin/env python3
"""The official MCP Python SDK doing what `contractpin verify` does to one
stdio server: start it, handshake, list its tools, shut it down. A peer for
timing verify's whole-process cost (docs/PERFORMANCE.md, "Many servers").

Usage: .venv-mcp1/bin/python scripts/bench-peer-sdk-stdio.py CMD [ARGS...]

Prints the number of tools. Shutdown is the SDK's own: close stdin, wait up
to 2 s for the server to exit, then SIGTERM and SIGKILL.
"""
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listing = await session.list_tools()
        print(len(listing.tools))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    anyio.run(main)
