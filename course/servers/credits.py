"""A credit budget that parallel calls cannot overspend, and which failures give a credit back (lesson 5).

The web tools (`web_client.WebAPI`) spend from one; so does each learner's workspace on the class
server (`workspaces.py`).
"""

from __future__ import annotations

import asyncio

from mcp.server.mcpserver.exceptions import ToolError


class CreditBudget:
    """The credits this server may spend: our own cap, apart from the provider's account balance
    (which answers 402 when empty). Reserve before a request; refund only when the provider cannot
    have charged it (see `NotCharged`): a timeout keeps the credit, the provider may have billed it.

    Reserving happens before the first `await` of the call, so fifty parallel calls cannot all see
    "3 credits left" and then all spend: asyncio switches tasks only at an `await`, and there is
    none between the check and the spending. The lock keeps that true if reserving ever needs an
    `await` (a shared budget in a database, say). One budget per server process: over stdio that
    is one client's session; over HTTP every client of the process shares it.
    """

    def __init__(self, total: int):
        self.total, self.spent = total, 0
        self._lock = asyncio.Lock()

    @property
    def left(self) -> int:
        return self.total - self.spent

    async def reserve(self, cost: int) -> None:
        async with self._lock:
            if cost > self.left > 0:  # prices differ per call: what is left may still pay for a cheaper one
                raise ToolError(f"The web budget is spent down to {self.left} of {self.total} credits, and this "
                                f"call costs {cost}. Do not call it again; a cheaper web call may still fit, or "
                                "answer from what you already have.")
            if cost > self.left:
                raise ToolError(f"The web budget is spent ({self.spent} of {self.total} credits). "
                                "Do not call web tools again; answer from what you already have and tell the "
                                "user the web budget ran out.")
            self.spent += cost

    def refund(self, cost: int) -> None:
        self.spent -= cost  # no await: nothing can interleave, even while the call is being cancelled


class NotCharged(ToolError):
    """A failed request the provider cannot have charged: it was never sent (no connection), or the
    answer is one the provider documents as free (every status but 200). Only these are refunded."""
