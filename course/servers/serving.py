"""How every course server starts (lesson 5): the same command line, then stdio or Streamable HTTP.

    python -m course.servers.docs [--transport stdio|streamable-http] [--port N] ...

Over stdio the client starts the server as its own child process, so no one else can talk to it.
Over HTTP the server listens on 127.0.0.1 only and asks for a bearer token when `COURSE_MCP_TOKEN`
is set; without it, it accepts everyone and says so on stderr when it starts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from course.processes import HOST
from course.servers.auth import TOKEN_ENV

PATH = "/mcp"
DEFAULT_PORT = 8000


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
