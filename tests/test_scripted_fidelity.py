"""The scripted model follows the Chat Completions API's documented behaviour, through the real SDK."""

import json

import openai
import pytest

from course.orders import shop_toolbox
from course.scripted import Fail, OffSpecAnswer, ScriptedModel, call, raw_call, schema
from course.scripted.chat_answers import Answer, completion
from course.stories.lesson1 import order_status

TOOLS = shop_toolbox().definitions()
USER = [{"role": "user", "content": "Where is A1001?"}]
STRICT = [{"type": "function", "function": {
    "name": "get_order_status", "strict": True,
    "parameters": {"type": "object", "additionalProperties": False, "required": ["order_id"],
                   "properties": {"order_id": {"type": "string", "pattern": "^A\\d{4}$"}}}}}]


def ask(model, messages=USER, model_id="gpt-5.5", **kw):
    client = model.client(_strict_response_validation=True, max_retries=0)
    kw.setdefault("tools", TOOLS)
    return client.chat.completions.create(model=model_id, messages=messages, **kw)


def raw(model, **body):
    """The raw HTTP answer, to see the wire format the SDK would parse."""
    client = model.client(max_retries=0)
    return client.chat.completions.with_raw_response.create(model="gpt-5.5", messages=USER, **body).http_response


# -- tool_choice ------------------------------------------------------------------------------
def test_tool_choice_required_refuses_a_script_that_answers_in_text():
    with pytest.raises(openai.BadRequestError, match="tool_choice='required'"):
        ask(ScriptedModel(["I think it shipped."]), tool_choice="required")
    r = ask(ScriptedModel([call("get_order_status", order_id="A1001")]), tool_choice="required")
    assert r.choices[0].message.tool_calls[0].function.name == "get_order_status"


def test_a_named_tool_choice_forces_that_tool_and_ends_with_stop():
    forced = {"type": "function", "function": {"name": "get_order_status"}}
    r = ask(ScriptedModel([call("get_order_status", order_id="A1001")]), tool_choice=forced)
    assert r.choices[0].finish_reason == "stop" and r.choices[0].message.tool_calls[0].id == "call_1_0"
    with pytest.raises(openai.BadRequestError, match="forces 'get_order_status'"):
        ask(ScriptedModel([call("find_orders", email="a@b.co")]), tool_choice=forced)


def test_a_named_tool_choice_for_a_tool_not_offered_is_a_400_invalid_value():
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["x"]), tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert e.value.code == "invalid_value" and e.value.param == "tool_choice" and "get_weather" in e.value.message


def test_tool_choice_none_and_auto_leave_the_choice_to_the_story():
    assert ask(ScriptedModel(order_status), tool_choice="none").choices[0].message.tool_calls is None
    assert ask(ScriptedModel(order_status), tool_choice="auto").choices[0].finish_reason == "tool_calls"


# -- parallel_tool_calls=false ------------------------------------------------------------------
def test_without_parallel_tool_calls_a_scripts_parallel_calls_come_one_per_turn():
    model = ScriptedModel(order_status)
    messages = [{"role": "user", "content": "Where are A1001 and A1002?"}]
    served = []
    for _ in range(3):
        m = ask(model, messages, parallel_tool_calls=False).choices[0].message
        messages.append(m.model_dump(exclude_none=True))
        if not m.tool_calls:
            break
        assert len(m.tool_calls) == 1
        served.append(json.loads(m.tool_calls[0].function.arguments)["order_id"])
        messages.append({"role": "tool", "tool_call_id": m.tool_calls[0].id,
                         "content": shop_toolbox().execute("get_order_status", m.tool_calls[0].function.arguments)})
    assert served == ["A1001", "A1002"]
    assert "A1001" in messages[-1]["content"] and "A1002" in messages[-1]["content"]


# -- max tokens ------------------------------------------------------------------------------
@pytest.mark.parametrize("limit", ["max_completion_tokens", "max_tokens"])
def test_a_token_limit_cuts_the_answer_with_finish_reason_length(limit):
    model_id = "gpt-4.1" if limit == "max_tokens" else "gpt-5.5"  # a reasoning model refuses max_tokens (below)
    r = ask(ScriptedModel(["one two three four five six seven eight"]), model_id=model_id, **{limit: 3})
    assert r.choices[0].finish_reason == "length" and r.usage.completion_tokens == 3
    assert r.choices[0].message.content == "one two three"[:12]


def test_a_cut_tool_call_leaves_arguments_that_are_not_json():
    r = ask(ScriptedModel([call("get_order_status", order_id="A1001")]), max_completion_tokens=5)
    args = r.choices[0].message.tool_calls[0].function.arguments
    assert r.choices[0].finish_reason == "length"
    with pytest.raises(json.JSONDecodeError):
        json.loads(args)


# -- strict schemas ----------------------------------------------------------------------------
def test_strict_tools_only_get_arguments_that_match_their_schema():
    assert ask(ScriptedModel([call("get_order_status", order_id="A1001")]), tools=STRICT).choices[0].message.tool_calls
    with pytest.raises(openai.BadRequestError, match="break its strict schema"):
        ask(ScriptedModel([call("get_order_status", order_id="1001")]), tools=STRICT)
    with pytest.raises(openai.BadRequestError, match="not JSON"):
        ask(ScriptedModel([raw_call("get_order_status", '{"order_id": ')]), tools=STRICT)


def test_a_strict_schema_that_is_not_closed_is_refused_like_structured_outputs():
    loose = json.loads(json.dumps(STRICT))
    del loose[0]["function"]["parameters"]["additionalProperties"]
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["x"]), tools=loose)
    assert e.value.code == "invalid_function_parameters" and "'additionalProperties' is required" in e.value.message


# -- the wire format --------------------------------------------------------------------------
def test_a_text_answer_has_no_tool_calls_key_on_the_wire():
    message = raw(ScriptedModel(["Hello"]), tools=TOOLS).json()["choices"][0]["message"]
    assert message["content"] == "Hello" and "tool_calls" not in message


def test_the_schema_check_refuses_a_text_answer_with_tool_calls_null():
    a = Answer("Hello", [], "stop", 1, 1)
    body = completion({}, a, 1, "gpt-5.5")
    body["choices"][0]["message"]["tool_calls"] = None
    assert schema.problems("chat", "answer", body) and not schema.problems("chat", "answer", completion({}, a, 1, "m"))


def test_an_off_spec_answer_raises_instead_of_reaching_the_sdk(monkeypatch):
    monkeypatch.setattr("course.scripted.chat_answers.usage", lambda a: {"prompt_tokens": "many"})
    with pytest.raises(OffSpecAnswer, match="schema forbids"):
        ask(ScriptedModel(["Hello"]))


def test_n_asks_for_that_many_choices():
    r = ask(ScriptedModel(["same"]), n=2)
    assert [c.message.content for c in r.choices] == ["same", "same"] and [c.index for c in r.choices] == [0, 1]


# -- errors with the real types and codes --------------------------------------------------------
@pytest.mark.parametrize("kwargs, code", [
    ({"tools": []}, "empty_array"),
    ({"tools": [{"type": "function", "function": {"name": "get order", "parameters": {}}}]}, "invalid_value"),
    ({"messages": [{"role": "robot", "content": "x"}]}, "invalid_value"),
    ({"messages": USER + [{"role": "assistant", "content": "", "tool_calls": []}]}, "empty_array"),
])
def test_bad_requests_are_invalid_request_errors_with_the_apis_codes(kwargs, code):
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["x"]), **kwargs)
    assert (e.value.type, e.value.code) == ("invalid_request_error", code)


@pytest.mark.parametrize("status, error, kind, code", [
    (429, openai.RateLimitError, "requests", "rate_limit_exceeded"),
    (401, openai.AuthenticationError, "invalid_request_error", "invalid_api_key"),
    (500, openai.InternalServerError, "server_error", None),
])
def test_scripted_failures_carry_the_apis_types_and_codes(status, error, kind, code):
    with pytest.raises(error) as e:
        ask(ScriptedModel([Fail(status)]))
    assert (e.value.status_code, e.value.type, e.value.code) == (status, kind, code)


def test_an_unknown_model_is_a_404_model_not_found():
    client = ScriptedModel(["x"]).client(max_retries=0)
    with pytest.raises(openai.NotFoundError) as e:
        client.chat.completions.create(model="gpt-imaginary", messages=USER)
    assert e.value.code == "model_not_found" and "`gpt-imaginary` does not exist" in e.value.body["message"]


def test_an_unknown_request_parameter_is_refused_as_the_api_does():
    client = ScriptedModel(["x"]).client(max_retries=0)
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="gpt-5.5", messages=USER, extra_body={"temprature": 0})
    assert e.value.body["message"] == "Unrecognized request argument supplied: temprature"
    assert e.value.type == "invalid_request_error"


# -- streaming ------------------------------------------------------------------------------
def test_stream_true_delivers_the_answer_in_chunks_with_usage_last():
    client = ScriptedModel(["It has shipped and arrives Friday."]).client(max_retries=0)
    chunks = list(client.chat.completions.create(model="gpt-5.5", messages=USER, stream=True,
                                                 stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "It has shipped and arrives Friday." and len(chunks) > 4
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"


def test_streamed_tool_call_arguments_arrive_in_fragments_that_add_up():
    client = ScriptedModel([call("get_order_status", order_id="A1001")]).client(max_retries=0)
    chunks = list(client.chat.completions.create(model="gpt-5.5", messages=USER, tools=TOOLS, stream=True))
    fragments = [tc.function.arguments for c in chunks for tc in c.choices[0].delta.tool_calls or []]
    assert len(fragments) > 2 and json.loads("".join(fragments)) == {"order_id": "A1001"}


def test_the_sdks_stream_helper_accumulates_the_final_message():
    client = ScriptedModel(order_status).client(max_retries=0)
    with client.chat.completions.stream(model="gpt-5.5", messages=USER, tools=TOOLS) as stream:
        kinds = {type(e).__name__ for e in stream}
        final = stream.get_final_completion()
    assert final.choices[0].message.tool_calls[0].function.name == "get_order_status"
    assert "FunctionToolCallArgumentsDeltaEvent" in kinds


def test_every_streamed_chunk_is_checked_against_the_schema():
    model = ScriptedModel(["Hello there"])
    list(model.client().chat.completions.create(model="gpt-5.5", messages=USER, stream=True))
    chunks = model.exchanges[-1]["answer"]
    assert len(chunks) >= 3 and all(not schema.problems("chat", "chunk", c) for c in chunks)


def test_a_request_the_published_schema_forbids_gets_a_400_naming_the_field():
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["never"]), [{"role": "user", "content": 42}])
    assert "messages[0]" in e.value.body["message"] and "published schema" in e.value.body["message"]


def test_every_exchange_is_recorded_with_its_endpoint_and_status():
    model = ScriptedModel(["a", Fail(429)])
    ask(model)
    with pytest.raises(openai.RateLimitError):
        ask(model)
    assert [(e["endpoint"], e["status"]) for e in model.exchanges] == [("chat", 200), ("chat", 429)]
    assert not schema.problems("chat", "error", model.exchanges[1]["answer"])


# -- the four differences the issue-24 audit found (each with where the real API says it) --------
def test_parallel_tool_calls_without_tools_is_a_400_as_the_api_answers():
    # Source: the API's 400 "'parallel_tool_calls' is only allowed when 'tools' are specified", the
    # sibling of tool_choice's rule (spec: CreateChatCompletionRequest.parallel_tool_calls).
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["x"]), tools=openai.omit, parallel_tool_calls=False)
    assert e.value.param == "parallel_tool_calls" and "only allowed when 'tools'" in e.value.message
    assert ask(ScriptedModel(["x"]), parallel_tool_calls=True).choices[0].message.content == "x"


@pytest.mark.parametrize("model_id", ["gpt-5.5", "gpt-5-mini", "o4-mini"])
def test_max_tokens_with_a_reasoning_model_is_a_400_unsupported_parameter(model_id):
    # Source: spec CreateChatCompletionRequest.max_tokens ("deprecated in favor of max_completion_tokens,
    # and is not compatible with o-series models"); the API answers code unsupported_parameter.
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["x"]), model_id=model_id, max_tokens=50)
    assert e.value.code == "unsupported_parameter" and e.value.param == "max_tokens"
    assert "max_completion_tokens" in e.value.message
    assert ask(ScriptedModel(["x"]), model_id=model_id, max_completion_tokens=50).choices[0].message.content == "x"
    assert ask(ScriptedModel(["x"]), model_id="gpt-4.1", max_tokens=50).choices[0].message.content == "x"


@pytest.mark.parametrize("value", [0, 0.2, 1.5])
def test_a_temperature_other_than_1_with_gpt_5_is_a_400_unsupported_value(value):
    # Source: OpenAI's reasoning-models guide (GPT-5 takes only the default temperature 1); the API
    # answers "Unsupported value: 'temperature' does not support 0 with this model", unsupported_value.
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["x"]), temperature=value)
    assert e.value.code == "unsupported_value" and e.value.param == "temperature"
    for fine in ({"temperature": 1}, {"model_id": "gpt-4.1", "temperature": value}, {"model_id": "gpt-5-chat-latest",
                                                                                  "temperature": value}):
        assert ask(ScriptedModel(["x"]), **fine).choices[0].message.content == "x"
