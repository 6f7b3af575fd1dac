"""The `MCPServer` the course's servers are built on: strict about arguments, plain about mistakes.

Two things the SDK's `MCPServer` does differently out of the box:

- An argument the tool does not take is dropped without a word: `issue_refund(..., approved_by="admin")`
  runs, and the model believes its extra argument meant something. Here every tool's schema says
  `"additionalProperties": false` and such a call is refused, as lesson 4's Pydantic models refuse it.
- Invalid arguments reach the model as Pydantic's dump ("3 validation errors for ...", "For further
  information visit https://errors.pydantic.dev/..."). Here they become one line per field saying
  what to send instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from pydantic import ConfigDict, ValidationError

SHOWN_INPUT = 60  # characters of a rejected value quoted back to the model


class StrictServer(MCPServer):
    """`MCPServer` whose tools refuse unknown arguments and explain invalid ones field by field."""

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        super().add_tool(fn, *args, **kwargs)
        # The SDK keeps its registered tools private; this class is the one place the course reaches in.
        for tool in self._tool_manager.list_tools():
            close(tool)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            tool = self._tool_manager.get_tool(name)
            if tool is None or isinstance(e, UnexpectedToolError) or not isinstance(e.__cause__, ValidationError):
                raise
            advice = explain(name, e.__cause__, tool.parameters)
            # `from` the ValidationError: the SDK logs the rejected field names from it.
            raise ToolError(f"Error executing tool {name}: {advice}") from e.__cause__


def close(tool: Tool) -> None:
    """Make `tool` refuse arguments it does not declare, and say so in its schema (once per tool)."""
    base = tool.fn_metadata.arg_model
    if base.model_config.get("extra") == "forbid":
        return
    config = {"model_config": ConfigDict(extra="forbid"), "__module__": base.__module__}
    closed = cast(type[ArgModelBase], type(base.__name__, (base,), config))
    tool.fn_metadata.arg_model = closed
    tool.parameters = closed.model_json_schema(by_alias=True)  # now with "additionalProperties": false


def explain(tool: str, error: ValidationError, schema: dict[str, Any]) -> str:
    """One line per field: what was wrong and what to send instead (no values beyond a short quote)."""
    properties = schema.get("properties", {})
    lines, seen = ["these arguments need fixing; change them and call again:"], set()
    for e in error.errors(include_url=False):
        field = str(e["loc"][0]) if e["loc"] else ""
        if field in seen:  # a union reports every branch; one line per field is enough
            continue
        seen.add(field)
        if e["type"] == "extra_forbidden":
            lines.append(f"- {field}: {tool} has no such argument; leave it out "
                         f"(its arguments: {', '.join(properties) or 'none'}).")
        elif field not in properties:
            lines.append(f"- {field or 'arguments'}: {e['msg']}.")
        else:
            problem = "missing" if e["type"] == "missing" else f"{lower_first(e['msg'])} (you sent {quote(e['input'])})"
            lines.append(f"- {field}: {problem}. Send {expected(properties[field])}.")
    return "\n".join(lines)


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_INPUT else text[:SHOWN_INPUT] + "…"


def expected(prop: dict[str, Any]) -> str:
    """What a JSON-schema property accepts, in words: 'a whole number from 1 to 10 (How many results...)'."""
    options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
    kind = options[0] if len(options) == 1 else {}
    if "enum" in kind:
        words = "one of " + ", ".join(repr(v) for v in kind["enum"])
    elif kind.get("type") == "string":
        words = "text" + _span(kind.get("minLength"), kind.get("maxLength"), " characters")
        if "pattern" in kind:
            words += f" matching the pattern {kind['pattern']}"
    elif kind.get("type") in ("integer", "number"):
        words = ("a whole number" if kind["type"] == "integer" else "a number") + _range(kind)
    elif kind.get("type") == "boolean":
        words = "true or false"
    elif kind.get("type") == "array":
        words = "a list"
    else:
        words = "a value of the type the schema gives"
    description = prop.get("description")
    return f"{words} ({description.rstrip('.')})" if description else words


def _span(low: int | None, high: int | None, unit: str) -> str:
    if low is not None and high is not None:
        return f" of {low}-{high}{unit}"
    if low is not None:
        return f" of at least {low}{unit}"
    return f" of at most {high}{unit}" if high is not None else ""


def _range(kind: dict[str, Any]) -> str:
    if "minimum" in kind and "maximum" in kind:
        return f" from {kind['minimum']:g} to {kind['maximum']:g}"
    bounds = [f"{word} {kind[key]:g}" for key, word in (("minimum", "at least"), ("exclusiveMinimum", "greater than"),
                                                         ("maximum", "at most"), ("exclusiveMaximum", "less than"))
              if key in kind]
    return " " + " and ".join(bounds) if bounds else ""
