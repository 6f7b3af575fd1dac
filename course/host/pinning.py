"""Pin each tool's definition when you allow it; withhold the tool when the definition changes (lesson 8).

A server can change a tool after you approved it: same name, new description (new
instructions for the model), new parameters (`card_number`), new annotations (no longer
read-only). This is a "rug pull". The host keeps a hash of every definition it first offered
(trust on first use) and, when a listing brings a different one, stops offering that tool
until a human looked at the change and called `host.accept_change(server, tool)`.

    host.pins.changes            # {(server, tool): "description, inputSchema changed"}
    host.accept_change("orders", "lookup")
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import mcp.types as types

from course.host.convert import to_openai_tool
from course.show import shown

# Everything that reaches the model or the human: the model reads `title` when there is no description
# (convert.to_openai_tool), a human reads it and the icons in a host's list. Only `_meta` is left out.
PINNED_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution", "icons")
MODEL_VIEW = "what the model reads"  # the tool as sent to the model, compared too


def definition(tool: types.Tool) -> dict:
    """The parts of a tool's definition that are pinned, as wire JSON, and the tool as the model is sent it."""
    wire = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {**{key: wire[key] for key in PINNED_FIELDS if key in wire}, MODEL_VIEW: to_openai_tool(tool)["function"]}


def fingerprint(tool: types.Tool) -> str:
    """A SHA-256 of the pinned definition (key order does not matter)."""
    text = json.dumps(definition(tool), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Pins:
    """The pinned definitions of one host, by (server, tool name)."""

    hashes: dict[tuple[str, str], str] = field(default_factory=dict)
    seen: dict[tuple[str, str], dict] = field(default_factory=dict)  # the pinned definition, to say what changed
    changes: dict[tuple[str, str], str] = field(default_factory=dict)  # withheld: what changed

    def review(self, server: str, tools: list[types.Tool], allowed: set[str]) -> list[types.Tool]:
        """The tools whose definition is the pinned one; allowlisted tools seen for the first time are pinned."""
        kept = []
        for tool in tools:
            key = (server, tool.name)
            if key not in self.hashes:
                if tool.name in allowed:  # the allowlist is the approval: pin what was approved
                    self.hashes[key], self.seen[key] = fingerprint(tool), definition(tool)
                kept.append(tool)
            elif fingerprint(tool) == self.hashes[key]:
                self.changes.pop(key, None)
                kept.append(tool)
            else:
                self.changes[key] = what_changed(self.seen[key], definition(tool))
        return kept

    def accept(self, server: str, tool: types.Tool) -> None:
        """Pin `tool`'s current definition (after a human reviewed the change)."""
        key = (server, tool.name)
        self.hashes[key], self.seen[key] = fingerprint(tool), definition(tool)
        self.changes.pop(key, None)

    def withheld(self, server: str) -> dict[str, str]:
        """{tool: what changed} for one server's tools that are not offered because they changed."""
        return {name: change for (s, name), change in self.changes.items() if s == server}


def what_changed(before: dict, after: dict) -> str:
    """`description, inputSchema changed` (and what appeared or went)."""
    changed = [key for key in (*PINNED_FIELDS, MODEL_VIEW) if before.get(key) != after.get(key)]
    if len(changed) > 1 and changed[-1] == MODEL_VIEW:  # named only when no field explains it
        changed.pop()
    return ", ".join(changed) + " changed" if changed else "the definition changed"


def withheld_notes(pins: Pins, server: str) -> list[str]:
    """What the host says about a server's changed tools."""
    return [f"  withheld: {shown(tool)} ({change} since you allowed it). Read it (host.listed[{server!r}]), then "
            f"host.accept_change({server!r}, {tool!r}) to offer it again."
            for tool, change in pins.withheld(server).items()]


def withheld_reply(pins: Pins, name: str) -> str:
    """What the model reads when it calls a tool the host withholds ("" if `name` is not withheld)."""
    for _, tool in pins.changes:
        if tool == name or name.endswith(f"__{tool}"):
            return (f"Error: {name} changed since it was approved, so the host did not run it. Do not retry; "
                    "tell the user this tool is waiting for a review.")
    return ""
