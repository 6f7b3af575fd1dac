"""The course's MCP servers (lesson 5) and what they share: bearer-token auth and the command line.

    python -m course.servers.docs    [--transport stdio|streamable-http] [--port N] [--docs DIR]
    python -m course.servers.webapi  [--transport stdio|streamable-http] [--port N] [--api URL]
    python -m course.servers.stub_api [--port 8765]        # the REST API that webapi wraps

Over stdio the client starts the server as its own child process, so no one else can talk to
it. Over HTTP any program on this machine can (the servers listen on 127.0.0.1 only), so set
`COURSE_MCP_TOKEN`: then every request needs `Authorization: Bearer <token>` (401 otherwise).
Without it the server accepts everyone, and says so on stderr when it starts.
"""

from __future__ import annotations

import argparse
import hmac
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# Process helpers live in course.processes (the host uses them too); named here for lesson 5's imports.
from course.offline import MODEL_VARIABLES
from course.processes import HOST, child_env, free_port, running

TOKEN_ENV = "COURSE_MCP_TOKEN"
PATH = "/mcp"
DEFAULT_PORT = 8000


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


CHILD_ENV = MODEL_VARIABLES  # a child loads the same embedding model, from local files


@contextmanager
def http_server(module: str, *args: str, token: str | None = None, port: int | None = None,
                timeout: float = 30.0) -> Iterator[str]:
    """Run `python -m <module> --transport streamable-http` in a child process; yield its URL; stop it.

    The child is always stopped on exit (Ctrl+C first, so it shuts down cleanly, then a kill),
    even if the block raises: no server is left running behind the notebook.
    """
    port = port or free_port()
    env = child_env(CHILD_ENV, {TOKEN_ENV: token or ""})  # like a stdio child in lesson 6
    with running([sys.executable, "-m", module, "--transport", "streamable-http", "--port", str(port), *args],
                 env, port, timeout):
        yield f"http://{HOST}:{port}{PATH}"


def command_line(description: str, module: str | None = None) -> argparse.ArgumentParser:
    """The options every course server takes. `module` names it in the usage line
    (`python -m course.servers.docs`) instead of the file name argparse would show."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}" if module else None, description=description)
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio",
                        help="stdio (default): the client starts this process; streamable-http: serve on 127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port (streamable-http only)")
    return parser


def serve(build: Callable[..., Any], args: argparse.Namespace, **options: Any) -> None:
    """Build the server for the chosen transport and run it until the client closes it (or Ctrl+C)."""
    if args.transport == "stdio":
        build(**options).run()  # stdout carries JSON-RPC: nothing else may write there
        return
    token = os.environ.get(TOKEN_ENV)
    if not token:
        print(f"no {TOKEN_ENV}: any program on this machine can call these tools", file=sys.stderr, flush=True)
    server = build(token=token, **options)
    try:
        server.run("streamable-http", host=HOST, port=args.port, streamable_http_path=PATH)
    except KeyboardInterrupt:
        pass


def described(mcp: Any) -> Callable:
    """`mcp.tool(...)` with the docstring dedented: the SDK sends it verbatim, indentation included."""

    def tool(**options: Any):
        return lambda fn: mcp.tool(description=inspect.cleandoc(fn.__doc__ or ""), **options)(fn)

    return tool
