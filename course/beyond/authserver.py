"""Lesson 9: a local OAuth 2.1 authorization server for the shop's remote docs server, on the SDK's own parts.

The SDK (`mcp.server.auth`) serves the endpoints — metadata (RFC 8414), `/authorize`, `/token` with the
PKCE check (S256), refresh — and calls this provider for what only the shop knows: its clients, what
the human consented to, and its tokens. Tokens are random strings from `secrets` (no crypto written
here), each bound to one resource (RFC 8707) and a set of scopes, and kept in memory.

Consent: `authorize` asks `consent(client_id, scopes, resource)`, which stands in for the page a
human would see (offline: a scripted yes/no), then redirects with a one-time code.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

__all__ = ["CLIENT_ID", "REDIRECT", "SCOPES", "TOKEN_SECONDS", "ShopAuthProvider"]

CLIENT_ID = "shop-notebook"
REDIRECT = "http://127.0.0.1:1/callback"  # a notebook has no web server: the host reads the code from the redirect
SCOPES = ["docs:read", "docs:write"]
TOKEN_SECONDS = 300


class ShopAuthProvider:
    def __init__(self, consent: Callable[[str, list[str], str | None], bool] = lambda *_: True) -> None:
        self.consent = consent
        self.clients = {CLIENT_ID: OAuthClientInformationFull(
            client_id=CLIENT_ID, redirect_uris=[AnyUrl(REDIRECT)], token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"], response_types=["code"], scope=" ".join(SCOPES))}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        raise NotImplementedError("dynamic client registration is deprecated in 2026-07-28; the client is known")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        scopes = params.scopes or ["docs:read"]
        if not self.consent(str(client.client_id), scopes, params.resource):
            raise AuthorizeError(error="access_denied", error_description="the human said no")
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=scopes, expires_at=time.time() + 60, client_id=str(client.client_id),
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found and found.client_id == client.client_id else None

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]  # one use only
        return self._issue(str(client.client_id), authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        if not set(scopes) <= set(refresh_token.scopes):
            raise TokenError(error="invalid_scope", error_description="a refresh cannot widen the scopes")
        del self.refresh[refresh_token.token]  # rotated (OAuth 2.1 for public clients)
        return self._issue(str(client.client_id), scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull,
                                          params: IdentityAssertionParams) -> OAuthToken:
        raise TokenError(error="unsupported_grant_type", error_description="the shop has no identity provider")

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource,
                                          expires_at=int(time.time()) + TOKEN_SECONDS)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, expires_in=TOKEN_SECONDS, scope=" ".join(scopes),
                          refresh_token=refresh)
