"""Reading a tool call's arguments: the one parser every layer uses, with one set of messages.

    arguments = parse_arguments("get_order_status", '{"order_id": "A1001"}')   # -> {"order_id": "A1001"}

A model sends arguments as a JSON string, and it can send anything: text that is not JSON, a
list, megabytes, brackets nested thousands deep. `parse_arguments` returns a dict or raises
`BadArguments`, whose message is one line the model can act on; it never raises `ValueError`
or `RecursionError`, and never quotes the arguments back. `Toolbox.execute` (lesson 1), the
agent loop (lesson 2), `guarded` (lesson 4) and `McpHost` (lesson 6) all read arguments here.
"""

from __future__ import annotations

import json
import re
import reprlib
from typing import Any

from course.errors import BadArguments, CourseError

MAX_CHARS = 100_000  # far above any real tool call; more is a model that lost its way
MAX_DEPTH = 32  # no tool's parameters nest this deep; Python's json gives up near 1,000
EXCERPT = 200  # characters of unreadable arguments kept for the decision log

UNREADABLE = ("Error: the arguments for {tool} are not a JSON object ({why}), so nothing was run. "
              "Send {send} and call again.")
TOO_LARGE = ("Error: the arguments for {tool} are too large ({size:,} characters, at most {limit:,}), so nothing "
             "was run. Send only the values the tool's parameters need and call again.")
TOO_DEEP = ("Error: the arguments for {tool} are nested more than {limit} levels deep, so nothing was run. "
            "Send {send} and call again.")

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def parse_arguments(tool: str, arguments: str | dict | None, *, schema: dict | None = None) -> dict:
    """The arguments as a dict, or `BadArguments` saying what to send (made from `schema`, if given)."""
    try:
        value = load_json(arguments)
    except Unreadable as e:
        raise BadArguments(e.template.format(tool=tool, send=send_hint(schema), **e.fields),
                           excerpt(arguments)) from None
    if not isinstance(value, dict):
        why = f"got {'null' if value is None else type(value).__name__}"
        raise BadArguments(UNREADABLE.format(tool=tool, why=why, send=send_hint(schema)), excerpt(arguments))
    return value


def load_json(arguments: str | dict | None) -> Any:
    """Any JSON value within the limits, or `Unreadable`. Empty arguments are `{}`."""
    if isinstance(arguments, dict):
        if _value_too_deep(arguments):
            raise Unreadable(TOO_DEEP, limit=MAX_DEPTH)
        return arguments
    if not arguments:
        return {}
    if not isinstance(arguments, str):
        raise Unreadable(UNREADABLE, why=f"got {type(arguments).__name__}, not JSON text")
    if len(arguments) > MAX_CHARS:
        raise Unreadable(TOO_LARGE, size=len(arguments), limit=MAX_CHARS)
    if _text_too_deep(arguments):
        raise Unreadable(TOO_DEEP, limit=MAX_DEPTH)
    try:
        return json.loads(arguments, parse_constant=_no_constant)
    except ValueError as e:  # JSONDecodeError, and ints too long to convert
        why = f"{e.msg} at position {e.pos}" if isinstance(e, json.JSONDecodeError) else str(e)
        raise Unreadable(UNREADABLE, why=f"not valid JSON: {why}") from None


def send_hint(schema: dict | None) -> str:
    """What the model should send instead: the tool's parameters by name, when they are known."""
    if schema is None:
        return "one JSON object with the tool's parameters"
    properties, required = schema.get("properties") or {}, set(schema.get("required") or ())
    if not properties:
        return "{} (this tool takes no arguments)"
    names = ", ".join(p if p in required else f"{p} (optional)" for p in properties)
    return f"one JSON object with the tool's parameters ({names})"


def excerpt(arguments: object, limit: int = EXCERPT) -> str:
    """At most `limit` characters of what was sent, saying how long it was: for logs and traces."""
    text = arguments if isinstance(arguments, str) else reprlib.repr(arguments)  # reprlib: safe for deep values
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class Unreadable(CourseError):
    """What `load_json` raises: a message template and its fields, before the tool's name is known."""

    def __init__(self, template: str, **fields: Any):
        super().__init__(template)
        self.template, self.fields = template, fields


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _text_too_deep(text: str) -> bool:
    """Whether the brackets of JSON text nest deeper than MAX_DEPTH (strings left out), without parsing it."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # too few brackets to nest that deep
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def _value_too_deep(value: Any) -> bool:
    """Whether dicts and lists nest deeper than MAX_DEPTH in a Python value; no recursion, so it cannot crash."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
