"""How lesson 5's checks talk to the learner's server: the SDK's `Client` in memory, on an event loop of its
own in a worker thread (the notebook's loop is busy running the check cell), and what they say about
what comes back."""


from __future__ import annotations

import re
from typing import Any

from course.exercises import NotYet, run_async

PROTOCOL_ERROR = ("MCPError is a protocol error: the client raises it and the model gets no result. "
                  "Raise ToolError('...') instead.")
# Advice is something to do next: an instruction, a request or a suggestion.
ADVICE = re.compile(r"\b(ask|check|double-check|confirm|verify|use|try|retry|tell|call|contact|look|search|"
                    r"list|pick|choose|enter|re-enter|send|provide|request|correct|make sure|please|instead|"
                    r"should|suggest|recommend|wait|stop|answer)\b", re.IGNORECASE)


async def in_memory(server: Any, talk: Any) -> Any:
    """`await talk(client)` with a `Client` on `server`, the SDK's traceback log silenced."""
    import logging

    from mcp import Client

    # A crash in the learner's tool is what the check reports; the SDK's traceback log would only add noise.
    sdk_log = logging.getLogger("mcp.server.mcpserver.server")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)  # setLevel, not .level =: it also clears the logger's cache
    try:
        async with Client(server) as client:
            return await talk(client)
    finally:
        sdk_log.setLevel(level)


async def call(client: Any, name: str, arguments: dict) -> Any:
    """The tool's result, or the MCPError a protocol error raises in the client."""
    from mcp import MCPError

    try:
        return await client.call_tool(name, arguments)
    except MCPError as e:  # a protocol error: the client raises, the model would get nothing
        return e


def tools_and_calls(server: Any, name: str, calls: list[dict]) -> tuple[dict, list]:
    """{name: Tool} of the server, and the results of `calls` to tool `name` (none if it is missing)."""

    async def talk(client: Any) -> tuple[dict, list]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools, [await call(client, name, arguments) for arguments in calls] if name in tools else []

    return run_async(lambda: in_memory(server, talk))


def text(result: Any) -> str:
    return result.content[0].text if getattr(result, "content", None) else ""


def mcp_server(obj: Any, name: str) -> Any:
    from mcp.server.mcpserver import MCPServer

    if not isinstance(obj, MCPServer):
        raise NotYet(f"`{name}` should be the MCPServer from the cell (it is a {type(obj).__name__}).",
                     f"keep the cell's `{name} = MCPServer(...)` line and decorate its tools with `@{name}.tool()`; "
                     "do not assign something else to the name later.")
    return obj


def require_tool(tools: dict, name: str, server: str) -> Any:
    if name not in tools:
        raise NotYet(f"the server has no tool `{name}` yet (it has: {', '.join(tools) or 'none'}).",
                     f"Decorate a function named {name} with `@{server}.tool()`.")
    return tools[name]
