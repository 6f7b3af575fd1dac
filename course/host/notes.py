"""What the host tells the person running it, besides the model's replies (lesson 6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from course.host.connection import Connection


def stdout_noise(connection: Connection) -> list[str]:
    """The lines a stdio server wrote to stdout that are not MCP messages, each one once (at most 3 at a time)."""
    noise = connection.seen.stdout_noise
    new = noise[connection.noise_reported:connection.noise_reported + 3]
    connection.noise_reported = len(noise)
    return [f"  warning: {connection.name} wrote to stdout, which is reserved for MCP messages: {line[:120]!r} "
            "(a server should log to stderr)" for line in new]
