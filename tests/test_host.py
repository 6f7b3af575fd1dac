"""The MCP host, in memory: allowlists, approval, client-side answers, timeouts, pagination, several servers."""

import time

import pytest
from servers import paginated, shopfront

from course.agent import Limits, arun_agent
from course.approval import ScriptedApprover
from course.host import McpHost, in_memory, result_text, to_openai_tool
from course.scripted import ScriptedModel, call, raw_call
from mcp import Client
import mcp.types as types

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]
SHOP_TOOLS = {"lookup", "refund", "fail", "slow"}


async def shop_host(calls, answers=(), **options):
    host = McpHost(approver=ScriptedApprover(list(answers)), quiet=True, **options)
    await host.connect("shop", in_memory(shopfront.build(calls)), allow=SHOP_TOOLS)
    return host


async def test_only_allowlisted_tools_reach_the_model_and_the_rest_are_named():
    async with McpHost(quiet=True) as host:
        await host.connect("shop", in_memory(shopfront.build(extra_tool=True)), allow={"lookup", "refund"})
        assert [t["function"]["name"] for t in host.tools()] == ["lookup", "refund"]
        assert host.hidden == {"shop": ["peek", "fail", "slow", "delete_everything"]}
        assert "hidden (not on your allowlist): peek, fail, slow, delete_everything" in host.describe("shop")


async def test_a_tool_added_by_a_server_update_stays_hidden_and_cannot_be_called():
    calls = []
    async with McpHost(approver=ScriptedApprover([True]), quiet=True) as host:
        await host.connect("shop", in_memory(shopfront.build(calls, extra_tool=True)), allow=SHOP_TOOLS)
        reply = await host.execute("delete_everything", "{}")
    assert "not available" in reply and calls == []


async def test_conversion_passes_the_input_schema_through_untouched():
    server = shopfront.build()
    async with Client(server) as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "refund")
    definition = to_openai_tool(tool)
    assert definition["type"] == "function"
    assert definition["function"]["name"] == "refund"
    assert definition["function"]["parameters"] is tool.input_schema
    assert definition["function"]["description"].startswith("Refund part of an order")


async def test_a_read_only_allowlisted_tool_runs_without_asking():
    calls = []
    host = await shop_host(calls, answers=[])  # an empty script raises if anyone is asked
    try:
        reply = await host.execute("lookup", '{"order_id": "A1001"}')
    finally:
        await host.close()
    assert reply == "Order A1001 has shipped." and calls == [("lookup", "A1001")]
    assert host.approver.asked == []


async def test_a_read_only_tool_that_is_not_allowlisted_is_refused_on_the_client():
    calls = []
    host = await shop_host(calls)
    try:
        reply = await host.execute("peek", '{"topic": "orders"}')  # annotated read-only, not allowlisted
    finally:
        await host.close()
    assert reply.startswith("Error:") and "not available" in reply and calls == []


async def test_an_approved_write_runs_and_the_approver_saw_its_arguments():
    calls = []
    host = await shop_host(calls, answers=[True])
    try:
        reply = await host.execute("refund", '{"order_id": "A1001", "amount": 10}')
    finally:
        await host.close()
    assert reply == "Refunded 10.00 on A1001." and calls == [("refund", "A1001", 10.0)]
    request, answer = host.approver.asked[0]
    assert answer and request.tool == "refund" and request.arguments == {"order_id": "A1001", "amount": 10}
    assert request.risk == "write"


async def test_a_rejected_write_never_reaches_the_server():
    calls = []
    host = await shop_host(calls, answers=[False])
    try:
        reply = await host.execute("refund", '{"order_id": "A1001", "amount": 10}')
    finally:
        await host.close()
    assert "not run" in reply and "rejected" in reply
    assert calls == [] and host.outcomes == []
    assert [e.decision for e in host.log] == ["rejected"]


async def test_without_an_approver_a_write_is_refused():
    calls = []
    async with McpHost(quiet=True) as host:
        await host.connect("shop", in_memory(shopfront.build(calls)), allow=SHOP_TOOLS)
        reply = await host.execute("refund", '{"order_id": "A1001", "amount": 10}')
    assert "not run" in reply and calls == []


@pytest.mark.parametrize("arguments", ["{order_id: A1001}", "[1, 2]", '"A1001"'])
async def test_unreadable_arguments_are_answered_without_the_server(arguments):
    calls = []
    host = await shop_host(calls)
    try:
        reply = await host.execute("lookup", arguments)
    finally:
        await host.close()
    assert reply.startswith("Error:") and "JSON object" in reply and calls == []


async def test_an_unknown_tool_is_answered_without_the_server():
    calls = []
    host = await shop_host(calls)
    try:
        reply = await host.execute("get_weather", '{"city": "Oslo"}')
    finally:
        await host.close()
    assert reply.startswith("Error:") and "get_weather" in reply and calls == []


async def test_a_server_side_validation_error_comes_back_flagged_as_an_error():
    calls = []
    host = await shop_host(calls)
    try:
        reply = await host.execute("lookup", '{"order_id": "1001"}')  # breaks the pattern ^A\d{4}$
    finally:
        await host.close()
    assert reply.startswith("Error") and "validation error" in reply and "order_id" in reply
    assert host.outcomes[-1].is_error and host.outcomes[-1].by == "server"


async def test_a_tool_error_keeps_its_error_flag():
    host = await shop_host([])
    try:
        reply = await host.execute("fail", '{"reason": "no stock"}')
    finally:
        await host.close()
    assert reply.startswith("Error") and "cannot do that: no stock" in reply and host.outcomes[-1].is_error


def test_a_flagged_result_never_reads_as_a_success():
    flagged = types.CallToolResult(content=[types.TextContent(type="text", text="disk full")], is_error=True)
    empty = types.CallToolResult(content=[], is_error=True)
    data = types.CallToolResult(content=[], structured_content={"total": 49.0})
    assert result_text(flagged) == "Error: disk full"
    assert result_text(empty).startswith("Error:")
    assert result_text(data) == '{"total": 49.0}'


async def test_a_slow_tool_times_out_into_a_message_and_the_connection_stays_usable():
    calls = []
    host = await shop_host(calls, timeout=0.3)
    try:
        start = time.perf_counter()
        reply = await host.execute("slow", '{"seconds": 5}')
        elapsed = time.perf_counter() - start
        after = await host.execute("lookup", '{"order_id": "A1002"}')
    finally:
        await host.close()
    assert reply.startswith("Error:") and "did not answer within 0.3 s" in reply
    assert elapsed < 2 and host.outcomes[0].is_error and host.outcomes[0].by == "host"
    assert after == "Order A1002 has shipped."


async def test_a_per_server_timeout_wins_over_the_host_default():
    async with McpHost(timeout=30, quiet=True) as host:
        await host.connect("shop", in_memory(shopfront.build()), allow={"slow"}, timeout=0.2)
        reply = await host.execute("slow", '{"seconds": 5}')
    assert "did not answer within 0.2 s" in reply


async def test_tools_are_loaded_across_every_page():
    pages = []
    async with McpHost(quiet=True) as host:
        await host.connect("paged", in_memory(paginated.build(n_tools=7, page_size=3, list_calls=pages)),
                           allow={f"tool_{i}" for i in range(7)})
        reply = await host.execute("tool_6", '{"x": 2}')
        names = [t["function"]["name"] for t in host.tools()]
    assert pages == [None, "3", "6"]
    assert names == [f"tool_{i}" for i in range(7)] and reply == "tool_6(2)"


async def test_two_servers_at_once_with_a_name_clash_resolved_by_prefix():
    north, south = [], []
    async with McpHost(approver=ScriptedApprover([]), quiet=True) as host:
        await host.connect("north", in_memory(shopfront.build(north, name="north")), allow={"lookup", "fail"})
        await host.connect("south", in_memory(shopfront.build(south, name="south")), allow={"lookup"})
        await host.connect("paged", in_memory(paginated.build(n_tools=2)), allow={"tool_1"})
        names = sorted(t["function"]["name"] for t in host.tools())
        await host.execute("south__lookup", '{"order_id": "A1003"}')
        reply = await host.execute("tool_1", '{"x": 1}')
    assert names == ["fail", "north__lookup", "south__lookup", "tool_1"]
    assert north == [] and south == [("lookup", "A1003")] and reply == "tool_1(1)"


async def test_closing_the_host_closes_every_connection():
    host = McpHost(quiet=True)
    a = await host.connect("a", in_memory(shopfront.build()), allow={"lookup"})
    b = await host.connect("b", in_memory(paginated.build()), allow=set())
    await host.close()
    assert not a.alive and not b.alive and host.connections == {}


async def test_an_allowlist_given_as_one_string_is_refused_with_a_hint():
    async with McpHost(quiet=True) as host:
        with pytest.raises(TypeError, match="not a single string"):
            await host.connect("shop", in_memory(shopfront.build()), allow="lookup")


async def test_the_lesson_2_loop_runs_unchanged_with_the_hosts_tools():
    calls = []
    model = ScriptedModel([
        [call("lookup", order_id="A1001"), raw_call("lookup", "{oops")],
        call("refund", order_id="A1001", amount=5.0),
        raw_call("delete_everything", "{}", hallucinated=True),  # a tool the allowlist hid
        "Order A1001 has shipped; I refunded 5.00.",
    ])
    host = McpHost(approver=ScriptedApprover([True]), quiet=True)
    await host.connect("shop", in_memory(shopfront.build(calls, extra_tool=True)), allow=SHOP_TOOLS)
    try:
        result = await arun_agent(model.async_client(max_retries=0), "m", "Where is A1001? Refund 5.",
                                  tools=host.tools(), execute=host.execute, limits=Limits(max_steps=5))
    finally:
        await host.close()
    assert result.stop_reason == "done" and "refunded" in result.answer
    assert calls == [("lookup", "A1001"), ("refund", "A1001", 5.0)]
    tool_texts = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert tool_texts[0] == "Order A1001 has shipped." and "JSON object" in tool_texts[1]
    assert "not available" in tool_texts[3]
    assert {t["function"]["name"] for t in model.requests[0]["tools"]} == SHOP_TOOLS
