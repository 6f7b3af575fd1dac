"""The host: the part of your program that holds MCP clients and gives their tools to the model (lesson 6).

    async with McpHost(approver=choose_approver(scripted=[True])) as host:
        await host.connect("docs", stdio("course.servers.docs"), allow={"search_docs", "create_ticket"})
        result = await arun_agent(llm, model, question, tools=host.tools(), execute=host.execute)

- one client per server; several servers at once. When two servers offer the same tool name,
  both copies are renamed `server__tool` (connect every server before the conversation starts:
  a model that already knew the plain name will not find it any more);
- a client-side allowlist per server: a tool that is not on it never runs and the model does
  not even see it; a tool the server adds later stays hidden (and named) until you add it;
- every call passes lesson 4's policy: of the allowlisted tools, those the server annotates
  read-only run at once, the rest need approval. Lesson 4's rules see the server's own tool
  name (`issue_refund`, also when the model knows it as `shop__issue_refund`);
- unknown tools, unreadable arguments and arguments that break the tool's input schema are
  answered here, before anyone is asked to approve and without bothering the server;
- when a server announces a new tool list, the host lists its tools again (the allowlist still
  decides); a tool that can only run as an MCP task runs as one (lesson 9, `tasks.py`) where the
  server serves tasks, and is not offered where it does not;
- each call has a timeout; a failed call is always reported to the model as an error.
- `offering.py` holds what the model sees, `calls.py` how its calls run, `context.py` resources
  and prompts; this file connects and closes.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Iterable

from mcp import types

from course.approval import Approver
from course.errors import ServerError
from course.host.calls import ToolCalls
from course.host.connection import Connection
from course.host.context import ContextPrimitives
from course.host.convert import MAX_RESULT_CHARS, SEPARATOR, Outcome, openai_name
from course.host.notes import stdout_noise
from course.host.offering import HostRule, Offered, ToolOffering
from course.host.pinning import Pins
from course.host.servers import ServerSpec, check_spec
from course.host.tasks import HostTasks, print_status
from course.permissions import DecisionLog

__all__ = ["HostRule", "McpHost", "Offered"]


class McpHost(ToolOffering, ToolCalls, ContextPrimitives):  # offering.py, calls.py, context.py (lesson 8)
    """Holds one connection per server and executes the model's calls through them."""

    def __init__(self, *, approver: Approver | None = None, timeout: float = 10.0,
                 rules: Iterable[HostRule] = (), log: DecisionLog | None = None, quiet: bool = False,
                 max_result_chars: int = MAX_RESULT_CHARS, tasks: HostTasks | None = None,
                 elicitation: Callable[..., Awaitable[types.ElicitResult]] | None = None,
                 progress: Callable[[str], Callable[..., Awaitable[None]]] | None = None):
        self.approver = approver or _nobody
        self.timeout = timeout  # seconds per tool call (a server's own timeout, if given, wins)
        self.max_result_chars = max_result_chars  # longer results are cut, with a note for the model
        self.rules = list(rules)
        self.log = log if log is not None else DecisionLog()
        self.quiet = quiet
        self.tasks = tasks or HostTasks(on_status=None if quiet else print_status)  # lesson 9
        self.elicitation = elicitation  # lesson 9: who answers a server's question (course.beyond.answerers)
        self.progress = progress  # lesson 9: tool name -> a progress display for that call (course.beyond.progress)
        self.connections: dict[str, Connection] = {}
        self.listed: dict[str, list[types.Tool]] = {}  # everything each server listed
        self.hidden: dict[str, list[str]] = {}  # listed but not on the allowlist
        self.needs_tasks: dict[str, list[str]] = {}  # allowlisted, but they only run as MCP tasks
        self.offered: dict[str, Offered] = {}  # by the name the model uses
        self.outcomes: list[Outcome] = []  # every call that reached `call_server`, in order
        self.context_read: list[tuple[str, str, bool]] = []  # resources and prompts read (lesson 8: taint)
        self.pins = Pins()  # lesson 8: each allowed tool's definition, hashed; a changed one is withheld
        self._allow: dict[str, set[str]] = {}
        self._timeouts: dict[str, float] = {}
        self._guarded: Callable[[str, str], Awaitable[str]] | None = None
        self._listing = asyncio.Lock()

    # -- connecting ---------------------------------------------------------------------------------
    async def connect(self, name: str, spec: ServerSpec, *, allow: Iterable[str], timeout: float | None = None,
                      read_timeout: float = 10.0) -> None:
        """Connect to a server, list its tools, and offer the allowlisted ones to the model.

        The connection is then `host.connections[name]`.

        `allow`: the server's tool names the model may see. `timeout`: seconds per tool call on
        this server (default: the host's). `read_timeout`: seconds for connecting and listing.
        """
        check_spec(spec)
        if isinstance(allow, str):
            raise TypeError(f"allow= takes tool names, e.g. {{{allow!r}}}, not a single string.")
        if name in self.connections:
            raise ValueError(f"a server named {name!r} is already connected; pick another name or close it first.")
        if SEPARATOR in name or openai_name(name) != name:
            raise ValueError(f"server names use letters, digits, _ and - (no {SEPARATOR!r}): {name!r}.")
        connection = await Connection.open(name, spec, read_timeout=read_timeout, elicitation=self.elicitation)
        try:
            tools = await connection.list_tools()
        except ServerError:
            await connection.close()
            raise
        self.connections[name] = connection
        self.listed[name], self._allow[name] = tools, set(allow)
        if timeout is not None:
            self._timeouts[name] = timeout
        before = dict(self.offered)
        self._offer()
        if not self.quiet:
            print(self.describe(name))
            self._warn_about_renames(before)
        self._warn_about_stdout(connection)
        connection.on_tools_changed = functools.partial(self._tools_changed, name)

    def _warn_about_stdout(self, connection: Connection) -> None:
        for note in stdout_noise(connection):
            if not self.quiet:
                print(note)
    # -- closing ------------------------------------------------------------------------------------
    async def close(self) -> None:
        """Close every connection (and stop every stdio child); the model is offered nothing any more."""
        # All at once: each stdio child takes a moment to exit after its stdin closes.
        await asyncio.gather(*(connection.close() for connection in self.connections.values()))
        self.connections.clear()
        self.listed, self._allow, self._timeouts = {}, {}, {}  # new tables: a reference you kept stays as it was
        self._offer()

    async def disconnect(self, server: str) -> None:
        """Close one server's connection; its tools are no longer offered."""
        if server not in self.connections:
            connected = ", ".join(self.connections) or "none"
            raise KeyError(f"no server named {server!r} is connected (connected: {connected}).")
        await self.connections.pop(server).close()
        for table in (self.listed, self._allow, self.hidden, self.needs_tasks, self._timeouts):
            table.pop(server, None)
        self._offer()

    async def __aenter__(self) -> McpHost:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<McpHost servers={list(self.connections)} tools={list(self.offered)}>"


async def _nobody(request) -> bool:
    """The default approver: there is no human, so nothing that needs approval runs."""
    print(f"[no approver] rejected: {request} (pass McpHost(approver=...) to decide)")
    return False
