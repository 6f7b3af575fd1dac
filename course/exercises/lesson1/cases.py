"""Cases lesson 1's checks make up as they run: tools, argument models and calls the learner cannot see.

Names are drawn from small word lists, so a check can say what kind of case failed without
the learner being able to prepare for it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Set
from typing import Any

from course.exercises import NotYet

WORDS = ["parcel", "stock", "invoice", "voucher", "pickup", "store", "warranty", "basket"]
VERBS = ["check", "find", "track", "book", "get", "list"]
FIELDS = ["sku", "quantity", "postcode", "city", "size", "weight_kg"]  # no part of a tool name above


def tool_name(rng: random.Random, taken: Set[str] = frozenset()) -> str:
    while (name := f"{rng.choice(VERBS)}_{rng.choice(WORDS)}") in taken:
        pass
    return name


def argument_model(fields: dict[str, Any], title: str):
    """A Pydantic model with the given {field: (type, Field(...))}, refusing unknown arguments."""
    from pydantic import ConfigDict, create_model

    return create_model(title, __config__=ConfigDict(extra="forbid"), **fields)


def schema_accepts(schema: dict, value: Any) -> bool:
    """Does the JSON schema allow this object? The subset Pydantic writes for string fields."""
    if not isinstance(value, dict) or any(k not in value for k in schema.get("required", [])):
        return False
    props = schema.get("properties", {})
    if schema.get("additionalProperties") is False and any(k not in props for k in value):
        return False
    for key, v in value.items():
        p = props.get(key, {})
        if p.get("type") == "string" and not isinstance(v, str):
            return False
        if isinstance(v, str) and (len(v) < p.get("minLength", 0) or len(v) > p.get("maxLength", len(v))
                                   or ("pattern" in p and not re.search(p["pattern"], v))):
            return False
    return True


def tool_call(name: str, arguments: str, rng: random.Random):
    from openai.types.chat import ChatCompletionMessageFunctionToolCall
    from openai.types.chat.chat_completion_message_function_tool_call import Function

    return ChatCompletionMessageFunctionToolCall(id=f"call_{rng.getrandbits(40):x}", type="function",
                                                 function=Function(name=name, arguments=arguments))


def insisting(tool):
    """The same tool, but a call with unvalidated arguments gets a hint instead of a crash deep inside."""
    from dataclasses import replace

    def fn(args):
        if not isinstance(args, tool.params):
            raise NotYet("tool.fn expects the validated arguments, not a dict.",
                         "call tool.fn(tool.params.model_validate(json.loads(tool_call.function.arguments))).")
        return tool.fn(args)

    return replace(tool, fn=fn)


def message_tools(rng: random.Random):
    """(tool, arguments, expected result) for tools the check makes up, with a default to fill in."""
    from pydantic import Field

    from course.tools import Tool

    field, other = rng.sample(WORDS, 2)
    params = argument_model({field: (str, Field(min_length=1)), other: (int, rng.randint(2, 9))}, "Query")
    value = rng.choice(["Köln", "blue", "A 2"])
    data = Tool(tool_name(rng), "A tool the check made up.", params,
                lambda a: {"found": getattr(a, field), "count": getattr(a, other)})
    text = Tool(tool_name(rng), "A tool that answers in text.", params,
                lambda a: f"Nothing for {getattr(a, field)} today.")
    many = Tool(tool_name(rng), "A tool that answers with a list.", params,
                lambda a: [getattr(a, field)] * getattr(a, other))
    default = params.model_fields[other].default
    return [(data, {field: value}, {"found": value, "count": default}),
            (text, {field: value}, f"Nothing for {value} today."),
            (many, {field: value, other: 2}, [value, value])]


class ToolsOnly:
    """The shop's tools with only definitions() and execute(): the tool messages are the learner's to build."""

    def __init__(self):
        from course.orders import shop_toolbox

        self._toolbox = shop_toolbox()

    def definitions(self) -> list[dict]:
        return self._toolbox.definitions()

    def execute(self, name: str, arguments: str) -> str:
        return self._toolbox.execute(name, arguments)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"the check's toolbox has only definitions() and execute(), no {name!r}")

    def tool_messages(self, message: Any) -> list[dict]:
        raise NotYet("this exercise is to build the tool messages yourself.",
                     "for each call in message.tool_calls, one {'role': 'tool', 'tool_call_id': ..., 'content': "
                     "toolbox.execute(...)}. (toolbox.tool_messages would do it for you.)")


def shop_tools(rng: random.Random):
    """Two tools with constrained arguments; one of them fails with a ToolFailure for one input."""
    from pydantic import Field

    from course.tools import Tool, ToolFailure

    code, count = rng.sample(FIELDS, 2)
    params = argument_model({code: (str, Field(pattern=r"^[A-Z]{3}-\d$")), count: (int, Field(ge=1, le=9))}, "Ask")
    empty = f"ZZZ-{rng.randint(0, 9)}"
    advice = f"Nothing left of {empty}. Offer the customer another {code}."

    def run(args):
        if getattr(args, code) == empty:
            raise ToolFailure(advice)
        return {code: getattr(args, code), count: getattr(args, count), "ok": True}

    first = tool_name(rng)
    tools = {first: Tool(first, "One of the check's tools.", params, run)}
    second = tool_name(rng, {first})
    tools[second] = Tool(second, "Another one.", params, lambda a: f"{getattr(a, code)} is on its way.")
    return tools, code, count, empty, advice
