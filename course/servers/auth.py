"""Bearer-token auth for the course's servers over HTTP (lesson 5): one shared secret, or any verifier.

Over HTTP any program on this machine can reach a server, so with `COURSE_MCP_TOKEN` set every
request needs `Authorization: Bearer <token>`; the SDK answers 401 otherwise.
"""

from __future__ import annotations

import hmac
from typing import Any

TOKEN_ENV = "COURSE_MCP_TOKEN"


class StaticToken:
    """A `TokenVerifier` that accepts exactly one token (a shared secret). Real deployments verify
    OAuth tokens instead. (`TokenVerifier` is a Protocol: any class with `verify_token` fits.)"""

    def __init__(self, token: str):
        self._token = token

    async def verify_token(self, token: str):
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode(), self._token.encode()):  # constant time: no timing leak
            return AccessToken(token=token, client_id="course", scopes=[])
        return None  # the SDK answers 401


def bearer_auth(token: str | Any | None) -> dict[str, Any]:
    """`MCPServer` keyword arguments that require `Authorization: Bearer <token>` over HTTP ({} for no token).
    `token` is a shared secret, or a `TokenVerifier` (the class server's: a token per learner)."""
    if not token:
        return {}
    from mcp.server.auth.settings import AuthSettings
    from pydantic import AnyHttpUrl

    settings = AuthSettings(issuer_url=AnyHttpUrl("https://auth.invalid"), resource_server_url=None,
                            required_scopes=[], validate_token_resource=False)
    verifier = StaticToken(token) if isinstance(token, str) else token
    return {"token_verifier": verifier, "auth": settings}
