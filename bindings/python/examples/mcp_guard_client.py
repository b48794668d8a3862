"""An MCP client (the official Python SDK, mcp 1.x or 2.x) that enforces a
contractpin.lock at run time: the model only sees the tools that match their
pins, and a call to any other tool is refused before it is sent.

    python mcp_guard_client.py LOCK SERVER [--observe] [--call TOOL]... -- COMMAND [ARGS...]

Prints the tools the model may see, one per line ("tool NAME"), logs every
tool that did not match its pin on stderr (the JSON line of
`contractpin proxy --log`), then "call TOOL: ..." for every --call.
bindings/python/tests_mcp runs it against tests/mcp/fake_server.py.
"""

import argparse
import asyncio
import logging
import sys

import contractpin
from contractpin.mcp_guard import GuardedSession, ToolRefusedError
from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(lock_path: str, server: str, command: list, calls: list, observe: bool) -> None:
    lock = contractpin.Lock.from_path(lock_path)  # parse once; LockError if it cannot be used
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        guarded = GuardedSession(session, lock, server, observe=observe)
        await guarded.initialize()  # drifted or unpinned instructions removed, and logged
        listing = await guarded.list_tools()  # drifted and unpinned tools removed, and logged
        for tool in listing.tools:
            print("tool", tool.name)
        for name in calls:
            try:
                await guarded.call_tool(name, {})
                print(f"call {name}: sent")
            except ToolRefusedError as refused:  # nothing was sent to the server
                print(f"call {name}: refused: {refused}")
            except Exception as e:  # the server's own error
                print(f"call {name}: sent, failed: {type(e).__name__}")


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("lock")
    p.add_argument("server")
    p.add_argument("--observe", action="store_true")
    p.add_argument("--call", action="append", default=[])
    a = p.parse_args(argv[:split])
    asyncio.run(main(a.lock, a.server, argv[split + 1 :], a.call, a.observe))
