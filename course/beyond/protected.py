"""Lesson 9: the shop's docs server as an OAuth 2.1 protected resource, and a second resource beside it.

Each server is an `MCPServer` with the SDK's bearer-token check: `AuthSettings(resource_server_url=...,
validate_token_resource=True)` refuses a token issued for another resource (RFC 8707 audience), and
`required_scopes` a token without `docs:read`. The SDK also serves the protected-resource metadata
(RFC 9728) that tells a client which authorization server to ask. Writing needs `docs:write`, checked
in the tool. Neither server passes a client's token on to anything (no token passthrough).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import ProviderTokenVerifier
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import AnyHttpUrl
from starlette.applications import Starlette

from course.beyond.authserver import ShopAuthProvider

ISSUER = "http://127.0.0.1:8101"
DOCS = "http://127.0.0.1:8102"
DESK = "http://127.0.0.1:8103"  # another resource of the same shop: its tokens must not open the docs


def auth_app(provider: ShopAuthProvider, issuer: str = ISSUER) -> Starlette:
    """The authorization server's endpoints (metadata, /authorize, /token with PKCE), from the SDK."""
    return Starlette(routes=create_auth_routes(provider, issuer_url=AnyHttpUrl(issuer)))


def protected_server(name: str, provider: ShopAuthProvider, url: str, issuer: str = ISSUER) -> MCPServer:
    """A server that answers only bearer tokens issued for `url`/mcp with `docs:read`."""
    server = MCPServer(name, log_level="WARNING", token_verifier=ProviderTokenVerifier(provider),
                       auth=AuthSettings(issuer_url=AnyHttpUrl(issuer), resource_server_url=AnyHttpUrl(f"{url}/mcp"),
                                         required_scopes=["docs:read"], validate_token_resource=True))
    notes: list[str] = []

    @server.tool()
    def read_policy(topic: str) -> str:
        """Read the shop's policy on a topic."""
        return f"{topic}: 30 days to ask for a refund (policy text from {name})."

    @server.tool()
    def add_note(text: str) -> str:
        """Add a note to the policy documents (needs the docs:write scope)."""
        token = get_access_token()
        if token is None or "docs:write" not in token.scopes:
            raise ToolError("insufficient_scope: adding a note needs the docs:write scope; sign in again asking "
                            "for it.")
        notes.append(text)
        return f"Noted ({len(notes)} notes)."

    server.notes = notes  # type: ignore[attr-defined]
    return server


def apps(provider: ShopAuthProvider, issuer: str = ISSUER, docs: str = DOCS, desk: str = DESK) -> dict[str, Any]:
    """The three local servers by base URL: the authorization server, the docs, the desk."""
    return {issuer: auth_app(provider, issuer), docs: protected_server("docs", provider, docs, issuer),
            desk: protected_server("desk", provider, desk, issuer)}


@asynccontextmanager
async def served(provider: ShopAuthProvider) -> AsyncIterator[Callable[..., httpx2.AsyncClient]]:
    """`web(token=None)`: an HTTP client that reaches all three servers in this process (no ports).

    The same apps `uvicorn` would serve, through `httpx2.ASGITransport`, one per base URL; the MCP
    servers' session managers run for as long as the block does.
    """
    async with contextlib.AsyncExitStack() as stack:
        mounts = {}
        for url, server in apps(provider).items():
            if isinstance(server, MCPServer):
                app = server.streamable_http_app(host="127.0.0.1", json_response=True, stateless_http=True)
                await stack.enter_async_context(server.session_manager.run())
            else:
                app = server
            mounts[url] = httpx2.ASGITransport(app=app)
        clients: list[httpx2.AsyncClient] = []

        def web(token: str | None = None) -> httpx2.AsyncClient:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            clients.append(httpx2.AsyncClient(mounts=dict(mounts), headers=headers))
            return clients[-1]

        try:
            yield web
        finally:
            for client in clients:
                await client.aclose()


def mcp_client(web: Callable[..., httpx2.AsyncClient], resource: str, token: str | None) -> Any:
    """An SDK `Client` for `resource` (a server's /mcp URL) that sends the bearer token."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    return Client(streamable_http_client(resource, http_client=web(token)))
