"""Lesson 6's exercise checks refuse the wrong solutions a learner is likely to write, each with the right hint."""

import pytest

from course.exercises import check_source

pytestmark = [pytest.mark.timeout(60),
              pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")]  # "forgot await"

ALLOW = '{"search_docs", "read_section", "create_ticket"}'
ALLOWLIST_MISTAKES = {
    "forgot await": (f'def connect_support(host, server):\n    host.connect("docs", in_memory(server), allow={ALLOW})',
                     "connected nothing"),
    "the server without in_memory": (f'async def connect_support(host, server):\n'
                                     f'    await host.connect("docs", server, allow={ALLOW})', "in_memory(server)"),
    "another name": (f'async def connect_support(host, server):\n'
                     f'    await host.connect("support", in_memory(server), allow={ALLOW})', 'as "docs"'),
    "a host of its own": (f'async def connect_support(host, server):\n    mine = McpHost(quiet=True)\n'
                          f'    await mine.connect("docs", in_memory(server), allow={ALLOW})', "connected nothing"),
    "a denylist": ('async def connect_support(host, server):\n    await host.connect("docs", in_memory(server), '
                   'allow={"search_docs", "read_section", "create_ticket", "bulk_refund"})', "bulk_refund"),
    "allow everything, then remove from host.offered": (
        'async def connect_support(host, server):\n    await host.connect("docs", in_memory(server), allow={'
        '"search_docs", "read_section", "create_ticket", "export_customers", "bulk_refund"})\n'
        '    for name in ("export_customers", "bulk_refund"):\n        host.offered.pop(name, None)', "hidden"),
    "the real document server": (f'async def connect_support(host, server):\n    await host.connect("docs", '
                                 f'stdio("course.servers.docs", "--embedder", "lexical"), allow={ALLOW})',
                                 "never reached the server you were given"),
}

ASK = 'await host.execute("inventory_report", "{}")'
WITH = "async def ask_inventory(server):\n    async with McpHost({}quiet=True) as host:\n"
CONNECT = 'await host.connect("warehouse", in_memory(server), allow={"inventory_report"}'
TIMEOUT_MISTAKES = {
    "only a read timeout": (f'async def ask_inventory(server):\n    async with McpHost(quiet=True) as host:\n'
                            f'        {CONNECT}, read_timeout=0.5)\n        return {ASK}', "read_timeout= only bounds"),
    "wait_for without catching": ("import asyncio\n" + WITH.format("") + f'        {CONNECT})\n'
                                  '        return await asyncio.wait_for(host.execute("inventory_report", "{}"), 0.5)',
                                  "your code raised TimeoutError"),
    "never closed": (f'async def ask_inventory(server):\n    host = McpHost(timeout=0.5, quiet=True)\n'
                     f'    {CONNECT})\n    return {ASK}', "still open"),
    "not on the allowlist": (WITH.format("timeout=0.5, ") + '        await host.connect("warehouse", '
                             f'in_memory(server), allow=set())\n        return {ASK}',
                             "put inventory_report on the allowlist"),
    "a timeout of 1.5 s": (WITH.format("timeout=1.5, ") + f'        {CONNECT})\n        return {ASK}',
                           "under a second"),
    "an error that does not say why": (WITH.format("timeout=0.5, ") + f'        {CONNECT})\n        reply = {ASK}\n'
                                       f'        return "Error: no." if reply.startswith("Error") else reply',
                                       "took too long"),
}


@pytest.mark.parametrize("mistake", list(ALLOWLIST_MISTAKES))
def test_the_allowlist_check_refuses_a_likely_mistake_with_a_hint(mistake):
    source, hint = ALLOWLIST_MISTAKES[mistake]
    verdict = check_source("l6-allowlist", "# EXERCISE l6-allowlist\n" + source + "\n")
    assert not verdict.passed and hint in verdict.message, str(verdict)


@pytest.mark.parametrize("mistake", list(TIMEOUT_MISTAKES))
def test_the_timeout_check_refuses_a_likely_mistake_with_a_hint(mistake):
    source, hint = TIMEOUT_MISTAKES[mistake]
    verdict = check_source("l6-timeout", "# EXERCISE l6-timeout\n" + source + "\n")
    assert not verdict.passed and hint in verdict.message, str(verdict)
