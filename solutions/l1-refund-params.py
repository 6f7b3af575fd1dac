# EXERCISE l1-refund-params
class RefundRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_id: Annotated[str, Field(pattern=r"^A\d{4}$", description="Order number, e.g. A1001")]
    reason: Annotated[str, Field(min_length=5, max_length=500, description="Why the customer wants a refund")]


refund_tool = tool_definition(
    "request_refund",
    "Ask for a refund of one order. Use it only when the customer clearly asks for their money back.",
    RefundRequest,
)
