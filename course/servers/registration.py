"""Registering a course server with a client, and checking the registration starts (lesson 5).

`.mcp.json` entries are what Claude Code (and, with other variable syntax, Cursor) start.
`expand` resolves `${VAR}` and `${VAR:-default}` as Claude Code does when it starts a server;
`stdio_parameters` turns an entry into what the SDK's stdio client starts, so a test or the
notebook can run a registration instead of only printing it; `claude_mcp_add` is the
command line that writes the same entry with `claude mcp add`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from mcp import StdioServerParameters

__all__ = ["claude_mcp_add", "expand", "stdio_parameters"]

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(value: str, environ: Mapping[str, str]) -> str:
    """`${VAR}` -> its value, `${VAR:-default}` -> its value or the default. A variable that is not
    set and has no default is an error, as in Claude Code: the server would start without it."""
    def one(m: re.Match) -> str:
        name, default = m.group(1), m.group(2)
        if environ.get(name):
            return environ[name]
        if default is not None:
            return default
        raise KeyError(f"{name} is not set and the entry gives no default (write ${{{name}:-...}}, or set it)")
    return VARIABLE.sub(one, value)


def stdio_parameters(entry: dict, root: Path, environ: Mapping[str, str] | None = None) -> StdioServerParameters:
    """What a client starts for a stdio entry, run from `root` (the relative command is the course's)."""
    environ = os.environ if environ is None else environ
    env = {k: expand(v, environ) for k, v in (entry.get("env") or {}).items()}
    return StdioServerParameters(command=str(root / expand(entry["command"], environ)),
                                 args=[expand(a, environ) for a in entry.get("args", [])], env=env or None,
                                 cwd=root)


def claude_mcp_add(name: str, entry: dict, env: Mapping[str, str] | None = None, scope: str = "local") -> list[str]:
    """`claude mcp add` for a stdio entry: options first, then the name, then `--` and the command, so
    the server's own options (`--budget`) are not read as claude's."""
    argv = ["claude", "mcp", "add", "--transport", "stdio", "--scope", scope]
    for key, value in (env if env is not None else entry.get("env") or {}).items():
        argv += ["--env", f"{key}={value}"]
    return [*argv, name, "--", entry["command"], *entry.get("args", [])]
