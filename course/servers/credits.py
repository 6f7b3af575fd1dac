"""A credit budget that parallel calls cannot overspend, and which failures give a credit back (lesson 5).

The web tools (`web_client.WebAPI`) spend from one; so does each learner's workspace on the class
server (`workspaces.py`).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

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

    It is a per-session guard against one conversation draining the account, not an account
    limit: every server process (every key, every stdio client) has its own. With `path`, what
    was spent is written to that file after every change and read back at start, so a restart
    does not hand out a full budget again.
    """

    def __init__(self, total: int, path: Path | str | None = None):
        self.total, self.path = total, Path(path) if path is not None else None
        self.spent = self._load()
        self._lock = asyncio.Lock()

    def _load(self) -> int:
        if self.path is None or not self.path.exists():
            return 0
        try:
            spent = json.loads(self.path.read_text())["spent"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"the budget file {self.path} cannot be read ({e}); fix or delete it (deleting it "
                             "gives the full budget back)") from None
        if not isinstance(spent, int):
            raise ValueError(f"the budget file {self.path} says spent={spent!r}; it must be a whole number")
        return spent

    def _save(self) -> None:
        if self.path is not None:  # write then rename: a crash mid-write leaves the old file, not half a one
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"spent": self.spent, "total": self.total}))
            os.replace(tmp, self.path)

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
                if self.left > 0:  # some left, not enough for this endpoint: a cheaper one may still fit
                    raise ToolError(f"This call costs {cost} credits and only {self.left} of {self.total} are "
                                    "left. Do not call it again; a cheaper web tool may still fit, or answer "
                                    "from what you already have.")
                raise ToolError(f"The web budget is spent ({self.spent} of {self.total} credits). "
                                "Do not call web tools again; answer from what you already have and tell the "
                                "user the web budget ran out.")
            self.spent += cost
            self._save()

    def refund(self, cost: int) -> None:
        self.spent -= cost  # no await: nothing can interleave, even while the call is being cancelled
        self._save()

    def charge(self, cost: int) -> None:
        """Spend on top of a reservation (the provider billed more); may leave the budget below zero."""
        self.spent += cost
        self._save()


class NotCharged(ToolError):
    """A failed request the provider cannot have charged: it was never sent (no connection), or the
    answer is one the provider documents as free (every status but 200). Only these are refunded."""
