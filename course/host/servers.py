"""Where a server is: a child process over stdio, a URL over Streamable HTTP, or an object in memory (lesson 6).

A stdio child gets only the environment you give it. The SDK passes a small, fixed set
(`HOME, LOGNAME, PATH, SHELL, TERM, USER`); `Stdio.child_env()` shows the exact result,
and nothing else of yours (API keys, tokens) reaches the child unless you name it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from course.processes import child_env


@dataclass(frozen=True)
class Stdio:
    """Run `command args...` as a child process and speak MCP over its stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # values may be secrets
    pass_env: tuple[str, ...] = ()  # names copied from this process's environment, if set
    cwd: str | None = None

    def child_env(self) -> dict[str, str]:
        """Exactly the environment the child process starts with."""
        return child_env(self.pass_env, self.env)

    def describe(self) -> str:
        program = "python" if self.command == sys.executable else self.command
        return " ".join([program, *self.args])


@dataclass(frozen=True)
class Http:
    """A server already running at `url` (Streamable HTTP), with an optional bearer token."""

    url: str
    token: str | None = field(default=None, repr=False)  # never printed
    connect_timeout: float = 5.0

    def describe(self) -> str:
        return self.url + (" (with a bearer token)" if self.token else "")


@dataclass(frozen=True)
class InMemory:
    """An `MCPServer` (or low-level `Server`) object in this process: for tests and notebooks.

    `mode="legacy"` speaks the handshake era (2025-11-25), as servers built on older SDKs do.
    """

    server: Any
    mode: str = "auto"

    def describe(self) -> str:
        return f"in memory: {getattr(self.server, 'name', type(self.server).__name__)}"


ServerSpec = Stdio | Http | InMemory


def check_spec(spec: object) -> ServerSpec:
    """`spec`, if it says where a server is; otherwise a `TypeError` that shows the wrapper to use."""
    if isinstance(spec, Stdio | Http | InMemory):
        return spec
    example = "in_memory(server)"  # the usual slip: an MCPServer object passed as it is
    if isinstance(spec, str):
        example = (f"http({spec!r})" if spec.startswith(("http://", "https://")) else
                   'stdio("course.servers.docs") or http("http://127.0.0.1:8000/mcp")')
    raise TypeError(f"connect() takes stdio(...), http(url) or in_memory(server), not {type(spec).__name__}; "
                    f"e.g. {example}")


def stdio(module_or_script: str, *args: str, env: Mapping[str, str] | None = None,
          pass_env: Iterable[str] = (), cwd: str | None = None) -> Stdio:
    """A Python server run by this course's interpreter (`sys.executable`).

    `stdio("course.servers.docs")` runs a module (`python -m ...`); a path ending in `.py`
    runs a script. `env` sets variables for the child; `pass_env` copies named variables
    from this process. Nothing else of your environment is passed.
    """
    target = ["-m", module_or_script] if not module_or_script.endswith(".py") else [module_or_script]
    return Stdio(sys.executable, (*target, *args), dict(env or {}), tuple(pass_env), cwd)


def stdio_command(command: str, *args: str, env: Mapping[str, str] | None = None,
                  pass_env: Iterable[str] = (), cwd: str | None = None) -> Stdio:
    """Any program that speaks MCP on stdio, e.g. `stdio_command("uvx", "mcp-server-time")`."""
    return Stdio(command, tuple(args), dict(env or {}), tuple(pass_env), cwd)


def http(url: str, *, token: str | None = None, connect_timeout: float = 5.0) -> Http:
    """A Streamable HTTP server, e.g. `http("http://127.0.0.1:8000/mcp", token=...)`."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError(f"http() takes a whole URL: the URL must start with http:// (or https://), "
                         f"e.g. http://127.0.0.1:8000/mcp; got {url!r}.")
    return Http(url, token, connect_timeout)


def in_memory(server: Any, *, mode: str = "auto") -> InMemory:
    return InMemory(server, mode)
