"""A gateway: one MCP endpoint in front of several servers, routing each tenant by its token (lesson 8).

    gateway = Gateway({"docs": Backend(shared=docs_server), "notes": Backend(per_tenant=notes_by_tenant)},
                      [Tenant("northwind", token, allow={"docs": {"search_docs"}, "notes": {"add_note"}}), ...])
    app = gateway.streamable_http_app()         # clients send Authorization: Bearer <their tenant's token>

The token says who the tenant is; the tenant's allowlist says which tools of which server it
may list and call; its backend says where a call goes (a shared server, or the tenant's own).
Nothing a client sends in the arguments can pick another tenant's backend. The gateway never
passes the client's token on (token passthrough): it reaches each backend with its own means,
here an in-process connection. `gateway.log` keeps (tenant, tool, what happened) per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
from mcp import Client
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer

from course.classroom.learners import token_auth  # the class server's token check

__all__ = ["Backend", "Gateway", "Tenant"]


@dataclass(frozen=True)
class Tenant:
    name: str
    token: str = field(repr=False)  # a secret: never printed
    allow: dict[str, frozenset[str]] = field(default_factory=dict)  # backend -> tool names

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow", {b: frozenset(tools) for b, tools in self.allow.items()})


@dataclass(frozen=True)
class Backend:
    """Where a backend's calls go: one server for every tenant, or one per tenant (by tenant name)."""

    shared: Any = None
    per_tenant: dict[str, Any] = field(default_factory=dict)
    connect: Callable[[str], Any] | None = None  # tenant -> anything `Client(...)` takes

    def target(self, tenant: str) -> Any:
        if self.connect is not None:
            return self.connect(tenant)
        return self.per_tenant.get(tenant, self.shared)


class Gateway(MCPServer):
    """An `MCPServer` whose tools are the allowed tools of the backends, listed and called per tenant."""

    def __init__(self, backends: dict[str, Backend], tenants: Iterable[Tenant], name: str = "course-gateway"):
        self.tenants = {t.name: t for t in tenants}
        unknown = {b for t in self.tenants.values() for b in t.allow} - set(backends)
        if unknown:
            raise ValueError(f"tenants name backends that do not exist: {', '.join(sorted(unknown))}.")
        super().__init__(name, log_level="WARNING", **token_auth({t.token: t.name for t in self.tenants.values()}))
        self.backends = backends
        self.log: list[tuple[str, str, str]] = []

    def tenant(self) -> Tenant:
        token = get_access_token()
        name = token.client_id if token else None
        if name not in self.tenants:  # in memory there is no token: nobody to serve
            raise PermissionError("no tenant: connect over HTTP with your tenant's bearer token.")
        return self.tenants[name]

    async def list_tools(self) -> list[types.Tool]:
        tenant, tools = self.tenant(), []
        for backend, allowed in tenant.allow.items():
            async with Client(self.backends[backend].target(tenant.name)) as client:
                tools += [t for t in (await client.list_tools()).tools if t.name in allowed]
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tenant = self.tenant()
        backend = next((b for b, allowed in tenant.allow.items() if name in allowed), None)
        if backend is None:
            self.log.append((tenant.name, name, "denied: not on the tenant's allowlist"))
            return types.CallToolResult(is_error=True, content=[types.TextContent(
                type="text", text=f"Error: there is no tool {name!r} for you. Use the tools you were given.")])
        async with Client(self.backends[backend].target(tenant.name)) as client:
            result = await client.call_tool(name, arguments)
        self.log.append((tenant.name, name, f"{backend}: {'error' if result.is_error else 'ok'}"))
        return result
