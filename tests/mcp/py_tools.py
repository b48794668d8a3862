"""The three tools served by py1_server.py (mcp 1.x FastMCP) and
py2_server.py (mcp 2.x MCPServer).

Both servers register exactly these functions with exactly these names,
descriptions and annotations, so any difference in their tools/list output
comes from the SDK, not from us.  Parameter schemas are derived by the SDK
from the signatures below (pydantic), which is how real Python servers get
their schemas.
"""

from typing import Annotated

from pydantic import Field

TOOL_SPECS = [
    {
        "name": "lookup_word",
        "description": "Look up a word in the built-in dictionary and return its definition.",
        "read_only": True,
    },
    {
        "name": "add_numbers",
        "description": "Add two integers and return the sum.",
        "read_only": False,
    },
    {
        "name": "save_note",
        "description": "Save a short note under a title. Existing notes with the same title are replaced.",
        "read_only": False,
    },
]

_WORDS = {"contract": "an agreement", "digest": "a short fixed-size summary of data"}
_NOTES: dict[str, str] = {}


def lookup_word(
    word: Annotated[str, Field(description="The word to look up, lower case.")],
) -> str:
    return _WORDS.get(word, "unknown word")


def add_numbers(
    a: Annotated[int, Field(description="First addend.")],
    b: Annotated[int, Field(description="Second addend.")],
) -> int:
    return a + b


def save_note(
    title: Annotated[str, Field(description="Title of the note.", max_length=80)],
    body: Annotated[str, Field(description="Text of the note.")] = "",
    tags: Annotated[list[str] | None, Field(description="Optional tags.")] = None,
) -> str:
    _NOTES[title] = body
    return f"saved {title!r} ({len(tags or [])} tags)"


FUNCTIONS = {"lookup_word": lookup_word, "add_numbers": add_numbers, "save_note": save_note}


def register(add_tool, annotations_cls) -> None:
    """Register the tools with an SDK's ``add_tool(fn, name=, description=, annotations=)``."""
    for spec in TOOL_SPECS:
        annotations = annotations_cls(readOnlyHint=True) if spec["read_only"] else None
        add_tool(
            FUNCTIONS[spec["name"]],
            name=spec["name"],
            description=spec["description"],
            annotations=annotations,
        )


def parse_args(prog: str):
    import argparse

    p = argparse.ArgumentParser(prog=prog, description="contractpin test MCP server")
    p.add_argument("--transport", choices=["stdio", "http", "sse"], default="stdio",
                   help="stdio, streamable-http ('http') or legacy HTTP+SSE ('sse')")
    p.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (http/sse only)")
    p.add_argument("--json-response", action="store_true",
                   help="http: answer POSTs with application/json instead of an SSE stream")
    p.add_argument("--stateless", action="store_true", help="http: stateless mode (no Mcp-Session-Id)")
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
                   help="SDK log level; logs go to stderr (default INFO, the SDK default)")
    args = p.parse_args()
    if args.transport != "stdio" and not args.port:
        p.error("--port is required for http and sse")
    return args
