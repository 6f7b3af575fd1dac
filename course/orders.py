"""The running example's orders ("Northwind Goods", a small online shop) and the tools that look them up (lesson 1).

Orders are fixed data, so every run of the course sees the same shop. Lesson 4
copies them into a store (`course.store`) that write tools can change.
"""

from __future__ import annotations

import copy
import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from course.errors import ToolFailure
from course.tools import Toolbox, tool

__all__ = ["OrderLookup", "find_orders", "get_order_status", "orders", "shop_toolbox"]

SHOP_DATE = "2026-11-20"  # the shop's "today" (not the calendar's), so every run gives the same answers

_ORDERS = {
    "A1001": {"order_id": "A1001", "email": "mia@example.com", "placed": "2026-11-13", "status": "shipped",
              "items": [{"sku": "KETTLE-2", "name": "Electric kettle", "qty": 1, "price": 49.00}],
              "total": 49.00, "carrier": "DHL", "eta": "2026-11-22"},
    "A1002": {"order_id": "A1002", "email": "mia@example.com", "placed": "2026-11-02", "status": "delivered",
              "items": [{"sku": "MUG-6", "name": "Stoneware mugs (6)", "qty": 1, "price": 32.50}],
              "total": 32.50, "carrier": "DPD", "delivered": "2026-11-06"},
    "A1003": {"order_id": "A1003", "email": "leo@example.com", "placed": "2026-11-19", "status": "processing",
              "items": [{"sku": "LAMP-1", "name": "Desk lamp", "qty": 2, "price": 27.00}],
              "total": 54.00},
    "A1004": {"order_id": "A1004", "email": "leo@example.com", "placed": "2026-10-01", "status": "delivered",
              "items": [{"sku": "CHAIR-3", "name": "Office chair", "qty": 1, "price": 189.00}],
              "total": 189.00, "carrier": "DHL", "delivered": "2026-10-04"},
}

ORDER_ID = re.compile(r"\bA\d{4}\b")


def orders() -> dict[str, dict]:
    """A fresh copy of the shop's orders (callers may change it freely)."""
    return copy.deepcopy(_ORDERS)


class OrderLookup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_id: Annotated[str, Field(pattern=r"^A\d{4}$", description="Order number, e.g. A1001")]


class CustomerLookup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", description="The customer's email")]


@tool(OrderLookup, risk="read")
def get_order_status(args: OrderLookup) -> dict:
    """Look up one order by its number: status, items, total, carrier and dates.
    Use it whenever the customer mentions an order number."""
    order = _ORDERS.get(args.order_id)
    if order is None:
        raise ToolFailure(f"No order {args.order_id}. Ask the customer to check the number "
                          "(it looks like A1001), or look up their orders by email.")
    return order


@tool(CustomerLookup, risk="read")
def find_orders(args: CustomerLookup) -> list[dict]:
    """List a customer's orders (number, date, status, total) by their email address.
    Use it when the customer does not know the order number."""
    found = [{k: o[k] for k in ("order_id", "placed", "status", "total")}
             for o in _ORDERS.values() if o["email"] == args.email.lower()]
    if not found:
        raise ToolFailure(f"No orders for {args.email}. Ask the customer which email they used.")
    return found


def shop_toolbox() -> Toolbox:
    return Toolbox(get_order_status, find_orders)
