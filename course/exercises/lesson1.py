"""Checks for lesson 1's exercises (notebooks/01_tool_calling.ipynb), in the order the lesson builds things.

Every check tries the learner's code on the notebook's example and on cases made up at random
when the check runs (tool names, fields, order numbers, call ids), so only code that does the
job in general passes. Hints say what is wrong, then how to go about it.
"""

from __future__ import annotations

import json
import random
import re

from course.backend import MODEL
from course.exercises import NotYet, exercise
from course.exercises.lesson1_cases import (
    WORDS,
    ToolsOnly,
    argument_model,
    insisting,
    message_tools,
    schema_accepts,
    shop_tools,
    tool_call,
    tool_name,
)

# What the notebook has imported before each exercise cell (tests/test_exercises_l1.py compares them).
GIVEN_DEFINITION = """
from course.backend import connect
from course.exercises import check
from course.stories.lesson1 import order_status
from course import show
from course.orders import OrderLookup, get_order_status
"""
GIVEN_PARAMS = GIVEN_DEFINITION + """
from typing import Annotated
from pydantic import BaseModel, ConfigDict, Field
from course.tools import tool
"""
GIVEN_MESSAGE = GIVEN_PARAMS + """
import json
"""
GIVEN_ROUND_TRIP = GIVEN_MESSAGE + """
from course.tools import Toolbox
import openai
from course.scripted import ScriptedModel
from course.orders import shop_toolbox
"""
GIVEN_BAD_CALLS = GIVEN_ROUND_TRIP


# -- l1-tool-definition -------------------------------------------------------------------------
@exercise("l1-tool-definition", lesson=1, given=GIVEN_DEFINITION)
def check_tool_definition(tool_definition):
    from pydantic import Field

    from course.orders import OrderLookup
    from course.scripted import ScriptedModel

    rng = random.Random()
    cases = [("get_order_status", "Look up one order by its number.", OrderLookup)]
    for _ in range(3):
        field = rng.choice(WORDS)
        params = argument_model({field: (str, Field(description=f"The {field}"))}, f"{field.title()}Query")
        cases.append((tool_name(rng), f"Find a {field} for the customer ({rng.randint(1, 999)}).", params))
    for name, description, params in cases:
        d = tool_definition(name, description, params)
        if isinstance(d, dict) and "name" in d and "function" not in d:
            raise NotYet("your definition is in the Responses API's flat format. Chat Completions nests "
                         'name, description and parameters under "function": {"type": "function", '
                         '"function": {...}}.')
        fn = d.get("function") if isinstance(d, dict) else None
        if not isinstance(fn, dict) or d.get("type") != "function":
            raise NotYet('the definition should be a dict {"type": "function", "function": {...}}; '
                         f'got {d!r:.120}.')
        if fn.get("parameters") is params:
            raise NotYet('"parameters" is the Pydantic class itself; the API wants its JSON schema: '
                         "params.model_json_schema().")
        for key, want in [("name", name), ("description", description)]:
            if fn.get(key) != want:
                raise NotYet(f"the {key} in the definition is not the `{key}` argument (for a tool the check "
                             f"made up, it is {fn.get(key)!r:.80}). Use the argument as it is.")
        if fn.get("parameters") != params.model_json_schema():
            raise NotYet('"parameters" should be the model\'s JSON schema, exactly params.model_json_schema().')
    tools = [tool_definition(*case) for case in cases]
    ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=tools)
    return "Four definitions, and the API accepts them."


# -- l1-refund-params ---------------------------------------------------------------------------
@exercise("l1-refund-params", lesson=1, given=GIVEN_PARAMS)
def check_refund_params(RefundRequest, request_refund):
    from pydantic import BaseModel, ValidationError

    from course.scripted import ScriptedModel
    from course.tools import Tool, Toolbox

    if not (isinstance(RefundRequest, type) and issubclass(RefundRequest, BaseModel)):
        raise NotYet("RefundRequest must be a Pydantic model: `class RefundRequest(BaseModel): ...`.")
    for name in ("order_id", "reason"):
        if name not in RefundRequest.model_fields:
            raise NotYet(f"RefundRequest has no field `{name}` yet.")
    if not isinstance(request_refund, Tool):
        raise NotYet("request_refund should be a tool: put @tool(RefundRequest) on the function, as "
                     "get_order_status has @tool(OrderLookup, ...).")
    if request_refund.params is not RefundRequest:
        raise NotYet("request_refund's arguments should be RefundRequest: @tool(RefundRequest).")
    rng = random.Random()
    number = f"A{rng.randint(1000, 9999)}"
    reason = rng.choice(["The kettle arrived broken.", "Wrong size", "Ich habe es doppelt bestellt."])
    good = {"order_id": number, "reason": reason}
    bad = [
        ({**good, "order_id": number[1:]}, "an order number without the A", "add `pattern=` as in OrderLookup"),
        ({**good, "order_id": number.lower()}, "an order number with a lower-case a",
         "the pattern should ask for a capital A"),
        ({**good, "order_id": f"x{number}{rng.randint(0, 9)}"}, "an order number with more around it",
         "anchor the pattern with ^ and $"),
        ({**good, "order_id": number[:-1]}, "an order number with 3 digits", "ask for exactly 4 digits: \\d{4}"),
        ({**good, "reason": ""}, "an empty reason", "use Field(min_length=1)"),
        ({"order_id": number}, "a request without a reason", "give `reason` no default"),
        ({**good, "note": "urgent"}, "an argument it does not name", 'refuse extras: ConfigDict(extra="forbid")'),
    ]
    definition = request_refund.definition()
    schema = definition["function"]["parameters"]
    for valid in (good, {"order_id": f"A{rng.randint(0, 999):04d}", "reason": rng.choice("xy?")}):
        try:
            RefundRequest.model_validate(valid)
        except ValidationError as e:
            raise NotYet(f"a valid request was refused ({e.errors()[0]['msg']}): an A with any four digits and "
                         "any reason that is not empty, even one character, must pass.") from None
        if not schema_accepts(schema, valid):
            raise NotYet("the schema the model sees refuses a valid request (an A with four digits and a reason "
                         "that is not empty): loosen its constraints.")
    for arguments, what, how in bad:
        try:
            RefundRequest.model_validate(arguments)
            refused = False
        except ValidationError:
            refused = True
        if not refused:
            raise NotYet(f"RefundRequest accepts {what}: {how}.")
        if schema_accepts(schema, arguments):
            raise NotYet(f"RefundRequest refuses {what}, but only in Python: the JSON schema the model sees "
                         f"allows it, so the model cannot know the rule. Put the rule in the field itself "
                         f"({how}), not in a validator.")
    if len(request_refund.description) < 20:
        raise NotYet("give request_refund a docstring that tells the model when to use it (20+ characters): "
                     "it becomes the tool's description.")
    ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=[definition])
    reply = Toolbox(request_refund).execute("request_refund", json.dumps(good))
    if reply.startswith("Error:") or number not in reply:
        raise NotYet(f"called with a valid request, request_refund should return a text that names the order "
                     f"(got {reply!r:.120}).")
    return "The schema carries the constraints, and the API accepts the definition."


# -- l1-tool-message ----------------------------------------------------------------------------
@exercise("l1-tool-message", lesson=1, given=GIVEN_MESSAGE)
def check_tool_message(tool_message):
    from course.orders import _ORDERS, get_order_status

    rng = random.Random()
    cases = [(get_order_status, {"order_id": "A1001"}, _ORDERS["A1001"]), *message_tools(rng)]
    for tool, arguments, expected in cases:
        tc = tool_call(tool.name, json.dumps(arguments), rng)
        m = tool_message(tc, insisting(tool))
        if not isinstance(m, dict) or m.get("role") != "tool":
            raise NotYet(f'tool_message should return a dict with "role": "tool"; got {m!r:.120}.')
        if m.get("tool_call_id") != tc.id:
            raise NotYet(f'"tool_call_id" is {m.get("tool_call_id")!r}, not the id of the call it answers. '
                         "The API pairs each result with its call by this id: use tool_call.id.")
        content = m.get("content")
        if not isinstance(content, str):
            raise NotYet(f'"content" must be text, but it is a {type(content).__name__}: send data as JSON, '
                         "json.dumps(result).")
        if isinstance(expected, str):
            if content != expected:
                quoted = content == json.dumps(expected)
                raise NotYet("a tool that returns a string should have that string as content" +
                             (", as it is: json.dumps adds quotes around it." if quoted else
                              f"; got {content!r:.120}."))
            continue
        try:
            sent = json.loads(content)
        except json.JSONDecodeError:
            raise NotYet(f"content should be JSON, so the model can read the data (json.dumps(result)); "
                         f"got {content!r:.80}, which is Python's way of printing it, not JSON.") from None
        if sent != expected:
            raise NotYet(f"content is not the tool's result for these arguments: got {content!r:.120}. Run "
                         "tool.fn on the validated arguments and send what it returns.")
    return f"{len(cases)} calls answered, each under its own id."


# -- l1-round-trip ------------------------------------------------------------------------------
def _ask(ask, question: str):
    import openai

    from course.backend import MODEL
    from course.scripted import ScriptedModel
    from course.stories.lesson1 import order_status

    def model(body: dict):
        if len(fake.requests) > 4:
            raise NotYet("ask() sent 5 requests for one question: after the tool results, the model answers "
                         "in text; return that answer.")
        return order_status(body)

    fake = ScriptedModel(model)
    try:
        answer = ask(fake.client(max_retries=0), MODEL, question, ToolsOnly())
    except openai.BadRequestError as e:
        detail = e.body.get("message", "") if isinstance(e.body, dict) else str(e)
        if "did not have response messages" in detail:
            hint = ("the model asked for several calls in one message; answer every one, right after the "
                    "assistant's message: one tool message per call in message.tool_calls.")
        elif "must be a response to a preceeding message" in detail:
            hint = ("a tool message answers no call of the message before it. Append the assistant's message "
                    "(message.model_dump(exclude_none=True)) first, then one tool message per call, with "
                    "tool_call_id=call.id.")
        elif "Invalid type for" in detail:
            hint = "a tool message's content must be text: the string toolbox.execute(...) returns."
        else:
            hint = f"look at what your second request sends ({detail:.120})."
        raise NotYet(f"the API refused a request (HTTP 400): {hint}") from None
    return fake, answer


@exercise("l1-round-trip", lesson=1, given=GIVEN_ROUND_TRIP)
def check_round_trip(ask):
    from course.orders import shop_toolbox
    from course.stories.lesson1 import order_status

    fake, answer = _ask(ask, "Hi")
    if not fake.requests:
        raise NotYet("ask() sent no request to the model: client.chat.completions.create(...).")
    if "tools" not in fake.requests[0]:
        raise NotYet("offer the tools to the model: tools=toolbox.definitions().")
    if len(fake.requests) > 1:
        raise NotYet("the model answered in text straight away, but ask() sent another request: return "
                     "message.content when message.tool_calls is empty.")
    if answer != order_status(fake.requests[0]):
        raise NotYet(f"ask() should return the model's text (message.content), got {answer!r:.80}.")
    rng = random.Random()
    known = ["A1001", "A1002", "A1003", "A1004"]
    for count in (1, rng.randint(2, 3)):
        ids = rng.sample(known + [f"A{rng.randint(5000, 9999)}"], count)
        fake, answer = _ask(ask, f"Where are my orders {' and '.join(ids)}?")
        if len(fake.requests) < 2:
            raise NotYet("the model asked for a tool, but ask() did not send the result back in a second "
                         f"request (it returned {answer!r:.60}).")
        messages = fake.requests[1]["messages"]
        asked = {tc["id"]: tc["function"] for m in messages for tc in m.get("tool_calls") or []}
        for m in messages:
            if m.get("role") == "tool":
                fn = asked[m["tool_call_id"]]
                if m["content"] != shop_toolbox().execute(fn["name"], fn["arguments"]):
                    raise NotYet("a tool message's content is not the result of the call with its "
                                 "tool_call_id: run each call with toolbox.execute(call.function.name, "
                                 "call.function.arguments) and answer it under call.id.")
        expected = order_status(fake.requests[-1])
        if answer != expected:
            raise NotYet(f"ask() should return the model's final answer ({expected!r:.80}), got {answer!r:.80}.")
    return "The model asked, your code ran the tools, the model answered."


# -- l1-bad-calls -------------------------------------------------------------------------------
@exercise("l1-bad-calls", lesson=1, given=GIVEN_BAD_CALLS)
def check_bad_calls(execute):
    rng = random.Random()
    tools, code, count, empty, advice = shop_tools(rng)
    first, second = tools
    good = {code: "ABC-1", count: rng.randint(1, 9)}

    def reply(name: str, arguments: str, what: str) -> str:
        before = dict(tools)
        try:
            text = execute(tools, name, arguments)
        except NotImplementedError:
            raise
        except Exception as e:  # noqa: BLE001 - a crash is what the hint is about
            raise NotYet(f"for {what}, execute raised {type(e).__name__} instead of answering: catch it and "
                         "return an error text the model can act on.") from None
        if tools != before:
            raise NotYet("execute changed the `tools` it was given; only read it.")
        if not isinstance(text, str):
            raise NotYet(f"execute must always return text; for {what} it returned a {type(text).__name__}.")
        return text

    def error(name: str, arguments: str, what: str, *needed: str, how: str) -> None:
        text = reply(name, arguments, what)
        if not text.startswith("Error:"):
            raise NotYet(f"for {what}, the reply should start with 'Error:' (got {text!r:.80}), so the model "
                         "sees at once that the call failed.")
        missing = [n for n in needed if n.lower() not in text.lower()]
        if missing:
            raise NotYet(f"for {what}, the error does not say enough for the model to fix its call: {how}. "
                         f"Got {text!r:.160}.")

    ok = reply(first, json.dumps(good), "a valid call")
    if ok.startswith("Error") or json.loads(ok) != {**good, "ok": True}:
        raise NotYet(f"a valid call should return the tool's result as JSON; got {ok!r:.120}.")
    if reply(second, json.dumps(good), "a valid call") != f"{good[code]} is on its way.":
        raise NotYet("a tool that returns a string should have that string as its reply, as it is.")
    error(first.replace("_", ""), json.dumps(good), "an unknown tool name", first, second,
          how="name every tool that exists, so the model can pick one")
    error(first, rng.choice([f'{{"{code}": ABC-1}}', f'{{"{code}": "ABC-1"', f"{code}=ABC-1"]), "invalid JSON",
          "JSON", how="say that the arguments are not valid JSON")
    for arguments in ('["ABC-1"]', '"ABC-1"', "null"):
        text = reply(first, arguments, "JSON that is not an object")
        if not text.startswith("Error:") or not re.search("object|dict", text, re.IGNORECASE):
            raise NotYet("for arguments that are JSON but not an object (a list, a string, null), the reply "
                         "should start with 'Error:' and say that one JSON object is needed.")
    error(first, json.dumps({code: "abc", count: 0}), "two invalid fields", code, count,
          how="name every field that is wrong, not only the first (error.errors() lists them all)")
    error(first, json.dumps({count: 2}), "a missing field", code, how="name the missing field")
    error(first, json.dumps({**good, "gift_wrap": True}), "an extra field", "gift_wrap", how="name the extra field")
    error(first, json.dumps({**good, code: empty}), "a tool that raises ToolFailure", advice,
          how="pass on the ToolFailure's message: it says what to do next")
    return "Unknown tools, bad JSON, invalid arguments and tool errors all come back as advice."
