"""Streamable HTTP without a port: raw requests to a server's ASGI app, in this process (lesson 8).

    async with served(build_server(), json_response=True) as web:
        r = await web.post("/mcp", json=modern("tools/list"), headers=modern_headers("tools/list"))

The server's app (`streamable_http_app`, the same one `mcp.run("streamable-http")` serves)
answers through `httpx2.ASGITransport`, so a lesson can show status codes, headers and bodies
without starting a process or opening a port. A real client needs a real server: lesson 5.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2

from course.processes import HOST

__all__ = ["ACCEPT", "initialize", "mcp_client", "modern", "modern_headers", "served", "summary"]

BASE_URL = f"http://{HOST}:8000"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
MODERN = "2026-07-28"


@asynccontextmanager
async def served(server: Any, *, headers: dict[str, str] | None = None, **app_options: Any
                 ) -> AsyncIterator[httpx2.AsyncClient]:
    """An HTTP client whose requests reach `server.streamable_http_app(**app_options)` in memory."""
    app = server.streamable_http_app(host=HOST, **app_options)
    # A mounted or in-memory app's lifespan does not run by itself: the session manager needs it.
    async with server.session_manager.run(), httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url=BASE_URL, headers=headers or {}) as client:
        yield client


def mcp_client(web: httpx2.AsyncClient, token: str | None = None) -> Any:
    """An SDK `Client` that reaches the app `web` serves, sending `Authorization: Bearer <token>` if given."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(transport=web._transport, base_url=BASE_URL, headers=headers)  # the same app
    return Client(streamable_http_client(f"{BASE_URL}/mcp", http_client=http))


def initialize(id: int = 1) -> dict:
    """The handshake era's first request (2025-11-25)."""
    return {"jsonrpc": "2.0", "id": id, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "lesson8", "version": "1"}}}


def modern(method: str, params: dict | None = None, id: int = 1) -> dict:
    """A 2026-07-28 request: the version and the client's capabilities travel in `_meta`, every time."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**(params or {}), "_meta": meta}}


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    """The headers a 2026-07-28 request needs; they must match its body (`Mcp-Method`, `Mcp-Name`)."""
    return ACCEPT | {"MCP-Protocol-Version": MODERN, "Mcp-Method": method} | ({"Mcp-Name": name} if name else {})


def summary(r: httpx2.Response) -> dict[str, Any]:
    """What a lesson shows of an answer: status, type, session id, and the start of the body."""
    return {"status": r.status_code, "content-type": r.headers.get("content-type", "-").split(";")[0],
            "mcp-session-id": "yes" if r.headers.get("mcp-session-id") else "none",
            "body": " ".join(r.text.split())[:70]}
