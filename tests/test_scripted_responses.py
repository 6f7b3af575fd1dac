"""The scripted model's Responses API (`/v1/responses`): the same stories, the Responses wire format."""

import json

import openai
import pytest

from course.orders import shop_toolbox
from course.scripted import ScriptedModel, call, schema
from course.stories.lesson1 import order_status

TOOLS = [{"type": "function", "name": d["function"]["name"], "description": d["function"]["description"],
          "parameters": d["function"]["parameters"], "strict": False} for d in shop_toolbox().definitions()]


def client(model):
    return model.client(_strict_response_validation=True, max_retries=0)


def test_a_story_answers_with_a_function_call_item_then_text():
    model = ScriptedModel(order_status)
    c = client(model)
    r = c.responses.create(model="gpt-5.5", input="Where is A1001?", tools=TOOLS)
    fc = r.output[0]
    assert (fc.type, fc.name, json.loads(fc.arguments)) == ("function_call", "get_order_status",
                                                            {"order_id": "A1001"})
    assert r.output_text == "" and r.usage.input_tokens > 0 and r.usage.total_tokens == (
        r.usage.input_tokens + r.usage.output_tokens)
    items = ["Where is A1001?"] and [{"role": "user", "content": "Where is A1001?"}, *r.output,
                                     {"type": "function_call_output", "call_id": fc.call_id,
                                      "output": shop_toolbox().execute(fc.name, fc.arguments)}]
    r2 = c.responses.create(model="gpt-5.5", input=items, tools=TOOLS)
    assert "A1001" in r2.output_text and r2.output[0].type == "message" and r2.status == "completed"


def test_previous_response_id_sends_only_the_new_items():
    model = ScriptedModel(order_status)
    c = client(model)
    r = c.responses.create(model="gpt-5.5", input="Where is A1001?", tools=TOOLS, instructions="Be brief.")
    fc = r.output[0]
    r2 = c.responses.create(model="gpt-5.5", previous_response_id=r.id, tools=TOOLS, input=[
        {"type": "function_call_output", "call_id": fc.call_id,
         "output": '{"order_id": "A1001", "status": "shipped"}'}])
    assert r2.output_text == "Order A1001 is shipped." and r2.previous_response_id == r.id


def test_an_unknown_previous_response_id_is_a_400():
    with pytest.raises(openai.BadRequestError) as e:
        client(ScriptedModel(["x"])).responses.create(model="gpt-5.5", input="hi", previous_response_id="resp_nope")
    assert e.value.code == "previous_response_not_found"


def test_a_function_call_output_without_its_call_is_refused():
    with pytest.raises(openai.BadRequestError, match="No tool call found for function call output"):
        client(ScriptedModel(["x"])).responses.create(model="gpt-5.5", input=[
            {"role": "user", "content": "hi"}, {"type": "function_call_output", "call_id": "call_9", "output": "x"}])


def test_a_function_call_without_its_output_is_refused():
    with pytest.raises(openai.BadRequestError, match="No tool output found for function call call_1"):
        client(ScriptedModel(["x"])).responses.create(model="gpt-5.5", tools=TOOLS, input=[
            {"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "call_1", "name": "get_order_status", "arguments": "{}"}])


def test_a_nested_chat_style_tool_is_refused_with_the_missing_name():
    nested = [{"type": "function", "function": {"name": "get_order_status", "parameters": {}}}]
    with pytest.raises(openai.BadRequestError) as e:
        client(ScriptedModel(["x"])).responses.create(model="gpt-5.5", input="hi", tools=nested)
    assert e.value.param == "tools[0].name" and e.value.code == "missing_required_parameter"


def test_an_unknown_parameter_is_refused_with_its_name():
    with pytest.raises(openai.BadRequestError) as e:
        client(ScriptedModel(["x"])).responses.create(model="gpt-5.5", input="hi", extra_body={"messages": []})
    assert (e.value.code, e.value.param) == ("unknown_parameter", "messages")


def test_max_output_tokens_leaves_an_incomplete_response():
    r = client(ScriptedModel(["word " * 40])).responses.create(model="gpt-5.5", input="hi", max_output_tokens=16)
    assert r.status == "incomplete" and r.incomplete_details.reason == "max_output_tokens"
    assert r.output_text == ("word " * 40)[:64] and r.usage.output_tokens == 16


def test_a_function_tool_without_strict_is_accepted_and_made_strict_as_the_api_documents():
    # The spec (and the SDK's FunctionToolParam) mark `strict` required, but the API accepts a tool without it:
    # OpenAI's function-calling guide (platform.openai.com/docs/guides/function-calling, the Responses tab) and
    # the spec's own CreateResponse example send `{"type": "function", "name", "description", "parameters"}`.
    # Its "Strict mode" section says what then happens: "Responses requests will normalize your schema into
    # strict mode (for example, by setting `additionalProperties: false` and marking all fields as required)".
    loose = [{k: v for k, v in t.items() if k != "strict"} for t in TOOLS]
    loose[0]["parameters"] = {k: v for k, v in loose[0]["parameters"].items() if k != "additionalProperties"}
    r = client(ScriptedModel([call("get_order_status", order_id="A1001")])).responses.create(
        model="gpt-5.5", input="Where is A1001?", tools=loose)
    assert r.output[0].type == "function_call" and r.output[0].name == "get_order_status"
    assert r.tools[0].strict is True and r.tools[0].parameters["additionalProperties"] is False


OPTIONAL_NOTE = {"type": "function", "name": "get_order_status", "parameters": {
    "type": "object", "required": ["order_id"],
    "properties": {"order_id": {"type": "string"}, "note": {"type": "string"}}}}  # `note` is optional


def test_left_out_strict_makes_an_optional_field_mandatory_and_strict_false_keeps_it_optional():
    # The guide: normalizing "can make previously optional fields mandatory ... To opt out of strict mode in
    # Responses and keep non-strict, best-effort function calling, explicitly set `strict: false`."
    without_note = call("get_order_status", order_id="A1001")
    with pytest.raises(openai.BadRequestError, match="break its strict schema"):  # a strict model always sends it
        client(ScriptedModel([without_note])).responses.create(model="gpt-5.5", input="Where?",
                                                               tools=[OPTIONAL_NOTE])
    r = client(ScriptedModel([call("get_order_status", order_id="A1001", note="")])).responses.create(
        model="gpt-5.5", input="Where?", tools=[OPTIONAL_NOTE])
    assert r.tools[0].strict is True and r.tools[0].parameters["required"] == ["order_id", "note"]
    best_effort = {**OPTIONAL_NOTE, "strict": False}
    r = client(ScriptedModel([without_note])).responses.create(model="gpt-5.5", input="Where?", tools=[best_effort])
    assert r.tools[0].strict is False and r.tools[0].parameters["required"] == ["order_id"]


def test_a_left_out_strict_on_a_schema_that_cannot_be_made_strict_stays_best_effort():
    counts = {"type": "function", "name": "stock", "parameters": {
        "type": "object", "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}}}}
    r = client(ScriptedModel([call("stock", counts={"KT-200": 3})])).responses.create(
        model="gpt-5.5", input="Stock?", tools=[counts])
    assert r.tools[0].strict is False and r.output[0].name == "stock"


def test_a_function_tool_without_strict_whose_schema_is_closed_becomes_strict():
    closed = {"type": "function", "name": "get_order_status", "parameters": {
        "type": "object", "additionalProperties": False, "required": ["order_id"],
        "properties": {"order_id": {"type": "string", "pattern": "^A\\d{4}$"}}}}
    r = client(ScriptedModel([call("get_order_status", order_id="A1001")])).responses.create(
        model="gpt-5.5", input="Where is A1001?", tools=[closed])
    assert r.tools[0].strict is True
    with pytest.raises(openai.BadRequestError, match="break its strict schema"):
        client(ScriptedModel([call("get_order_status", order_id="1001")])).responses.create(
            model="gpt-5.5", input="Where is 1001?", tools=[closed])


def test_a_function_tool_without_parameters_is_still_refused():
    bare = [{"type": "function", "name": "get_order_status", "strict": False}]
    with pytest.raises(openai.BadRequestError) as e:
        client(ScriptedModel(["x"])).responses.create(model="gpt-5.5", input="hi", tools=bare)
    assert e.value.param == "tools[0].parameters"


def test_a_named_function_tool_choice_is_enforced():
    forced = {"type": "function", "name": "find_orders"}
    with pytest.raises(openai.BadRequestError, match="forces 'find_orders'"):
        client(ScriptedModel([call("get_order_status", order_id="A1001")])).responses.create(
            model="gpt-5.5", input="hi", tools=TOOLS, tool_choice=forced)


def test_every_response_matches_the_published_schema():
    model = ScriptedModel(order_status)
    c = client(model)
    r = c.responses.create(model="gpt-5.5", input="Where is A1001 and A1002?", tools=TOOLS)
    assert len(r.output) == 2
    assert all(e["endpoint"] == "responses" and not schema.problems("responses", "answer", e["answer"])
               for e in model.exchanges)
    assert not schema.problems("responses", "request", model.requests[0])


def test_stream_true_sends_the_responses_events_in_order_and_the_helper_rebuilds_the_call():
    events = list(client(ScriptedModel(["Hello there, it shipped."])).responses.create(
        model="gpt-5.5", input="hi", stream=True))
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "Hello there, it shipped."
    assert [e.sequence_number for e in events] == list(range(len(events)))
    with ScriptedModel(order_status).client(max_retries=0).responses.stream(
            model="gpt-5.5", input="Where is A1001?", tools=TOOLS) as stream:
        deltas = [e.delta for e in stream if e.type == "response.function_call_arguments.delta"]
        final = stream.get_final_response()
    assert len(deltas) > 1 and json.loads("".join(deltas)) == json.loads(final.output[0].arguments)


def test_every_streamed_event_is_checked_against_the_schema():
    model = ScriptedModel(["Hi"])
    list(client(model).responses.create(model="gpt-5.5", input="hi", stream=True))
    assert all(not schema.problems("responses", "chunk", e) for e in model.exchanges[-1]["answer"])
    assert schema.problems("responses", "chunk", {**model.exchanges[-1]["answer"][0], "sequence_number": "1"})
