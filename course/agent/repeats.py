"""When two tool calls count as the same, so that a repeated call is not run again (lesson 2).

A call with the same tool and arguments as an earlier one (`repeat_key`, default `call_key`)
is not run; the model is told to change the arguments or answer. `repeat_key` must return
something hashable (the keys are kept in a set) and accept any text; otherwise the run stops
with an error that says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

from course.arguments import Unreadable, excerpt, load_json


def call_key(name: str, arguments: str) -> Hashable:
    """When two calls count as the same: same tool, same JSON (key order and spacing ignored)."""
    try:
        return name, json.dumps(load_json(arguments), sort_keys=True, separators=(",", ":"))
    except Unreadable:  # not JSON, or beyond the parser's limits: the text itself is the key
        return name, arguments


def checked_key(repeat_key: Callable[[str, str], Hashable], name: str, arguments: str) -> Hashable:
    """repeat_key(name, arguments), or a TypeError that says what is wrong with it."""
    try:
        key = repeat_key(name, arguments)
    except Exception as e:
        raise ValueError(f"repeat_key failed for {name}({excerpt(arguments)}) with {type(e).__name__}: {e}. It "
                         "must accept any arguments text the model sends, even text that is not JSON.") from e
    try:
        hash(key)
    except TypeError:
        raise TypeError(f"repeat_key must return something hashable, like a tuple of strings (the loop keeps "
                        f"keys in a set); for {name}({excerpt(arguments)}) it returned {key!r}, which contains "
                        f"a {unhashable_part(key)}.") from None
    return key


def unhashable_part(value: Any) -> str:
    """The type name of the first unhashable thing inside a value: dict, list, set..."""
    for part in value if isinstance(value, tuple) else ():
        try:
            hash(part)
        except TypeError:
            return unhashable_part(part)
    return type(value).__name__
