"""The Chat Completions answers: a `chat.completion` object, or its stream of chunks (lesson 1, 7).

`Answer` is what the model says, already fitted to the request (cut to `max_tokens`);
`completion` and `stream` render it in the wire format the SDK parses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import httpx2

from course.scripted.turns import CHARS_PER_TOKEN, CREATED, ToolCall, estimate_tokens


@dataclass(frozen=True)
class Answer:
    """One answer of the model: text or tool calls, why it stopped, and its token counts."""

    text: str | None
    calls: list[ToolCall]
    finish_reason: str  # "stop", "tool_calls" or "length"
    prompt_tokens: int
    completion_tokens: int


def fit(body: dict, text: str | None, calls: list[ToolCall], prompt_tokens: int, limit: int | None,
        forced: bool = False) -> Answer:
    """Cut the answer at `limit` completion tokens, as the API does (finish_reason "length")."""
    finish = "tool_calls" if calls and not forced else "stop"
    used = estimate_tokens(text or "".join(c.name + c.arguments for c in calls))
    if limit is None or used <= limit:
        return Answer(text, calls, finish, prompt_tokens, used)
    budget = limit * CHARS_PER_TOKEN
    if text is not None:
        return Answer(text[:budget], [], "length", prompt_tokens, limit)
    kept: list[ToolCall] = []
    for c in calls:  # a cut call keeps a prefix of its arguments: no longer valid JSON, as in real life
        room = budget - len(c.name)
        if room <= 0:
            break
        kept.append(ToolCall(c.name, c.arguments[:room], c.hallucinated))
        budget -= len(c.name) + len(kept[-1].arguments)
    return Answer(None, kept, "length", prompt_tokens, limit)


def prompt_tokens(body: dict) -> int:
    return estimate_tokens(json.dumps(body.get("messages", [])) + json.dumps(body.get("tools", [])))


def call_id(n: int, i: int, choice: int = 0) -> str:
    return f"call_{n}_{i}" if choice == 0 else f"call_{n}_{i}_{choice}"


def usage(a: Answer) -> dict:
    return {"prompt_tokens": a.prompt_tokens, "completion_tokens": a.completion_tokens,
            "total_tokens": a.prompt_tokens + a.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0}}


def message(a: Answer, n: int, choice: int = 0) -> dict:
    out: dict[str, Any] = {"role": "assistant", "content": a.text, "refusal": None, "annotations": []}
    if a.calls:  # the API leaves the key out of a text answer (it is not null)
        out["tool_calls"] = [{"id": call_id(n, i, choice), "type": "function",
                              "function": {"name": c.name, "arguments": c.arguments}}
                             for i, c in enumerate(a.calls)]
    return out


def completion(body: dict, a: Answer, n: int, model: str) -> dict:
    """The `chat.completion` object; `n` choices when the request asks for several."""
    choices = [{"index": k, "message": message(a, n, k), "logprobs": None, "finish_reason": a.finish_reason}
               for k in range(body.get("n") or 1)]
    return {"id": f"chatcmpl-scripted-{n}", "object": "chat.completion", "created": CREATED,
            "model": model, "choices": choices, "usage": usage(a), "system_fingerprint": "fp_scripted",
            "service_tier": "default"}


def pieces(text: str) -> list[str]:
    """Split text the way a stream delivers it: a word (and the space after it) at a time."""
    return re.findall(r"\S+\s*|\s+", text) or [""]


def chunks(body: dict, a: Answer, n: int, model: str) -> list[dict]:
    """The `chat.completion.chunk` objects of a streamed answer (one choice)."""
    with_usage = bool((body.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict, finish: str | None = None) -> dict:
        out = {"id": f"chatcmpl-scripted-{n}", "object": "chat.completion.chunk", "created": CREATED,
               "model": model, "system_fingerprint": "fp_scripted", "service_tier": "default",
               "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if with_usage:
            out["usage"] = None
        return out

    out = [chunk({"role": "assistant", "content": "" if a.text is not None else None, "refusal": None})]
    if a.text:
        out += [chunk({"content": p}) for p in pieces(a.text)]
    for i, c in enumerate(a.calls):
        out.append(chunk({"tool_calls": [{"index": i, "id": call_id(n, i), "type": "function",
                                          "function": {"name": c.name, "arguments": ""}}]}))
        for j in range(0, len(c.arguments), 8):  # arguments arrive in fragments, as they are generated
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": c.arguments[j:j + 8]}}]}))
    out.append(chunk({}, a.finish_reason))
    if with_usage:
        last = chunk({})
        last["choices"], last["usage"] = [], usage(a)
        out.append(last)
    return out


def event_stream(events: list[dict], *, named: bool = False) -> httpx2.Response:
    """Server-sent events: `data: {json}` per event (with `event: type` for the Responses API), then [DONE]."""
    lines = []
    for e in events:
        if named:
            lines.append(f"event: {e['type']}")
        lines.append(f"data: {json.dumps(e)}\n")
    if not named:
        lines.append("data: [DONE]\n")
    return httpx2.Response(200, content=("\n".join(lines) + "\n").encode(),
                           headers={"content-type": "text/event-stream; charset=utf-8"})
