"""The Chat Completions adapter: `messages` in, `ModelTurn` out (lesson 7; the format of lessons 1-6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course.adapters.turn import ModelTurn, ToolCall, ToolResult, Usage

STOPS = {"stop": "done", "tool_calls": "tool_calls", "length": "length", "content_filter": "refused"}


class ChatCompletionsAdapter:
    """Talks to `POST /v1/chat/completions` (OpenAI or any OpenAI-compatible server) with an async client."""

    api = "Chat Completions"

    def __init__(self, client, model: str, **options):
        self.client, self.model, self.options = client, model, options

    def start(self, question: str, instructions: str | None = None) -> list[dict]:
        system = [{"role": "system", "content": instructions}] if instructions else []
        return [*system, {"role": "user", "content": question}]

    def tools(self, definitions: list[dict]) -> list[dict]:
        """The course's tool definitions are already in this API's (nested) format."""
        return definitions

    async def turn(self, history: list[dict], tools: list[dict]) -> ModelTurn:
        extra = {"tools": tools} if tools else {}
        r = await self.client.chat.completions.create(model=self.model, messages=history, **extra, **self.options)
        choice = r.choices[0]
        history.append(choice.message.model_dump(exclude_none=True))
        calls = tuple(ToolCall(c.id, c.function.name, c.function.arguments)
                      for c in choice.message.tool_calls or [])
        usage = Usage(r.usage.prompt_tokens, r.usage.completion_tokens) if r.usage else Usage()
        return ModelTurn(choice.message.content, calls, stop_of(choice.finish_reason, calls), usage)

    async def stream(self, history: list[dict], tools: list[dict], on_text: Callable[[str], None]) -> ModelTurn:
        """The same turn, streamed: `on_text` gets each piece of the answer as it arrives."""
        extra = {"tools": tools} if tools else {}
        chunks = await self.client.chat.completions.create(
            model=self.model, messages=history, stream=True, stream_options={"include_usage": True},
            **extra, **self.options)
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish, usage = None, Usage()
        async for chunk in chunks:
            if chunk.usage:
                usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
            if not chunk.choices:  # the usage chunk comes last, with no choices
                continue
            delta, finish = chunk.choices[0].delta, chunk.choices[0].finish_reason or finish
            if delta.content:
                text.append(delta.content)
                on_text(delta.content)
            for d in delta.tool_calls or []:  # a call's arguments arrive in fragments, by index
                c = calls.setdefault(d.index, {"id": "", "name": "", "arguments": []})
                c["id"] = d.id or c["id"]
                if d.function:
                    c["name"] = d.function.name or c["name"]
                    c["arguments"].append(d.function.arguments or "")
        made = tuple(ToolCall(c["id"], c["name"], "".join(c["arguments"])) for _, c in sorted(calls.items()))
        answer = "".join(text) if text else None
        said: dict[str, Any] = {"role": "assistant", "content": answer}
        if made:
            said["tool_calls"] = [{"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": c.arguments}} for c in made]
        history.append(said)
        return ModelTurn(answer, made, stop_of(finish, made), usage)

    def add_results(self, history: list[dict], results: list[ToolResult]) -> None:
        history.extend({"role": "tool", "tool_call_id": r.call_id, "content": r.for_model()} for r in results)


def stop_of(finish_reason: str | None, calls: tuple) -> str:
    if calls and finish_reason != "length":
        return "tool_calls"  # a forced call ends with finish_reason "stop"
    return STOPS.get(finish_reason or "stop", finish_reason or "done")
