"""The host over real transports: stdio children, Streamable HTTP, third-party and older-protocol servers.

One real process per case; every failure must come back as a sentence that says what to check.
"""

import asyncio
import os
import sys
from pathlib import Path

import pytest

from course.approval import ScriptedApprover
from course.host import McpHost, ServerError, child_processes, http, stdio, stdio_command
from course.servers import free_port, http_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
SERVERS = Path(__file__).parent / "servers"
ROOT = Path(__file__).resolve().parents[1]
MCP1_PYTHON = ROOT / ".venv" / "mcp1" / "bin" / "python"
TOKEN = "test-token-4e1f"


def quiet_host(**options):
    return McpHost(quiet=True, **options)


# -- stdio ----------------------------------------------------------------------------------------
async def test_a_planted_secret_in_the_parent_environment_never_reaches_a_stdio_child(monkeypatch):
    monkeypatch.setenv("SHOP_API_KEY", "sk-planted-secret-93a1")
    monkeypatch.setenv("COURSE_SHARED_SETTING", "on")
    spec = stdio(str(SERVERS / "env_report.py"), env={"DOCS_MODE": "lexical"}, pass_env=["COURSE_SHARED_SETTING"])
    async with quiet_host() as host:
        await host.connect("env", spec, allow={"environment"})
        reply = await host.execute("environment", "{}")
    assert "sk-planted-secret-93a1" not in reply and "SHOP_API_KEY" not in reply
    assert '"DOCS_MODE": "lexical"' in reply and '"COURSE_SHARED_SETTING": "on"' in reply
    assert "SHOP_API_KEY" in os.environ and "SHOP_API_KEY" not in spec.child_env()
    assert set(spec.child_env()) <= {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "DOCS_MODE",
                                     "COURSE_SHARED_SETTING"}


async def test_a_stdio_call_works_and_a_slow_call_times_out():
    async with quiet_host(timeout=0.5) as host:
        await host.connect("shop", stdio(str(SERVERS / "shopfront.py")), allow={"lookup", "slow"})
        ok = await host.execute("lookup", '{"order_id": "A1001"}')
        slow = await host.execute("slow", '{"seconds": 5}')
    assert ok == "Order A1001 has shipped." and "did not answer within 0.5 s" in slow


async def test_a_wrong_module_name_is_explained_with_the_childs_stderr():
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("docs", stdio("course.servers.no_such_server"), allow=set())
    text = str(caught.value)
    assert "stopped before it answered its first MCP request" in text
    assert "No module named course.servers.no_such_server" in text
    assert "Check: the module name" in text


async def test_a_server_that_stops_saying_why_gets_advice_about_its_reason_not_about_stdout(tmp_path):
    script = tmp_path / "no_db.py"
    script.write_text("import sys\nsys.stderr.write('could not reach the database at db.internal:5432\\n')\n"
                      "sys.exit(3)\n")
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("orders", stdio(str(script)), allow=set())
    text = str(caught.value)
    assert "| could not reach the database at db.internal:5432" in text
    assert "Check: its last lines on stderr above say why it stopped" in text and "printing to stdout" not in text


async def test_child_processes_shows_a_stdio_server_until_its_host_closes():
    host = quiet_host()
    try:
        await host.connect("env", stdio("course.servers.env_names"), allow={"environment_names"})
        while_open = child_processes()
    finally:
        await host.close()
    assert [c for c in while_open if c.endswith("-m course.servers.env_names")]
    assert not [c for c in child_processes() if "course.servers.env_names" in c]


async def test_a_server_that_refuses_its_command_line_arguments_points_at_them():
    refuses = stdio_command(sys.executable, "-c", "import argparse; argparse.ArgumentParser(prog='srv').parse_args()",
                            "--bogus")
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("x", refuses, allow=set())
    text = str(caught.value)
    assert "unrecognized arguments: --bogus" in text and "Check: the arguments after the module or script" in text


async def test_a_wrong_script_path_is_explained():
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("docs", stdio("servers/missing.py"), allow=set())
    assert "can't open file" in str(caught.value) and "Check: the script path" in str(caught.value)


async def test_a_program_that_does_not_exist_is_explained():
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("x", stdio_command("/no/such/mcp-server"), allow=set())
    assert "could not start `/no/such/mcp-server`" in str(caught.value) and "sys.executable" in str(caught.value)


async def test_a_server_that_crashes_mid_call_becomes_an_error_for_the_model_and_a_diagnosis_for_you(capsys):
    host = McpHost(approver=ScriptedApprover([True, True]))
    try:
        await host.connect("fragile", stdio(str(SERVERS / "crashing.py")), allow={"ok", "crash"})
        reply = await host.execute("crash", "{}")
        again = await host.execute("ok", "{}")  # no approval asked: the server is gone
    finally:
        await host.close()
    assert reply.startswith("Error:") and "stopped while running crash" in reply and "Do not retry" in reply
    assert again.startswith("Error:") and len(host.approver.asked) == 1
    shown = capsys.readouterr().out
    assert "warning: fragile: the server stopped" in shown


async def test_a_crashing_servers_stderr_never_reaches_the_model_and_its_password_is_hidden_from_you(capsys):
    host = McpHost(approver=ScriptedApprover([True]))
    try:
        await host.connect("fragile", stdio(str(SERVERS / "crashing.py")), allow={"crash"})
        reply = await host.execute("crash", "{}")
    finally:
        await host.close()
    shown = capsys.readouterr().out
    assert "s3cret-Pa55" not in reply and "postgresql" not in reply and "Traceback" not in reply
    assert len(reply.splitlines()) == 1
    assert "sqlalchemy.exc.OperationalError: could not connect to server: postgresql://shop:***@db.internal" in shown
    assert "s3cret-Pa55" not in shown and "s3cret-Pa55" not in host.outcomes[-1].diagnosis


async def test_a_server_that_prints_to_stdout_is_named_and_still_works(capsys):
    host = McpHost(approver=ScriptedApprover([True]))
    try:
        await host.connect("printer", stdio(str(SERVERS / "stdout_printer.py")), allow={"echo"})
        reply = await host.execute("echo", '{"text": "hi"}')
    finally:
        await host.close()
    out = capsys.readouterr()
    assert reply == "hi"
    assert "printer wrote to stdout, which is reserved for MCP messages: 'Starting the printer server" in out.out
    assert "Traceback" not in out.err  # the SDK's parse-error traceback is replaced by that one line


async def test_a_banner_printed_without_a_newline_fails_the_connection_at_once_naming_the_glued_line(caplog):
    import gc

    with pytest.raises(ServerError) as caught:  # with read_timeout=20 it would say "did not answer ... in time"
        await McpHost(quiet=True).connect("glued", stdio(str(SERVERS / "glued_banner.py")), allow={"echo"},
                                          read_timeout=20)
    text = str(caught.value)
    assert "ran into an MCP reply while connecting, so the reply could not be read" in text
    assert "| Loading models... {\"jsonrpc\":\"2.0\"" in text and "print nothing to stdout" in text
    gc.collect()
    assert "exception was never retrieved" not in caplog.text


# -- Streamable HTTP --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shop_url():
    with http_server("tests.servers.http_shop", token=TOKEN) as url:  # lesson 5's launcher
        yield url


async def test_http_with_the_token_lists_calls_and_times_out(shop_url):
    async with quiet_host(timeout=0.5) as host:
        await host.connect("shop", http(shop_url, token=TOKEN), allow={"lookup", "slow"})
        reply = await host.execute("lookup", '{"order_id": "A1004"}')
        slow = await host.execute("slow", '{"seconds": 5}')
        after = await host.execute("lookup", '{"order_id": "A1001"}')
    assert reply == "Order A1004 has shipped." and after == "Order A1001 has shipped."
    assert "did not answer within 0.5 s" in slow


async def test_http_without_the_token_says_a_token_is_needed(shop_url):
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("shop", http(shop_url), allow={"lookup"})
    text = str(caught.value)
    assert "401" in text and "none was sent" in text and "http(url, token=...)" in text


async def test_http_with_a_wrong_token_says_it_was_rejected(shop_url):
    with pytest.raises(ServerError, match="the token was rejected"):
        await quiet_host().connect("shop", http(shop_url, token="wrong"), allow={"lookup"})


async def test_http_with_a_wrong_path_points_at_mcp(shop_url):
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("shop", http(shop_url.replace("/mcp", "/api"), token=TOKEN), allow=set())
    assert "404" in str(caught.value) and "/mcp" in str(caught.value)


async def test_http_without_the_mcp_path_says_to_add_it(shop_url):
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("shop", http(shop_url.removesuffix("/mcp"), token=TOKEN), allow=set())
    text = str(caught.value)
    assert "404" in text and f"the URL has no path: add /mcp, e.g. {shop_url}." in text


async def test_an_http_server_started_by_http_server_gets_no_secret_from_the_parent_environment(monkeypatch):
    monkeypatch.setenv("SHOP_API_KEY", "sk-planted-secret-93a1")
    with http_server("tests.servers.http_env", token=TOKEN) as url:
        async with quiet_host() as host:
            await host.connect("env", http(url, token=TOKEN), allow={"environment_names"})
            names = (await host.execute("environment_names", "{}")).split()
    assert "PATH" in names and "SHOP_API_KEY" not in names


async def test_http_to_a_server_that_is_not_running_says_to_start_it():
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("shop", http(f"http://127.0.0.1:{free_port()}/mcp"), allow=set())
    assert "nothing answers" in str(caught.value) and "is the server running?" in str(caught.value)


# -- servers nobody here wrote -------------------------------------------------------------------
async def test_the_reference_time_server_from_pypi_works_with_the_same_host():
    async with quiet_host() as host:
        await host.connect("time", stdio("mcp_server_time", "--local-timezone", "UTC"),
                           allow={"get_current_time", "convert_time"})
        offered = {o.name: o.read_only for o in host.offered.values()}
        reply = await host.execute("get_current_time", '{"timezone": "Europe/Oslo"}')
    assert offered == {"get_current_time": True, "convert_time": True}
    assert '"timezone": "Europe/Oslo"' in reply and not reply.startswith("Error")


def mcp1_python() -> Path:
    if MCP1_PYTHON.exists():
        return MCP1_PYTHON
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{MCP1_PYTHON} is missing: `make test` creates it (a venv with mcp==1.30.0).")
    pytest.skip(f"no mcp 1.x venv at {MCP1_PYTHON}; create it with: "
                f"{sys.executable} -m venv .venv/mcp1 && .venv/mcp1/bin/pip install mcp==1.30.0")


async def test_a_server_on_the_older_protocol_mcp_1_works_with_the_same_host():
    python = mcp1_python()
    host = McpHost(approver=ScriptedApprover([False]), quiet=True)
    try:
        await host.connect("legacy", stdio_command(str(python), str(SERVERS / "v1_fastmcp.py")),
                           allow={"order_total", "cancel"})
        connection = host.connections["legacy"]
        total = await host.execute("order_total", '{"order_id": "A1001"}')
        cancel = await host.execute("cancel", '{"order_id": "A1001"}')
        version = connection.client.protocol_version
    finally:
        await host.close()
    assert version == "2025-11-25"
    assert total == "Order A1001 totals 49.00 EUR." and "not run" in cancel


async def test_a_stdio_program_that_never_answers_its_first_request_times_out_with_a_hint():
    # It reads its requests and never answers; it ends when the host closes its stdin (no wait for a kill).
    silent = stdio_command(sys.executable, "-c", "import sys; sys.stdin.read()")
    with pytest.raises(ServerError) as caught:
        await quiet_host().connect("silent", silent, allow=set(), read_timeout=0.5)
    assert "did not answer its first MCP request in time" in str(caught.value)


async def test_invalid_utf8_on_a_stdio_servers_stdout_does_not_wedge_the_connection(capsys):
    host = McpHost(approver=ScriptedApprover([True, True]), timeout=3)
    try:
        await host.connect("bytes", stdio(str(SERVERS / "bad_bytes.py")), allow={"garble", "ok"})
        garbled = await host.execute("garble", "{}")
        after = await host.execute("ok", "{}")
        alive = host.connections["bytes"].alive
    finally:
        await host.close()
    assert garbled == "garbled" and after == "fine" and alive
    assert "bytes wrote to stdout, which is reserved for MCP messages" in capsys.readouterr().out


async def test_a_tool_a_stdio_server_adds_later_is_offered_without_reconnecting():
    async with quiet_host() as host:
        await host.connect("grow", stdio(str(SERVERS / "growing.py")), allow={"unlock", "bonus"})
        await host.execute("unlock", "{}")
        while "bonus" not in host.offered:  # a background refresh; the test's timeout bounds the wait
            await asyncio.sleep(0.01)
        reply = await host.execute("bonus", "{}")
    assert reply == "bonus!"
