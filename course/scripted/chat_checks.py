"""What the real Chat Completions API refuses, and what a script may not make it say (lesson 1, 7).

`validate_request` raises `APIRejection` for a request the API answers with 400 (or 404 for
an unknown model); `check_calls` raises a script error for tool calls the API could never
return for that request (a call under `tool_choice="none"`, arguments that break a
`strict` schema, ...).
"""

from __future__ import annotations

import json
import re
from functools import cache

import fastjsonschema
from openai.types.chat.completion_create_params import CompletionCreateParamsBase

from course.scripted.rejections import APIRejection, script_error, unknown_model
from course.scripted.turns import ToolCall

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# The request fields the SDK knows (its own TypedDict) are the ones the API accepts.
CHAT_PARAMETERS = frozenset(CompletionCreateParamsBase.__annotations__) | {"stream"}
ROLES = {"system", "developer", "user", "assistant", "tool"}


def validate_request(body: dict, models: frozenset[str] | None = None) -> None:
    """Raise `APIRejection` for request shapes the real Chat Completions API refuses."""
    unknown = sorted(set(body) - CHAT_PARAMETERS)
    if unknown:
        s = "s" if len(unknown) > 1 else ""
        raise APIRejection(f"Unrecognized request argument{s} supplied: {', '.join(unknown)}")
    check_model(body, models)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise APIRejection("Invalid 'messages': empty array. Expected an array with minimum length 1, but got "
                           "an empty array instead.", "messages", "empty_array")
    check_numbers(body)
    check_reasoning_model(body)
    if body.get("stream_options") is not None and not body.get("stream"):
        raise APIRejection("The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                           "stream_options", "invalid_value")
    check_tools(body)
    check_tool_choice(body)
    check_history(messages)


def check_model(body: dict, models: frozenset[str] | None) -> None:
    if not body.get("model"):
        raise APIRejection("you must provide a model parameter", "model", "missing_required_parameter")
    if models is not None and body["model"] not in models:
        raise unknown_model(body["model"])


def check_numbers(body: dict) -> None:
    n = body.get("n")
    if n is not None and (not isinstance(n, int) or not 1 <= n <= 128):
        raise APIRejection(f"Invalid 'n': integer below minimum value. Expected a value >= 1, but got {n} "
                           "instead.", "n", "integer_below_min_value")
    for key in ("max_tokens", "max_completion_tokens"):
        v = body.get(key)
        if v is not None and (not isinstance(v, int) or v < 1):
            raise APIRejection(f"Invalid '{key}': integer below minimum value. Expected a value >= 1, but got "
                               f"{v} instead.", key, "integer_below_min_value")


# GPT-5 and the o-series are reasoning models: the API refuses `max_tokens` (the spec's
# CreateChatCompletionRequest: "deprecated in favor of max_completion_tokens, and is not compatible
# with o-series models") and any temperature but the default 1. gpt-5-chat-* is not a reasoning model.
REASONING_MODEL = re.compile(r"^(gpt-5(?!-chat)|o\d)")


def check_reasoning_model(body: dict) -> None:
    if not REASONING_MODEL.match(str(body.get("model", ""))):
        return
    if body.get("max_tokens") is not None:
        raise APIRejection("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                           "'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        raise APIRejection(f"Unsupported value: 'temperature' does not support {temperature} with this model. "
                           "Only the default (1) value is supported.", "temperature", "unsupported_value")


def check_tools(body: dict) -> None:
    if "tools" in body and not body["tools"]:
        raise APIRejection("Invalid 'tools': empty array. Expected an array with minimum length 1, but got "
                           "an empty array instead.", "tools", "empty_array")
    for i, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(fn, dict):
            raise APIRejection(f"Missing required parameter: 'tools[{i}].function'.", f"tools[{i}].function",
                               "missing_required_parameter")
        if not TOOL_NAME.match(str(fn.get("name", ""))):
            raise APIRejection(f"Invalid 'tools[{i}].function.name': string does not match pattern. "
                               "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                               f"tools[{i}].function.name", "invalid_value")
        if fn.get("strict"):
            problem = strict_schema_problem(fn.get("parameters") or {})
            if problem:
                raise APIRejection(f"Invalid schema for function '{fn['name']}': {problem}",
                                   f"tools[{i}].function.parameters", "invalid_function_parameters")


def strict_schema_problem(schema: dict, context: tuple = ()) -> str | None:
    """Structured Outputs' rules for a strict schema: every object closed, every property required."""
    if not isinstance(schema, dict):
        return None
    where = f"In context={context}, "
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return where + "'additionalProperties' is required to be supplied and to be false."
        missing = [k for k in schema.get("properties", {}) if k not in (schema.get("required") or [])]
        if missing:
            return (where + "'required' is required to be supplied and to be an array including every key in "
                    f"properties. Missing '{missing[0]}'.")
        for name, sub in schema.get("properties", {}).items():
            problem = strict_schema_problem(sub, (*context, "properties", name))
            if problem:
                return problem
    for key in ("items", "anyOf"):
        subs = schema.get(key)
        for j, sub in enumerate(subs if isinstance(subs, list) else [subs] if subs else []):
            problem = strict_schema_problem(sub, (*context, key, str(j)) if key == "anyOf" else (*context, key))
            if problem:
                return problem
    return None


def check_tool_choice(body: dict) -> None:
    if body.get("parallel_tool_calls") is not None and not body.get("tools"):
        raise APIRejection("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when "
                           "'tools' are specified.", "parallel_tool_calls")
    if "tool_choice" not in body:
        return
    choice = body["tool_choice"]
    if not body.get("tools"):
        raise APIRejection("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
                           "specified.", "tool_choice")
    if isinstance(choice, str):
        if choice not in {"none", "auto", "required"}:
            raise APIRejection(f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and "
                               "'required'.", "tool_choice", "invalid_value")
        return
    name = forced_tool(body)
    if name is None:
        raise APIRejection("Missing required parameter: 'tool_choice.function'.", "tool_choice.function",
                           "missing_required_parameter")
    if name not in offered(body):
        raise APIRejection(f"Invalid value for 'tool_choice': function '{name}' is not one of the functions in "
                           "'tools'.", "tool_choice", "invalid_value")


def check_history(messages: list) -> None:
    pending: set[str] = set()  # tool_call_ids of the latest assistant message still awaiting a result
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ROLES:
            raise APIRejection(f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                               "'user', 'tool', and 'developer'.", f"messages[{i}].role", "invalid_value")
        if pending and role != "tool":
            raise unanswered(pending, f"messages.[{i}].role")
        if role == "assistant":
            if "tool_calls" in m and m["tool_calls"] is not None and not m["tool_calls"]:
                raise APIRejection(f"Invalid 'messages[{i}].tool_calls': empty array. Expected an array with "
                                   "minimum length 1, but got an empty array instead.",
                                   f"messages[{i}].tool_calls", "empty_array")
            pending = {tc["id"] for tc in m.get("tool_calls") or []}
        elif role == "tool":
            if m.get("tool_call_id") not in pending:
                raise APIRejection("Invalid parameter: messages with role 'tool' must be a response to a "
                                   "preceeding message with 'tool_calls'.", f"messages.[{i}].role")
            if not isinstance(m.get("content"), (str, list)):
                raise APIRejection(f"Invalid type for 'messages[{i}].content': expected one of a string or "
                                   "array of objects, but got " + type(m.get("content")).__name__ + " instead.",
                                   f"messages[{i}].content", "invalid_type")
            pending.discard(m["tool_call_id"])
    if pending:
        raise unanswered(pending, "messages")


def unanswered(ids: set[str], param: str) -> APIRejection:
    return APIRejection("An assistant message with 'tool_calls' must be followed by tool messages responding to "
                        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                        + ", ".join(sorted(ids)), param)


# -- what a script may make the model answer ----------------------------------------------
def offered(body: dict) -> dict[str, dict]:
    """name -> function definition, for every tool the request offers."""
    return {t["function"]["name"]: t["function"] for t in body.get("tools") or []
            if isinstance(t, dict) and isinstance(t.get("function"), dict)}


def forced_tool(body: dict) -> str | None:
    """The function a named `tool_choice` forces, if any."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return (choice.get("function") or {}).get("name")
    return None


def check_text(body: dict) -> None:
    """A text answer where the request demands a tool call."""
    choice = body.get("tool_choice")
    if choice == "required" or forced_tool(body):
        why = "tool_choice='required'" if choice == "required" else f"tool_choice forces '{forced_tool(body)}'"
        raise script_error(f"the script answers in text, but the request set {why}, so a real model must "
                           "call a tool.", "tool_choice")


def check_calls(body: dict, calls: list[ToolCall]) -> None:
    """A script must not make calls the real API could never return."""
    tools = offered(body)
    if body.get("tool_choice") == "none" or not tools:
        why = "tool_choice='none'" if tools else "no tools"
        raise script_error(f"the script makes a tool call, but the request offered {why}, so a real model "
                           "could only answer in text.", "tool_choice")
    forced = forced_tool(body)
    for c in calls:
        if forced and c.name != forced:
            raise script_error(f"the script calls '{c.name}', but tool_choice forces '{forced}'.", "tool_choice")
        if c.name not in tools and not c.hallucinated:
            raise script_error(f"the script calls '{c.name}', but the request offered only {list(tools)}. "
                               "Offer the tool, or mark the call hallucinated=True.", "tools")
        if c.name in tools and tools[c.name].get("strict"):
            check_strict_arguments(c, tools[c.name].get("parameters") or {})


def check_strict_arguments(c: ToolCall, schema: dict) -> None:
    """With `strict: true` the API guarantees arguments that match the schema."""
    try:
        arguments = json.loads(c.arguments)
        compiled(json.dumps(schema, sort_keys=True))(arguments)
    except json.JSONDecodeError:
        raise script_error(f"the script's arguments for '{c.name}' are not JSON, but its schema is strict, so "
                           "a real model always sends valid arguments.", "tools") from None
    except fastjsonschema.JsonSchemaValueException as e:
        raise script_error(f"the script's arguments for '{c.name}' break its strict schema ({e.message}); a "
                           "real model's arguments always match a strict schema.", "tools") from None


@cache
def compiled(schema: str):
    return fastjsonschema.compile(json.loads(schema))
