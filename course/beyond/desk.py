"""Lesson 9: the shop desk's connection to one server, with what lessons 5–8's host leaves out.

`Desk` holds one `mcp.Client` across notebook cells and gives the agent loop `tools()` and
`execute(name, arguments)`, like `McpHost` (course/host/), plus: an elicitation callback (the
answerer, with the secret and schema rules), structured results checked against their outputSchema,
a progress display per call, and cancelling a call the human stops. `log` says what happened, in
words, for the human; the model only ever gets one line per call.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client, MCPError, types

from course.beyond.answerers import Answerer, Asked, elicitation_callback
from course.beyond.structured import BrokenResult, for_model
from course.host.convert import result_text, to_openai_tool

Progress = Callable[[float, float | None, str | None], Any]


class Desk:
    def __init__(self, server: Any, answerer: Answerer, *, mode: str = "auto",
                 progress: Callable[[str], Progress] | None = None) -> None:
        self.server, self.mode, self.progress = server, mode, progress
        self.asked: list[Asked] = []
        self.log: list[str] = []
        self.tools_by_name: dict[str, types.Tool] = {}
        self._callback = elicitation_callback(answerer, self.asked)
        self._stack = contextlib.AsyncExitStack()
        self.client: Client | None = None
        self.cancel_after: dict[str, int] = {}  # tool -> progress updates before the human presses Cancel

    async def __aenter__(self) -> Desk:
        self.client = await self._stack.enter_async_context(
            Client(self.server, mode=self.mode, elicitation_callback=self._callback))
        self.tools_by_name = {t.name: t for t in (await self.client.list_tools()).tools}
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.aclose()

    @property
    def protocol_version(self) -> str:
        assert self.client is not None, "use `async with Desk(...) as desk:` (or `await desk.__aenter__()`)"
        return str(self.client.protocol_version)

    def tools(self, names: set[str] | None = None) -> list[dict]:
        return [to_openai_tool(t) for n, t in self.tools_by_name.items() if names is None or n in names]

    async def execute(self, name: str, arguments: str) -> str:
        """Call a tool; the model gets its result (structure + text) or one line saying what went wrong."""
        assert self.client is not None, "open the desk first: `async with Desk(...) as desk:`"
        tool = self.tools_by_name.get(name)
        if tool is None:
            return f"Error: no tool {name!r} here."
        shown = self.progress(name) if self.progress else None
        stop_after = self.cancel_after.pop(name, None)
        seen = 0
        with anyio.CancelScope() as scope:
            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                nonlocal seen
                seen += 1
                if shown is not None:
                    await shown(progress, total, message)
                if stop_after is not None and seen >= stop_after:
                    scope.cancel()  # the human pressed Cancel: the SDK tells the server (notifications/cancelled)
            try:
                result = await self.client.call_tool(name, json.loads(arguments or "{}"), progress_callback=on_progress)
            except MCPError as e:
                self.log.append(f"{name}: error {e.code} ({e.message})")
                return f"Error: {name} failed ({e.message})."
            except RuntimeError as e:  # the SDK's own check of a listed tool's outputSchema, or no back-channel
                self.log.append(f"{name}: refused ({e})")
                if "structured content" in str(e):
                    return f"Error: {name} returned a result that breaks its own outputSchema; the host refused it."
                return f"Error: {name} could not run on this connection ({type(e).__name__})."
        if scope.cancelled_caught:
            self.log.append(f"{name}: cancelled by the human after {seen} progress updates; the server was told")
            return f"Cancelled: the human stopped {name} before it finished. Do not say it was done."
        text = result_text(result)
        if result.is_error:
            self.log.append(f"{name}: error result")
            return text
        try:
            reply = for_model(name, tool.output_schema, result.structured_content, text)
        except BrokenResult as e:
            self.log.append(str(e))
            return f"Error: {e}"
        self.log.append(f"{name}: ok")
        return reply
