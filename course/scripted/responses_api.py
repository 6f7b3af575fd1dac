"""The Responses API (`POST /v1/responses`) in front of the same scripts (lesson 7).

A Responses request is translated into the Chat Completions body that stories already
read (instructions -> system message, `function_call` -> assistant `tool_calls`,
`function_call_output` -> tool message, flat tools -> nested ones), so one rule serves
both APIs; the answer is rendered back as a `response` object with output items.
`previous_response_id` chains turns: the model keeps each stored response's conversation.
"""

from __future__ import annotations

from typing import Any

from openai.types.responses.response_create_params import ResponseCreateParamsBase

from course.scripted import chat_checks
from course.scripted.chat_answers import Answer, call_id, pieces
from course.scripted.rejections import APIRejection, script_error
from course.scripted.turns import CREATED

RESPONSES_PARAMETERS = frozenset(ResponseCreateParamsBase.__annotations__) | {"stream"}


def validate(body: dict, history: dict[str, list[dict]]) -> None:
    """Raise `APIRejection` for what the real Responses API refuses."""
    for key in body:
        if key not in RESPONSES_PARAMETERS:
            raise APIRejection(f"Unknown parameter: '{key}'.", key, "unknown_parameter")
    if not body.get("model"):
        raise APIRejection("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    previous = body.get("previous_response_id")
    if previous is not None and previous not in history:
        raise APIRejection(f"Previous response with id '{previous}' not found.", "previous_response_id",
                           "previous_response_not_found")
    for i, tool in enumerate(body.get("tools") or []):
        if tool.get("type") == "function" and not tool.get("name"):
            raise APIRejection(f"Missing required parameter: 'tools[{i}].name'.", f"tools[{i}].name",
                               "missing_required_parameter")
        # The spec and the SDK's types list `strict` as required, yet the API accepts a tool without it
        # (OpenAI's function-calling guide and the spec's own CreateResponse example omit it) and makes the
        # tool strict, its schema normalized into strict mode (`applied`).
        if tool.get("type") == "function" and "parameters" not in tool:
            raise APIRejection(f"Missing required parameter: 'tools[{i}].parameters'.", f"tools[{i}].parameters",
                               "missing_required_parameter")
        if tool.get("type") != "function":
            raise script_error(f"hosted tools (here '{tool.get('type')}') run on OpenAI's side; the scripted "
                               "model only simulates function tools.", f"tools[{i}].type")
    limit = body.get("max_output_tokens")
    if limit is not None and (not isinstance(limit, int) or limit < 16):
        raise APIRejection(f"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, "
                           f"but got {limit} instead.", "max_output_tokens", "integer_below_min_value")
    items = [{"type": "message", "role": "user", "content": body["input"]}] if isinstance(
        body.get("input"), str) else list(body.get("input") or [])
    previous = previous or ""  # no previous response: nothing remembered
    earlier = {m["tool_call_id"] for m in history.get(previous, []) if m.get("role") == "tool"}
    called = {tc["id"] for m in history.get(previous, []) for tc in m.get("tool_calls") or []} - earlier
    answered = set()
    for item in items:
        if item.get("type") == "function_call":
            called.add(item.get("call_id"))
        elif item.get("type") == "function_call_output":
            if item.get("call_id") not in called:
                raise APIRejection(f"No tool call found for function call output with call_id "
                                   f"{item.get('call_id')}.", "input")
            answered.add(item["call_id"])
    for missing in sorted(called - answered):
        raise APIRejection(f"No tool output found for function call {missing}.", "input")


def as_chat(body: dict, history: dict[str, list[dict]]) -> dict:
    """The Chat Completions body that says the same thing (what rules and checks read)."""
    messages = list(history.get(body.get("previous_response_id") or "", []))
    if body.get("instructions") and not messages:
        messages.append({"role": "system", "content": body["instructions"]})
    items = body.get("input")
    for item in [{"role": "user", "content": items}] if isinstance(items, str) else items or []:
        kind = item.get("type", "message")
        if kind == "message":
            messages.append({"role": item["role"], "content": text_of(item.get("content"))})
        elif kind == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if messages and messages[-1].get("role") == "assistant" and messages[-1].get("tool_calls"):
                messages[-1]["tool_calls"].append(call)  # consecutive calls are one parallel turn
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": text_of(item["output"])})
    chat = {"model": body["model"], "messages": messages}
    if body.get("tools"):
        chat["tools"] = [{"type": "function", "function": {**{k: t[k] for k in ("name", "description") if k in t},
                                                            **applied(t)}} for t in body["tools"]]
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        chat["tool_choice"] = {"type": "function", "function": {"name": choice.get("name")}}
    elif choice is not None:
        chat["tool_choice"] = choice
    renamed = (("parallel_tool_calls", "parallel_tool_calls"), ("max_output_tokens", "max_completion_tokens"))
    for ours, theirs in renamed:
        if body.get(ours) is not None and (ours != "parallel_tool_calls" or body.get("tools")):
            chat[theirs] = body[ours]
    return chat


def as_spec(body: dict) -> dict:
    """The body with a left-out `strict` written as null, the one place the API is laxer than its spec."""
    if not any(isinstance(t, dict) and t.get("type") == "function" and "strict" not in t
               for t in body.get("tools") or []):
        return body
    tools = [{"strict": None, **t} if isinstance(t, dict) and t.get("type") == "function" else t
             for t in body["tools"]]
    return {**body, "tools": tools}


def applied(tool: dict) -> dict:
    """A function tool's `parameters` and `strict` as the API applies them.

    Left out, `strict` is true: OpenAI's function-calling guide ("Strict mode") says "Responses requests will
    normalize your schema into strict mode (for example, by setting `additionalProperties: false` and marking
    all fields as required), which can make previously optional fields mandatory", while `strict: false` keeps
    best-effort calling. A schema that normalizing cannot make strict (a map type) stays non-strict: the guide
    says nothing of a 400 there, so none is invented."""
    if "strict" in tool:
        return {"parameters": tool.get("parameters"), "strict": tool["strict"]}
    strict = normalized(tool.get("parameters") or {})
    if chat_checks.strict_schema_problem(strict) is None:
        return {"parameters": strict, "strict": True}
    return {"parameters": tool.get("parameters"), "strict": False}


def normalized(schema: Any) -> Any:
    """The schema in strict mode: every object closed, every property required, all the way down."""
    if isinstance(schema, list):
        return [normalized(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: normalized(v) if k in ("items", "anyOf") else v for k, v in schema.items()}
    for key in ("$defs", "definitions", "properties"):
        if isinstance(schema.get(key), dict):
            out[key] = {name: normalized(sub) for name, sub in schema[key].items()}
    if schema.get("type") == "object" or "properties" in schema:
        out["required"] = list(out.get("properties") or {})
        if schema.get("additionalProperties") in (None, True):
            out["additionalProperties"] = False
    return out


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def output_items(a: Answer, n: int) -> list[dict]:
    status = "incomplete" if a.finish_reason == "length" else "completed"
    if a.text is not None:
        return [{"type": "message", "id": f"msg_scripted_{n}", "role": "assistant", "status": status,
                 "content": [{"type": "output_text", "text": a.text, "annotations": [], "logprobs": []}]}]
    return [{"type": "function_call", "id": f"fc_scripted_{n}_{i}", "call_id": call_id(n, i), "name": c.name,
             "arguments": c.arguments, "status": "completed"} for i, c in enumerate(a.calls)]


def response(body: dict, a: Answer, n: int, model: str) -> dict:
    """The `response` object for an answer."""
    cut = a.finish_reason == "length"
    tools = [{"type": "function", "name": t["name"], "description": t.get("description"), **applied(t)}
             for t in body.get("tools") or []]
    choice = body.get("tool_choice", "auto")
    return {"id": f"resp_scripted_{n}", "object": "response", "created_at": CREATED,
            "status": "incomplete" if cut else "completed", "model": model, "output": output_items(a, n),
            "parallel_tool_calls": body.get("parallel_tool_calls", True), "tool_choice": choice, "tools": tools,
            "instructions": body.get("instructions"), "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
            "previous_response_id": body.get("previous_response_id"), "metadata": {},
            "temperature": body.get("temperature", 1.0), "top_p": body.get("top_p", 1.0),
            "max_output_tokens": body.get("max_output_tokens"), "store": body.get("store", True),
            "text": {"format": {"type": "text"}, "verbosity": "medium"}, "truncation": "disabled",
            "usage": {"input_tokens": a.prompt_tokens, "output_tokens": a.completion_tokens,
                      "total_tokens": a.prompt_tokens + a.completion_tokens,
                      "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


def events(body: dict, a: Answer, n: int, model: str) -> list[dict]:
    """The server-sent events of a streamed response: created, each item added / its deltas / done, completed."""
    done = response(body, a, n, model)
    started = {**done, "status": "in_progress", "output": [], "incomplete_details": None}
    del started["usage"]  # optional, but not nullable: it comes with the completed response
    out: list[dict] = [{"type": "response.created", "response": started},
                       {"type": "response.in_progress", "response": started}]
    for i, item in enumerate(done["output"]):
        where = {"item_id": item["id"], "output_index": i}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            out.append({"type": "response.output_item.added", "output_index": i,
                        "item": {**item, "status": "in_progress", "content": []}})
            empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            out.append({"type": "response.content_part.added", **where, "content_index": 0, "part": empty})
            out += [{"type": "response.output_text.delta", **where, "content_index": 0, "delta": piece, "logprobs": []}
                    for piece in pieces(text) if piece]
            out.append({"type": "response.output_text.done", **where, "content_index": 0, "text": text,
                        "logprobs": []})
            out.append({"type": "response.content_part.done", **where, "content_index": 0,
                        "part": item["content"][0]})
        else:
            out.append({"type": "response.output_item.added", "output_index": i,
                        "item": {**item, "status": "in_progress", "arguments": ""}})
            args = item["arguments"]
            out += [{"type": "response.function_call_arguments.delta", **where, "delta": args[j:j + 8]}
                    for j in range(0, len(args), 8)]
            out.append({"type": "response.function_call_arguments.done", **where, "name": item["name"],
                        "arguments": args})
        out.append({"type": "response.output_item.done", "output_index": i, "item": item})
    out.append({"type": "response.incomplete" if done["status"] == "incomplete" else "response.completed",
                "response": done})
    return [{**e, "sequence_number": k} for k, e in enumerate(out)]


def remembered(chat: dict, a: Answer, n: int) -> list[dict]:
    """The conversation after this response, for a later `previous_response_id`."""
    said: dict[str, Any]
    if a.text is not None:
        said = {"role": "assistant", "content": a.text}
    else:
        said = {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id(n, i), "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(a.calls)]}
    return [*chat["messages"], said]
