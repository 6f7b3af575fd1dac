"""The Responses API adapter: input items in, `ModelTurn` out (lesson 7).

Differences from Chat Completions that the adapter hides: tools are flat (`name` at the top,
`strict` sent: left out, the Responses API makes a tool strict), a call is a `function_call` item
quoted by its `call_id` (not its `id`),
a result is a `function_call_output` item, and the text is `output_text`.
"""

from __future__ import annotations

from collections.abc import Callable

from course.adapters.turn import ModelTurn, ToolCall, ToolResult, Usage


class ResponsesAdapter:
    """Talks to `POST /v1/responses` with an async client; keeps the whole conversation client-side."""

    api = "Responses"

    def __init__(self, client, model: str, **options):
        self.client, self.model, self.options = client, model, options
        self.instructions: str | None = None

    def start(self, question: str, instructions: str | None = None) -> list[dict]:
        self.instructions = instructions
        return [{"role": "user", "content": question}]

    def tools(self, definitions: list[dict]) -> list[dict]:
        return [flat_tool(d) for d in definitions]

    async def turn(self, history: list[dict], tools: list[dict]) -> ModelTurn:
        r = await self.client.responses.create(model=self.model, input=history, **self._extra(tools), **self.options)
        return self._read(r, history)

    async def stream(self, history: list[dict], tools: list[dict], on_text: Callable[[str], None]) -> ModelTurn:
        """The same turn, streamed: `on_text` gets each text delta; the last event holds the whole response."""
        events = await self.client.responses.create(model=self.model, input=history, stream=True,
                                                    **self._extra(tools), **self.options)
        final = None
        async for event in events:
            if event.type == "response.output_text.delta":
                on_text(event.delta)
            elif event.type in ("response.completed", "response.incomplete"):
                final = event.response
        if final is None:
            raise RuntimeError("the stream ended without a completed response")
        return self._read(final, history)

    def _extra(self, tools: list[dict]) -> dict:
        extra: dict = {"tools": tools} if tools else {}
        if self.instructions:
            extra["instructions"] = self.instructions
        return extra

    @staticmethod
    def _read(r, history: list[dict]) -> ModelTurn:
        history.extend(item.model_dump(exclude_none=True) for item in r.output)
        return read_response(r)

    def add_results(self, history: list[dict], results: list[ToolResult]) -> None:
        history.extend(result_item(r) for r in results)


def read_response(r) -> ModelTurn:
    """A response as the loop's `ModelTurn`: its text, its calls (quoted by `call_id`), why it stopped, its tokens."""
    calls = tuple(ToolCall(i.call_id, i.name, i.arguments) for i in r.output if i.type == "function_call")
    cut = r.status == "incomplete" and r.incomplete_details and r.incomplete_details.reason == "max_output_tokens"
    stop = "length" if cut else "tool_calls" if calls else "done"
    usage = Usage(r.usage.input_tokens, r.usage.output_tokens) if r.usage else Usage()
    return ModelTurn(r.output_text or None, calls, stop, usage)


def flat_tool(definition: dict) -> dict:
    """A Chat Completions tool definition in the Responses API's flat shape."""
    fn = definition["function"]
    return {"type": "function", "name": fn["name"], "description": fn.get("description", ""),
            "parameters": fn.get("parameters", {"type": "object", "properties": {}}),
            "strict": fn.get("strict", False)}  # the Responses API would otherwise make it strict


def result_item(result: ToolResult) -> dict:
    return {"type": "function_call_output", "call_id": result.call_id, "output": result.for_model()}
