"""Tools a model can call: a Pydantic model for the arguments, a function that runs (lesson 1).

The model never runs anything. It sends a tool name and a JSON string of arguments;
`Toolbox.execute` checks both and always answers with text the model can read, so a
bad call becomes a message the model can act on, never an exception in your program.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Union

from pydantic import BaseModel, ValidationError

from course.arguments import parse_arguments
from course.errors import BadArguments, ToolFailure

__all__ = ["ToolFailure", "Toolbox", "tool"]

# What runs a model's call: `execute(name, arguments_json)` -> text, or an awaitable of it.
Execute = Callable[[str, str], Union[str, Awaitable[str]]]


def tool_definition(name: str, description: str, params: type[BaseModel]) -> dict:
    """The JSON the model sees for one tool (Chat Completions format: nested under "function")."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": params.model_json_schema()},
    }


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: type[BaseModel]
    fn: Callable[[Any], Any]  # called with the validated params object
    risk: str = "write"  # "read" or "write"; lesson 4 asks before "write". Undeclared = write: the safe guess

    def definition(self) -> dict:
        return tool_definition(self.name, self.description, self.params)


def tool(params: type[BaseModel], *, risk: str = "write") -> Callable[[Callable], Tool]:
    """Decorator: the function's name and docstring become the tool's name and description."""

    def wrap(fn: Callable) -> Tool:
        return Tool(fn.__name__, inspect.cleandoc(fn.__doc__ or ""), params, fn, risk)

    return wrap


def as_text(result: Any) -> str:
    """Tool results travel as text: JSON for data, the string itself for strings."""
    if isinstance(result, str):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    return json.dumps(result, ensure_ascii=False, default=str)


def unexpected_failure(name: str, error: BaseException) -> str:
    """A bug in the tool, not in the model's call: say so, so the model does not retry."""
    return f"Error: {name} failed unexpectedly ({type(error).__name__}: {error}). Do not retry; tell the user."


def explain_validation(name: str, error: ValidationError) -> str:
    problems = []
    for e in error.errors(include_url=False):
        where = ".".join(str(p) for p in e["loc"]) or "arguments"
        got = "" if e["type"] == "missing" else f" (you sent {e['input']!r})"
        problems.append(f"{where}: {e['msg']}{got}")
    return f"Error: invalid arguments for {name}: " + "; ".join(problems) + ". Fix them and call again."


class Toolbox:
    """The tools offered to the model, and the one place their calls are executed."""

    def __init__(self, *tools: Tool):
        self.tools = {t.name: t for t in tools}

    def definitions(self) -> list[dict]:
        return [t.definition() for t in self.tools.values()]

    def execute(self, name: str, arguments: str) -> str:
        """Run one call. Never raises for bad input: every problem becomes an error text."""
        tool = self.tools.get(name)
        if tool is None:
            return (f"Error: there is no tool named {name!r}. Available tools: "
                    f"{', '.join(self.tools) or 'none'}. Call one of these, or answer without a tool.")
        try:
            raw = parse_arguments(name, arguments, schema=tool.params.model_json_schema())
            params = tool.params.model_validate(raw)
        except BadArguments as e:
            return str(e)
        except ValidationError as e:
            return explain_validation(name, e)
        try:
            return as_text(tool.fn(params))
        except ToolFailure as e:
            return f"Error: {e}"
        except Exception as e:  # a bug in the tool: tell the model it is not its fault
            return unexpected_failure(name, e)

    def tool_messages(self, message: Any) -> list[dict]:
        """One `role: "tool"` message per tool call in an assistant message, in order."""
        return [{"role": "tool", "tool_call_id": call.id,
                 "content": self.execute(call.function.name, call.function.arguments)}
                for call in message.tool_calls or []]
