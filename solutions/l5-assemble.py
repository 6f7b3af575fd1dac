# EXERCISE l5-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l5-constrained-tool
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

shipping = MCPServer("shipping", log_level="WARNING")


@shipping.tool(annotations=ToolAnnotations(read_only_hint=True))
def shipping_cost(
    weight_kg: Annotated[float, Field(gt=0, le=30, description="Parcel weight in kg, more than 0 and at most 30.")],
    country: Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="Destination country code, e.g. DE or FR.")],
) -> dict[str, Any]:
    """Shipping cost in EUR for one parcel: 4.90 plus 1.00 per kg.
    Use it when a customer asks what delivery costs before ordering."""
    return {"country": country, "cost_eur": round(4.90 + 1.00 * weight_kg, 2)}


# the reference piece of l5-annotations
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

parcels = MCPServer("parcels", log_level="WARNING")
PARCELS = {"P1001": {"status": "packed", "notes": []}, "P1002": {"status": "in transit", "notes": []}}


@parcels.tool(annotations=ToolAnnotations(read_only_hint=True))
def parcel_status(number: str) -> str:
    """Where a parcel is, by its number (e.g. P1001)."""
    return PARCELS[number]["status"]


@parcels.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def add_delivery_note(number: str, note: str) -> str:
    """Add a note for the driver to a parcel (e.g. 'leave it with the neighbour')."""
    PARCELS[number]["notes"].append(note)
    return f"Note added to {number}."


@parcels.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def cancel_parcel(number: str) -> str:
    """Cancel a parcel that has not left the depot. This cannot be undone."""
    PARCELS[number]["status"] = "cancelled"
    return f"{number} is cancelled."


# the reference piece of l5-advice
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

carriers = MCPServer("carriers", log_level="WARNING")
TRACKING = {"DHL123": "in transit", "DPD456": "delivered"}


@carriers.tool()
def track(number: str) -> dict[str, Any]:
    """Where a parcel is, by its tracking number."""
    if number not in TRACKING:
        raise ToolError(f"No parcel with tracking number {number}. Ask the customer to check the number "
                        "on their shipping email (it looks like DHL123).")
    return {"number": number, "status": TRACKING[number]}


# the reference piece of l5-trim
def trim(raw: dict, n: int) -> dict:
    """The API's search answer cut to what the model needs: the first n results, each with only
    title, url and a snippet of at most 200 characters."""
    return {"results": [{"title": r["title"], "url": r["url"], "snippet": r["snippet"][:200]}
                        for r in raw["results"][:n]]}


# the reference piece of l5-budget
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
