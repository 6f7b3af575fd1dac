# EXERCISE l5-constrained-tool
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
