"""Lesson 9: the shop desk — the course host (`McpHost`, course/host/) on the lesson's server, with a human.

`Desk` *is* an `McpHost`: lessons 6–8's allowlist, schema checks, lesson 4's policy, the decision
log and tasks (course/host/tasks.py) all apply. It connects one server (in memory) and sets what
lesson 9 adds on the host's own hooks:

- `elicitation=`: the answerer (form, terminal or script) inside the host's rules (answerers.py);
  `asked` keeps each question and its outcome, never what was typed;
- `progress=`: a display per call (`display(name)`, progress.py); a call the human stops
  (`cancel_after[tool] = n`: Cancel pressed after n updates) is cancelled, which the SDK tells
  the server (`notifications/cancelled`), and the decision log says "cancelled by the human";
- structured results checked against the tool's own outputSchema (structured.py) before the
  model reads them.

It allows every tool the server lists (the lesson's own server) and approves every call by
default: the human decides in the forms those tools draw. Pass `approver=` for lesson 4's approval.
`notes` says what happened, in words, for the human; the model only ever gets one line per call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import types

from course.approval import Approver
from course.beyond.answerers import Answerer, Asked, elicitation_callback
from course.beyond.structured import BrokenResult, for_model
from course.host.convert import Outcome, result_text, to_openai_tool
from course.host.host import McpHost
from course.host.offering import Offered
from course.host.servers import in_memory

Progress = Callable[[float, float | None, str | None], Any]
SERVER = "shop"


async def _the_form_decides(request: Any) -> bool:
    """The desk's default approver: the lesson's own server, whose tools ask the human in a form."""
    return True


class Desk(McpHost):
    def __init__(self, server: Any, answerer: Answerer, *, mode: str = "auto",
                 progress: Callable[[str], Progress] | None = None, approver: Approver | None = None) -> None:
        self.asked: list[Asked] = []
        super().__init__(approver=approver or _the_form_decides, quiet=True,
                         elicitation=elicitation_callback(answerer, self.asked), progress=self._progress_for)
        self.server, self.mode, self.display = server, mode, progress
        self.notes: list[str] = []
        self.cancel_after: dict[str, int] = {}  # tool -> progress updates before the human presses Cancel
        self._stop: tuple[anyio.CancelScope, int, list[int]] | None = None

    async def __aenter__(self) -> Desk:
        await self.connect(SERVER, in_memory(self.server, mode=self.mode), allow=())
        self._allow[SERVER] = {t.name for t in self.listed[SERVER]}  # the lesson's own server: all of it
        self._offer()
        return self

    async def open(self) -> Desk:
        """Connect for as long as the notebook needs it, across cells (`await desk.close()` at the end)."""
        return await self.__aenter__()

    @property
    def protocol_version(self) -> str:
        connection = self.connections.get(SERVER)
        assert connection is not None and connection.client is not None, \
            "use `async with Desk(...) as desk:` (or `desk = await Desk(...).open()`)"
        return str(connection.client.protocol_version)

    @property
    def tools_by_name(self) -> dict[str, types.Tool]:
        return {o.tool.name: o.tool for o in self.offered.values()}

    def tools(self, names: set[str] | None = None) -> list[dict]:
        return [to_openai_tool(o.tool, o.name) for o in self.offered.values() if names is None or o.name in names]

    async def execute(self, name: str, arguments: str) -> str:
        """The host's `execute`, with the human's Cancel around it."""
        noted = len(self.notes)
        with anyio.CancelScope() as scope:
            seen = [0]
            self._stop = (scope, self.cancel_after.pop(name, 0), seen)
            try:
                reply = await super().execute(name, arguments)
            finally:
                self._stop = None
        if not scope.cancelled_caught:
            if len(self.notes) > noted:  # the result was refused, and the note says why
                return reply
            self.notes.append(f"{name}: {self.log.entries[-1].outcome or self.log.entries[-1].decision}"
                              if self.log.entries else f"{name}: answered by the host")
            return reply
        decision = self._decision_for(name)
        self.notes.append(f"{name}: cancelled by the human after {seen[0]} progress updates; the server was told")
        return self._record(Outcome(name, f"Cancelled: the human stopped {name} before it finished. "
                                          "Do not say it was done.", True, by="host"),
                            decision, "cancelled by the human")

    def _progress_for(self, name: str) -> Callable[..., Awaitable[None]]:
        shown = self.display(name) if self.display else None
        stop = self._stop

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if shown is not None:
                await shown(progress, total, message)
            if stop is not None:
                scope, after, seen = stop
                seen[0] += 1
                if after and seen[0] >= after:
                    scope.cancel()  # the human pressed Cancel: the SDK tells the server (notifications/cancelled)

        return on_progress

    def _text_for_model(self, offered: Offered, result: types.CallToolResult) -> str:
        """The structure, checked against the tool's own outputSchema, and the text beside it."""
        text = result_text(result)
        if result.is_error:
            return text
        try:
            return for_model(offered.name, offered.tool.output_schema, result.structured_content, text)
        except BrokenResult as e:
            self.notes.append(str(e))
            return f"Error: {e}"
