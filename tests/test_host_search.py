"""Tool search (deferred loading): the model first sees one `search_tools` tool; a search loads definitions."""

import json

import pytest

from course.agent import Limits, arun_agent
from course.approval import ScriptedApprover
from course.host import McpHost, in_memory
from course.host.tool_search import SEARCH_TOOLS, ToolSearch
from course.scripted import ScriptedModel, call
from servers import paginated

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]


async def big_host(n_tools=40):
    host = McpHost(approver=ScriptedApprover([]), quiet=True)
    await host.connect("paged", in_memory(paginated.build(n_tools=n_tools, page_size=10)),
                       allow={f"tool_{i}" for i in range(n_tools)})
    return host


async def test_only_search_tools_and_the_tools_named_always_are_sent_at_first_and_that_saves_most_tokens():
    async with await big_host() as host:
        search = ToolSearch(host, always={"tool_3", "not_offered"})
        assert [d["function"]["name"] for d in search.tools] == [SEARCH_TOOLS, "tool_3"]
        everything, now = search.saved()
        assert len(host.tools()) == 40 and now < everything / 5


async def test_a_search_loads_the_matching_definitions_into_the_same_list_and_then_they_can_be_called():
    async with await big_host() as host:
        search = ToolSearch(host)
        sent = search.tools  # the agent loop holds this list and sends it with each request
        assert (await search.execute("tool_7", '{"x": 1}')).startswith("Error: tool_7 is not loaded yet")
        reply = await search.execute(SEARCH_TOOLS, json.dumps({"query": "tool number 7"}))
        assert "tool_7: Tool number 7." in reply
        assert "tool_7" in [d["function"]["name"] for d in sent]
        assert await search.execute("tool_7", '{"x": 1}') == "tool_7(1)"


async def test_a_search_that_matches_nothing_says_so_and_unreadable_arguments_get_the_shape_to_use():
    async with await big_host(5) as host:
        search = ToolSearch(host)
        assert (await search.execute(SEARCH_TOOLS, '{"query": "kettle"}')).startswith("No tool matches 'kettle'")
        assert "takes {\"query\"" in await search.execute(SEARCH_TOOLS, "not json")
        assert len(search.tools) == 1


async def test_tool_search_finds_only_what_the_allowlist_offers_and_calls_still_pass_the_host():
    async with McpHost(approver=ScriptedApprover([]), quiet=True) as host:
        await host.connect("paged", in_memory(paginated.build(n_tools=6, page_size=2)), allow={"tool_1"})
        search = ToolSearch(host)
        assert search.search("tool number 4") == ["tool_1"]  # tool_4 is hidden: only "tool", "number" match tool_1
        assert "not available" in await search.execute("tool_4", '{"x": 1}')  # the host's allowlist answer


async def test_the_agent_loop_sends_the_loaded_definitions_from_the_step_after_the_search():
    model = ScriptedModel([call(SEARCH_TOOLS, query="tool number 7"), call("tool_7", x=2), "tool_7 says tool_7(2)."])
    async with await big_host() as host:
        search = ToolSearch(host)
        result = await arun_agent(model.async_client(max_retries=0), "gpt-4.1-mini", "Run tool 7 on 2.",
                                  tools=search.tools, execute=search.execute, limits=Limits(max_steps=4))
    sent = [[t["function"]["name"] for t in request["tools"]] for request in model.requests]
    assert sent[0] == [SEARCH_TOOLS] and "tool_7" in sent[1] and len(sent[1]) == 4
    assert result.stop_reason == "done" and [m["content"] for m in result.messages if m["role"] == "tool"][-1] == \
        "tool_7(2)"
