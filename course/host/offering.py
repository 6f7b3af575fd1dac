"""Which tools the model sees: the allowlist, clashing names, pins and a new tool list (lesson 6, part of `McpHost`).

The host lists every server's tools, offers the allowlisted ones (renaming clashes to
`server__tool`), withholds a tool whose definition changed (lesson 8, `pinning.py`) and lists
again when a server announces `notifications/tools/list_changed`. `policy()` turns what is
offered now into lesson 4's policy.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp import types

from course.approval import Approver, guarded
from course.errors import ServerError
from course.host.convert import exposed_names, is_read_only, needs_tasks, to_openai_tool
from course.host.pinning import Pins, withheld_notes
from course.host.screening import flag_notes
from course.host.tasks import serves_tasks
from course.permissions import Decision, DecisionLog, Policy, PolicyRule
from course.show import named, printable, shown

if TYPE_CHECKING:
    from course.host.connection import Connection

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


class ToolOffering:
    """The host's tool lists and what it offers of them (mixed into `McpHost`, which fills these tables)."""

    approver: Approver
    rules: list[HostRule]
    log: DecisionLog
    quiet: bool
    connections: dict[str, Connection]
    listed: dict[str, list[types.Tool]]
    hidden: dict[str, list[str]]
    needs_tasks: dict[str, list[str]]
    offered: dict[str, Offered]
    pins: Pins
    _allow: dict[str, set[str]]
    _guarded: Callable[[str, str], Awaitable[str]] | None
    _listing: asyncio.Lock

    if TYPE_CHECKING:
        async def call_server(self, name: str, arguments: str) -> str: ...

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


    def _offer(self) -> None:
        """Recompute what the model sees: allowlisted tools, with clashing names prefixed."""
        allowed = [(server, tool) for server, tools in self.listed.items()
                   for tool in self.pins.review(server, tools, self._allow[server]) if tool.name in self._allow[server]]
        # A task-only tool fails every ordinary call: offered only where the server serves tasks (lesson 9)
        unrunnable = {server for server in self.listed
                      if server not in self.connections or not serves_tasks(self.connections[server])}
        chosen = [(server, tool) for server, tool in allowed if not (needs_tasks(tool) and server in unrunnable)]
        self.hidden = {server: [t.name for t in tools if t.name not in self._allow[server]]
                       for server, tools in self.listed.items()}
        self.needs_tasks = {server: [t.name for s, t in allowed if s == server and needs_tasks(t)]
                            for server in unrunnable}
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
        """One paragraph: what a server offers, what the allowlist hid, what it is missing.

        Every name a server chose is escaped, its whitespace runs counted and cut (`named`): a name with `\\r`
        or an ANSI code in it, or 3,000 spaces, could otherwise rewrite the line you read ("hidden: nothing").
        """
        mine = [o for o in self.offered.values() if o.server == server]
        tags = ", ".join(f"{named(o.name)}{'' if o.read_only else ' (asks first)'}" for o in mine) or "none"
        text = f"{shown(server)}: {len(mine)} of {len(self.listed[server])} tools offered to the model: {tags}"
        if self.hidden[server]:
            text += f"\n  hidden (not on your allowlist): {', '.join(map(named, self.hidden[server]))}"
        if self.needs_tasks.get(server):
            text += (f"\n  not offered (they only run as MCP tasks, and this server does not say it serves tasks): "
                     f"{', '.join(map(named, self.needs_tasks[server]))}")
        missing = sorted(self._allow[server] - {t.name for t in self.listed[server]})
        if missing:
            text += f"\n  on your allowlist but not offered by the server: {', '.join(map(named, missing))}"
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


def _takes_server(rule: HostRule) -> bool:
    try:
        parameters = inspect.signature(rule).parameters.values()
    except (TypeError, ValueError):  # some callables have no signature to read
        return False
    return any(p.name == "server" or p.kind is p.VAR_KEYWORD for p in parameters)


def renamed(before: dict[str, Offered], now: dict[str, Offered]) -> list[str]:
    """A note for each tool the model knew under a name that is gone, or that now means another tool."""
    notes = []
    for old in before.values():
        there = now.get(old.name)
        if there is not None and (there.server, there.tool.name) == (old.server, old.tool.name):
            continue
        copies = [o.name for o in now.values() if o.tool.name == old.tool.name]
        seen_as = (f"two servers offer {old.tool.name}, so the model now sees {' and '.join(copies)}"
                   if len(copies) > 1 else
                   f"another server's tool is now called {old.name}, so the model sees {old.server}'s "
                   f"{old.tool.name} as {' '.join(copies) or '(nothing)'}")
        notes.append(f"  note: {printable(seen_as)}. A model that already knew {shown(old.name)} will not find it: "
                     "connect every server before the conversation starts.")
    return notes
