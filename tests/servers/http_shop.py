"""The shopfront server over Streamable HTTP, optionally behind a bearer token.

    python tests/servers/http_shop.py PORT [TOKEN]

With a TOKEN, requests without `Authorization: Bearer TOKEN` get 401.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `servers.shopfront`, when run as a script

from servers.shopfront import build  # noqa: E402


class StaticToken(TokenVerifier):
    def __init__(self, token: str):
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        return AccessToken(token=token, client_id="tests", scopes=[]) if token == self.token else None


def main(port: int, token: str | None) -> None:
    options = {}
    if token:
        options = {"token_verifier": StaticToken(token),
                   "auth": AuthSettings(issuer_url="http://127.0.0.1:9", resource_server_url=f"http://127.0.0.1:{port}/mcp",
                                        required_scopes=[], validate_token_resource=False)}
    build(**options).run(transport="streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
