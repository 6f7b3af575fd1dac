"""The scripted model answers like the real API, through the real openai SDK."""

import openai
import pytest

from course.orders import shop_toolbox
from course.scripted import Fail, ScriptedModel, ScriptExhausted, Timeout, call, raw_call

TOOLS = shop_toolbox().definitions()
USER = [{"role": "user", "content": "Where is A1001?"}]


def ask(model, messages=USER, **kw):
    client = model.client(_strict_response_validation=True, max_retries=kw.pop("max_retries", 2))
    return client.chat.completions.create(model="gpt-5.5", messages=messages, tools=TOOLS, **kw)


def test_text_answer_passes_the_sdks_strict_validation():
    r = ask(ScriptedModel(["Hello"]))
    assert r.choices[0].message.content == "Hello" and r.choices[0].finish_reason == "stop"


def test_parallel_tool_calls_have_deterministic_ids():
    r = ask(ScriptedModel([[call("get_order_status", order_id="A1001"), call("find_orders", email="a@b.co")]]))
    calls = r.choices[0].message.tool_calls
    assert [c.id for c in calls] == ["call_1_0", "call_1_1"]
    assert calls[1].function.arguments == '{"email": "a@b.co"}'
    assert r.choices[0].finish_reason == "tool_calls" and r.choices[0].message.content is None


def test_usage_is_four_characters_per_token():
    model = ScriptedModel(["12345678"])
    r = ask(model)
    assert r.usage.completion_tokens == 2
    assert r.usage.total_tokens == r.usage.prompt_tokens + 2 and r.usage.prompt_tokens > 0


def test_requests_are_recorded_as_sent():
    model = ScriptedModel(["a"])
    ask(model, temperature=1, seed=7)
    assert model.requests[0]["messages"] == USER and model.requests[0]["seed"] == 7


def test_a_rule_reads_the_conversation():
    model = ScriptedModel(lambda body: f"you said {body['messages'][-1]['content']}")
    assert ask(model).choices[0].message.content == "you said Where is A1001?"


def test_rate_limit_is_retried_by_the_sdk_honouring_retry_after():
    model = ScriptedModel([Fail(429, retry_after=0.001), "ok"])
    assert ask(model).choices[0].message.content == "ok" and len(model.requests) == 2


def test_rate_limit_without_retries_raises_the_sdks_error():
    with pytest.raises(openai.RateLimitError) as e:
        ask(ScriptedModel([Fail(429)]), max_retries=0)
    assert e.value.status_code == 429 and e.value.response.headers["retry-after-ms"] == "10"


def test_server_error_and_timeout_map_to_sdk_errors():
    with pytest.raises(openai.InternalServerError):
        ask(ScriptedModel([Fail(500)]), max_retries=0)
    with pytest.raises(openai.APITimeoutError):
        ask(ScriptedModel([Timeout()]), max_retries=0)


def test_an_exhausted_script_fails_loudly():
    model = ScriptedModel(["one"])
    ask(model)
    with pytest.raises(ScriptExhausted, match="no turns left"):
        ask(model)


@pytest.mark.parametrize("messages, fragment", [
    (USER + [{"role": "assistant", "content": None,
              "tool_calls": [{"id": "c1", "type": "function",
                              "function": {"name": "get_order_status", "arguments": "{}"}}]}],
     "must be followed by tool messages"),
    (USER + [{"role": "tool", "tool_call_id": "c9", "content": "x"}], "must be a response to a preceeding"),
    ([{"role": "robot", "content": "x"}], "Invalid value: 'robot'"),
])
def test_wrongly_shaped_conversations_get_the_real_apis_400(messages, fragment):
    with pytest.raises(openai.BadRequestError) as e:
        ask(ScriptedModel(["never"]), messages)
    assert fragment in e.value.body["message"] and e.value.status_code == 400


def test_flat_responses_style_tool_definition_is_rejected():
    client = ScriptedModel(["x"]).client()
    with pytest.raises(openai.BadRequestError, match="tools\\[0\\].function"):
        client.chat.completions.create(model="gpt-5.5", messages=USER,
                                       tools=[{"type": "function", "name": "f", "parameters": {}}])


def test_a_scripted_call_under_tool_choice_none_is_rejected():
    with pytest.raises(openai.BadRequestError, match="tool_choice='none'"):
        ask(ScriptedModel([call("get_order_status", order_id="A1001")]), tool_choice="none")


def test_a_call_to_a_tool_not_offered_is_rejected_unless_marked_hallucinated():
    with pytest.raises(openai.BadRequestError, match="offered only"):
        ask(ScriptedModel([call("get_weather")]))
    r = ask(ScriptedModel([raw_call("get_weather", "{}", hallucinated=True)]))
    assert r.choices[0].message.tool_calls[0].function.name == "get_weather"


def test_async_client_works_the_same():
    import asyncio

    async def main():
        client = ScriptedModel(["async hello"]).async_client()
        async with client:
            r = await client.chat.completions.create(model="gpt-5.5", messages=USER)
        return r.choices[0].message.content

    assert asyncio.run(main()) == "async hello"


def test_served_over_http_an_unmodified_client_reaches_it():
    model = ScriptedModel([call("get_order_status", order_id="A1001"), Fail(400, "bad")])
    with model.serve() as url:
        client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
        r = client.chat.completions.create(model="gpt-5.5", messages=USER, tools=TOOLS)
        assert r.choices[0].message.tool_calls[0].function.name == "get_order_status"
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="gpt-5.5", messages=USER)


def test_served_timeout_stalls_until_the_client_gives_up():
    model = ScriptedModel([Timeout(seconds=0.5)])
    with model.serve() as url:
        client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0, timeout=0.1)
        with pytest.raises(openai.APITimeoutError):
            client.chat.completions.create(model="gpt-5.5", messages=USER)


def test_an_empty_tools_array_and_tool_choice_without_tools_are_rejected():
    client = ScriptedModel(["x", "y"]).client()
    with pytest.raises(openai.BadRequestError, match="empty array"):
        client.chat.completions.create(model="gpt-5.5", messages=USER, tools=[])
    with pytest.raises(openai.BadRequestError, match="only allowed when 'tools'"):
        client.chat.completions.create(model="gpt-5.5", messages=USER, tool_choice="none")
