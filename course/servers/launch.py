"""Starting a course server over HTTP from a notebook or a test (lesson 5), and always stopping it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from course.offline import MODEL_VARIABLES
from course.processes import HOST, child_env, free_port, running
from course.servers.auth import TOKEN_ENV
from course.servers.serving import PATH

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
