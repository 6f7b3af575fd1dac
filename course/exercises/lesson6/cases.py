"""What lesson 6's checks try the learner's client on: the course's document server and servers made up
when a check runs (random tool names, several pages, random annotations, a tool that fails, a slow one).

A made-up server is a low-level `mcp.server.Server` (an `MCPServer` never pages its tool list). It
records every cursor it is asked for and every call that reaches it, so a check can tell what the
learner's code did, not only what it returned.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORDS = ["stock", "parcel", "invoice", "voucher", "ticket", "refund", "review", "coupon", "basket", "supplier",
         "return", "label", "warranty", "payment", "address", "order"]
VERBS = ["get", "find", "list", "count", "check", "create", "update", "cancel", "send", "close", "merge"]
SLOW_SECONDS = 30  # far beyond any timeout a check gives: a client without one would wait for the check's limit

# How a made-up tool behaves, and what it says about itself (its annotations).
READ = "read"  # read_only_hint=True: runs without asking
UNANNOTATED = "unannotated"  # no annotations at all: MCP assumes it may write
WRITES = "writes"  # read_only_hint=False
NOT_DESTRUCTIVE = "not destructive"  # only destructive_hint=False: read_only_hint is missing, so it may write
FAILS = "fails"  # read-only, answers is_error=True with a text that does not start with "Error"
SLOW = "slow"  # read-only, takes SLOW_SECONDS
# How a hint names each kind, when a call of one made the learner's code crash.
KIND_NAMES = {"read": "a read-only tool", "unannotated": "a tool with no annotations (`tool.annotations` is None)",
         "writes": "a tool that may write (read_only_hint=False)",
         "not destructive": "a tool whose annotations have no read_only_hint (only destructive_hint=False)",
         "fails": "a tool that fails (is_error=True)", "slow": "a tool slower than the timeout"}


def tool_name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = f"{rng.choice(VERBS)}_{rng.choice(WORDS)}{rng.choice(['', 's', '_2', '_v2', '_all'])}"
        if name not in taken:
            taken.add(name)
            return name


def input_schema(rng: random.Random) -> dict:
    """A schema with what a careless conversion loses: constraints, `$defs`, `additionalProperties`."""
    words = rng.sample(WORDS, rng.randint(1, 3))
    properties: dict[str, Any] = {}
    for word in words:
        properties[f"{word}_id"] = rng.choice([
            {"type": "string", "pattern": f"^{word[0].upper()}\\d{{{rng.randint(3, 6)}}}$",
             "description": f"The {word}."},
            {"type": "integer", "minimum": rng.randint(0, 5), "maximum": rng.randint(10, 99)},
            {"$ref": "#/$defs/Choice"},
        ])
    schema = {"type": "object", "properties": properties, "required": rng.sample(sorted(properties), 1),
              "additionalProperties": False, "title": f"{words[0]}Arguments",
              "$defs": {"Choice": {"enum": rng.sample(WORDS, 3), "type": "string"}}}
    if rng.random() < 0.5:
        del schema["$defs"], schema["title"]
        for key, value in list(properties.items()):
            if "$ref" in value:
                properties[key] = {"type": "boolean"}
    return schema


@dataclass
class Made:
    """One made-up tool: its MCP definition and how it behaves."""

    tool: Any  # mcp.types.Tool
    kind: str
    reply: str


@dataclass
class MadeServer:
    """A made-up server and what happened to it."""

    server: Any  # mcp.server.Server
    made: list[Made]
    pages: list[list[str]]  # tool names, page by page
    cursors_asked: list[str | None] = field(default_factory=list)
    calls: list[tuple[str, dict]] = field(default_factory=list)  # every call that reached the server

    def names(self) -> list[str]:
        return [m.tool.name for m in self.made]

    def of_kind(self, kind: str) -> list[Made]:
        return [m for m in self.made if m.kind == kind]

    def reached(self, name: str) -> bool:
        return any(n == name for n, _ in self.calls)


def annotations_for(kind: str) -> Any:
    import mcp.types as types

    if kind in (READ, FAILS, SLOW):
        return types.ToolAnnotations(read_only_hint=True)
    if kind == WRITES:
        return types.ToolAnnotations(read_only_hint=False, destructive_hint=True)
    if kind == NOT_DESTRUCTIVE:
        return types.ToolAnnotations(destructive_hint=False, idempotent_hint=True)
    return None


def made_server(rng: random.Random, kinds: list[str], *, pages: int = 3, empty_page: bool = False,
                description: bool = True) -> MadeServer:
    """A server with one tool per kind (in random order), listed in `pages` pages behind opaque cursors."""
    import mcp.types as types
    from mcp.server import Server

    taken: set[str] = set()
    made = []
    for kind in rng.sample(kinds, len(kinds)):
        name = tool_name(rng, taken)
        reply = f"{name}: {rng.choice(WORDS)} {rng.randint(100, 999)}"
        if kind == FAILS:
            reply = f"no {rng.choice(WORDS)} {rng.randint(100, 999)} in stock"
        tool = types.Tool(name=name, description=f"{name.replace('_', ' ').capitalize()}." if description else None,
                          input_schema=input_schema(rng), annotations=annotations_for(kind))
        made.append(Made(tool, kind, reply))
    # Cut into pages; the last page always holds a tool, an empty page (when asked for) sits in the middle.
    names = [m.tool.name for m in made]
    cuts = sorted(rng.sample(range(1, len(names)), min(pages, len(names)) - 1))
    split = [names[a:b] for a, b in zip([0, *cuts], [*cuts, len(names)], strict=True)]
    if empty_page:
        split.insert(rng.randint(1, len(split) - 1) if len(split) > 1 else 1, [])
    cursors = [f"{rng.getrandbits(36):x}" for _ in split[1:]]  # opaque: nothing to compute them from
    by_name = {m.tool.name: m for m in made}
    record = MadeServer(None, made, split)

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        cursor = params.cursor if params else None
        record.cursors_asked.append(cursor)
        index = 0 if cursor is None else cursors.index(cursor) + 1 if cursor in cursors else None
        if index is None:
            from mcp import MCPError

            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown cursor {cursor!r}")
        return types.ListToolsResult(tools=[by_name[n].tool for n in split[index]],
                                     next_cursor=cursors[index] if index < len(cursors) else None)

    async def on_call_tool(ctx, params) -> types.CallToolResult:
        one = by_name.get(params.name)
        if one is None:
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"Unknown tool: {params.name}")],
                                        is_error=True)
        record.calls.append((params.name, dict(params.arguments or {})))
        if one.kind == SLOW:
            await asyncio.sleep(SLOW_SECONDS)
        return types.CallToolResult(content=[types.TextContent(type="text", text=one.reply)],
                                    is_error=one.kind == FAILS)

    record.server = Server(f"made-up-{rng.randint(10, 99)}", on_list_tools=on_list_tools,
                           on_call_tool=on_call_tool)
    return record


@contextmanager
def docs_server() -> Iterator[tuple[Any, Path]]:
    """The course's document server (word search, nothing to load) with a shop of its own, removed after."""
    from course.servers.docs import build_server
    from course.store import ShopStore

    with tempfile.TemporaryDirectory(prefix="l6-check-") as folder:
        store = Path(folder) / "shop.json"
        ShopStore(store).reset()
        yield build_server(store_path=store, embedder="lexical"), store


async def in_memory(server: Any, talk: Any) -> Any:
    """`await talk(client)` with the SDK's `Client` on `server`, the SDK's traceback logs silenced."""
    import logging

    from mcp import Client

    logs = [logging.getLogger(n) for n in ("mcp.server.mcpserver.server", "mcp.shared.direct_dispatcher")]
    levels = [log.level for log in logs]
    for log in logs:
        log.setLevel(logging.CRITICAL)  # a crash the check provokes is reported by the check, not as a traceback
    try:
        async with Client(server) as client:
            return await talk(client)
    except BaseExceptionGroup as group:  # the client's task group wraps what the learner's code raised
        raise first_leaf(group) from None
    finally:
        for log, level in zip(logs, levels, strict=True):
            log.setLevel(level)


def first_leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
