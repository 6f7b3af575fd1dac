"""The checks of `l1-tool-message` and `l1-round-trip`: a tool's result goes back to the model under its call's id."""


from __future__ import annotations

import json

from course.exercises import NotYet, exercise
from course.exercises.api_hints import capped, rejected
from course.exercises.lesson1.cases import ToolsOnly, insisting, message_tools, tool_call
from course.exercises.lesson1.given import GIVEN_MESSAGE, GIVEN_ROUND_TRIP
from course.exercises.seeds import draws


# -- l1-tool-message ----------------------------------------------------------------------------
@exercise("l1-tool-message", lesson=1, given=GIVEN_MESSAGE)
def check_tool_message(tool_message):
    from course.orders import _ORDERS, get_order_status

    rng = draws()
    cases = [(get_order_status, {"order_id": "A1001"}, _ORDERS["A1001"]), *message_tools(rng)]
    for tool, arguments, expected in cases:
        tc = tool_call(tool.name, json.dumps(arguments), rng)
        m = tool_message(tc, insisting(tool))
        if not isinstance(m, dict) or m.get("role") != "tool":
            raise NotYet(f'tool_message should return a dict with "role": "tool"; got {m!r:.120}.',
                         "return a plain dict (not an SDK object or a string) with the keys role, tool_call_id and "
                         "content.")
        if m.get("tool_call_id") != tc.id:
            raise NotYet(f""""tool_call_id" is {m.get('tool_call_id')!r}, not the id of the call it answers.""",
                         "The API pairs each result with its call by this id: use tool_call.id.")
        content = m.get("content")
        if not isinstance(content, str):
            raise NotYet(f'"content" must be text, but it is a {type(content).__name__}.',
                         "send data as JSON, json.dumps(result).")
        if isinstance(expected, str):
            if content != expected:
                quoted = content == json.dumps(expected)
                raise NotYet("a tool that returns a string should have that string as content" +
                             (", as it is: json.dumps adds quotes around it." if quoted else
                             f": expected {expected!r:.120}, got {content!r:.120}."),
                             "send a str result unchanged, and json.dumps every other result (a dict, a list).")
            continue
        try:
            sent = json.loads(content)
        except json.JSONDecodeError:
            raise NotYet("content should be JSON, so the model can read the data (json.dumps(result)); got "
                         f"{content!r:.80}, which is Python's way of printing it, not JSON.",
                         "str() and f-strings print a dict in Python's syntax (single quotes, True, None); json.dumps "
                         "writes JSON.") from None
        if sent != expected:
            raise NotYet("content is not the tool's result for these arguments.",
                         f"run tool.fn on the validated arguments and send what it returns (got {content!r:.120}).")
    return f"{len(cases)} calls answered, each under its own id."


# -- l1-round-trip ------------------------------------------------------------------------------
def _ask(ask, question: str):
    import openai

    from course.backend import MODEL
    from course.stories.lesson1 import order_status

    fake = capped(order_status, 4, "ask() sent 5 requests for one question.",
                  "after the tool results, the model answers in text: return that answer instead of asking again.")
    try:
        answer = ask(fake.client(max_retries=0), MODEL, question, ToolsOnly())
    except openai.BadRequestError as e:
        raise rejected(e) from None
    return fake, answer


@exercise("l1-round-trip", lesson=1, given=GIVEN_ROUND_TRIP)
def check_round_trip(ask):
    from course.orders import shop_toolbox
    from course.stories.lesson1 import order_status

    fake, answer = _ask(ask, "Hi")
    if not fake.requests:
        raise NotYet("ask() sent no request to the model.",
                     "client.chat.completions.create(...).")
    if "tools" not in fake.requests[0]:
        raise NotYet("offer the tools to the model.",
                     "tools=toolbox.definitions().")
    if len(fake.requests) > 1:
        raise NotYet("the model answered in text straight away, but ask() sent another request.",
                     "return message.content when message.tool_calls is empty.")
    if answer != order_status(fake.requests[0]):
        raise NotYet(f"ask() should return the model's text (message.content), got {answer!r:.80}.",
                     "when the reply has no tool_calls, the answer is response.choices[0].message.content: return "
                     "that string, not the message or the response.")
    rng = draws()
    known = ["A1001", "A1002", "A1003", "A1004"]
    for count in (1, rng.randint(2, 3)):
        ids = rng.sample(known + [f"A{rng.randint(5000, 9999)}"], count)
        fake, answer = _ask(ask, f"Where are my orders {' and '.join(ids)}?")
        if len(fake.requests) < 2:
            raise NotYet("the model asked for a tool, but ask() did not send the result back in a second request (it "
                         f"returned {answer!r:.60}).",
                         "when message.tool_calls is not empty, run each call, append the assistant's message and one "
                         "tool message per call to the conversation, then ask the model again.")
        messages = fake.requests[1]["messages"]
        asked = {tc["id"]: tc["function"] for m in messages for tc in m.get("tool_calls") or []}
        for m in messages:
            if m.get("role") == "tool":
                fn = asked[m["tool_call_id"]]
                if m["content"] != shop_toolbox().execute(fn["name"], fn["arguments"]):
                    raise NotYet("a tool message's content is not the result of the call with its tool_call_id.",
                                 "run each call with toolbox.execute(call.function.name, "
                                 "call.function.arguments) and answer it under call.id.")
        expected = order_status(fake.requests[-1])
        if answer != expected:
            raise NotYet(f"ask() should return the model's final answer ({expected!r:.80}), got {answer!r:.80}.",
                         "the final answer is the text of the reply to the second request, after the tool results: "
                         "return that, not the first reply's.")
    return "The model asked, your code ran the tools, the model answered."
