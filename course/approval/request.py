"""What a human is asked to approve, how it is shown, and how asking can fail."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Protocol

from course.approval.display import capped, collapsed, rows
from course.show import lookalike_note, printable, shown
from course.tools import as_text

# Seconds a prompt waits before it counts as rejected. Short, because a prompt can wait unseen
# (Run All scrolls away from it; a reloaded tab loses its buttons): missing one costs a minute.
DEFAULT_TIMEOUT = 60.0
# What one prompt shows at most, so that at 80x24 its first line (the tool, the risk) stays on screen:
# arguments while they fit in 24 rows with the headline, the "more arguments" line and the question (counted
# wrapped, in cells), at most 8; the rest on request ("f" in a terminal, "Show full values" under buttons).
MAX_SHOWN = 150  # characters of one value
MAX_KEY = 40  # characters of one argument's name: a key can be as long as a value in a lax schema
MAX_TOOL = 60  # characters of the tool's name: a lax server can name a tool with 3,000 of them
MAX_ARGUMENTS = 8
SCREEN_ROWS = 24


@dataclass
class ApprovalRequest:
    """What a human is asked to approve: one tool call."""

    tool: str
    arguments: dict
    risk: str
    reason: str = ""  # why we ask, e.g. "risk: write" or "rule refund_limit"

    def __str__(self) -> str:
        """One line, each value capped: `issue_refund(order_id='A1002', amount=999.0)`."""
        args = ", ".join(f"{_key(k)}={_value(repr(v))}" for k, v in self.arguments.items())
        return f"{_tool(self.tool)}({args})"

    def headline(self, *, full: bool = False) -> str:
        why = f"; asked because of {printable(self.reason)}" if self.reason else ""
        return f"The assistant wants to run {_tool(self.tool, full=full)} [{printable(self.risk)} tool{why}]:"

    def lines(self, *, full: bool = False) -> list[str]:
        """The terminal's question: the tool and its risk on the first and on the last line, values capped.

        `full=True`: every argument and every value whole (escaped), for a human who asked to see them.
        """
        items = list(self.arguments.items())
        if full:
            return [self.headline(full=True), *(f"  {_key(k, full=True)} = {shown(repr(v))}" for k, v in items)]
        body: list[str] = []
        left = SCREEN_ROWS - rows(self.headline()) - rows(self.question()) - 1  # 1: the "more arguments" line
        for k, v in items[:MAX_ARGUMENTS]:
            line = f"  {_key(k)} = {_value(repr(v))}"
            if rows(line) > left:
                break
            body.append(line)
            left -= rows(line)
        if len(items) > len(body):
            body.append(f"  … ({len(items) - len(body)} more arguments: answer f to see them)")
        return [self.headline(), *body]

    def question(self) -> str:
        return f"Approve {_tool(self.tool, marks=False)} [{printable(self.risk)}]? [y/N, f = full values] "

    def html(self, *, full: bool = False) -> str:
        items = list(self.arguments.items())
        shown_items = items if full else items[:MAX_ARGUMENTS]
        rows = "".join(f"<tr><td><code>{html.escape(_key(k, full=full))}</code></td><td>"
                       f"{html.escape(shown(as_text(v)) if full else _value(as_text(v)))}</td></tr>"
                       for k, v in shown_items)
        if len(items) > len(shown_items):
            rows += f"<tr><td colspan=2>… ({len(items) - len(shown_items)} more arguments)</td></tr>"
        why = f" · asked because of {_html(self.reason)}" if self.reason else ""
        return (f"<b>The assistant wants to run <code>{html.escape(_tool(self.tool, full=full))}</code></b> "
                f"({_html(self.risk)} tool{why})<table>{rows}</table>")


def _key(key: Any, *, full: bool = False) -> str:
    """A name as written in Python; anything else quoted, so a key cannot pose as more of the call.

    Shown like a value: look-alikes named (`оrder_id` with a Cyrillic `о` is an identifier too),
    whitespace collapsed and capped, so 3,000 characters of key cannot push the tool off the screen.
    """
    text = key if isinstance(key, str) and key.isidentifier() else repr(key)
    return _name(text, MAX_KEY, full=full)


def _tool(name: str, *, full: bool = False, marks: bool = True) -> str:
    """The tool's name, shown as a key is (collapsed, capped, look-alikes named): it must stay on the first line."""
    return _name(name, MAX_TOOL, full=full, marks=marks)


def _name(text: str, limit: int, *, full: bool = False, marks: bool = True) -> str:
    if full:
        return shown(text) if marks else printable(text)
    return capped(printable(collapsed(text)), limit) + (lookalike_note(text) if marks else "")


def _value(text: str) -> str:
    """A value as a prompt shows it: whitespace runs collapsed, escaped, look-alikes named, capped."""
    return capped(shown(collapsed(text)), MAX_SHOWN)


def _html(text: str) -> str:
    return html.escape(shown(text))


class Approver(Protocol):
    async def __call__(self, request: ApprovalRequest) -> bool: ...
