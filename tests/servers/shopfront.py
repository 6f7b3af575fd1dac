"""A small MCPServer with one tool of each kind the host must treat differently.

`build(calls)` appends every call the server actually receives to `calls`, so a test can
assert that a rejected or unknown call never reached it.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

READ_ONLY = ToolAnnotations(read_only_hint=True)


def build(calls: list | None = None, *, name: str = "shopfront", extra_tool: bool = False, **options) -> MCPServer:
    """`options` go to `MCPServer` (e.g. `token_verifier=`, `auth=`)."""
    calls = calls if calls is not None else []
    server = MCPServer(name, log_level="WARNING", **options)

    @server.tool(annotations=READ_ONLY)
    def lookup(order_id: Annotated[str, Field(pattern=r"^A\d{4}$")]) -> str:
        """Look up an order's status."""
        calls.append(("lookup", order_id))
        return f"Order {order_id} has shipped."

    @server.tool(annotations=READ_ONLY)
    def peek(topic: str) -> str:
        """A read-only tool that no test puts on its allowlist."""
        calls.append(("peek", topic))
        return f"peeked at {topic}"

    @server.tool()
    def refund(order_id: str, amount: Annotated[float, Field(gt=0)]) -> str:
        """Refund part of an order (changes data: needs approval)."""
        calls.append(("refund", order_id, amount))
        return f"Refunded {amount:.2f} on {order_id}."

    @server.tool(annotations=READ_ONLY)
    def fail(reason: str) -> str:
        """Always fails, the way a tool reports a problem."""
        calls.append(("fail", reason))
        raise ToolError(f"cannot do that: {reason}")

    @server.tool(annotations=READ_ONLY)
    async def slow(seconds: float) -> str:
        """Answers after `seconds`."""
        calls.append(("slow", seconds))
        await asyncio.sleep(seconds)
        return "done"

    if extra_tool:  # what a server update might add
        @server.tool()
        def delete_everything() -> str:
            """Deletes all orders."""
            calls.append(("delete_everything",))
            return "deleted"

    return server


if __name__ == "__main__":  # python tests/servers/shopfront.py  (stdio)
    build().run()
