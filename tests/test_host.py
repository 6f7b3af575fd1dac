"""The MCP host, in memory: allowlists, approval, client-side answers, timeouts, pagination, several servers."""

import asyncio
import time

import mcp.types as types
import pytest
from mcp import Client

from course.agent import Limits, arun_agent
from course.approval import ScriptedApprover
from course.host import Http, McpHost, ServerError, http, in_memory, result_text, to_openai_tool
from course.scripted import ScriptedModel, call, raw_call
from servers import paginated, shopfront

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


async def test_arguments_that_break_the_input_schema_are_answered_by_the_host_with_what_to_fix():
    calls = []
    host = await shop_host(calls)
    try:
        reply = await host.execute("lookup", '{"order_id": "1001"}')  # breaks the pattern ^A\d{4}$
    finally:
        await host.close()
    assert reply.startswith("Error:") and "nothing was run" in reply and "call lookup again" in reply
    assert "- order_id: '1001' does not match" in reply
    assert calls == [] and host.outcomes == []
    assert [(e.decision, e.decided_by) for e in host.log] == [("denied", "invalid arguments")]


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


async def test_the_hosts_timeout_holds_for_every_server_of_the_session_and_too_low_it_fails_a_cold_first_call():
    # Issue 24 point 11: McpHost(timeout=) is session-wide, under it the SDK's Client would wait forever.
    from mcp.server.mcpserver import MCPServer

    cold = MCPServer("cold", log_level="WARNING")
    loaded = []

    @cold.tool(annotations=types.ToolAnnotations(read_only_hint=True))
    async def report() -> str:
        if not loaded:
            loaded.append(True)
            await asyncio.sleep(1.0)  # the first call loads its data
        return "ready"

    async with McpHost(timeout=0.3, quiet=True) as host:
        await host.connect("shop", in_memory(shopfront.build()), allow={"slow"})
        await host.connect("cold", in_memory(cold), allow={"report"})
        slow = await host.execute("slow", '{"seconds": 5}')
        first, second = await host.execute("report", "{}"), await host.execute("report", "{}")
    assert "did not answer within 0.3 s" in slow and "did not answer within 0.3 s" in first
    assert second == "ready"


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
    await host.connect("a", in_memory(shopfront.build()), allow={"lookup"})
    await host.connect("b", in_memory(paginated.build()), allow=set())
    a, b = host.connections["a"], host.connections["b"]
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
        result = await arun_agent(model.async_client(max_retries=0), "gpt-4.1-mini", "Where is A1001? Refund 5.",
                                  tools=host.tools(), execute=host.execute, limits=Limits(max_steps=5))
    finally:
        await host.close()
    assert result.stop_reason == "done" and "refunded" in result.answer
    assert calls == [("lookup", "A1001"), ("refund", "A1001", 5.0)]
    tool_texts = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert tool_texts[0] == "Order A1001 has shipped." and "JSON object" in tool_texts[1]
    assert "not available" in tool_texts[3]
    assert {t["function"]["name"] for t in model.requests[0]["tools"]} == SHOP_TOOLS


# -- found in review --------------------------------------------------------------------------------
def refund_server(name: str, calls: list, *, claims_read_only: bool = False):
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer(name, log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(read_only_hint=claims_read_only))
    def issue_refund(order_id: str, amount: float) -> str:
        """Refund an order."""
        calls.append((name, order_id, amount))
        return f"{name} refunded {amount:.2f}"

    return server


def no_big_refunds(name, arguments):
    if name == "issue_refund" and arguments.get("amount", 0) > 100:
        return "deny"
    return None


async def test_a_rule_still_matches_a_tool_that_a_name_clash_renamed():
    calls = []
    async with McpHost(approver=ScriptedApprover([]), rules=[no_big_refunds], quiet=True) as host:
        await host.connect("a", in_memory(refund_server("a", calls)), allow={"issue_refund"})
        await host.connect("b", in_memory(refund_server("b", calls, claims_read_only=True)), allow={"issue_refund"})
        assert sorted(host.offered) == ["a__issue_refund", "b__issue_refund"]
        replies = [await host.execute(name, '{"order_id": "A1001", "amount": 500}')
                   for name in ("a__issue_refund", "b__issue_refund")]
    assert all("not permitted" in reply for reply in replies) and calls == []
    assert [(e.tool, e.decision, e.decided_by) for e in host.log] == [
        ("a__issue_refund", "denied", "rule no_big_refunds"), ("b__issue_refund", "denied", "rule no_big_refunds")]


async def test_a_rule_that_takes_a_server_parameter_is_told_which_server_the_tool_is_on():
    seen, calls = [], []

    def only_refunds_on_a(name, arguments, server):
        seen.append((name, server))
        return "deny" if server != "a" else None

    async with McpHost(approver=ScriptedApprover([True]), rules=[only_refunds_on_a], quiet=True) as host:
        await host.connect("a", in_memory(refund_server("a", calls)), allow={"issue_refund"})
        await host.connect("b", in_memory(refund_server("b", calls)), allow={"issue_refund"})
        denied = await host.execute("b__issue_refund", '{"order_id": "A1001", "amount": 5}')
        paid = await host.execute("a__issue_refund", '{"order_id": "A1001", "amount": 5}')
    assert seen == [("issue_refund", "b"), ("issue_refund", "a")]
    assert "not permitted" in denied and paid == "a refunded 5.00" and calls == [("a", "A1001", 5.0)]


async def test_connecting_a_server_that_renames_a_known_tool_says_so(capsys):
    async with McpHost() as host:
        await host.connect("a", in_memory(refund_server("a", [])), allow={"issue_refund"})
        await host.connect("b", in_memory(refund_server("b", [])), allow={"issue_refund"})
    out = capsys.readouterr().out
    assert "the model now sees a__issue_refund and b__issue_refund" in out
    assert "connect every server before the conversation starts" in out


async def test_after_close_the_host_offers_nothing_and_answers_calls_itself():
    calls = []
    host = await shop_host(calls)
    await host.close()
    reply = await host.execute("lookup", '{"order_id": "A1001"}')
    assert host.tools() == [] and host.offered == {} and host.hidden == {}
    assert reply.startswith("Error:") and "no MCP server is connected" in reply and calls == []
    await host.connect("shop", in_memory(shopfront.build(calls)), allow={"lookup"})  # a closed host can connect again
    try:
        assert await host.execute("lookup", '{"order_id": "A1001"}') == "Order A1001 has shipped."
    finally:
        await host.close()


@pytest.mark.timeout(5)  # it used to wait 10 s for a connection that could never start
@pytest.mark.parametrize("spec, hint", [(shopfront.build(), "e.g. in_memory(server)"),
                                        ("http://127.0.0.1:8000/mcp", "e.g. http('http://127.0.0.1:8000/mcp')"),
                                        ("course.servers.docs", 'e.g. stdio("course.servers.docs")')])
async def test_a_server_given_without_its_wrapper_is_refused_at_once_with_the_wrapper_to_use(spec, hint):
    host = McpHost(quiet=True)
    with pytest.raises(TypeError) as caught:
        await host.connect("x", spec, allow={"lookup"})
    assert "connect() takes stdio(...), http(url) or in_memory(server)" in str(caught.value)
    assert hint in str(caught.value) and host.connections == {}


@pytest.mark.timeout(5)
async def test_a_failure_while_explaining_a_failure_still_ends_connecting_at_once(monkeypatch):
    import course.host.connection as connection

    def broken(*args, **kwargs):
        raise RuntimeError("the diagnosis broke")

    monkeypatch.setattr(connection, "explain", broken)
    monkeypatch.setattr(connection.Connection, "_client", lambda self: broken())
    with pytest.raises(ServerError) as caught:
        await McpHost(quiet=True).connect("x", in_memory(shopfront.build()), allow=set())
    assert "connecting failed: RuntimeError" in str(caught.value)


async def test_unreadable_arguments_get_an_example_made_from_the_tools_own_parameters():
    host = await shop_host([])
    try:
        refund = await host.execute("refund", "order A1001, 10 EUR")
        lookup = await host.execute("lookup", "[]")
    finally:
        await host.close()
    assert "(order_id, amount)" in refund and "(order_id)" in lookup
    assert [e.decided_by for e in host.log] == ["unreadable arguments", "unreadable arguments"]


async def test_a_timed_out_write_tells_the_model_it_may_have_run_and_to_check_first():
    from mcp.server.mcpserver import MCPServer

    slow = MCPServer("slow", log_level="WARNING")

    @slow.tool()
    async def issue_refund(amount: float) -> str:
        """A refund whose payment provider hangs."""
        await asyncio.sleep(5)
        return "refunded"

    async with McpHost(approver=ScriptedApprover([True]), timeout=0.2, quiet=True) as host:
        await host.connect("slow", in_memory(slow), allow={"issue_refund"})
        reply = await host.execute("issue_refund", '{"amount": 5}')
    assert reply.startswith("Error:") and "did not answer within 0.2 s" in reply
    assert "may or may not have run: check before retrying" in reply and "Do not retry" not in reply


def test_a_url_without_a_scheme_is_refused_with_the_form_it_needs():
    with pytest.raises(ValueError, match="the URL must start with http://"):
        http("127.0.0.1:8000/mcp")


@pytest.mark.timeout(10)
async def test_a_url_the_client_cannot_use_says_it_must_start_with_http():
    with pytest.raises(ServerError) as caught:
        await McpHost(quiet=True).connect("x", Http("127.0.0.1:8000/mcp"), allow=set())  # bypassing http()
    text = str(caught.value)
    assert "the URL must start with http://" in text and ".." not in text


async def test_disconnecting_one_server_withdraws_only_its_tools():
    async with McpHost(quiet=True) as host:
        await host.connect("a", in_memory(refund_server("a", [])), allow={"issue_refund"})
        await host.connect("b", in_memory(refund_server("b", [], claims_read_only=True)), allow={"issue_refund"})
        await host.disconnect("a")
        names = [t["function"]["name"] for t in host.tools()]
        reply = await host.execute("issue_refund", '{"order_id": "A1001", "amount": 5}')
        with pytest.raises(KeyError, match="no server named 'a'"):
            await host.disconnect("a")
    assert names == ["issue_refund"] and reply == "b refunded 5.00"  # the clash is gone, so is the prefix


@pytest.mark.parametrize("returns", ["", "   \n", None, []], ids=["empty", "blank", "none", "empty-list"])
async def test_an_empty_tool_result_reaches_the_model_as_a_placeholder_it_can_read(returns):
    from mcp.server.mcpserver import MCPServer

    from course.host.convert import EMPTY_RESULT

    quiet = MCPServer("quiet", log_level="WARNING")
    quiet.tool(name="find", annotations=types.ToolAnnotations(read_only_hint=True))(lambda: returns)
    async with McpHost(quiet=True) as host:
        await host.connect("quiet", in_memory(quiet), allow={"find"})
        reply = await host.execute("find", "{}")
    assert reply == EMPTY_RESULT and "not an error" in reply
    assert result_text(types.CallToolResult(content=[], structured_content={"result": 0})) == '{"result": 0}'
