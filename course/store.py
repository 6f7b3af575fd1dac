"""The shop's data that tools can change: tickets, refunds, cancellations (lesson 4).

`course.orders` holds fixed orders for read-only tools. Here the shop gets a small store,
one JSON file under `WORK` (course.paths: each user's own), and **write tools** with real side effects:

    store = ShopStore()            # WORK/shop.json, created from course.orders.orders()
    store.issue_refund("A1001", 49.0, "Arrived broken")
    store.reset()                  # back to the seed; the old file is kept as shop.json.bak

Every change reads the file, changes the data and writes it back atomically: the new
content goes to a temporary file in the same folder, is flushed to disk (fsync), then
replaces the old file with `os.replace`, which is atomic. A crash in the middle leaves
the old file, complete; a reader never sees half a file.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from filelock import FileLock, Timeout
from pydantic import BaseModel, ConfigDict, Field

from course import paths
from course.errors import StoreError, ToolFailure
from course.orders import SHOP_DATE, OrderLookup
from course.orders import orders as seed_orders
from course.tools import Tool

__all__ = ["ShopStore", "write_atomically"]

DEFAULT_NAME = "shop.json"
LOCK_TIMEOUT = 30.0  # seconds a change waits for another one to finish: a stuck process gets a message, not a hang
NEW_FILE_MODE = 0o644  # mkstemp makes 0600 files; a store is an ordinary file the learner may open
OrderId = Annotated[str, Field(pattern=r"^A\d{4}$", description="Order number, e.g. A1001")]


def seed() -> dict:
    """The store's content after a reset: the shop's orders, no tickets, no refunds."""
    return {"orders": seed_orders(), "tickets": [], "refunds": []}


def write_atomically(path: Path, data: Any, *, mode: int | None = None) -> None:
    """Replace `path` with the JSON of `data`, all or nothing. The file keeps its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = NEW_FILE_MODE
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the rename makes them visible
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)  # the rename itself survives a power cut


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # e.g. Windows cannot open folders; os.replace is still atomic there
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- the write tools' arguments, as the model sees them ------------------------------------------
class CreateTicket(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_id: OrderId
    subject: Annotated[str, Field(min_length=3, max_length=120, description="A short title for the support team")]
    message: Annotated[str, Field(min_length=5, max_length=2000, description="What the customer reported")]


class IssueRefund(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_id: OrderId
    amount: Annotated[float, Field(gt=0, allow_inf_nan=False,
                                   description="Amount to pay back, in EUR; at most what is left of the total")]
    reason: Annotated[str, Field(min_length=5, max_length=500, description="Why the customer gets money back")]


class CancelOrder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_id: OrderId
    reason: Annotated[str, Field(min_length=5, max_length=500, description="Why the order is cancelled")]


class ShopStore:
    """Orders, tickets and refunds in one JSON file; every change is saved before it returns."""

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path is not None else paths.WORK / DEFAULT_NAME
        self.lock_timeout = LOCK_TIMEOUT
        # Between processes (an MCP server and a notebook may share the file) and between threads: filelock
        # takes an OS lock per thread, on Windows too.
        self._lock = FileLock(self.path.with_name(self.path.name + ".lock"))

    def __repr__(self) -> str:
        return f"ShopStore({str(self.path)!r})"

    # -- reading ---------------------------------------------------------------------------
    def load(self) -> dict:
        """The whole content; the file is created from the seed on first use."""
        with self._locked():
            return self._read()

    def _read(self) -> dict:
        if not self.path.exists():
            write_atomically(self.path, seed())
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise StoreError(f"{self.path} is not valid JSON ({e.msg}, line {e.lineno}). It was edited by hand? "
                             f"Fix it, or call ShopStore({str(self.path)!r}).reset() to start again "
                             f"from the shop's original orders (it keeps this file as {self.backup.name}).") from None
        if not is_store(data):
            raise StoreError(f"{self.path} is not a shop store (it needs orders, tickets and refunds). "
                             "Pick another file for ShopStore, or call .reset() to start again from the shop's "
                             f"original orders (it keeps this file as {self.backup.name}).")
        return data

    def orders(self) -> dict[str, dict]:
        return self.load()["orders"]

    def order(self, order_id: str) -> dict:
        return _order(self.load(), order_id)

    def tickets(self) -> list[dict]:
        return self.load()["tickets"]

    def refunds(self, order_id: str | None = None) -> list[dict]:
        return [r for r in self.load()["refunds"] if order_id in (None, r["order_id"])]

    def refunded(self, order_id: str) -> float:
        return round(sum(r["amount"] for r in self.refunds(order_id)), 2)

    def record(self, order_id: str) -> dict:
        """One order as the store knows it now: status, refunds so far, tickets."""
        data = self.load()
        order = _order(data, order_id)
        refunds = [r for r in data["refunds"] if r["order_id"] == order_id]
        done = round(sum(r["amount"] for r in refunds), 2)
        return {"order": order, "refunded": done, "refundable": round(order["total"] - done, 2),
                "refunds": refunds, "tickets": [t for t in data["tickets"] if t["order_id"] == order_id]}

    # -- changing --------------------------------------------------------------------------
    def create_ticket(self, order_id: str, subject: str, message: str) -> dict:
        """Open a support ticket about an order."""
        with self._change() as data:
            _order(data, order_id)
            ticket = {"ticket_id": f"T-{len(data['tickets']) + 1:04d}", "order_id": order_id,
                      "subject": subject, "message": message, "status": "open", "created": SHOP_DATE}
            data["tickets"].append(ticket)
        return ticket

    def issue_refund(self, order_id: str, amount: float, reason: str) -> dict:
        """Pay money back for an order; never more than the order's total, all refunds together."""
        amount = round(float(amount), 2)
        if not math.isfinite(amount) or amount <= 0:  # NaN passes `<= 0` and would poison every total
            raise ToolFailure(f"A refund must be a positive amount, not {amount:.2f}.")
        with self._change() as data:
            order = _order(data, order_id)
            done = round(sum(r["amount"] for r in data["refunds"] if r["order_id"] == order_id), 2)
            left = round(order["total"] - done, 2)
            if left <= 0:
                raise ToolFailure(f"Order {order_id} is already refunded in full ({done:.2f} of "
                                  f"{order['total']:.2f}). Do not refund it again; tell the customer.")
            if amount > left:
                raise ToolFailure(f"Refusing to refund {amount:.2f} for order {order_id}: at most {left:.2f} "
                                  f"is left (total {order['total']:.2f}, already refunded {done:.2f}).")
            refund = {"refund_id": f"R-{len(data['refunds']) + 1:04d}", "order_id": order_id,
                      "amount": amount, "reason": reason, "created": SHOP_DATE}
            data["refunds"].append(refund)
        return refund

    def cancel_order(self, order_id: str, reason: str) -> dict:
        """Cancel an order that has not shipped yet. It cannot be undone."""
        with self._change() as data:
            order = _order(data, order_id)
            if order["status"] != "processing":
                raise ToolFailure(f"Order {order_id} is {order['status']}, so it can no longer be cancelled "
                                  "(only orders still processing can). Offer a return or a refund instead.")
            order["status"] = "cancelled"
            order["cancelled"] = {"reason": reason, "date": SHOP_DATE}
        return {"order_id": order_id, "status": "cancelled", "reason": reason}

    @property
    def backup(self) -> Path:
        """Where `reset()` keeps the file it replaces."""
        return self.path.with_name(self.path.name + ".bak")

    def reset(self) -> None:
        """Back to the shop's original orders, with no tickets and no refunds.

        The old file, if it held anything else, is kept as `shop.json.bak` (hand edits
        included). A file that is not a shop store at all is never overwritten.
        """
        with self._locked():
            fresh, mode = seed(), None
            if self.path.exists():
                mode = stat.S_IMODE(self.path.stat().st_mode)
                text = self.path.read_text(encoding="utf-8", errors="replace")
                try:
                    old = json.loads(text)
                except json.JSONDecodeError:
                    old = None
                # A store broken by hand still mentions its orders; anything else is someone else's file.
                if not (is_store(old) or (old is None and '"orders"' in text) or not text.strip()):
                    raise StoreError(f"{self.path} exists and is not a shop store, so reset() will not overwrite "
                                     "it. Pick another file for ShopStore, or move that one away first.")
                if old != fresh:
                    os.replace(self.path, self.backup)
            self._remove_leftovers()
            write_atomically(self.path, fresh, mode=mode)

    def _remove_leftovers(self) -> None:
        """Temporary files a killed process left behind (harmless, but clutter)."""
        for leftover in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            leftover.unlink(missing_ok=True)

    # -- tools -----------------------------------------------------------------------------
    def read_tools(self) -> list[Tool]:
        """Reading the store changes nothing (risk "read")."""
        return [Tool("get_order_record",
                     "Look up an order in the shop's live records: current status (including cancellations), "
                     "refunds already paid, what can still be refunded, and support tickets. Use it before "
                     "refunding or cancelling.",
                     OrderLookup, lambda a: self.record(a.order_id), risk="read")]

    def write_tools(self) -> list[Tool]:
        """The store's changes as tools a model can call (risk "write": lesson 4 asks before running them)."""
        return [
            Tool("create_ticket",
                 "Open a support ticket about an order, for problems the support team must handle "
                 "(damaged or missing items, wrong delivery). Returns the ticket id.",
                 CreateTicket, lambda a: self.create_ticket(a.order_id, a.subject, a.message), risk="write"),
            Tool("issue_refund",
                 "Pay money back to the customer for an order. Moves real money: use it only when the customer "
                 "asks for a refund and the order qualifies. The amount cannot exceed what is left of the total.",
                 IssueRefund, lambda a: self.issue_refund(a.order_id, a.amount, a.reason), risk="write"),
            Tool("cancel_order",
                 "Cancel an order that is still processing (not shipped). Cannot be undone: use it only "
                 "when the customer clearly asks to cancel.",
                 CancelOrder, lambda a: self.cancel_order(a.order_id, a.reason), risk="write"),
        ]

    # -- plumbing --------------------------------------------------------------------------
    @contextmanager
    def _change(self) -> Iterator[dict]:
        """Read, let the caller change, write back; nothing is written if the caller raises."""
        with self._locked():
            data = self._read()
            yield data
            write_atomically(self.path, data)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self._lock.acquire(timeout=self.lock_timeout)
        except Timeout:
            raise StoreError(f"{self.path} has been busy for {self.lock_timeout:g} s: another program is changing it "
                             "(a server from lesson 5 or 6 still running?). Try again, or stop that program.") from None
        try:
            yield
        finally:
            self._lock.release()


def is_store(data: Any) -> bool:
    return isinstance(data, dict) and {"orders", "tickets", "refunds"} <= data.keys()


def _order(data: dict, order_id: str) -> dict:
    order = data["orders"].get(order_id)
    if order is None:
        raise ToolFailure(f"No order {order_id}. Check the number with the customer (it looks like A1001).")
    return order

