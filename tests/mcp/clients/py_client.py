#!/usr/bin/env python3
"""A real MCP client on the official Python SDK (`mcp.ClientSession` +
`mcp.client.stdio.stdio_client`), mcp 1.x (1.30.0) or 2.x (2.3.0), that runs a
plan of steps against one stdio server: the same plans and output as
ts_client.mjs (see there).

    .venv-mcp1/bin/python tests/mcp/clients/py_client.py PLAN.json
    .venv-mcp2/bin/python tests/mcp/clients/py_client.py PLAN.json

The API differences between the two majors that matter here: 2.x raises
`MCPError` (1.x `McpError`), both with `.error.code` / `.error.message`; 2.x
passes a `ClientRequestContext` to the sampling / roots / elicitation callbacks
(1.x a `RequestContext`), and hands `message_handler` plain notifications (1.x
`ServerNotification` root models, or a `RequestResponder`). `list_tools` takes
`params=PaginatedRequestParams(cursor=...)` in both.
"""

from __future__ import annotations

import json
import sys

import anyio
import mcp
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

types = mcp.types
try:  # 2.x
    from mcp.shared.exceptions import MCPError as ProtocolError
except ImportError:  # 1.x
    from mcp.shared.exceptions import McpError as ProtocolError


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class Run:
    def __init__(self, plan):
        self.plan = plan
        self.notifications = []
        self.server_requests = []
        self.list_changed = 0
        self.progress = 0

    async def on_message(self, message):
        if isinstance(message, Exception):
            return
        note = getattr(message, "root", message)
        method = getattr(note, "method", None)
        if method is None:  # 1.x: a RequestResponder (server request), answered by the callbacks
            return
        self.notifications.append(method)
        if method == "notifications/tools/list_changed":
            self.list_changed += 1

    async def on_logging(self, params):
        self.notifications.append("notifications/message")

    async def on_sampling(self, context, params):
        self.server_requests.append("sampling/createMessage")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled by the test client"),
            model="test-model",
        )

    async def on_roots(self, context):
        self.server_requests.append("roots/list")
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/contractpin-test-root", name="test root")])

    async def on_elicit(self, context, params):
        self.server_requests.append("elicitation/create")
        return types.ElicitResult(action="accept", content={"color": "blue"})

    def callbacks(self):
        caps = self.plan.get("capabilities") or {}
        kw = {"message_handler": self.on_message, "logging_callback": self.on_logging}
        if caps.get("sampling") is not None:
            kw["sampling_callback"] = self.on_sampling
        if caps.get("roots") is not None:
            kw["list_roots_callback"] = self.on_roots
        if caps.get("elicitation") is not None:
            kw["elicitation_callback"] = self.on_elicit
        return kw

    async def list_all(self, s):
        tools, cursor = [], None
        for _ in range(100):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            r = await s.list_tools(params=params)
            tools += [dump(t) for t in r.tools]
            cursor = r.next_cursor if hasattr(r, "next_cursor") else r.nextCursor
            if cursor is None:
                break
        return {"tools": tools}

    async def wait_list_changed(self, step):
        with anyio.move_on_after(step.get("timeout_ms", 5000) / 1000):
            while self.list_changed < step.get("count", 1):
                await anyio.sleep(0.01)
        return {"listChanged": self.list_changed >= step.get("count", 1)}

    async def step(self, s, step):
        op = step["op"]
        if op == "list":
            return await self.list_all(s)
        if op == "call":
            progress = []

            async def on_progress(p, total, message):
                progress.append(p)

            cb = on_progress if step.get("progress") else None
            r = await s.call_tool(step["name"], step.get("arguments") or {}, progress_callback=cb)
            return {"result": dump(r), "progressNotifications": bool(progress)} if cb else dump(r)
        if op == "resources":
            return dump(await s.list_resources())
        if op == "read":
            return dump(await s.read_resource(step["uri"]))
        if op == "prompts":
            return dump(await s.list_prompts())
        if op == "prompt":
            return dump(await s.get_prompt(step["name"], step.get("arguments") or {}))
        if op == "ping":
            return dump(await s.send_ping())
        if op == "wait_list_changed":
            return await self.wait_list_changed(step)
        if op == "sleep":
            await anyio.sleep(step["ms"] / 1000)
            return {}
        raise ValueError(f"unknown op {op}")

    async def main(self):
        plan = self.plan
        params = StdioServerParameters(command=plan["command"], args=plan.get("args", []))
        info = types.Implementation(name=plan.get("clientName", "sdk-test-client-py"), version="1.0.0")
        results = []
        instructions = None
        try:
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, client_info=info, **self.callbacks()) as s:
                    instructions = (await s.initialize()).instructions
                    for step in plan["steps"]:
                        try:
                            results.append(await self.step(s, step))
                        except ProtocolError as e:
                            results.append({"error": {"code": e.error.code, "message": e.error.message}})
        except Exception as e:  # noqa: BLE001 - the test compares the outcome
            results.append({"error": {"code": None, "message": f"{type(e).__name__}: {e}"}})
        return {"steps": results, "notifications": self.notifications, "serverRequests": self.server_requests,
                "instructions": instructions}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    out = anyio.run(Run(plan).main)
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
