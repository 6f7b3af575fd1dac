# EXERCISE l1-refund-params
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from course.tools import tool


class RefundRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_id: Annotated[str, Field(pattern=r"^A\d{4}$", description="Order number, e.g. A1001")]
    reason: Annotated[str, Field(min_length=1, max_length=500, description="Why the customer wants a refund")]


@tool(RefundRequest)
def request_refund(args: RefundRequest) -> str:
    """Ask for a refund of one order. Use it only when the customer clearly asks for their money back."""
    return f"Refund requested for order {args.order_id}: {args.reason}"
