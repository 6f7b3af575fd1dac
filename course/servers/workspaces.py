"""One shared server, a workspace per tenant: the workspace comes from the token, never from an argument (lesson 8).

    server = build_server({token_a: "northwind", token_b: "globex"})   # over HTTP, with bearer tokens
    server = build_server(tenant="northwind")                           # a server of one tenant's own

Each workspace holds notes and a credit budget. No tool takes a tenant or workspace argument,
so a tenant can no more name another's workspace than read it. (A class server for a workshop
is this design at full size: a shop and a web budget per learner's token.)
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

CREDITS = 10  # per workspace
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


@dataclass
class Workspace:
    tenant: str
    notes: list[str] = field(default_factory=list)
    credits: int = CREDITS


class TenantTokens:
    """A `TokenVerifier`: each token names its tenant (compared in constant time); any other token gets 401."""

    def __init__(self, tenants: dict[str, str]):
        self._tenants = dict(tenants)  # token -> tenant

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        found = None
        for known, tenant in self._tenants.items():  # every comparison, so the time tells nothing
            if hmac.compare_digest(token.encode(), known.encode()):
                found = tenant
        return AccessToken(token=token, client_id=found, scopes=[]) if found else None


def token_auth(tenants: dict[str, str]) -> dict[str, Any]:
    """`MCPServer` keyword arguments: every HTTP request needs one of these tenants' bearer tokens."""
    from mcp.server.auth.settings import AuthSettings
    from pydantic import AnyHttpUrl

    settings = AuthSettings(issuer_url=AnyHttpUrl("https://auth.invalid"), resource_server_url=None, required_scopes=[],
                            validate_token_resource=False)
    return {"token_verifier": TenantTokens(tenants), "auth": settings}


def build_server(tenants: dict[str, str] | None = None, *, tenant: str | None = None,
                 credits: int = CREDITS) -> MCPServer:
    """`tenants` ({token: tenant}): one server for all, over HTTP. `tenant`: a server for that tenant alone."""
    if (tenants is None) == (tenant is None):
        raise ValueError("pass tenants={token: name} (a shared server) or tenant=name (a server of its own).")
    spaces: dict[str, Workspace] = {}
    server = MCPServer(f"workspaces-{tenant}" if tenant else "workspaces", log_level="WARNING",
                       **(token_auth(tenants) if tenants else {}))
    server.workspaces = spaces  # type: ignore[attr-defined]  # for the lesson to look inside

    def mine() -> Workspace:
        token = get_access_token()
        name = tenant or (token.client_id if token else None)
        if name is None:
            raise ToolError("No tenant: connect with your tenant's bearer token.")
        return spaces.setdefault(name, Workspace(name, credits=credits))

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
    def spend(credits: Annotated[int, Field(ge=1, le=100)], on: Annotated[str, Field(max_length=100)]) -> str:
        """Spend credits from your workspace's budget (web searches, say)."""
        space = mine()
        if credits > space.credits:
            raise ToolError(f"Only {space.credits} credits left in your workspace; nothing was spent.")
        space.credits -= credits
        return f"Spent {credits} on {on}; {space.credits} left."

    return server
