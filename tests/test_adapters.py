"""The model half behind an adapter: the same MCP half through Chat Completions and the Responses API."""

import asyncio

import openai
import pytest

from course.adapters import ChatCompletionsAdapter, ResponsesAdapter, ToolResult, flat_tool, host_execute, run
from course.host import McpHost, in_memory
from course.scripted import ScriptedModel, call
from course.servers.docs import build_server
from course.stories.lesson7 import policy_desk

QUESTION = "How long do refunds take?"
ADAPTERS = [ChatCompletionsAdapter, ResponsesAdapter]


def ask(adapter_cls, question=QUESTION, script=policy_desk, tmp_path=None, **kw):
    async def go():
        fake = ScriptedModel(script)
        async with McpHost(quiet=True) as host:
            server = build_server(embedder="lexical", store_path=tmp_path / "shop.json")
            await host.connect("docs", in_memory(server), allow={"search_docs", "read_section"})
            adapter = adapter_cls(fake.async_client(max_retries=0), "gpt-5.5")
            return await run(adapter, question, host.tools(), host_execute(host), **kw), fake
    return asyncio.run(go())


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_same_mcp_half_answers_through_either_api_citing_the_section(adapter, tmp_path):
    result, _ = ask(adapter, tmp_path=tmp_path)
    assert [c.name for c in result.calls] == ["search_docs", "read_section"]
    assert result.stop_reason == "done" and result.steps == 3 and "(Source: refunds ›" in result.answer
    assert result.tokens == sum(t.usage.total for t in result.turns) > 0


def test_both_apis_give_the_same_answer_in_their_own_wire_format(tmp_path):
    chat, chat_fake = ask(ChatCompletionsAdapter, tmp_path=tmp_path)
    resp, resp_fake = ask(ResponsesAdapter, tmp_path=tmp_path)
    assert chat.answer == resp.answer
    assert "messages" in chat_fake.requests[-1] and chat_fake.requests[-1]["messages"][-1]["role"] == "tool"
    last = resp_fake.requests[-1]
    assert "input" in last and last["input"][-1]["type"] == "function_call_output"
    assert all("function" not in t and t["name"] for t in last["tools"])


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_failed_mcp_call_keeps_its_error_flag_through_the_format(adapter, tmp_path):
    script = [call("read_section", document="refunds", section="No such section"), "ok"]
    result, fake = ask(adapter, script=script, tmp_path=tmp_path)
    assert result.results[0].is_error
    sent = fake.requests[-1]
    text = sent["messages"][-1]["content"] if "messages" in sent else sent["input"][-1]["output"]
    assert text.startswith("Error") and ToolResult.from_text("x", text).is_error


def test_a_result_flagged_as_an_error_says_so_in_the_text_even_without_the_prefix():
    assert ToolResult("c1", "section not found", True).for_model() == "Error: section not found"
    assert ToolResult("c1", "Error: gone", True).for_model() == "Error: gone"
    assert ToolResult("c1", "fine").for_model() == "fine"


def test_the_responses_tool_shape_is_flat_and_says_whether_it_is_strict():
    nested = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}
    assert flat_tool(nested) == {"type": "function", "name": "f", "description": "d",
                                 "parameters": {"type": "object"}, "strict": False}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_streamed_final_answer_arrives_in_pieces_that_make_the_answer(adapter, tmp_path):
    pieces = []
    result, fake = ask(adapter, tmp_path=tmp_path, on_text=pieces.append)
    assert all(r.get("stream") for r in fake.requests)
    assert len(pieces) > 5 and "".join(pieces) == result.answer
    assert [c.name for c in result.calls] == ["search_docs", "read_section"]  # calls rebuilt from fragments


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_answer_cut_at_the_token_limit_stops_with_length(adapter):
    async def go():
        fake = ScriptedModel(["word " * 50])
        a = adapter(fake.async_client(max_retries=0), "gpt-5.5", **(
            {"max_completion_tokens": 16} if adapter is ChatCompletionsAdapter else {"max_output_tokens": 16}))
        return await run(a, "hi", [], lambda n, a: "")
    assert asyncio.run(go()).stop_reason == "length"


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_any_openai_compatible_server_works_through_its_base_url(adapter, tmp_path):
    fake = ScriptedModel(["Hello from a server."])

    async def go(url):
        async with openai.AsyncOpenAI(base_url=url, api_key="sk-test", max_retries=0) as client:
            return await run(adapter(client, "gpt-5.5"), "hi", [], lambda n, a: "")
    with fake.serve() as url:
        assert asyncio.run(go(url)).answer == "Hello from a server."
