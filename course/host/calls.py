"""Running the model's calls: checks first, then the server, then what happened (lesson 6, part of `McpHost`).

`execute` answers unknown tools, unreadable arguments, arguments that break the schema and
dead servers itself; the rest pass lesson 4's policy (`guarded`) to `call_server`, which sends
the call with a timeout and records an `Outcome` and, in the decision log, what happened.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mcp import types

from course.approval import NOT_OFFERED
from course.arguments import parse_arguments
from course.errors import BadArguments, CallRejected, ServerError
from course.host.convert import Outcome, capped, needs_tasks, open_world, result_text
from course.host.pinning import Pins, withheld_reply
from course.host.replies import call_failed, outcome_of, unavailable
from course.host.tasks import HostTasks, TaskEnd
from course.host.validation import rejection, schema_problems
from course.permissions import DecisionLog, LogEntry

if TYPE_CHECKING:
    from course.host.connection import Connection
    from course.host.offering import Offered


class ToolCalls:
    """The host's side of a tool call (mixed into `McpHost`, which holds the connections and what is offered)."""

    timeout: float
    max_result_chars: int
    log: DecisionLog
    quiet: bool
    connections: dict[str, Connection]
    offered: dict[str, Offered]
    outcomes: list[Outcome]
    pins: Pins
    tasks: HostTasks
    progress: Callable[[str], Callable[..., Awaitable[None]]] | None
    _timeouts: dict[str, float]
    _guarded: Callable[[str, str], Awaitable[str]] | None

    if TYPE_CHECKING:
        async def _tools_changed(self, server: str) -> None: ...
        def _warn_about_stdout(self, connection: Connection) -> None: ...

    async def execute(self, name: str, arguments: str) -> str:
        """Run one of the model's calls; always returns text for the model (lesson 2's `execute`)."""
        if self._guarded is None or not self.connections:
            return f"Error: no MCP server is connected, so there is no tool {name!r}. Answer without tools."
        offered = self.offered.get(name)
        parsed: dict | BadArguments
        try:
            parsed = parse_arguments(name, arguments, schema=offered.tool.input_schema if offered else None)
        except BadArguments as e:
            parsed = e
        if offered is None and (changed := withheld_reply(self.pins, name)):  # lesson 8: a rug pull
            self.log.record(name, parsed if isinstance(parsed, dict) else {}, "denied", "changed definition")
            return changed
        if offered is None:  # a tool the model invented, or one the allowlist hides
            self.log.record(name, {"raw": parsed.raw} if isinstance(parsed, BadArguments) else parsed,
                            "denied", "allowlist")
            return NOT_OFFERED.format(tool=name)
        if isinstance(parsed, BadArguments):
            self.log.record(name, {"raw": parsed.raw}, "denied", "unreadable arguments")
            return str(parsed)
        problems = schema_problems(offered.tool.input_schema, parsed)
        if problems:  # nobody approves a call that cannot run; the model learns what to fix
            self.log.record(name, parsed, "denied", "invalid arguments")
            return rejection(name, problems)
        failure = self.connections[offered.server].failure
        if failure:  # a dead server: say so at once, without asking anyone to approve a call that cannot run
            return self._record(Outcome(name, unavailable(failure), True, by="host"))
        reply = await self._guarded(name, arguments)  # lesson 4: the policy, and a human if it asks
        connection = self.connections.get(offered.server)
        if connection is not None and connection.tools_changed.is_set():  # the model's next call sees it
            await self._tools_changed(offered.server)
        return reply

    async def call_server(self, name: str, arguments: str) -> str:
        """The call itself, once the policy let it through: the server's answer as text."""
        decision = self._decision_for(name)  # before any await: `guarded` logged it just now
        offered = self.offered.get(name)
        connection = self.connections.get(offered.server) if offered else None
        if offered is None or connection is None:  # closed while a human was deciding
            return self._record(Outcome(name, f"Error: {name} is not available any more: its server was "
                                              "disconnected, so nothing was run. Tell the user.", True, by="host"),
                                decision, "not sent")
        timeout = self._timeouts.get(offered.server, self.timeout)
        try:
            if needs_tasks(offered.tool):  # lesson 9: started as a task, polled until it ends or the deadline
                result = await self.tasks.call(connection, offered.tool.name, parse_arguments(name, arguments), timeout)
            else:
                result = await connection.call_tool(offered.tool.name, parse_arguments(name, arguments), timeout,
                                                    self.progress(name) if self.progress else None)
        except ServerError as e:
            if (e.details or connection.failure is not None) and not self.quiet:
                print(f"warning: {e}")  # the model gets one line; you get the diagnosis
            # A rejection quotes the server's words to the model (so it can fix its arguments): from an
            # open-world tool, they are as untrusted as a result.
            return self._record(Outcome(name, call_failed(e, name, offered.read_only), True, by="host",
                                        diagnosis=str(e), open_world=isinstance(e, CallRejected)
                                        and open_world(offered.tool)), decision, outcome_of(e))
        self._warn_about_stdout(connection)
        if isinstance(result, TaskEnd):  # cancelled, or still running after the deadline: no result yet
            return self._record(Outcome(name, result.text, result.is_error, by="host"), decision, result.happened)
        text = capped(self._text_for_model(offered, result), name, self.max_result_chars)
        # Judged now, as the text enters the context: a definition that changes later cannot take the taint away.
        return self._record(Outcome(name, text, bool(result.is_error), open_world=open_world(offered.tool)), decision,
                            "ran, the tool reported an error" if result.is_error else "ran")

    def _text_for_model(self, offered: Offered, result: types.CallToolResult) -> str:
        """What the model reads of a result (lesson 9's desk also checks its structure: course/beyond/desk.py)."""
        return result_text(result)

    def _decision_for(self, name: str) -> LogEntry | None:
        """The log entry that let this call through: the newest unsettled allow or approval for `name`."""
        for entry in reversed(self.log.entries):
            if entry.tool == name and entry.ran and not entry.outcome:
                return entry
        return None

    def _record(self, outcome: Outcome, decision: LogEntry | None = None, happened: str = "") -> str:
        self.outcomes.append(outcome)
        if decision is not None:
            self.log.settle(decision, happened)
        return outcome.text
