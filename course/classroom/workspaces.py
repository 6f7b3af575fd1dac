"""One shared server, a workspace per tenant: the workspace comes from the token, never from an argument (lesson 8).

    server = build_server({token_a: "northwind", token_b: "globex"})   # over HTTP, with bearer tokens
    server = build_server(tenant="northwind")                           # a server of one tenant's own

Each workspace holds notes and a credit budget. No tool takes a tenant or workspace argument,
so a tenant can no more name another's workspace than read it. The token check and the
token -> workspace lookup are the class server's own (`course/classroom/learners.py`:
`LearnerTokens`, `LearnerMiddleware`): the class server is this design at full size, a shop
and a web budget per learner's token; this module holds only the demo's workspace and tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from course.classroom.learners import LearnerMiddleware, current, token_auth
from course.servers.credits import CreditBudget

CREDITS = 10  # per workspace
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


@dataclass
class Workspace:
    """A tenant's notes, and a credit budget: the class server's `CreditBudget` (a learner's web budget)."""

    tenant: str
    notes: list[str] = field(default_factory=list)
    budget: CreditBudget = field(default_factory=lambda: CreditBudget(CREDITS))

    @property
    def credits(self) -> int:
        return self.budget.left


class _Spaces(dict[str, Workspace]):
    """Every tenant's workspace, made on first use (the class server's `Workspaces`, in memory)."""

    def __init__(self, credits: int):
        super().__init__()
        self._credits = credits

    def __missing__(self, tenant: str) -> Workspace:
        space = self[tenant] = Workspace(tenant, budget=CreditBudget(self._credits))
        return space


def build_server(tenants: dict[str, str] | None = None, *, tenant: str | None = None,
                 credits: int = CREDITS) -> MCPServer:
    """`tenants` ({token: tenant}): one server for all, over HTTP. `tenant`: a server for that tenant alone."""
    if (tenants is None) == (tenant is None):
        raise ValueError("pass tenants={token: name} (a shared server) or tenant=name (a server of its own).")
    own = Workspace(tenant, budget=CreditBudget(credits)) if tenant is not None else None
    spaces: dict[str, Workspace] = {own.tenant: own} if own else _Spaces(credits)
    server = MCPServer(f"workspaces-{tenant}" if tenant else "workspaces", log_level="WARNING",
                       **(token_auth(tenants) if tenants else {}))
    server.workspaces = spaces  # type: ignore[attr-defined]  # for the lesson to look inside
    if own is None:
        server.middleware.append(LearnerMiddleware(spaces))  # each request served from its token's workspace

    def mine() -> Workspace:
        return own or current()

    @server.tool(annotations=CHANGE)
    def add_note(text: Annotated[str, Field(min_length=1, max_length=500)]) -> str:
        """Save a note in your workspace."""
        space = mine()
        space.notes.append(text)
        return f"Saved ({len(space.notes)} notes in {space.tenant}'s workspace)."

    @server.tool(annotations=READ)
    def read_notes() -> list[str]:
        """Every note in your workspace."""
        return mine().notes

    @server.tool(annotations=CHANGE)
    async def spend(credits: Annotated[int, Field(ge=1, le=100)], on: Annotated[str, Field(max_length=100)]) -> str:
        """Spend credits from your workspace's budget (web searches, say)."""
        space = mine()
        if credits > space.credits:
            raise ToolError(f"Only {space.credits} credits left in your workspace; nothing was spent.")
        await space.budget.reserve(credits)  # cannot fail: no await between the check and here
        return f"Spent {credits} on {on}; {space.credits} left."

    return server
