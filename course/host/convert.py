"""MCP tools become OpenAI tool definitions; MCP results become text for the model (lesson 6)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

import mcp.types as types

OPENAI_NAME = re.compile(r"[^a-zA-Z0-9_-]")  # the API accepts ^[a-zA-Z0-9_-]{1,64}$
SEPARATOR = "__"  # `docs__search` when two servers offer a `search`


def openai_name(name: str) -> str:
    """A name the Chat Completions API accepts (MCP also allows dots in tool names)."""
    return OPENAI_NAME.sub("_", name)[:64] or "tool"


def exposed_names(tools: list[tuple[str, str]]) -> list[str]:
    """A distinct name the API accepts for each (server, tool): the tool's own name where no other tool
    has it, `server__tool` where two do (also a plain name that equals another's renamed one), and a
    number on the end where even that clashes (`a.b` and `a_b`, a cut at 64 characters)."""
    prefixed = [openai_name(f"{server}{SEPARATOR}{tool}") for server, tool in tools]
    names = [openai_name(tool) for _, tool in tools]
    while True:  # ends: each round moves at least one name to its prefixed form, and never back
        counts = Counter(names)
        clashing = [i for i, name in enumerate(names) if counts[name] > 1 and name != prefixed[i]]
        if not clashing:
            break
        for i in clashing:
            names[i] = prefixed[i]
    used: set[str] = set()
    for i, name in enumerate(names):
        number = 2
        while names[i] in used:
            names[i] = f"{name[:60]}_{number}"
            number += 1
        used.add(names[i])
    return names


def needs_tasks(tool: types.Tool) -> bool:
    """A tool that can only run as an MCP task (an extension this host does not speak)."""
    return bool(tool.execution and tool.execution.task_support == "required")


def to_openai_tool(tool: types.Tool, name: str | None = None) -> dict:
    """The Chat Completions definition of an MCP tool. The input schema passes through untouched."""
    return {"type": "function",
            "function": {"name": name or openai_name(tool.name),
                         "description": tool.description or tool.title or "",
                         "parameters": tool.input_schema}}


def open_world(tool: types.Tool) -> bool:
    """Whether a tool reads from outside your own systems: the server's claim, and MCP's default when it makes none."""
    annotations = tool.annotations
    return annotations is None or annotations.open_world_hint is None or bool(annotations.open_world_hint)


def is_read_only(tool: types.Tool) -> bool:
    """What the server *claims*: a hint, not a guarantee."""
    return bool(tool.annotations and tool.annotations.read_only_hint)


@dataclass(frozen=True)
class Outcome:
    """One executed (or refused) call: the text for the model, and whether it failed."""

    tool: str
    text: str
    is_error: bool
    by: str = "server"  # "server": the server answered; "host": answered without the server
    diagnosis: str = ""  # what went wrong, for the person running the host (never shown to the model)
    open_world: bool = False  # the text holds words of a tool that said it reads the open world (lesson 8: taint)


MAX_RESULT_CHARS = 20_000  # about 5,000 tokens: a whole document page, not a whole database


def capped(text: str, tool: str, limit: int = MAX_RESULT_CHARS) -> str:
    """`text`, cut to `limit` characters with a note saying so (a 5 MB result must not fill the context)."""
    if len(text) <= limit:
        return text
    return (text[:limit] + f"\n[truncated: {tool} returned {len(text):,} characters; only the first {limit:,} "
            "are shown. If you need the rest, call it again asking for less (a narrower query, fewer results, "
            "one page).]")


EMPTY_RESULT = ("(the tool returned nothing: no text and no data. This is not an error; if you needed "
                "an answer from it, say that it found nothing.)")
# What a tool's `None`, "" or [] become as structured content.
EMPTY_STRUCTURED: tuple[object, ...] = (None, {}, [], "", {"result": None}, {"result": ""}, {"result": []})


def result_text(result: types.CallToolResult) -> str:
    """All of a result's content as text; a failed call always starts with "Error".

    An empty result (no content, blank text, `{"result": null}`) becomes `EMPTY_RESULT`: an empty
    string in the context reads to many models as a broken call, and they call the tool again.
    """
    content = result.content
    if len(content) == 1 and not result.is_error and isinstance(content[0], types.TextContent):
        return content[0].text if content[0].text.strip() else EMPTY_RESULT  # the common case, kept fast
    parts = [_part_text(p) for p in result.content]
    text = "\n".join(p for p in parts if p.strip())
    if not text and result.structured_content not in EMPTY_STRUCTURED:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    if result.is_error:
        if not text:
            return "Error: the tool failed without saying why."
        return text if text.startswith("Error") else f"Error: {text}"
    return text or EMPTY_RESULT


def _part_text(part: types.ContentBlock) -> str:
    if isinstance(part, types.TextContent):
        return part.text
    if isinstance(part, types.EmbeddedResource):
        res = part.resource
        return res.text if isinstance(res, types.TextResourceContents) else f"[binary resource {res.uri}]"
    if isinstance(part, types.ResourceLink):
        return f"[resource link: {part.uri}]"
    kind = type(part).__name__.removesuffix("Content").lower()  # image, audio
    return f"[{kind} omitted: {getattr(part, 'mime_type', '?')}]"
