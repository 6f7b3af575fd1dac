"""Lesson 9: structured output — a tool's result checked against its own `outputSchema`, then given to the model.

A tool with an `outputSchema` promises `structuredContent` that fits it (and, for older clients, the
same data as text). The host checks the promise itself: the SDK's `Client` checks only tools it has
listed in this session, and raises a bare RuntimeError when one breaks it. A broken result is
refused with a sentence that names the tool and the first thing wrong; the model gets the
structure as JSON plus the text fallback, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import jsonschema


class BrokenResult(ValueError):
    """A tool's result does not fit the tool's own outputSchema."""


def structure_problems(output_schema: dict, structured: Any) -> list[str]:
    """Each way `structured` breaks `output_schema`, as 'where: what' (lesson 9, exercise l9-structured-result)."""
    if structured is None:
        return ["(result): no structuredContent, though the tool has an outputSchema"]
    validator = jsonschema.Draft202012Validator(output_schema)
    found = []
    for error in sorted(validator.iter_errors(structured), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(result)"
        found.append(f"{where}: {error.message}")
    return found


def for_model(tool: str, output_schema: dict | None, structured: Any, text: str) -> str:
    """What the model reads: the structure checked against the schema, and the text beside it."""
    if output_schema is None:
        return text
    wrong = structure_problems(output_schema, structured)
    if wrong:
        raise BrokenResult(f"{tool} returned a result that breaks its own outputSchema ({wrong[0]}); "
                           "the host refused it: tell the server's maintainer.")
    if structured == {"result": text}:  # a str-returning tool: the SDK wraps the text, nothing more to say
        return text
    data = json.dumps(structured, ensure_ascii=False, sort_keys=True)
    with contextlib.suppress(ValueError):
        if json.loads(text) == structured:  # the text fallback is the same data: say it once
            return data
    return f"{data}\n{text}" if text and text.strip() != data else data
