"""Helpers for rules: what a story reads from a request (the Chat Completions view of it)."""

from __future__ import annotations

import json

from course.conversation import APP_NOTE  # notes the loop adds as user messages are not the user speaking


def from_user(message: dict) -> bool:
    return message.get("role") == "user" and not str(message.get("content")).startswith(APP_NOTE)


def last_user_text(body: dict) -> str:
    """The text of the latest user message."""
    for m in reversed(body.get("messages", [])):
        if from_user(m):
            c = m.get("content")
            return c if isinstance(c, str) else " ".join(p.get("text", "") for p in c or [])
    return ""


def tool_calls_since_user(body: dict) -> list[tuple[str, dict, str]]:
    """(tool name, arguments, result text) for every answered call since the latest user message."""
    asked: dict[str, tuple[str, dict]] = {}
    out: list[tuple[str, dict, str]] = []
    for m in body.get("messages", []):
        if from_user(m):
            out = []
        for tc in m.get("tool_calls") or []:
            try:
                arguments = json.loads(tc["function"]["arguments"])
            except json.JSONDecodeError:
                arguments = {}
            asked[tc["id"]] = (tc["function"]["name"], arguments)
        if m.get("role") == "tool":
            name, arguments = asked.get(m.get("tool_call_id"), ("?", {}))
            out.append((name, arguments, str(m.get("content"))))
    return out


def tool_results(body: dict) -> list[tuple[str, str]]:
    """(tool name, result text) for every tool message since the latest user message."""
    return [(name, result) for name, _, result in tool_calls_since_user(body)]


def offered_tools(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or [] if isinstance(t.get("function"), dict)]
