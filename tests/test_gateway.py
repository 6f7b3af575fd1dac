"""Multi-tenant: a shared server with a workspace per token, and a gateway that routes each tenant by its token
with a per-tenant allowlist. One tenant can neither read nor spend another's."""

import pytest

from course.architecture.gateway import Backend, Gateway, Tenant
from course.architecture.local_http import mcp_client, served
from course.classroom import workspaces
from course.servers.docs import build_server as build_docs

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
NORTHWIND, GLOBEX = "tok-northwind-4f1e", "tok-globex-9a2c"


async def test_on_a_shared_server_each_token_gets_its_own_workspace():
    server = workspaces.build_server({NORTHWIND: "northwind", GLOBEX: "globex"})
    async with served(server) as web:
        async with mcp_client(web, NORTHWIND) as northwind, mcp_client(web, GLOBEX) as globex:
            await northwind.call_tool("add_note", {"text": "Northwind's supplier list"})
            await northwind.call_tool("spend", {"credits": 8, "on": "searches"})
            seen_by_globex = await globex.call_tool("read_notes", {})
            overspent = await globex.call_tool("spend", {"credits": 11, "on": "everything"})
            spent_by_globex = await globex.call_tool("spend", {"credits": 10, "on": "its own searches"})
        anonymous = await web.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert seen_by_globex.structured_content == {"result": []}
    assert overspent.is_error and "Only 10 credits left" in overspent.content[0].text
    assert not spent_by_globex.is_error
    assert {n: (s.notes, s.credits) for n, s in server.workspaces.items()} == {
        "northwind": (["Northwind's supplier list"], 2), "globex": ([], 0)}
    assert anonymous.status_code == 401


@pytest.fixture
def gateway(tmp_path):
    notes = {name: workspaces.build_server(tenant=name) for name in ("northwind", "globex")}  # a server each
    docs = build_docs(embedder="lexical", store_path=tmp_path / "shop.json")
    tenants = [Tenant("northwind", NORTHWIND, {"docs": {"search_docs", "issue_refund"},
                                               "notes": {"add_note", "read_notes", "spend"}}),
               Tenant("globex", GLOBEX, {"docs": {"search_docs"}, "notes": {"read_notes", "spend"}})]
    return Gateway({"docs": Backend(shared=docs), "notes": Backend(per_tenant=notes)}, tenants), notes


async def test_the_gateway_lists_each_tenant_only_its_allowed_tools(gateway):
    gate, _ = gateway
    async with served(gate) as web:
        async with mcp_client(web, NORTHWIND) as northwind, mcp_client(web, GLOBEX) as globex:
            north_tools = {t.name for t in (await northwind.list_tools()).tools}
            globex_tools = {t.name for t in (await globex.list_tools()).tools}
    assert north_tools == {"search_docs", "issue_refund", "add_note", "read_notes", "spend"}
    assert globex_tools == {"search_docs", "read_notes", "spend"}


async def test_through_the_gateway_a_tenant_can_neither_read_nor_spend_anothers(gateway):
    gate, notes = gateway
    async with served(gate) as web:
        async with mcp_client(web, NORTHWIND) as northwind, mcp_client(web, GLOBEX) as globex:
            await northwind.call_tool("add_note", {"text": "secret margin: 42%"})
            read = await globex.call_tool("read_notes", {})
            await globex.call_tool("spend", {"credits": 10, "on": "searches"})
            refund = await globex.call_tool("issue_refund", {"order_id": "A1001", "amount": 49, "reason": "x"})
            north_left = await northwind.call_tool("spend", {"credits": 1, "on": "one search"})
    assert "secret margin" not in str(read.content)
    assert refund.is_error and "there is no tool 'issue_refund' for you" in refund.content[0].text
    assert "9 left" in north_left.content[0].text  # globex's spending came out of globex's budget
    assert notes["globex"].workspaces["globex"].credits == 0
    assert ("globex", "issue_refund", "denied: not on the tenant's allowlist") in gate.log


async def test_a_wrong_token_reaches_no_backend(gateway):
    gate, _ = gateway
    async with served(gate, headers={"Authorization": "Bearer guessed"}) as web:
        answer = await web.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert answer.status_code == 401 and gate.log == []


def test_a_tenant_that_names_a_backend_that_does_not_exist_is_refused():
    with pytest.raises(ValueError, match="tenants name backends that do not exist: billing"):
        Gateway({}, [Tenant("northwind", NORTHWIND, {"billing": {"pay"}})])
