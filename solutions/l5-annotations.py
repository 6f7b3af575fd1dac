# EXERCISE l5-annotations
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
