# EXERCISE l5-budget
import asyncio
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build_search_server(provider, credits: int) -> MCPServer:
    """A server whose tool web_search spends at most `credits` provider requests (one session's budget)."""
    server = MCPServer("search", log_level="WARNING")
    lock = asyncio.Lock()
    spent = 0

    @server.tool()
    async def web_search(query: str) -> dict[str, Any]:
        """Search the web: title and URL per result. Costs 1 credit of a small budget."""
        nonlocal spent
        async with lock:  # check and reserve together, before the request's await
            if spent >= credits:
                raise ToolError(f"The search budget is spent ({credits} credits). Do not search again; "
                                "answer from what you have.")
            spent += 1
        try:
            hits = await provider.search(query)
        except ConnectionError:
            spent -= 1  # the request was never sent: nothing was charged
            raise ToolError("The search API cannot be reached. Try again later, or answer without it.") from None
        except TimeoutError:  # the provider may have charged it: the reservation stays
            raise ToolError("The search API did not answer in time. Answer without web results.") from None
        return {"results": hits, "credits_left": credits - spent}

    return server
