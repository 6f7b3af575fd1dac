"""Lesson 9: the host's side of OAuth 2.1 — discovery, authorization code with PKCE, the token, a refresh.

A notebook has no browser window to send a human to, and no web server for the redirect. So the
host asks the authorization server's `/authorize` itself (the consent there is the human's step) and
reads the code from the redirect's `Location` header instead of following it. Everything else is
the standard flow: the resource's metadata (RFC 9728) names its authorization server, whose metadata
(RFC 8414) names the endpoints; `resource=` (RFC 8707) binds the token to this server.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlparse

import httpx2

from course.beyond.authserver import CLIENT_ID, REDIRECT


class SignInError(RuntimeError):
    """The flow stopped: the message says at which step and why."""


@dataclass
class Tokens:
    access: str
    refresh: str | None
    scopes: list[str]
    resource: str
    token_endpoint: str


def pkce_pair() -> tuple[str, str]:
    """A code verifier and its S256 challenge (RFC 7636): random bytes from `secrets`, SHA-256 from hashlib."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


async def discover(http: httpx2.AsyncClient, resource: str) -> tuple[dict, dict]:
    """(resource metadata, authorization server metadata) for the MCP endpoint `resource`."""
    parsed = urlparse(resource)
    r = await http.get(f"{parsed.scheme}://{parsed.netloc}/.well-known/oauth-protected-resource{parsed.path}")
    if r.status_code != 200:
        raise SignInError(f"{resource} publishes no protected-resource metadata (HTTP {r.status_code}).")
    meta = r.json()
    issuer = meta["authorization_servers"][0].rstrip("/")
    a = await http.get(f"{issuer}/.well-known/oauth-authorization-server")
    if a.status_code != 200:
        raise SignInError(f"the authorization server {issuer} publishes no metadata (HTTP {a.status_code}).")
    return meta, a.json()


async def sign_in(http: httpx2.AsyncClient, resource: str, scopes: list[str]) -> Tokens:
    meta, server = await discover(http, resource)
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(16)
    r = await http.get(server["authorization_endpoint"], follow_redirects=False, params={
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT, "scope": " ".join(scopes),
        "state": state, "code_challenge": challenge, "code_challenge_method": "S256", "resource": meta["resource"]})
    back = parse_qs(urlparse(r.headers.get("location", "")).query)
    if r.status_code not in (302, 303) or "code" not in back:
        raise SignInError(f"no authorization code: {back.get('error_description', back.get('error', [r.text]))[0]}")
    if back.get("state") != [state]:
        raise SignInError("the redirect's state is not ours: someone else's code, refused.")
    t = await http.post(server["token_endpoint"], data={
        "grant_type": "authorization_code", "code": back["code"][0], "redirect_uri": REDIRECT,
        "client_id": CLIENT_ID, "code_verifier": verifier, "resource": meta["resource"]})
    return tokens(t, meta["resource"], server["token_endpoint"])


async def refresh(http: httpx2.AsyncClient, old: Tokens) -> Tokens:
    t = await http.post(old.token_endpoint, data={"grant_type": "refresh_token", "refresh_token": old.refresh,
                                                  "client_id": CLIENT_ID, "resource": old.resource})
    return tokens(t, old.resource, old.token_endpoint)


def tokens(r: httpx2.Response, resource: str, endpoint: str) -> Tokens:
    body = r.json()
    if r.status_code != 200:
        raise SignInError(f"the token endpoint refused: {body.get('error')} ({body.get('error_description')})")
    return Tokens(body["access_token"], body.get("refresh_token"), body.get("scope", "").split(), resource, endpoint)
