"""Checks for lesson 6's exercises (notebooks/06_mcp_client.ipynb).

The learner writes async functions; a check runs them on an event loop of its own, in a
worker thread (the notebook's loop is busy running the check cell), with servers in memory.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from contextlib import asynccontextmanager

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
        server = docs_server(version, calls)

        async def attempt(server=server):
            host = McpHost(quiet=True)
            try:
                result = connect_support(host, server)
                if inspect.isawaitable(result):
                    await result
                state = {"connected": set(host.connections), "offered": set(host.offered),
                         "hidden": set(host.hidden.get("docs", ())),
                         "listed": {t.name for t in host.listed.get("docs", ())}}
                if "docs" in host.connections:  # what actually runs, not only what the host reports
                    await host.execute("search_docs", '{"query": "refund"}')
                    await host.execute("export_customers", "{}")
                return state
            finally:
                await host.close()

        state = run_async(attempt)
        if not state["connected"]:
            raise NotYet("connect_support connected nothing to the host it was given: `await host.connect(\"docs\", "
                         "in_memory(server), allow={...})` (host.connect is async: without `await` it does not run).")
        if state["connected"] != {"docs"}:
            raise NotYet(f"connect the server as \"docs\", not {', '.join(sorted(state['connected']))}: the host "
                         "tells servers apart by that name.")
        if "export_customers" in calls:
            raise NotYet("export_customers ran when the model called it. It says it is read-only, but that is the "
                         "server's claim: a tool you did not choose must never run.")
        if "export_customers" in state["offered"]:
            raise NotYet("the model is offered export_customers. It says it is read-only, but that is the "
                         "server's claim: a tool you did not choose must stay hidden.")
        if "bulk_refund" in state["offered"]:
            raise NotYet("after another server update the model is offered bulk_refund: list the tools you "
                         "want (an allowlist) instead of removing the ones you know about.")
        if state["offered"] != SUPPORT_TOOLS:
            raise NotYet(f"the model is offered {sorted(state['offered'])}; it should get exactly "
                         f"{sorted(SUPPORT_TOOLS)}.")
        if "search_docs" not in calls:
            raise NotYet("a call to search_docs never reached the server you were given: connect that `server` "
                         "object, with in_memory(server), not another one.")
        should_hide = state["listed"] - SUPPORT_TOOLS
        if state["hidden"] != should_hide:
            raise NotYet(f"the host should report {', '.join(sorted(should_hide))} as hidden (host.hidden): leave "
                         "them off the allowlist, instead of removing them from what the host offers afterwards.")
    return "New tools stay hidden until you add them yourself, whatever they claim."


SLOW_LIMIT = 1.25  # "under a second", with room for a busy machine
TIME_WORDS = re.compile(r"did not answer|timed? ?out|time limit", re.IGNORECASE)


def warehouse(seconds: float, sessions: list):
    """A server whose only tool takes `seconds`; `sessions` records "open"/"closed" for each connection."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    @asynccontextmanager
    async def session(server):
        sessions.append("open")
        try:
            yield {}
        finally:
            sessions.append("closed")

    server = MCPServer("warehouse", log_level="WARNING", lifespan=session)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def inventory_report() -> str:
        """Count every item in the warehouse."""
        await asyncio.sleep(seconds)
        return "412 items in stock."

    return server


def ask_warehouse(ask_inventory, seconds: float) -> tuple[object, float, str]:
    """(the reply or the TimeoutError raised, seconds taken, whether the connection was closed on return)."""
    sessions: list = []

    async def attempt():
        start = time.perf_counter()
        try:
            reply = await ask_inventory(warehouse(seconds, sessions))
        except (TimeoutError, asyncio.TimeoutError) as e:  # the learner's own timeout, not the check's limit
            reply = e
        return reply, time.perf_counter() - start, (sessions[-1:] or ["never opened"])[0]

    return run_async(attempt, limit=4, hint=": the host waited for the slow tool. Give it a timeout, "
                                             "e.g. McpHost(timeout=0.5) (read_timeout= only bounds connecting)")


@exercise("l6-timeout", lesson=6, given=GIVEN)
def check_timeout(ask_inventory):
    reply, elapsed, session = ask_warehouse(ask_inventory, 60)
    if isinstance(reply, BaseException):
        raise NotYet("your code raised TimeoutError: let the host turn it into a message for the model "
                     "(McpHost(timeout=...)) or catch it and return a message.")
    if not isinstance(reply, str):
        raise NotYet(f"ask_inventory should return the text for the model (a str), not {type(reply).__name__}.")
    if "not available here" in reply:
        raise NotYet("the host refused the call because inventory_report is not on its allowlist: put "
                     "inventory_report on the allowlist (allow={\"inventory_report\"}).")
    if not reply.startswith("Error"):
        raise NotYet(f"a call that timed out must reach the model as an error, got {reply[:80]!r}.")
    if not TIME_WORDS.search(reply):
        raise NotYet(f"the reply should say the tool took too long (as the host's timeout message does), got "
                     f"{reply[:100]!r}.")
    if elapsed > SLOW_LIMIT:
        raise NotYet(f"the slow call took {elapsed:.1f} s: give the host a timeout under a second, "
                     "e.g. McpHost(timeout=0.5).")
    if session != "closed":
        raise NotYet("the connection was still open when ask_inventory returned: close the host before you "
                     "return (`async with McpHost(...) as host:` does it for you).")
    fast, _, session = ask_warehouse(ask_inventory, 0)
    if fast != "412 items in stock.":
        raise NotYet(f"when the tool answers in time, return its text; got {str(fast)[:80]!r}.")
    if session != "closed":
        raise NotYet("after a quick answer the connection was still open: close the host on every path "
                     "(`async with McpHost(...) as host:`).")
    return f"A stuck tool became a message after {elapsed:.1f} s instead of a hang, and the host was closed."
