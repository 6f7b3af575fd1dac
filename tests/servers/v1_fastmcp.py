"""A server written for the older SDK (mcp 1.x, `FastMCP`), run by .venv/mcp1/bin/python.

It speaks protocol 2025-11-25 with the initialize handshake; the course's v2 client must
negotiate down to it.
"""

from mcp.server.fastmcp import FastMCP  # mcp 1.x only: in mcp 2 this module is gone
from mcp.types import ToolAnnotations

mcp = FastMCP("legacy-shop")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))  # v1 spells it in camelCase
def order_total(order_id: str) -> str:
    """The total of an order."""
    return f"Order {order_id} totals 49.00 EUR."


@mcp.tool()
def cancel(order_id: str) -> str:
    """Cancel an order (a write: not annotated read-only)."""
    return f"Order {order_id} cancelled."


if __name__ == "__main__":
    mcp.run()
