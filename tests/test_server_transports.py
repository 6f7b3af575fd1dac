"""The servers as real child processes: stdio, Streamable HTTP with and without the token, the stub API."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from course.paths import ROOT
from course.processes import stop, wait_for_port
from course.servers import TOKEN_ENV, free_port, http_server
from course.servers.stub_api import StubAPI
from course.servers.wire import recorded

pytestmark = pytest.mark.anyio

TOKEN = "test-token-123"
# A bare tools/list in protocol revision 2026-07-28 (no session, the method repeated in a header).
MODERN_HEADERS = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list",
                  "Accept": "application/json, text/event-stream"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}


def docs_command(store) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                 args=["-m", "course.servers.docs", "--embedder", "lexical", "--store", str(store)])


async def test_the_document_server_answers_over_stdio_and_keeps_stdout_for_the_protocol(tmp_path):
    log = []
    transport = recorded(stdio_client(docs_command(tmp_path / "shop.json")), log)
    async with Client(transport, read_timeout_seconds=30) as client:
        tools = (await client.list_tools()).tools
        hit = await client.call_tool("search_docs", {"query": "refund time limit", "k": 1})
        refund = await client.call_tool("issue_refund", {"order_id": "A1002", "amount": 5, "reason": "One mug broke"})
    assert len(tools) == 7
    assert hit.structured_content["hits"][0]["section"] == "Time limits"
    assert not refund.is_error and (tmp_path / "shop.json").exists()
    received = [message for direction, message in log if direction == "<-"]
    assert len(received) >= 3 and all(isinstance(m, dict) and m["jsonrpc"] == "2.0" for m in received), received


@pytest.fixture(scope="module")
def secured_url(tmp_path_factory):
    store = tmp_path_factory.mktemp("http") / "shop.json"
    with http_server("course.servers.docs", "--embedder", "lexical", "--store", str(store), token=TOKEN) as url:
        yield url


def test_http_without_the_token_gets_401(secured_url):
    bare = httpx2.post(secured_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    wrong = httpx2.post(secured_url, json={}, headers={"Authorization": "Bearer not-the-token"})
    assert bare.status_code == 401 and bare.headers["www-authenticate"].startswith("Bearer")
    assert wrong.status_code == 401


async def test_the_sdk_client_without_the_token_cannot_list_tools(secured_url):
    with pytest.raises(BaseException) as caught:
        async with Client(secured_url) as client:
            await client.list_tools()
    # The SDK does not say "401": the client sees an MCPError inside nested exception groups.
    assert any(isinstance(e, MCPError) and e.code == -32603 for e in leaves(caught.value))


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in leaves(e)]
    return [error]


async def test_http_with_the_token_serves_the_tools(secured_url):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        async with Client(streamable_http_client(secured_url, http_client=http)) as client:
            result = await client.call_tool("read_section", {"document": "refunds", "section": "Time limits"})
    assert result.structured_content["cite_as"] == "refunds › Time limits"


def test_without_a_token_the_http_server_serves_everyone_says_so_and_stops_cleanly_on_ctrl_c():
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen([sys.executable, "-m", "course.servers.docs", "--transport", "streamable-http",
                                 "--port", str(port), "--embedder", "lexical"], env=env, stderr=log,
                                stdout=subprocess.DEVNULL)
        try:
            wait_for_port(port, proc, log, 30)
            anyone = httpx2.post(f"http://127.0.0.1:{port}/mcp", json=LIST_TOOLS, headers=MODERN_HEADERS)
        finally:
            code = stop(proc)
        log.seek(0)
        stderr = log.read().decode()
    assert anyone.status_code == 200 and "search_docs" in anyone.text
    assert "no COURSE_MCP_TOKEN: any program on this machine can call these tools" in stderr
    assert code == 0 and "Traceback" not in stderr


def test_a_missing_docs_folder_stops_the_cli_with_a_clear_message(tmp_path):
    done = subprocess.run([sys.executable, "-m", "course.servers.docs", "--docs", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no such folder" in done.stderr and done.stdout == ""


def test_the_stub_api_runs_as_a_module_and_counts_requests():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "course.servers.stub_api", "--port", str(port), "--credits", "5"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with tempfile.TemporaryFile() as log:
            wait_for_port(port, proc, log, 30)
        base = f"http://127.0.0.1:{port}"
        urllib.request.urlopen(f"{base}/search?q=kettle").read()
        stats = json.load(urllib.request.urlopen(f"{base}/admin/stats"))
    finally:
        stop(proc)
    assert stats == {"requests": 1, "credits": 5 - StubAPI.PRICES["/search"], "pending_failures": 0}


def test_the_mcp_json_example_launches_modules_that_exist():
    config = json.loads((ROOT / ".mcp.json").read_text())["mcpServers"]
    for name, server in config.items():
        if "command" in server:
            module = server["args"][server["args"].index("-m") + 1]
            done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60)
            assert done.returncode == 0 and "--transport" in done.stdout, name
        else:
            assert server["url"].endswith("/mcp") and "${COURSE_MCP_TOKEN" in server["headers"]["Authorization"]


@pytest.mark.parametrize("module", ["docs", "webapi", "stub_api"])
def test_the_usage_line_names_the_module_to_run_not_its_file(module, capsys):
    main = importlib.import_module(f"course.servers.{module}").main
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.startswith(f"usage: python -m course.servers.{module} ")
