"""Tool descriptions as the model reads them: a docstring without its source indentation (lesson 5)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def described(mcp: Any) -> Callable:
    """`mcp.tool(...)` with the docstring dedented: the SDK sends it verbatim, indentation included."""

    def tool(**options: Any):
        return lambda fn: mcp.tool(description=inspect.cleandoc(fn.__doc__ or ""), **options)(fn)

    return tool
