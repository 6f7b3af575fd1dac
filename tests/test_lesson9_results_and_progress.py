"""Lesson 9's structured output, progress and cancellation: a result is checked against its own outputSchema
(a server that breaks it is refused, naming the tool), progress reaches the display, and a call the human
cancels is cancelled on the server, with the host's log, the server's log and the model's reply agreeing."""

from __future__ import annotations

import io
import json

import anyio
import mcp.types as types
import pytest
from mcp.server import Server

from course.beyond import BrokenResult, Desk, ProgressLine, ScriptedAnswerer, for_model, progress_text
from course.beyond.shop import build_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
ERAS = [pytest.param("auto", id="2026-07-28"), pytest.param("legacy", id="handshake")]
STOCK = {"type": "object", "required": ["sku", "on_hand"],
         "properties": {"sku": {"type": "string"}, "on_hand": {"type": "integer", "minimum": 0}}}


def lying_server(structured):
    """A third-party server whose `count` tool promises STOCK and returns `structured` instead."""
    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="count", input_schema={"type": "object"},
                                                       output_schema=STOCK)])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(structured))],
                                    structured_content=structured)

    return Server("stock-elsewhere", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("mode", ERAS)
async def test_a_structured_result_reaches_the_model_as_json_once(mode):
    async with Desk(build_server(), ScriptedAnswerer([]), mode=mode) as desk:
        reply = await desk.execute("stock_level", '{"sku": "LAMP-1"}')
        assert desk.tools_by_name["stock_level"].output_schema["title"] == "StockLevel"
    assert json.loads(reply) == {"sku": "LAMP-1", "on_hand": 7, "reserved": 3, "warehouse": "north"}


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("broken", [{"sku": "X", "on_hand": -2}, {"sku": "X", "on_hand": "7"}, {"sku": "X"}],
                         ids=["below-minimum", "wrong-type", "missing"])
async def test_a_server_that_breaks_its_own_schema_is_refused_naming_the_tool(mode, broken):
    async with Desk(lying_server(broken), ScriptedAnswerer([]), mode=mode) as desk:
        reply = await desk.execute("count", "{}")
        logged = desk.notes[-1]
    assert reply.startswith("Error: count returned a result that breaks its own outputSchema")
    assert "Traceback" not in reply and "count" in logged


def test_the_hosts_own_check_refuses_what_the_sdk_would_not_see():
    # The SDK checks only tools listed in this session; for_model checks whatever it is given.
    with pytest.raises(BrokenResult, match=r"count returned .* \(on_hand: -1 is less than the minimum of 0\)"):
        for_model("count", STOCK, {"sku": "X", "on_hand": -1}, "")
    with pytest.raises(BrokenResult, match="no structuredContent"):
        for_model("count", STOCK, None, "7 on hand")
    assert for_model("count", None, None, "7 on hand") == "7 on hand"
    reply = for_model("count", STOCK, {"sku": "X", "on_hand": 1}, "X: 1 on hand")
    assert reply == '{"on_hand": 1, "sku": "X"}\nX: 1 on hand'


@pytest.mark.parametrize("progress, total, message, line", [
    (3, 10, "aisle 4", "3/10 (30%) aisle 4"), (3.0, 10.0, None, "3/10 (30%)"), (4, None, "counting", "4 done counting"),
    (12, 10, None, "12/10 (100%)")])
def test_progress_lines(progress, total, message, line):
    assert progress_text(progress, total, message) == line


@pytest.mark.parametrize("mode", ERAS)
async def test_progress_reaches_the_display_in_both_eras(mode):
    line = ProgressLine(io.StringIO())
    async with Desk(build_server(step=0.01), ScriptedAnswerer([]), mode=mode, progress=lambda name: line) as desk:
        reply = await desk.execute("recount_stock", '{"aisles": 3}')
    assert reply == "Counted 3 aisles: stock matches the books."
    assert line.lines == ["0/3 (0%) aisle 1", "1/3 (33%) aisle 2", "2/3 (67%) aisle 3", "3/3 (100%) done"]


@pytest.mark.parametrize("mode", ERAS)
async def test_a_call_the_human_cancels_is_cancelled_on_the_server_and_everyone_says_so(mode):
    server = build_server(step=0.05)
    async with Desk(server, ScriptedAnswerer([]), mode=mode, progress=lambda name: ProgressLine(io.StringIO())) as desk:
        desk.cancel_after["recount_stock"] = 2
        reply = await desk.execute("recount_stock", '{"aisles": 8}')
        with anyio.fail_after(5):
            while not server.log:
                await anyio.sleep(0.02)
        assert desk.notes[-1] == "recount_stock: cancelled by the human after 2 progress updates; the server was told"
        assert desk.log.entries[-1].outcome == "cancelled by the human"  # the course host's decision log
        after = await desk.execute("recount_stock", '{"aisles": 1}')  # the connection still works
    assert reply.startswith("Cancelled:") and "Do not say it was done" in reply
    assert server.log[0].startswith("recount_stock: cancelled after") and "of 8 aisles" in server.log[0]
    assert after.startswith("Counted 1 aisles")


async def test_the_desk_is_the_course_host_so_lesson_4s_approval_still_decides():
    from course.approval import ScriptedApprover
    from course.host import McpHost

    server = build_server()
    async with Desk(server, ScriptedAnswerer([]), approver=ScriptedApprover([False])) as desk:
        assert isinstance(desk, McpHost)
        reply = await desk.execute("issue_refund", '{"email": "leo@example.com", "amount": 80}')
        unknown = await desk.execute("delete_everything", "{}")
    assert server.refunds == [] and not desk.asked  # refused before the server (and its question) ran
    assert desk.log.entries[0].decision == "rejected" and "not" in reply.lower()
    assert desk.log.entries[1].decided_by == "allowlist" and "delete_everything" in unknown
