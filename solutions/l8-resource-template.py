# EXERCISE l8-resource-template
from mcp import MCPError
from mcp.types import INVALID_PARAMS


def add_order_resources(server, orders):
    @server.resource("orders://{order_id}", mime_type="text/plain")
    def order(order_id: str) -> str:
        if order_id not in orders:
            raise MCPError(INVALID_PARAMS, f"No order {order_id}. Check the order number.")
        found = orders[order_id]
        return f"{order_id}: {found['status']}, total {found['total']:.2f} EUR"
