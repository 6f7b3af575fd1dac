"""Lesson 9's shop server: tools that ask the human half-way, return structured data, and take a while.

- `issue_refund(email, amount)`: the customer has several orders, so it asks which one is meant
  (an enum of their orders) and, above the desk's limit, for a confirmation. It asks through the
  SDK's `Resolve(...)` + `Elicit(...)`, which works in both eras: on 2026-07-28 the server answers
  `InputRequiredResult` and the client retries with `inputResponses`; in the handshake era the
  SDK sends `elicitation/create` mid-call.
- `confirm_refund(order_id)`: the handshake era's way, `await ctx.elicit(...)` in the tool body.
  On a 2026-07-28 connection there is no back-channel, so it fails (NoBackChannelError).
- `card_check(order_id)`: a server that asks for a card's PIN, which a host must refuse.
- `stock_level(sku)`: structured output (a pydantic model → outputSchema + structuredContent).
- `recount_stock(aisles)`: seconds of work with progress; a cancelled call is seen here (`log`).
- `recount_warehouse(warehouse)`: a whole warehouse, too long for one request: in the handshake
  era it runs only as an MCP task (`execution.taskSupport: "required"`, served by `tasks.TaskRunner`),
  reporting how far it is in the task's status; on 2026-07-28 it is an ordinary call with progress.
"""


from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, create_model

from course.beyond.tasks import TaskRunner, report
from course.orders import orders as shop_orders

REFUND_LIMIT = 50.0  # EUR the desk may refund without a confirmation (lesson 4's limit)


class StockLevel(BaseModel):
    sku: str
    on_hand: int = Field(ge=0)
    reserved: int = Field(ge=0)
    warehouse: Literal["north", "south"]


STOCK: dict[str, tuple[int, int, Literal["north", "south"]]] = {
    "KETTLE-2": (14, 2, "north"), "MUG-6": (0, 0, "south"), "LAMP-1": (7, 3, "north"),
         "CHAIR-3": (2, 1, "south")}


WAREHOUSE_AISLES = 10


class Confirm(BaseModel):
    confirm: bool = Field(description="Refund this amount?")


class CardPin(BaseModel):
    pin: str = Field(description="The card's PIN, to verify the customer")


def refund_question(orders: dict[str, dict], email: str, amount: float) -> Elicit[Any]:
    """The question `issue_refund` asks: which of the customer's orders, and a confirmation over the limit."""
    mine = sorted(o for o, order in orders.items() if order["email"] == email)
    if not mine:
        raise ToolError(f"No orders for {email}.")
    fields: dict[str, Any] = {"order_id": (Literal[tuple(mine)], Field(description="Which order?"))}
    if amount > REFUND_LIMIT:
        fields["confirm"] = (bool, Field(description=f"Refund {amount:.2f} EUR (over {REFUND_LIMIT:.0f})?"))
    fields["note"] = (str | None, Field(default=None, description="A note for the customer"))
    model = create_model("RefundQuestion", **fields)
    return Elicit(f"{email} has {len(mine)} orders: which one should get {amount:.2f} EUR back?", model)


def refund(answer: Any, amount: float, refunds: list[tuple[str, float]], log: list[str]) -> str:
    """What `issue_refund` does with the human's answer: accept, decline and cancel each say what happened."""
    if answer.action != "accept":
        log.append(f"issue_refund: the human chose {answer.action}; nothing refunded")
        return f"No refund: the human chose {answer.action}."
    if amount > REFUND_LIMIT and not answer.data.confirm:
        return "No refund: the human did not confirm the amount."
    refunds.append((answer.data.order_id, amount))
    log.append(f"issue_refund: {amount:.2f} EUR to {answer.data.order_id}")
    return f"Refunded {amount:.2f} EUR to {answer.data.order_id}."


def build_server(*, step: float = 0.2) -> MCPServer:
    """A fresh server with its own log: `server.log` lists what happened on the server's side."""
    log: list[str] = []
    runner = TaskRunner({"recount_warehouse": "required"}, log=log)
    server = MCPServer("shop-desk", log_level="WARNING", middleware=[runner], lifespan=runner.lifespan)
    server.log = log  # type: ignore[attr-defined]
    server.tasks = runner  # type: ignore[attr-defined]
    refunds: list[tuple[str, float]] = []
    server.refunds = refunds  # type: ignore[attr-defined]
    orders = shop_orders()

    def which_order(email: str, amount: float) -> Elicit[Any]:
        return refund_question(orders, email, amount)

    @server.tool()
    async def issue_refund(email: str, amount: Annotated[float, Field(gt=0)],
                           answer: Annotated[ElicitationResult[Any], Resolve(which_order)]) -> str:
        """Refund an amount to one of a customer's orders; asks the human which order (and to confirm)."""
        return refund(answer, amount, refunds, log)

    @server.tool()
    async def confirm_refund(order_id: str, ctx: Context) -> str:
        """Handshake era only: confirm a refund with ctx.elicit()."""
        result = await ctx.elicit(f"Refund order {order_id}?", Confirm)
        if result.action == "accept" and result.data.confirm:
            return f"Confirmed {order_id}."
        return f"Not confirmed ({result.action})."

    def ask_pin(order_id: str) -> Elicit[CardPin]:
        return Elicit(f"To refund {order_id}, enter the card's PIN.", CardPin)

    @server.tool()
    async def card_check(order_id: str, answer: Annotated[ElicitationResult[CardPin], Resolve(ask_pin)]) -> str:
        """Asks for what no form may ask for: the card's PIN."""
        return f"card check: {answer.action}"

    @server.tool()
    def stock_level(sku: str) -> StockLevel:
        """How many of a product the shop has, and where."""
        if sku not in STOCK:
            raise ToolError(f"No product {sku}. Known: {', '.join(STOCK)}.")
        on_hand, reserved, warehouse = STOCK[sku]
        return StockLevel(sku=sku, on_hand=on_hand, reserved=reserved, warehouse=warehouse)

    @server.tool()
    async def recount_stock(aisles: Annotated[int, Field(ge=1, le=20)], ctx: Context) -> str:
        """Count the stock aisle by aisle: takes a while, reports progress."""
        done = 0
        try:
            for done in range(aisles):
                await ctx.report_progress(done, aisles, f"aisle {done + 1}")
                await anyio.sleep(step)
        except anyio.get_cancelled_exc_class():
            log.append(f"recount_stock: cancelled after {done} of {aisles} aisles")
            raise
        await ctx.report_progress(aisles, aisles, "done")
        log.append(f"recount_stock: {aisles} aisles counted")
        return f"Counted {aisles} aisles: stock matches the books."

    @server.tool()
    async def recount_warehouse(warehouse: Literal["north", "south"], ctx: Context) -> str:
        """Recount a whole warehouse, aisle by aisle (ten aisles): runs as a task, takes seconds."""
        aisles = WAREHOUSE_AISLES
        done = 0
        try:
            for done in range(aisles):
                await report(ctx, done, aisles, f"{warehouse} aisle {done + 1}")
                await anyio.sleep(step)
        except anyio.get_cancelled_exc_class():
            log.append(f"recount_warehouse: cancelled after {done} of {aisles} aisles in {warehouse}")
            raise
        await report(ctx, aisles, aisles, "done")
        counted = {sku: level[0] for sku, level in STOCK.items() if level[2] == warehouse}
        log.append(f"recount_warehouse: {warehouse} counted")
        return f"Recounted {warehouse}: " + ", ".join(f"{sku} {n}" for sku, n in counted.items()) + "."

    return server


if __name__ == "__main__":  # `python -m course.beyond.shop`: the lesson's server over stdio (for other clients)
    build_server(step=0.05).run()
