"""A server registration is run, not only printed: `.mcp.json` entries start and serve (lesson 5)."""

import json

import pytest
from mcp import Client

from course.paths import ROOT
from course.servers.registration import claude_mcp_add, expand, stdio_parameters

ENTRIES = json.loads((ROOT / ".mcp.json").read_text())["mcpServers"]


@pytest.mark.parametrize("value, environ, expected", [
    ("${COURSE_WEBAPI_URL:-http://127.0.0.1:8765}", {}, "http://127.0.0.1:8765"),
    ("${COURSE_WEBAPI_URL:-http://127.0.0.1:8765}", {"COURSE_WEBAPI_URL": "http://api"}, "http://api"),
    ("${COURSE_WEBAPI_KEY:-}", {}, ""),
    ("Bearer ${TOKEN}", {"TOKEN": "t0k"}, "Bearer t0k"),
    ("no variables", {}, "no variables"),
])
def test_variables_expand_as_claude_code_expands_them(value, environ, expected):
    assert expand(value, environ) == expected


def test_a_variable_without_value_or_default_is_an_error_that_says_what_to_write():
    with pytest.raises(KeyError, match=r"TOKEN is not set .* \$\{TOKEN:-\.\.\.\}"):
        expand("Bearer ${TOKEN}", {})


def test_the_claude_mcp_add_command_puts_the_key_in_env_and_the_server_after_the_double_dash():
    argv = claude_mcp_add("northwind-web", ENTRIES["northwind-web"], env={"COURSE_WEBAPI_KEY": "sk-test"})
    assert argv[:7] == ["claude", "mcp", "add", "--transport", "stdio", "--scope", "local"]
    assert argv[argv.index("--env") + 1] == "COURSE_WEBAPI_KEY=sk-test"
    dash = argv.index("--")
    assert argv[dash - 1] == "northwind-web" and argv[dash + 1:] == [".venv/bin/python", "-m", "course.servers.webapi",
                                                                     "--budget", "20"]


@pytest.mark.anyio
async def test_the_registered_docs_server_starts_and_lists_its_tools():
    params = stdio_parameters(ENTRIES["northwind-docs"], ROOT, {})
    params.args = [*params.args, "--embedder", "lexical"]  # no embedding model needed to list tools
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"search_docs", "read_section"} <= names


def test_the_web_entry_gets_its_key_from_the_environment_not_from_the_file():
    params = stdio_parameters(ENTRIES["northwind-web"], ROOT, {"COURSE_WEBAPI_KEY": "sk-from-env"})
    assert params.env == {"COURSE_WEBAPI_URL": "http://127.0.0.1:8765", "COURSE_WEBAPI_KEY": "sk-from-env"}
    assert "sk-" not in (ROOT / ".mcp.json").read_text()
