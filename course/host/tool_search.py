"""Tool search for large tool sets: the model sees one `search_tools` tool and loads the rest on demand (lesson 6).

Every tool definition offered is sent with every request. Fifty tools cost thousands of
tokens per turn before the conversation says anything, and a model picks worse among many.
With deferred loading the host offers only `search_tools` (and the few tools you name in
`always`); a search returns the best-matching tools and *loads* their definitions, so the
model can call them from its next turn on.

    search = ToolSearch(host, always={"get_order_record"})
    await arun_agent(llm, model, question, tools=search.tools, execute=search.execute)

`search.tools` is one list, updated in place: the agent loop sends it again with every request.
The allowlist and the policy still decide: only tools the host offers can be found, and every
call goes through `host.execute`. The search here is plain word overlap with the name and
description; a provider's hosted tool search (Anthropic's tool search tool, with
`defer_loading` on each definition) does the same job with a better ranking.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from course.conversation import estimate_tokens
from course.host.convert import to_openai_tool

if TYPE_CHECKING:
    from course.host.host import McpHost

__all__ = ["SEARCH_TOOLS", "ToolSearch", "definition_tokens"]

SEARCH_TOOLS = "search_tools"
WORD = re.compile(r"[a-z0-9]+")


def definition_tokens(definitions: Iterable[dict]) -> int:
    """Estimated tokens the definitions add to every request (as JSON, 4 characters a token)."""
    return sum(estimate_tokens(json.dumps(d)) for d in definitions)


class ToolSearch:
    """Deferred loading over an `McpHost`: `tools` starts as `search_tools` plus `always`."""

    def __init__(self, host: McpHost, *, always: Iterable[str] = (), limit: int = 3):
        self.host, self.limit = host, limit
        names = sorted(always) if isinstance(always, set | frozenset) else list(always)  # the same order every run
        self.loaded: list[str] = [name for name in names if name in host.offered]
        self.tools: list[dict] = []  # the definitions to send: updated in place
        self._sync()

    def definition(self) -> dict:
        return {"type": "function", "function": {
            "name": SEARCH_TOOLS,
            "description": (f"Find tools by what they do. {len(self.host.offered)} tools exist; only the ones a search "
                            "found can be called. Search with a few words (e.g. 'stock level'); the tools found can "
                            "be called from your next step on."),
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}

    def search(self, query: str) -> list[str]:
        """The offered tools whose name and description share the most words with `query`, best first."""
        wanted = set(WORD.findall(query.lower()))
        scored = []
        for name, offered in self.host.offered.items():
            words = set(WORD.findall(f"{name} {offered.tool.description or ''}".replace("_", " ").lower()))
            if score := len(wanted & words):
                scored.append((-score, name))
        return [name for _, name in sorted(scored)[:self.limit]]

    async def execute(self, name: str, arguments: str) -> str:
        """`search_tools` is answered here; a tool not loaded yet is refused; the rest go to `host.execute`."""
        self._sync()  # the host may have withdrawn a tool since (allowlist, a changed definition)
        if name == SEARCH_TOOLS:
            try:
                query = json.loads(arguments).get("query", "")
            except (json.JSONDecodeError, AttributeError):
                return 'Error: search_tools takes {"query": "a few words"}.'
            found = self.search(str(query))
            if not found:
                return f"No tool matches {str(query)[:80]!r}. Try other words."
            self.loaded += [n for n in found if n not in self.loaded]
            self._sync()
            lines = [f"- {n}: {(self.host.offered[n].tool.description or '').strip().splitlines()[0]}" for n in found]
            return "Loaded; call them directly from your next step:\n" + "\n".join(lines)
        if name in self.host.offered and name not in self.loaded:
            return f"Error: {name} is not loaded yet. Call {SEARCH_TOOLS} first to find and load it."
        return await self.host.execute(name, arguments)

    def _sync(self) -> None:
        self.loaded = [n for n in self.loaded if n in self.host.offered]  # a tool withdrawn since is gone
        self.tools[:] = [self.definition(), *(to_openai_tool(self.host.offered[n].tool, n) for n in self.loaded)]

    def saved(self) -> tuple[int, int]:
        """(tokens per request with every definition, tokens per request now)."""
        return definition_tokens(self.host.tools()), definition_tokens(self.tools)
