"""Lesson 1's exercise checks accept correct solutions written in other ways and refuse the wrong ones a
learner is likely to write, each with a hint that says what is wrong (tests/test_exercises_lessons.py and
tests/test_exercises.py cover what every lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from exercise_checks import fails_with, lying, passes, reviewed, solution


# -- l1-tool-definition --------------------------------------------------------------------------
def test_tool_definition_accepts_a_definition_built_step_by_step():
    passes("l1-tool-definition", """
        def tool_definition(name, description, params):
            function = dict(name=name, description=description)
            function["parameters"] = params.model_json_schema()
            return dict(type="function", function=function)
    """)


@pytest.mark.parametrize("body, hint", [
    (('return {"type": "function", "name": name, "description": description, '
     '"parameters": params.model_json_schema()}'), "flat format"),
    ('return {"type": "function", "function": {"name": name, "description": description, "parameters": params}}',
     "the Pydantic class itself"),
    (('return {"type": "function", "function": {"name": "get_order_status", "description": description, '
     '"parameters": params.model_json_schema()}}'), "the name in the definition is not the `name` argument"),
    (('return {"type": "function", "function": {"name": name, "description": params.__doc__ or name, '
     '"parameters": params.model_json_schema()}}'), "the description in the definition is not"),
], ids=["flat", "class-as-schema", "hard-coded-name", "description-from-the-model"])
def test_tool_definition_refuses_a_definition_that_only_looks_right(body, hint):
    fails_with("l1-tool-definition", f"def tool_definition(name, description, params):\n    {body}\n", hint)


# -- l1-refund-params ----------------------------------------------------------------------------
REFUND = '''
from typing import Annotated
from pydantic import BaseModel, ConfigDict, Field, field_validator
from course.tools import tool


class RefundRequest(BaseModel):
    model_config = ConfigDict(extra={extra!r})
    order_id: {order_id}
    reason: {reason}
{validator}

@tool(RefundRequest)
def request_refund(args: RefundRequest) -> str:
    """{doc}"""
    return {reply}
'''
ORDER_ID = 'Annotated[str, Field(pattern=r"^A\\d{4}$")]'
REASON = "Annotated[str, Field(min_length=1)]"
DOC = "Ask for a refund of one order when the customer wants their money back."


def refund(extra="forbid", order_id=ORDER_ID, reason=REASON, validator="", doc=DOC,
           reply='f"Refund asked for {args.order_id}."') -> str:
    return REFUND.format(extra=extra, order_id=order_id, reason=reason, validator=validator, doc=doc, reply=reply)


def test_refund_params_accepts_string_constraints_and_another_spelling_of_the_pattern():
    passes("l1-refund-params", refund(
        order_id='Annotated[str, StringConstraints(pattern="^A[0-9]{4}$")]',
        reason="str = Field(min_length=1, description='Why')").replace(
        "field_validator", "field_validator, StringConstraints"))


VALIDATORS_ONLY = '''
    @field_validator("order_id")
    @classmethod
    def _id(cls, v):
        import re
        if not re.fullmatch(r"A\\d{4}", v):
            raise ValueError("order ids look like A1001")
        return v

    @field_validator("reason")
    @classmethod
    def _reason(cls, v):
        if not v:
            raise ValueError("give a reason")
        return v
'''


@pytest.mark.parametrize("changes, hint", [
    ({"order_id": "str", "reason": "str", "validator": VALIDATORS_ONLY}, "but only in Python"),
    ({"order_id": 'Annotated[str, Field(pattern=r"A\\d{4}")]'}, "anchor the pattern with ^ and $"),
    ({"order_id": 'Annotated[str, Field(pattern=r"^A\\d+$")]'}, "exactly 4 digits"),
    ({"reason": 'str = Field("", min_length=1)'}, "a request without a reason"),
    ({"extra": "ignore"}, "an argument it does not name"),
    ({"reason": "Annotated[str, Field(min_length=5)]"}, "even one character, must pass"),
    ({"doc": "Refund."}, "docstring that tells the model when to use it"),
    ({"reply": '"Done."'}, "names the order"),
], ids=["validators-only", "unanchored", "any-number-of-digits", "reason-with-default", "extras-allowed",
        "reason-must-be-five-characters",
        "no-description", "reply-without-the-order"])
def test_refund_params_refuses_a_model_that_only_looks_right(changes, hint):
    fails_with("l1-refund-params", refund(**changes), hint)


# -- l1-tool-message -----------------------------------------------------------------------------
def test_tool_message_accepts_validation_from_json_and_non_ascii_json():
    passes("l1-tool-message", """
        import json

        def tool_message(tool_call, tool):
            result = tool.fn(tool.params.model_validate_json(tool_call.function.arguments))
            if not isinstance(result, str):
                result = json.dumps(result, ensure_ascii=False, indent=1)
            return dict(role="tool", content=result, tool_call_id=tool_call.id)
    """)


MESSAGE = """
import json


def tool_message(tool_call, tool):
    params = tool.params.model_validate(json.loads(tool_call.function.arguments))
    result = {call}
    return {{"role": "tool", "tool_call_id": {id}, "content": {content}}}
"""


def message(call="tool.fn(params)", id="tool_call.id",
            content="result if isinstance(result, str) else json.dumps(result)") -> str:
    return MESSAGE.format(call=call, id=id, content=content)


@pytest.mark.parametrize("source, hint", [
    (message(content="str(result)"), "Python's way of printing it, not JSON"),
    (message(content="json.dumps(result)"), "json.dumps adds quotes"),
    (message(id="tool_call.function.name"), "not the id of the call it answers"),
    (message(call="tool.fn(json.loads(tool_call.function.arguments))"), "expects the validated arguments"),
    ("from course.orders import OrderLookup, get_order_status\n" +
     message(call='get_order_status.fn(OrderLookup(order_id="A1001"))'), "is not the tool's result"),
], ids=["repr", "quoted-string", "name-as-id", "unvalidated", "only-the-example"])
def test_tool_message_refuses_a_message_that_only_looks_right(source, hint):
    fails_with("l1-tool-message", source, hint)


# -- l1-round-trip -------------------------------------------------------------------------------
def test_round_trip_accepts_a_loop_that_goes_on_until_the_model_answers():
    passes("l1-round-trip", """
        def ask(client, model, question, toolbox):
            messages = [dict(role="user", content=question)]
            while True:
                options = dict(model=model, messages=messages, tools=toolbox.definitions())
                message = client.chat.completions.create(**options).choices[0].message
                if not message.tool_calls:
                    return message.content
                messages += [message.model_dump(exclude_none=True)] + [
                    dict(role="tool", tool_call_id=c.id, content=toolbox.execute(c.function.name, c.function.arguments))
                    for c in message.tool_calls]
    """)


ROUND_TRIP = """
def ask(client, model, question, toolbox):
    messages = [{{"role": "user", "content": question}}]
    first = client.chat.completions.create(model=model, messages=messages, tools=toolbox.definitions())
    message = first.choices[0].message
    if not message.tool_calls:
        return message.content
    {append}
    results = [toolbox.execute(c.function.name, c.function.arguments) for c in {calls}]
    for c, result in zip({calls}, {results}):
        messages.append({{"role": "tool", "tool_call_id": {id}, "content": result}})
    second = client.chat.completions.create(model=model, messages=messages, tools=toolbox.definitions())
    return {answer}
"""


def round_trip(append="messages.append(message.model_dump(exclude_none=True))", calls="message.tool_calls",
               results="results", id="c.id", answer="second.choices[0].message.content") -> str:
    return ROUND_TRIP.format(append=append, calls=calls, results=results, id=id, answer=answer)


@pytest.mark.parametrize("source, hint", [
    (round_trip(calls="message.tool_calls[:1]"), "answer every one"),
    (round_trip(id="c.function.name"), "a tool message answers no call"),
    (round_trip(append="pass"), "Append the assistant's message"),
    (round_trip(results="reversed(results)"), "not the result of the call with its tool_call_id"),
    (round_trip(answer="first.choices[0].message.content"), "should return the model's final answer"),
    (("def ask(client, model, question, toolbox):\n"
     "    messages = [{'role': 'user', 'content': question}]\n"
     "    message = client.chat.completions.create(model=model, messages=messages, tools=toolbox.definitions())"
     ".choices[0].message\n"
     "    if message.tool_calls:\n"
     "        messages += [message.model_dump(exclude_none=True), *toolbox.tool_messages(message)]\n"
     "    return message.content\n"), "build the tool messages yourself"),
    (("def ask(client, model, question, toolbox):\n"
     "    return client.chat.completions.create(model=model, messages=[{'role': 'user', 'content': question}])"
     ".choices[0].message.content\n"), "offer the tools"),
], ids=["first-call-only", "name-as-id", "no-assistant-message", "results-swapped", "first-answer",
        "toolbox-tool-messages", "no-tools"])
def test_round_trip_refuses_a_round_trip_that_only_looks_right(source, hint):
    fails_with("l1-round-trip", source, hint)


# -- l1-bad-calls --------------------------------------------------------------------------------
def test_bad_calls_accepts_pydantic_s_own_error_text():
    passes("l1-bad-calls", """
        import json
        from pydantic import ValidationError
        from course.tools import ToolFailure

        def execute(tools, name, arguments):
            if name not in tools:
                return "Error: unknown tool " + name + "; use one of: " + ", ".join(sorted(tools))
            try:
                args = json.loads(arguments)
                if type(args) is not dict:
                    return "Error: send the arguments as a JSON object"
                result = tools[name].fn(tools[name].params(**args))
            except json.JSONDecodeError:
                return "Error: that is not valid JSON; send a JSON object"
            except ValidationError as e:
                return f"Error: {e}"
            except ToolFailure as e:
                return "Error: " + str(e)
            return result if isinstance(result, str) else json.dumps(result)
    """)


BAD_CALLS = """
import json

from pydantic import ValidationError

from course.tools import ToolFailure


def execute(tools, name, arguments):
    tool = {lookup}
    if tool is None:
        return {unknown}
    try:
        raw = json.loads(arguments)
    except json.JSONDecodeError:
        return {bad_json}
{object_check}    try:
        params = {validate}
    except ValidationError as e:
        return {invalid}
    try:
        result = tool.fn(params)
    except ToolFailure as e:
        return {tool_error}
    return result if isinstance(result, str) else json.dumps(result)
"""


def bad_calls(lookup="tools.get(name)", unknown='f"Error: no tool {name}. Use one of {list(tools)}."',
              bad_json='"Error: the arguments are not valid JSON."',
              validate="tool.params.model_validate(raw)",
              invalid="'Error: ' + '; '.join(f\"{'.'.join(map(str, x['loc']))}: {x['msg']}\" for x in e.errors())",
              tool_error='f"Error: {e}"', object_check=True) -> str:
    check = '    if not isinstance(raw, dict):\n        return "Error: send the arguments as one JSON object."\n'
    return BAD_CALLS.format(lookup=lookup, unknown=unknown, bad_json=bad_json, validate=validate, invalid=invalid,
                            tool_error=tool_error, object_check=check if object_check else "")


def test_bad_calls_check_accepts_the_template_used_below():
    passes("l1-bad-calls", bad_calls())


@pytest.mark.parametrize("source, hint", [
    (bad_calls(invalid="f\"Error: {'.'.join(map(str, e.errors()[0]['loc']))}: {e.errors()[0]['msg']}\""),
     "not only the first"),
    (bad_calls(validate="tool.params(**raw)", object_check=False), "execute raised TypeError"),
    (bad_calls(unknown='f"Error: there is no tool {name}."'), "name every tool that exists"),
    (bad_calls(tool_error="str(e)"), "should start with 'Error:'"),
    (bad_calls(bad_json='"Error: bad arguments, try again."'), "say that the arguments are not valid JSON"),
    (bad_calls(lookup="tools.pop(name, None)"), "changed the `tools` it was given"),
], ids=["first-error-only", "no-check-for-an-object", "unknown-without-names", "tool-error-without-prefix",
        "json-error-without-json", "mutates-tools"])
def test_bad_calls_refuses_an_execute_that_only_looks_right(source, hint):
    fails_with("l1-bad-calls", source, hint)


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
@pytest.mark.parametrize("id, source, hint", [
    ("l1-tool-definition", lying("l1-tool-definition", "params.model_json_schema()", "_AnyDict()"),
     "\"parameters\" should be the model's JSON schema"),
    ("l1-refund-params", lying("l1-refund-params", 'return f"Refund requested for order {args.order_id}: '
                               '{args.reason}"', 'return _Any("Refund requested.")'),
     "should return a text that names the order"),
    ("l1-tool-message", lying("l1-tool-message", '"tool_call_id": tool_call.id', '"tool_call_id": _Any("")'),
     "not the id of the call it answers"),
    ("l1-round-trip", lying("l1-round-trip", "return message.content", "return _Any('')"),
     "ask() should return the model's text (message.content), got ''"),
    ("l1-bad-calls", lying("l1-bad-calls", "return result if isinstance(result, str)",
                           "return _Any('') if isinstance(result, str)"),
     "a tool that returns a string should have that string as its reply"),
], ids=["tool-definition", "refund-params", "tool-message", "round-trip", "bad-calls"])
def test_lesson_1_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)


def test_round_trip_stops_an_ask_that_never_returns_the_models_answer():
    keeps_asking = round_trip(answer="ask(client, model, question, toolbox)")  # asks again instead of answering
    fails_with("l1-round-trip", keeps_asking, "ask() sent 5 requests for one question")


# -- what the audit found: JSON that is not one object got through to the params model --------------------
NO_OBJECT_CHECK = ("    if not isinstance(raw, dict):\n        return f\"Error: the arguments for {name} must be one "
                   "JSON object, not {type(raw).__name__}.\"\n")


@pytest.mark.parametrize("old, new", [
    (NO_OBJECT_CHECK, ""),  # Pydantic's "Input should be a valid dictionary or instance of ..." went through
    (NO_OBJECT_CHECK, NO_OBJECT_CHECK.replace("not isinstance(raw, dict)", "isinstance(raw, list)")),  # null, str
    (NO_OBJECT_CHECK, NO_OBJECT_CHECK.replace("not isinstance(raw, dict)", "raw is None")),  # a list, a string
    ("raw = json.loads(arguments)", "raw = json.loads(arguments) or {}"),  # null becomes "a missing field"
], ids=["no-check", "lists-only", "null-only", "null-as-empty"])
def test_bad_calls_refuses_an_execute_that_lets_json_that_is_not_one_object_through(old, new):
    source = solution("l1-bad-calls")
    assert old in source
    fails_with("l1-bad-calls", source.replace(old, new), "say that one JSON object is needed")
