"""What the host tells the person running it, besides the model's replies (lesson 6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from course.approval.display import shown
from course.show import printable

if TYPE_CHECKING:
    from course.host.connection import Connection
    from course.host.offering import Offered


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


def stdout_noise(connection: Connection) -> list[str]:
    """The lines a stdio server wrote to stdout that are not MCP messages, each one once (at most 3 at a time)."""
    noise = connection.seen.stdout_noise
    new = noise[connection.noise_reported:connection.noise_reported + 3]
    connection.noise_reported = len(noise)
    return [f"  warning: {connection.name} wrote to stdout, which is reserved for MCP messages: {line[:120]!r} "
            "(a server should log to stderr)" for line in new]
