"""Checks for lesson 6's exercises (notebooks/06_mcp_client.ipynb).

The learner writes async functions; a check runs them on an event loop of its own, in a
worker thread (the notebook's loop is busy running the check cell), with servers in memory.
"""

from __future__ import annotations

import asyncio
import time

from course.exercises import NotYet, exercise, run_async

GIVEN = """
from course.host import McpHost, in_memory, stdio, http
"""
SUPPORT_TOOLS = {"search_docs", "read_section", "create_ticket"}


def docs_server(version: int, calls: list):
    """The document server's tools as a small in-memory server; later versions list more tools."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    read = ToolAnnotations(read_only_hint=True)
    server = MCPServer(f"docs-v{version}", log_level="WARNING")

    @server.tool(annotations=read)
    def search_docs(query: str) -> str:
        """Search the policies."""
        calls.append("search_docs")
        return "refunds › Time limits"

    @server.tool(annotations=read)
    def read_section(document: str, section: str) -> str:
        """Read one section."""
        calls.append("read_section")
        return "Refunds within 30 days."

    @server.tool()
    def create_ticket(order_id: str, message: str) -> str:
        """Open a support ticket."""
        calls.append("create_ticket")
        return "T-1"

    if version >= 2:
        @server.tool(annotations=read)  # claims to be read-only; it hands out every customer's data
        def export_customers() -> str:
            """Export all customers with their addresses."""
            calls.append("export_customers")
            return "..."

    if version >= 3:
        @server.tool()
        def bulk_refund(amount: float) -> str:
            """Refund every open order."""
            calls.append("bulk_refund")
            return "..."

    return server


@exercise("l6-allowlist", lesson=6, given=GIVEN)
def check_allowlist(connect_support):
    from course.host import McpHost

    for version in (2, 3):
        calls: list = []

        async def attempt():
            host = McpHost(quiet=True)
            try:
                await connect_support(host, docs_server(version, calls))
                return set(host.offered), dict(host.hidden)
            finally:
                await host.close()

        offered, hidden = run_async(attempt)
        if not offered and not hidden:
            raise NotYet("connect_support connected nothing: call `await host.connect(\"docs\", in_memory(server), "
                         "allow={...})`.")
        if "export_customers" in offered:
            raise NotYet("the model is offered export_customers. It says it is read-only, but that is the "
                         "server's claim: a tool you did not choose must stay hidden.")
        if "bulk_refund" in offered:
            raise NotYet("after another server update the model is offered bulk_refund: list the tools you "
                         "want (an allowlist) instead of removing the ones you know about.")
        if offered != SUPPORT_TOOLS:
            raise NotYet(f"the model is offered {sorted(offered)}; it should get exactly {sorted(SUPPORT_TOOLS)}.")
    return "New tools stay hidden until you add them yourself, whatever they claim."


@exercise("l6-timeout", lesson=6, given=GIVEN)
def check_timeout(ask_inventory):
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    def warehouse(seconds: float):
        server = MCPServer("warehouse", log_level="WARNING")

        @server.tool(annotations=ToolAnnotations(read_only_hint=True))
        async def inventory_report() -> str:
            """Count every item in the warehouse."""
            await asyncio.sleep(seconds)
            return "412 items in stock."

        return server

    start = time.perf_counter()
    reply = run_async(lambda: ask_inventory(warehouse(60)), limit=8,
                      hint=": the host waited for the slow tool. Give it a timeout, e.g. McpHost(timeout=0.5)")
    elapsed = time.perf_counter() - start
    if not isinstance(reply, str):
        raise NotYet(f"ask_inventory should return the text for the model (a str), not {type(reply).__name__}.")
    if elapsed > 2:
        raise NotYet(f"the slow call took {elapsed:.1f} s: give the host a timeout under a second, "
                     "e.g. McpHost(timeout=0.5).")
    if not reply.startswith("Error"):
        raise NotYet(f"a call that timed out must reach the model as an error, got {reply[:80]!r}.")
    fast = run_async(lambda: ask_inventory(warehouse(0)), limit=8)
    if fast != "412 items in stock.":
        raise NotYet(f"when the tool answers in time, return its text; got {str(fast)[:80]!r}.")
    return f"A stuck tool became a message after {elapsed:.1f} s instead of a hang."
