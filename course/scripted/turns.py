"""What a script is made of: the turns a scripted model can take (lesson 1).

A script is a list of turns, or a rule `rule(body) -> turn` that reads the request.
A turn is a `str` (the answer), `call(...)` or a list of calls (parallel calls),
`Fail(status)` or `Timeout()`.

Token estimate (documented, deterministic): one token per 4 characters, rounded up,
of the JSON of `messages` + `tools` (prompt) and of the answer or call arguments
(completion). Real tokenizers differ; budgets behave the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course.conversation import estimate_tokens  # noqa: F401 (re-exported: one estimate for the loop and the usage)
from course.errors import CourseError

CREATED = 1_767_225_600  # a fixed timestamp keeps responses identical run to run
CHARS_PER_TOKEN = 4  # as course.agent.tokens counts


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model makes. `arguments` is the raw JSON text, as on the wire."""

    name: str
    arguments: str
    hallucinated: bool = False  # True: call a tool that was not offered, as weak models do


def call(name: str, **arguments: Any) -> ToolCall:
    """A well-formed tool call: `call("get_order_status", order_id="A1001")`."""
    return ToolCall(name, json.dumps(arguments))


def raw_call(name: str, arguments: str, *, hallucinated: bool = False) -> ToolCall:
    """A tool call with arguments exactly as given, even if they are not valid JSON."""
    return ToolCall(name, arguments, hallucinated)


@dataclass(frozen=True)
class Fail:
    """An HTTP error from the API, e.g. `Fail(429)` (rate limited), `Fail(401)` or `Fail(500)`."""

    status: int = 429
    message: str = ""
    retry_after: float | None = 0.01  # seconds; sent as Retry-After headers


@dataclass(frozen=True)
class Timeout:
    """The request never gets an answer in time (raised as `httpx2.ReadTimeout`)."""

    seconds: float = 1.0  # only used when served over HTTP: how long to stall


Turn = str | ToolCall | list[ToolCall] | Fail | Timeout
Rule = Callable[[dict], Turn]


class ScriptExhausted(CourseError, AssertionError):
    """The model got more requests than its script has turns."""


class OffSpecAnswer(CourseError, AssertionError):
    """The scripted model was about to send something OpenAI's published schema does not allow."""


def calls_of(turn: Turn) -> list[ToolCall]:
    return [turn] if isinstance(turn, ToolCall) else list(turn) if isinstance(turn, list) else []
