"""The document server, in memory through the SDK's Client (lexical search: no model to load)."""

from __future__ import annotations

import pytest
from mcp import Client

from course.servers.docs import build_server
from course.store import ShopStore

pytestmark = pytest.mark.anyio

READ_TOOLS = {"search_docs", "read_section", "list_documents", "get_order_record"}
ADDING_TOOLS = {"create_ticket"}  # changes the records, destroys nothing
DESTRUCTIVE_TOOLS = {"issue_refund", "cancel_order"}
WRITE_TOOLS = ADDING_TOOLS | DESTRUCTIVE_TOOLS


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "shop.json"


@pytest.fixture
def server(store_path):
    return build_server(store_path=store_path, embedder="lexical")


async def call(server, name: str, **arguments):
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


def text(result) -> str:
    return result.content[0].text if result.content else ""


async def test_reading_tools_are_read_only_and_every_writing_tool_says_it_changes_things(server):
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == READ_TOOLS | WRITE_TOOLS
    for name in READ_TOOLS:
        assert tools[name].annotations.read_only_hint is True, name
    for name in WRITE_TOOLS:
        assert tools[name].annotations.read_only_hint is False, name


async def test_only_tools_that_can_destroy_or_overwrite_are_marked_destructive(server):
    async with Client(server) as client:
        hints = {t.name: t.annotations.destructive_hint for t in (await client.list_tools()).tools}
    assert {name for name in WRITE_TOOLS if hints[name] is True} == DESTRUCTIVE_TOOLS
    assert hints["create_ticket"] is False  # a new ticket leaves every existing record as it was


async def test_the_input_schema_carries_the_constraints_of_the_signatures(server):
    async with Client(server) as client:
        tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    k = tools["search_docs"]["properties"]["k"]
    assert (k["minimum"], k["maximum"], k["default"]) == (1, 5, 3) and k["description"]
    assert tools["search_docs"]["required"] == ["query"]
    refund = tools["issue_refund"]
    assert refund["title"] == "issue_refundArguments"
    assert refund["properties"]["order_id"]["pattern"] == r"^A\d{4}$"
    assert refund["properties"]["amount"]["exclusiveMinimum"] == 0
    assert set(refund["required"]) == {"order_id", "amount", "reason"}  # flat, not {"args": {...}}


async def test_descriptions_say_when_to_use_each_tool_without_docstring_indentation(server):
    async with Client(server) as client:
        tools = {t.name: t.description for t in (await client.list_tools()).tools}
    assert "read_section" in tools["search_docs"] and "search" in tools["read_section"]
    assert all(not line.startswith(" ") for d in tools.values() for line in d.splitlines()), tools


async def test_search_docs_finds_the_refund_time_limit(server):
    result = await call(server, "search_docs", query="how many days do I have to ask for a refund", k=2)
    hits = result.structured_content["hits"]
    assert not result.is_error and len(hits) == 2
    assert (hits[0]["document"], hits[0]["section"]) == ("refunds", "Time limits")


async def test_read_section_returns_the_full_text_and_how_to_cite_it(server):
    result = await call(server, "read_section", document="refunds", section="time limits")
    section = result.structured_content
    assert section["cite_as"] == "refunds › Time limits" and "30 days" in section["text"]


async def test_list_documents_lists_every_policy_file(server):
    from course import paths

    result = await call(server, "list_documents")
    names = {d["document"] for d in result.structured_content["documents"]}
    assert names == {p.stem for p in paths.DATA.glob("*.md")}


@pytest.mark.parametrize("arguments, advice", [
    ({"document": "../secrets", "section": "x"}, "not a file path"),
    ({"document": "nope", "section": "x"}, "Documents: "),
    ({"document": "refunds", "section": "Nope"}, "Its sections: "),
])
async def test_a_bad_name_is_a_tool_error_that_says_what_to_use_instead(server, arguments, advice):
    result = await call(server, "read_section", **arguments)
    assert result.is_error and text(result).startswith("Error executing tool read_section: ") and advice in text(result)


@pytest.mark.parametrize("arguments, advice", [
    ({"query": "refund", "k": 9},
     "- k: input should be less than or equal to 5 (you sent 9). Send a whole number from 1 to 5"),
    ({"query": ""}, "- query: string should have at least 1 character (you sent ''). Send text of 1-500 characters"),
    ({"k": 2}, "- query: missing. Send text of 1-500 characters (What to look for"),
])
async def test_arguments_outside_the_schema_are_refused_with_a_line_saying_what_to_send(server, arguments, advice):
    result = await call(server, "search_docs", **arguments)
    assert result.is_error and advice in text(result)


async def test_invalid_arguments_get_one_line_per_field_and_no_pydantic_dump(server, store_path):
    result = await call(server, "issue_refund", order_id="1001", amount=-3, reason="x")
    first, *fields = text(result).removeprefix("Error executing tool issue_refund: ").splitlines()
    assert first == "these arguments need fixing; change them and call again:"
    assert [line.split(":")[0] for line in fields] == ["- order_id", "- amount", "- reason"]
    assert "Send text matching the pattern ^A\\d{4}$ (Order number, e.g. A1001)" in fields[0]
    assert "Send a number greater than 0" in fields[1]
    assert "pydantic" not in text(result) and "validation error" not in text(result)
    assert ShopStore(store_path).refunds() == []


async def test_a_long_rejected_value_is_quoted_only_in_part(server):
    result = await call(server, "search_docs", query="refund " * 500)
    assert result.is_error and "…). Send text of 1-500 characters" in text(result) and len(text(result)) < 500


async def test_every_tool_schema_forbids_arguments_it_does_not_take(server):
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    assert {t.name: t.input_schema.get("additionalProperties") for t in tools} == {t.name: False for t in tools}


async def test_an_unknown_extra_argument_on_a_write_tool_is_refused_and_nothing_runs(server, store_path):
    result = await call(server, "issue_refund", order_id="A1001", amount=10, reason="Kettle arrived dented",
                        approved_by="admin")
    assert result.is_error and "- approved_by: issue_refund has no such argument; leave it out" in text(result)
    assert "(its arguments: order_id, amount, reason)" in text(result)
    assert ShopStore(store_path).refunds() == []


async def test_an_unknown_tool_is_reported_by_name(server):
    result = await call(server, "delete_everything")
    assert result.is_error and "Unknown tool: delete_everything" in text(result)


async def test_a_write_tool_changes_the_store(server, store_path):
    result = await call(server, "issue_refund", order_id="A1001", amount=10, reason="Kettle arrived dented")
    assert not result.is_error and result.structured_content["refund_id"] == "R-0001"
    assert ShopStore(store_path).refunded("A1001") == 10.0


async def test_a_refused_write_explains_why_and_changes_nothing(server, store_path):
    too_much = await call(server, "issue_refund", order_id="A1001", amount=500, reason="Kettle arrived dented")
    shipped = await call(server, "cancel_order", order_id="A1001", reason="Changed my mind")
    assert too_much.is_error and "at most 49.00 is left" in text(too_much)
    assert shipped.is_error and "Offer a return or a refund instead" in text(shipped)
    assert ShopStore(store_path).refunds() == [] and ShopStore(store_path).order("A1001")["status"] == "shipped"


async def test_a_bad_order_number_never_reaches_the_store(server, store_path, monkeypatch):
    reached = []
    monkeypatch.setattr(ShopStore, "create_ticket", lambda self, *a: reached.append(a))
    result = await call(server, "create_ticket", order_id="1001", subject="Broken", message="It arrived broken")
    assert result.is_error and "order_id" in text(result) and reached == []


async def test_a_crash_in_a_tool_tells_the_model_nothing_about_its_internals(store_path, monkeypatch):
    def crash(self, *args):
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr(ShopStore, "cancel_order", crash)
    result = await call(build_server(store_path=store_path, embedder="lexical"), "cancel_order",
                        order_id="A1003", reason="Customer asked")
    assert result.is_error and text(result) == "Error executing tool cancel_order"


async def test_a_missing_document_folder_is_reported_to_the_model(tmp_path):
    server = build_server(tmp_path / "missing", store_path=tmp_path / "shop.json", embedder="lexical")
    result = await call(server, "search_docs", query="refund")
    assert result.is_error and "documents are unavailable" in text(result) and "do not retry" in text(result)


async def test_two_clients_at_once_share_one_server(server):
    async with Client(server) as first, Client(server) as second:
        a = await first.call_tool("search_docs", {"query": "warranty"})
        b = await second.call_tool("search_docs", {"query": "warranty"})
    assert a.structured_content == b.structured_content and not a.is_error


async def test_an_error_string_a_tool_returns_reaches_the_client_as_a_success_and_raising_flags_it():
    # Issue 24 point 1 (lesson 5's four cases): only a raised error sets is_error; a returned "Error: ..." is a result.
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("lenient", log_level="WARNING")

    @server.tool()
    def returned(order_id: str) -> str:
        return f"Error: no order {order_id}"

    @server.tool()
    def raised(order_id: str) -> str:
        raise ToolError(f"no order {order_id}")

    async with Client(server) as client:
        as_text = await client.call_tool("returned", {"order_id": "A9999"})
        as_error = await client.call_tool("raised", {"order_id": "A9999"})
    assert not as_text.is_error and text(as_text) == "Error: no order A9999"
    assert as_error.is_error and "no order A9999" in text(as_error)
