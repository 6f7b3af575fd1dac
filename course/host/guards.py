"""Rules against indirect prompt injection, for `McpHost(rules=[...])` (lesson 8).

Text the model reads (a document, a web page, a tool result) can carry instructions, and no
model reliably ignores them. So the defence is not in the prompt but in what the host lets
through: after the model has read content from the open world, a tool that changes things
does not run on the model's word alone.

    guard = UntrustedInput(host)                  # a rule: reads the host's outcomes
    host.rules.append(guard)                      # or McpHost(rules=[...]) and guard.host = host
"""

from __future__ import annotations

from typing import Any

from course.host.convert import open_world
from course.permissions import Decision

__all__ = ["UntrustedInput", "open_world"]


class UntrustedInput:
    """A policy rule: once text from the open world is in the conversation, writes are denied.

    What counts is what *entered the model's context*, judged when it entered: a result or an
    error of a tool that said it reads the open world, a resource read or a prompt fetched from a
    server with such a tool. The taint stays until `start()` begins a new conversation: a tool
    withdrawn, changed or disconnected afterwards takes nothing back out of the model's context.
    Reading stays allowed, so the model can still answer; only what would change records stops.
    What it does not cover: text from a server that claims a closed world (your own documents,
    lesson 8's poisoned policy) and a write the model asks for before it read anything.
    """

    __name__ = "untrusted_input"  # the decision log names the rule

    def __init__(self, host: Any = None, *, decision: Decision = "deny"):
        self.host, self.decision = host, decision
        self._from = self._context_from = 0

    def start(self) -> None:
        self._from, self._context_from = len(self.host.outcomes), len(self.host.context_read)

    def tainted_by(self) -> list[str]:
        """Where the open-world text in this conversation came from: `tool`, or `server: resource uri`."""
        tools = {o.tool for o in self.host.outcomes[self._from:] if o.open_world and o.by == "server"}
        read = {f"{server}: {what}" for server, what, untrusted in self.host.context_read[self._context_from:]
                if untrusted}
        return sorted(tools | read)

    def __call__(self, tool: str, arguments: dict, server: str | None = None) -> Decision | None:
        offered = next((o for o in self.host.offered.values() if o.tool.name == tool and o.server == server), None)
        if offered is None or offered.read_only:
            return None
        return self.decision if self.tainted_by() else None
