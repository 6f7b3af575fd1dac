"""Lesson 6's assemble step: the lesson's refund request answered by the learner's client pieces, `list_tools`,
`to_openai`, `make_execute` and the loop `agent`, on the docs server in memory (`Client(server)`), next to the
course's `McpHost` + `arun_agent` on the same request and scripted model."""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from course.backend import MODEL
from course.exercises.assembly.pieces import Assembly, definitions, gather, judged
from course.exercises.lesson6.given import GIVEN_AGENT
from course.exercises.registry import exercise, run_async

PIECES = {"l6-list-tools": "list_tools", "l6-to-openai": "to_openai", "l6-execute": "make_execute",
          "l6-agent": "agent"}
ALLOW = {"search_docs", "read_section", "list_documents", "get_order_record", "create_ticket", "issue_refund"}
QUESTION = "The mugs from my order A1002 arrived broken. What does your policy say? Can I get my money back?"
# What the notebook imports after its last exercise, before this cell (tests/test_exercises_lessons.py).
GIVEN = GIVEN_AGENT + """
from course.agent import Limits, arun_agent
from contextlib import ExitStack
from course.classroom.endpoint import docs_endpoint
from course.store import ShopStore
from course.host import ServerError
from course.servers import free_port
import io
import sys
from mcp import Client, StdioServerParameters
import asyncio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
import shutil
from course.host import child_processes
from course.host.tool_search import ToolSearch
from mcp.server import Server
"""


async def yours(p: Mapping[str, Any], question: str, store: Path) -> str:
    from mcp import Client

    from course.scripted import ScriptedModel
    from course.servers.docs import build_server
    from course.stories.lesson6 import refund_desk

    async def yes(name, arguments):  # the scripted human of the lesson approves the refund
        return True

    async with Client(build_server(store_path=store, embedder="lexical")) as client:
        tools = await p["list_tools"](client, ALLOW)
        run = p["make_execute"](client, {t.name: t for t in tools}, yes, 10)
        offered, routes = definitions(p["to_openai"], {"docs": tools})

        async def execute(name, arguments):  # the name the model saw, back to the server's
            return await run(routes[name][1] if name in routes else name, arguments)

        return await p["agent"](ScriptedModel(refund_desk).async_client(), MODEL, question, offered, execute)


async def courses(question: str, store: Path) -> str:
    from course.agent import Limits, arun_agent
    from course.approval import ScriptedApprover
    from course.host import McpHost, in_memory
    from course.scripted import ScriptedModel
    from course.servers.docs import build_server
    from course.stories.lesson6 import refund_desk

    async with McpHost(approver=ScriptedApprover([True]), quiet=True) as host:
        await host.connect("docs", in_memory(build_server(store_path=store, embedder="lexical")), allow=ALLOW)
        result = await arun_agent(ScriptedModel(refund_desk).async_client(), MODEL, question,
                                  tools=host.tools(), execute=host.execute, limits=Limits(max_steps=6))
    return result.answer


def assemble(namespace: Mapping[str, Any]) -> Assembly:
    pieces = gather(PIECES, namespace)
    chosen = {p.name: p.value for p in pieces}
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(io.StringIO()):
        got = run_async(lambda: yours(chosen, QUESTION, Path(work) / "yours.json"), limit=60)
        want = run_async(lambda: courses(QUESTION, Path(work) / "course.json"), limit=60)
    return Assembly("l6-assemble", pieces, got=got, want=want,
                    lines=[f"the customer: {QUESTION}", f"your client's answer: {got}"])


@exercise("l6-assemble", lesson=6, given=GIVEN, uses=tuple(PIECES))
def check_assemble(list_tools, to_openai, make_execute, agent):
    return judged(assemble(dict(list_tools=list_tools, to_openai=to_openai, make_execute=make_execute, agent=agent)))
