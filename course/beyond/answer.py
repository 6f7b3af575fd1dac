"""Lesson 9: what a human answers to an elicitation (accept with content, decline, cancel), and reading typed text.

Apart from who asks (answerers.py, form_widget.py) so both can use it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class Answer:
    action: Action
    content: dict[str, Any] | None = None


def accept(**content: Any) -> Answer:
    return Answer("accept", content)


DECLINE, CANCEL = Answer("decline"), Answer("cancel")


def parse(kind: str, text: str) -> Any:
    """A typed value from what was typed; left as text when it does not parse, so the check names the field."""
    try:
        if kind == "boolean":
            return {"y": True, "yes": True, "true": True, "n": False, "no": False, "false": False}[text.lower()]
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except (KeyError, ValueError):
        return text
    return text
