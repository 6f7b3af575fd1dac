"""The document server lesson 6 reaches over HTTP: the class's, when the teacher runs one, else its own.

    with docs_endpoint("--embedder", "lexical") as (url, token):
        ...  http(url, token=token) ...

With `COURSE_MCP_URL` and `COURSE_MCP_TOKEN` set (the teacher's class server, WORKSHOP.md) it
yields those and starts nothing: the learner's calls go to their own workspace there. Otherwise
it starts `course.servers.docs` on 127.0.0.1 with a fresh token, and stops it afterwards.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from course.servers.auth import TOKEN_ENV
from course.servers.launch import http_server

__all__ = ["docs_endpoint"]

URL_ENV = "COURSE_MCP_URL"


def class_server() -> tuple[str, str] | None:
    """(url, token) of the teacher's class server, if this learner was given one."""
    url, token = os.environ.get(URL_ENV, "").strip(), os.environ.get(TOKEN_ENV, "").strip()
    return (url, token) if url and token else None


@contextmanager
def docs_endpoint(*args: str) -> Iterator[tuple[str, str]]:
    """(url, token) of a document server to use over HTTP; `args` go to a server started here."""
    given = class_server()
    if given:
        yield given
        return
    token = secrets.token_urlsafe(16)  # shared with the server through its environment, never printed
    with http_server("course.servers.docs", *args, token=token) as url:
        yield url, token
