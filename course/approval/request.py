"""What a human is asked to approve, how it is shown, and how asking can fail."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Protocol

from course.show import printable
from course.tools import as_text

# Seconds a prompt waits before it counts as rejected. Short, because a prompt can wait unseen
# (Run All scrolls away from it; a reloaded tab loses its buttons): missing one costs a minute.
DEFAULT_TIMEOUT = 60.0


@dataclass
class ApprovalRequest:
    """What a human is asked to approve: one tool call."""

    tool: str
    arguments: dict
    risk: str
    reason: str = ""  # why we ask, e.g. "risk: write" or "rule refund_limit"

    def __str__(self) -> str:
        args = ", ".join(f"{_key(k)}={printable(repr(v))}" for k, v in self.arguments.items())
        return f"{printable(self.tool)}({args})"

    def html(self) -> str:
        rows = "".join(f"<tr><td><code>{_html(_key(k))}</code></td><td>{_html(as_text(v))}</td></tr>"
                       for k, v in self.arguments.items())
        why = f" · asked because of {_html(self.reason)}" if self.reason else ""
        return (f"<b>The assistant wants to run <code>{_html(self.tool)}</code></b> "
                f"({_html(self.risk)} tool{why})<table>{rows}</table>")


def _key(key: Any) -> str:
    """A name as written in Python; anything else quoted, so a key cannot pose as more of the call."""
    return key if isinstance(key, str) and key.isidentifier() else printable(repr(key))


def _html(text: str) -> str:
    return html.escape(printable(text))


class Approver(Protocol):
    async def __call__(self, request: ApprovalRequest) -> bool: ...
