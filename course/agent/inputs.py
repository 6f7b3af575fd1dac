"""Checks of what a caller passes to the loop: wrong arguments raise, with what to pass instead (lesson 2)."""

from __future__ import annotations

from typing import Any

from course.agent.limits import Limits


def as_messages(messages: str | list[dict]) -> list[dict]:
    """A question becomes one user message; a list is copied (the caller's list is never changed)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if not isinstance(messages, list) or not messages:
        raise TypeError("messages must be a question (str) or a non-empty list of message dicts, "
                        f"not {type(messages).__name__}.")
    out = [m.model_dump(exclude_none=True) if hasattr(m, "model_dump") else m for m in messages]
    for i, m in enumerate(out):
        if not isinstance(m, dict) or "role" not in m:
            raise TypeError(f"messages[{i}] must be a dict with a 'role', like "
                            f"{{'role': 'user', 'content': '...'}}; got {m!r}.")
    return [dict(m) for m in out]


def check_tools(tools: Any) -> list[dict]:
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise TypeError(f"tools must be a list of tool definitions (e.g. toolbox.definitions()), "
                        f"not {type(tools).__name__}.")
    return tools


def check_limits(limits: Any) -> Limits:
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits(...), e.g. Limits(max_steps=5), not {type(limits).__name__}.")
    return limits


def check_execute(execute: Any) -> None:
    if not callable(execute):
        raise TypeError(f"execute must be a function (name, arguments_json) -> text, e.g. toolbox.execute; "
                        f"got {type(execute).__name__}.")
