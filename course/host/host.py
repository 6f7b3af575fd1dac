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
  decides); a tool that can only run as an MCP task is not offered;
- each call has a timeout; a failed call is always reported to the model as an error.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from mcp import types

from course.approval import NOT_OFFERED, Approver, guarded
from course.arguments import parse_arguments
from course.errors import BadArguments, ServerError
from course.host.connection import Connection
from course.host.context import ContextPrimitives
from course.host.convert import (
    MAX_RESULT_CHARS,
    SEPARATOR,
    Outcome,
    capped,
    exposed_names,
    is_read_only,
    needs_tasks,
    openai_name,
    result_text,
    to_openai_tool,
)
from course.host.notes import renamed, stdout_noise
from course.host.pinning import Pins, withheld_notes, withheld_reply
from course.host.replies import call_failed, outcome_of, unavailable
from course.host.screening import flag_notes
from course.host.servers import ServerSpec, check_spec
from course.host.validation import rejection, schema_problems
from course.permissions import Decision, DecisionLog, LogEntry, Policy, PolicyRule

# The host's rules are lesson 4's `PolicyRule`s, or rules that also take `server=` (the server offering the tool).
HostRule = Callable[..., Decision | None]


@dataclass(frozen=True)
class Offered:
    """One tool the model sees: which server has it, under which name."""

    name: str  # the name the model uses
    server: str
    tool: types.Tool  # as the server listed it

    @property
    def read_only(self) -> bool:
        return is_read_only(self.tool)


class McpHost(ContextPrimitives):  # resources and prompts: course/host/context.py (lesson 8)
    """Holds one connection per server and executes the model's calls through them."""

    def __init__(self, *, approver: Approver | None = None, timeout: float = 10.0,
                 rules: Iterable[HostRule] = (), log: DecisionLog | None = None, quiet: bool = False,
                 max_result_chars: int = MAX_RESULT_CHARS):
        self.approver = approver or _nobody
        self.timeout = timeout  # seconds per tool call (a server's own timeout, if given, wins)
        self.max_result_chars = max_result_chars  # longer results are cut, with a note for the model
        self.rules = list(rules)
        self.log = log if log is not None else DecisionLog()
        self.quiet = quiet
        self.connections: dict[str, Connection] = {}
        self.listed: dict[str, list[types.Tool]] = {}  # everything each server listed
        self.hidden: dict[str, list[str]] = {}  # listed but not on the allowlist
        self.needs_tasks: dict[str, list[str]] = {}  # allowlisted, but they only run as MCP tasks
        self.offered: dict[str, Offered] = {}  # by the name the model uses
        self.outcomes: list[Outcome] = []  # every call that reached `call_server`, in order
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
        connection = await Connection.open(name, spec, read_timeout=read_timeout)
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

    async def refresh(self, server: str, *, only_if_changed: bool = False) -> None:
        """List a server's tools again and offer what changed (the allowlist still decides)."""
        connection = self.connections[server]
        async with self._listing:
            if only_if_changed and not connection.tools_changed.is_set():  # someone else just listed them
                return
            connection.tools_changed.clear()
            tools = await connection.list_tools()
            if self.connections.get(server) is not connection:  # disconnected meanwhile
                return
            before, self.listed[server] = dict(self.offered), tools
            self._offer()
        if not self.quiet:
            print(f"{server}: the server's tool list changed.\n{self.describe(server)}")
            self._warn_about_renames(before)

    async def _tools_changed(self, server: str) -> None:
        """The server announced a new tool list (`notifications/tools/list_changed`)."""
        try:
            await self.refresh(server, only_if_changed=True)
        except ServerError as e:
            if not self.quiet:
                print(f"warning: {e}")
        except KeyError:  # disconnected meanwhile
            pass

    def _warn_about_renames(self, before: dict[str, Offered]) -> None:
        before = {k: o for k, o in before.items() if (o.server, o.tool.name) not in self.pins.changes}  # withheld
        for note in renamed(before, self.offered):
            print(note)

    def _warn_about_stdout(self, connection: Connection) -> None:
        for note in stdout_noise(connection):
            if not self.quiet:
                print(note)

    def _offer(self) -> None:
        """Recompute what the model sees: allowlisted tools, with clashing names prefixed."""
        allowed = [(server, tool) for server, tools in self.listed.items()
                   for tool in self.pins.review(server, tools, self._allow[server]) if tool.name in self._allow[server]]
        chosen = [(server, tool) for server, tool in allowed if not needs_tasks(tool)]  # they fail every call
        self.hidden = {server: [t.name for t in tools if t.name not in self._allow[server]]
                       for server, tools in self.listed.items()}
        self.needs_tasks = {server: [t.name for s, t in allowed if s == server and needs_tasks(t)]
                            for server in self.listed}
        names = exposed_names([(server, tool.name) for server, tool in chosen])
        self.offered = {name: Offered(name, server, tool) for name, (server, tool) in zip(names, chosen, strict=True)}
        self._guarded = guarded(self.call_server, policy=self.policy(), approver=self.approver, log=self.log)

    def policy(self) -> Policy:
        """Lesson 4's policy for what is offered now: the allowlist, the rules, and each tool's risk."""
        risks = {o.name: "read" if o.read_only else "write" for o in self.offered.values()}  # the server's claim
        return Policy(risks, allowlist=set(self.offered), rules=[self._on_server_names(r) for r in self.rules])

    def _on_server_names(self, rule: HostRule) -> PolicyRule:
        """`rule`, called with the server's own tool name (and the server, if it takes `server`)."""
        takes_server = _takes_server(rule)

        @functools.wraps(rule)  # the decision log names the rule
        def judged(name: str, arguments: dict):
            offered = self.offered.get(name)  # the policy asks rules only about offered tools
            tool, server = (offered.tool.name, offered.server) if offered else (name, None)
            return rule(tool, arguments, server=server) if takes_server else rule(tool, arguments)

        return judged

    def describe(self, server: str) -> str:
        """One paragraph: what a server offers, what the allowlist hid, what it is missing."""
        mine = [o for o in self.offered.values() if o.server == server]
        tags = ", ".join(f"{o.name}{'' if o.read_only else ' (asks first)'}" for o in mine) or "none"
        text = f"{server}: {len(mine)} of {len(self.listed[server])} tools offered to the model: {tags}"
        if self.hidden[server]:
            text += f"\n  hidden (not on your allowlist): {', '.join(self.hidden[server])}"
        if self.needs_tasks[server]:
            text += (f"\n  not offered (they only run as MCP tasks, which this host does not support): "
                     f"{', '.join(self.needs_tasks[server])}")
        missing = sorted(self._allow[server] - {t.name for t in self.listed[server]})
        if missing:
            text += f"\n  on your allowlist but not offered by the server: {', '.join(missing)}"
        others = {t.name for s, tools in self.listed.items() if s != server for t in tools}
        notes = withheld_notes(self.pins, server) + flag_notes(server, self.listed[server], {o.tool.name for o in mine},
                                                                 others)
        return "\n".join([text, *notes])

    def accept_change(self, server: str, tool: str) -> None:
        """Offer a tool again whose definition changed, pinning the new one (after you read it: `describe`)."""
        self.pins.accept(server, next(t for t in self.listed[server] if t.name == tool))
        self._offer()

    def tools(self) -> list[dict]:
        """The OpenAI tool definitions of every offered tool (pass as `tools=`)."""
        return [to_openai_tool(o.tool, o.name) for o in self.offered.values()]

    # -- executing ----------------------------------------------------------------------------------
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
            result = await connection.call_tool(offered.tool.name, parse_arguments(name, arguments), timeout)
        except ServerError as e:
            if (e.details or connection.failure is not None) and not self.quiet:
                print(f"warning: {e}")  # the model gets one line; you get the diagnosis
            return self._record(Outcome(name, call_failed(e, name, offered.read_only), True, by="host",
                                        diagnosis=str(e)), decision, outcome_of(e))
        self._warn_about_stdout(connection)
        text = capped(result_text(result), name, self.max_result_chars)
        return self._record(Outcome(name, text, bool(result.is_error)), decision,
                            "ran, the tool reported an error" if result.is_error else "ran")

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



def _takes_server(rule: HostRule) -> bool:
    try:
        parameters = inspect.signature(rule).parameters.values()
    except (TypeError, ValueError):  # some callables have no signature to read
        return False
    return any(p.name == "server" or p.kind is p.VAR_KEYWORD for p in parameters)


async def _nobody(request) -> bool:
    """The default approver: there is no human, so nothing that needs approval runs."""
    print(f"[no approver] rejected: {request} (pass McpHost(approver=...) to decide)")
    return False
