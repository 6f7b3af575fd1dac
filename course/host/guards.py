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

from course.permissions import Decision


def open_world(tool: Any) -> bool:
    """Whether a tool reads from outside your own systems: the server's claim, and MCP's default when it makes none."""
    annotations = tool.annotations
    return annotations is None or annotations.open_world_hint is None or bool(annotations.open_world_hint)


class UntrustedInput:
    """A policy rule: once a result from an open-world tool (the web) is in the conversation, writes are denied.

    `start()` begins a new conversation (the results before it no longer count). Reading stays
    allowed, so the model can still answer; only what would change the shop's records stops.
    """

    __name__ = "untrusted_input"  # the decision log names the rule

    def __init__(self, host: Any = None, *, decision: Decision = "deny"):
        self.host, self.decision = host, decision
        self._from = 0

    def start(self) -> None:
        self._from = len(self.host.outcomes)

    def tainted_by(self) -> list[str]:
        """The open-world tools whose results the model has read in this conversation."""
        offered = self.host.offered
        return sorted({o.tool for o in self.host.outcomes[self._from:]
                       if o.tool in offered and open_world(offered[o.tool].tool) and not o.is_error})

    def __call__(self, tool: str, arguments: dict, server: str | None = None) -> Decision | None:
        offered = next((o for o in self.host.offered.values() if o.tool.name == tool and o.server == server), None)
        if offered is None or offered.read_only:
            return None
        return self.decision if self.tainted_by() else None
