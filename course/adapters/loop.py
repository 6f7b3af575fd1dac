"""The agent loop over any adapter: the model half asks, the MCP half (or any `execute`) answers (lesson 7)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from course.adapters.turn import ModelTurn, ToolCall, ToolResult

# execute(name, arguments) -> text, or (text, is_error) when it knows whether the call failed
Execute = Callable[[str, str], "str | tuple[str, bool] | Awaitable[str | tuple[str, bool]]"]


@dataclass
class Run:
    """What one question cost and how it ended."""

    answer: str | None
    stop_reason: str  # the last turn's stop, or "max_steps"
    turns: list[ModelTurn] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return len(self.turns)

    @property
    def calls(self) -> list[ToolCall]:
        return [c for t in self.turns for c in t.calls]

    @property
    def tokens(self) -> int:
        return sum(t.usage.total for t in self.turns)


async def run(adapter, question: str, tools: list[dict], execute: Execute, *, instructions: str | None = None,
              max_steps: int = 6, on_text: Callable[[str], None] | None = None) -> Run:
    """Ask, run the calls, send the results back, until the model answers (or `max_steps`)."""
    history = adapter.start(question, instructions)
    definitions = adapter.tools(tools)
    out = Run(None, "max_steps", history=history)
    for _ in range(max_steps):
        turn = await (adapter.stream(history, definitions, on_text) if on_text else adapter.turn(history, definitions))
        out.turns.append(turn)
        if not turn.calls:
            out.answer, out.stop_reason = turn.text, turn.stop
            return out
        results = [await result_of(execute, c) for c in turn.calls]
        out.results += results
        adapter.add_results(history, results)
    return out


async def result_of(execute: Execute, c: ToolCall) -> ToolResult:
    got = execute(c.name, c.arguments)
    if inspect.isawaitable(got):
        got = await got
    if isinstance(got, tuple):
        return ToolResult(c.id, got[0], got[1])
    return ToolResult.from_text(c.id, got)


def host_execute(host) -> Execute:
    """The MCP host as an `execute` that keeps the server's own error flag (`CallToolResult.is_error`)."""

    async def execute(name: str, arguments: str) -> str | tuple[str, bool]:
        before = len(host.outcomes)
        text = await host.execute(name, arguments)
        if len(host.outcomes) > before:  # the call reached the server (or the host answered for it)
            return text, host.outcomes[-1].is_error
        return text  # answered before any server: unknown tool, unreadable arguments, refused

    return execute

