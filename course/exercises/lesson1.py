"""Checks for lesson 1's exercises (notebooks/01_tool_calling.ipynb)."""

from __future__ import annotations

import json

from course.exercises import NotYet, exercise

GIVEN = """
from typing import Annotated
from pydantic import BaseModel, ConfigDict, Field
from course.tools import Tool, Toolbox, ToolError, tool, tool_definition
"""


@exercise("l1-refund-params", lesson=1, given=GIVEN)
def check_refund_params(RefundRequest, refund_tool):
    from pydantic import BaseModel, ValidationError

    from course.scripted import ScriptedModel

    if not (isinstance(RefundRequest, type) and issubclass(RefundRequest, BaseModel)):
        raise NotYet("RefundRequest must be a Pydantic model: `class RefundRequest(BaseModel): ...`.")
    fields = RefundRequest.model_fields
    for name in ("order_id", "reason"):
        if name not in fields:
            raise NotYet(f"RefundRequest has no field `{name}` yet.")
    good = {"order_id": "A1001", "reason": "The kettle arrived broken."}
    try:
        RefundRequest.model_validate(good)
    except ValidationError as e:
        raise NotYet(f"a valid request was rejected: {good} -> {e.errors()[0]['msg']}") from None
    for bad, why in [({**good, "order_id": "1001"}, "an order id without the A prefix"),
                     ({**good, "reason": ""}, "an empty reason"),
                     ({"order_id": "A1001"}, "a missing reason")]:
        try:
            RefundRequest.model_validate(bad)
        except ValidationError:
            continue
        raise NotYet(f"RefundRequest accepts {why} ({bad}). Add a constraint with Field(...).")
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
    from course.backend import MODEL
    from course.scripted import ScriptedModel
    from course.shop import shop_toolbox
    from course.stories.lesson1 import order_status

    toolbox = shop_toolbox()
    fake = ScriptedModel(order_status)
    answer = ask(fake.client(max_retries=0), MODEL, "Where is my order A1001?", toolbox)
    if not fake.requests:
        raise NotYet("ask() sent no request to the model.")
    if len(fake.requests) < 2:
        raise NotYet("the model asked for a tool, but ask() did not send the tool's result back "
                      "in a second request.")
    sent = fake.requests[1]["messages"]
    tool_msgs = [m for m in sent if m.get("role") == "tool"]
    if not tool_msgs or "shipped" not in tool_msgs[0]["content"]:
        raise NotYet("the second request should contain a role='tool' message with the tool's result.")
    if not isinstance(answer, str) or "A1001" not in answer:
        raise NotYet(f"ask() should return the model's final text answer, got {answer!r}.")
    # A question that needs no tool: one request, and the text comes straight back.
    fake = ScriptedModel(["Hello! How can I help?"])
    answer = ask(fake.client(max_retries=0), MODEL, "Hi", toolbox)
    if answer != "Hello! How can I help?" or len(fake.requests) != 1:
        raise NotYet("when the model answers in text straight away, ask() should return that text "
                      "after one request.")
    if "tools" not in fake.requests[0]:
        raise NotYet("offer the toolbox's definitions to the model (tools=...).")
    return "The model asked, your code ran the tool, the model answered."
