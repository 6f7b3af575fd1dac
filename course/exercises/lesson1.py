"""Checks for lesson 1's exercises (notebooks/01_tool_calling.ipynb)."""

from __future__ import annotations

from course.exercises import NotYet, exercise

GIVEN = """
import json
from typing import Annotated
from pydantic import BaseModel, ConfigDict, Field
from course.orders import OrderLookup, get_order_status, shop_toolbox
from course.tools import Tool, Toolbox, ToolError, tool, tool_definition
"""


@exercise("l1-refund-params", lesson=1, given=GIVEN)
def check_refund_params(RefundRequest, refund_tool):
    from pydantic import BaseModel, ValidationError

    from course.scripted import ScriptedModel

    if not (isinstance(RefundRequest, type) and issubclass(RefundRequest, BaseModel)):
        raise NotYet("RefundRequest must be a Pydantic model: `class RefundRequest(BaseModel): ...`.")
    for name in ("order_id", "reason"):
        if name not in RefundRequest.model_fields:
            raise NotYet(f"RefundRequest has no field `{name}` yet.")
    good = {"order_id": "A1001", "reason": "The kettle arrived broken."}
    try:
        RefundRequest.model_validate(good)
    except ValidationError as e:
        raise NotYet(f"a valid request was rejected: {good} -> {e.errors()[0]['msg']}") from None
    for bad, hint in [
        ({**good, "order_id": "1001"}, "an order id without the A prefix; add `pattern=` as in OrderLookup"),
        ({**good, "order_id": "xA10012"}, "'xA10012'; anchor the pattern with ^ and $"),
        ({**good, "reason": ""}, "an empty reason; use `Field(min_length=1)`"),
        ({"order_id": "A1001"}, "a request without a reason; give `reason` no default"),
    ]:
        try:
            RefundRequest.model_validate(bad)
        except ValidationError:
            continue
        raise NotYet(f"RefundRequest accepts {hint}.")
    if isinstance(refund_tool, dict) and "name" in refund_tool and "function" not in refund_tool:
        raise NotYet("refund_tool is in the Responses API's flat format; Chat Completions nests it under "
                     '"function": use tool_definition(...).')
    if not isinstance(refund_tool, dict) or "function" not in refund_tool:
        raise NotYet("refund_tool should be the dict from tool_definition(name, description, RefundRequest).")
    fn = refund_tool["function"]
    if fn.get("name") != "request_refund":
        raise NotYet(f"name the tool 'request_refund' (it is {fn.get('name')!r}).")
    if len(fn.get("description") or "") < 20:
        raise NotYet("give the tool a description that tells the model when to use it (20+ characters).")
    if fn.get("parameters") != RefundRequest.model_json_schema():
        raise NotYet("refund_tool's parameters should be RefundRequest's JSON schema.")
    # The scripted model accepts only what the real API accepts.
    fake = ScriptedModel(["ok"])
    fake.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}],
                                          tools=[refund_tool])
    return "The schema constrains the arguments, and the API accepts the definition."


@exercise("l1-round-trip", lesson=1, given=GIVEN)
def check_round_trip(ask):
    import openai

    from course.backend import MODEL
    from course.orders import shop_toolbox
    from course.scripted import ScriptedModel, ScriptExhausted
    from course.stories.lesson1 import order_status

    toolbox = shop_toolbox()
    # A question that needs no tool: one request, and the text comes straight back.
    fake = ScriptedModel(["Hello! How can I help?"])
    try:
        answer = ask(fake.client(max_retries=0), MODEL, "Hi", toolbox)
    except ScriptExhausted:
        raise NotYet("the model answered in text straight away, but ask() sent another request: return "
                     "`message.content` when `message.tool_calls` is empty.") from None
    if not fake.requests:
        raise NotYet("ask() sent no request to the model.")
    if "tools" not in fake.requests[0]:
        raise NotYet("offer the toolbox's tools to the model: tools=toolbox.definitions().")
    if answer != "Hello! How can I help?":
        raise NotYet(f"ask() should return the model's text (message.content), got {answer!r}.")

    fake = ScriptedModel(order_status)
    try:
        answer = ask(fake.client(max_retries=0), MODEL, "Where is my order A1001?", toolbox)
    except openai.BadRequestError as e:
        raise NotYet(f"the API rejected the second request ({e.body['message'][:90]}...). Append the "
                     "assistant's message (message.model_dump(exclude_none=True)) before the tool messages.") from None
    if len(fake.requests) < 2:
        raise NotYet("the model asked for a tool, but ask() did not send the tool's result back "
                     "in a second request.")
    tool_msgs = [m for m in fake.requests[1]["messages"] if m.get("role") == "tool"]
    if not tool_msgs or not tool_msgs[0]["content"].startswith('{"order_id": "A1001"'):
        raise NotYet("the second request should contain a role='tool' message whose content is the "
                     "tool's result text, as toolbox.tool_messages(message) makes it.")
    expected = order_status(fake.requests[1])
    if answer != expected:
        raise NotYet(f"ask() should return the model's final answer ({expected!r}), got {answer!r}.")
    return "The model asked, your code ran the tool, the model answered."
