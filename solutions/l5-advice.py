# EXERCISE l5-advice
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
