"""Lesson 9 with other MCP implementations, over stdio.

- mcp 1.30 (the last 1.x, handshake era only) answers the course server's elicitation with its own
  `elicitation_callback`, and a decline refunds nothing;
- the course host against the reference "everything" server (TypeScript SDK, pinned in `.ci/run`):
  its task tool (`simulate-research-query`, task-only, with a question half-way) run as a task and
  its question answered by the scripted answerer; its elicitation tool's form drawn, an answer out
  of range kept back, a fitting one sent (its "do not give us your ... pin" is a warning, not a
  question for a secret), the next one declined; its long-running tool's progress shown.
  In CI (`CI=true`) these must not skip.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.approval import ScriptedApprover
from course.beyond import DECLINE, ProgressLine, ScriptedAnswerer, accept, asks_for_secret
from course.beyond.answerers import elicitation_callback
from course.beyond.forms import form_fields, problems
from course.host import McpHost, stdio_command
from course.host.tasks import HostTasks

EVERYTHING = Path(__file__).resolve().parents[1] / ".cache" / "everything" / "node_modules" / ".bin" / \
    "mcp-server-everything"
INSTALL_EVERYTHING = ("npm install --prefix .cache/everything "
                      "@modelcontextprotocol/server-everything@2026.8.31")  # as `make test` does

MCP1_PYTHON = Path(sys.prefix) / "mcp1" / "bin" / "python"  # the shared venv's mcp 1.x venv

CLIENT = """
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

seen = {"asked": []}
answers = [("accept", {"order_id": "A1004", "confirm": True}), ("decline", None)]

async def elicit(context, params):
    seen["asked"].append({"message": params.message, "schema": params.requestedSchema})
    action, content = answers.pop(0)
    return types.ElicitResult(action=action, content=content)

async def main():
    server = StdioServerParameters(command=sys.argv[1], args=["-m", "course.beyond.shop"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            init = await session.initialize()
            seen["protocol"] = init.protocolVersion
            for amount in (80, 15):
                result = await session.call_tool("issue_refund", {"email": "leo@example.com", "amount": amount})
                seen.setdefault("replies", []).append(result.content[0].text)
    print(json.dumps(seen))

asyncio.run(main())
"""


def test_an_mcp_1x_client_answers_the_lessons_elicitation_over_stdio(tmp_path):
    if not MCP1_PYTHON.exists():
        pytest.skip(f"no mcp 1.x venv at {MCP1_PYTHON} (`make test` creates it)")
    script = tmp_path / "v1_elicitation_client.py"
    script.write_text(CLIENT)
    done = subprocess.run([str(MCP1_PYTHON), str(script), sys.executable], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["protocol"] == "2025-11-25"
    assert seen["replies"] == ["Refunded 80.00 EUR to A1004.", "No refund: the human chose decline."]
    first = seen["asked"][0]
    assert first["schema"]["properties"]["order_id"]["enum"] == ["A1003", "A1004"]
    assert "2 orders" in first["message"]


def everything_server():
    if not EVERYTHING.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the reference everything server is missing in CI: {INSTALL_EVERYTHING} "
                        "(`make test` does it when npm is there)")
        pytest.skip(f"the reference everything server is not installed: `{INSTALL_EVERYTHING}`")
    return stdio_command(str(EVERYTHING), "stdio")


@pytest.mark.anyio
@pytest.mark.timeout(90)
async def test_the_course_host_runs_the_everything_servers_task_tool_and_answers_its_question():
    asked, statuses = [], []
    answerer = ScriptedAnswerer([accept(interpretation="historical")])
    tasks = HostTasks(on_status=lambda tool, task: statuses.append(task.status))
    async with McpHost(approver=ScriptedApprover([True]), quiet=True, tasks=tasks,
                       elicitation=elicitation_callback(answerer, asked)) as host:
        await host.connect("everything", everything_server(), allow={"simulate-research-query"}, read_timeout=30)
        tool = host.offered["simulate-research-query"].tool
        assert tool.execution.task_support == "required"  # before lesson 9 the host left it out
        reply = await host.execute("simulate-research-query", '{"topic": "tea", "ambiguous": true}')
    assert "# Research Report: tea (historical)" in reply
    assert statuses[0] == "working" and "input_required" in statuses  # the question came with tasks/result
    assert [(a.outcome, a.fields) for a in asked] == [("accepted", ["interpretation"])]
    assert host.log.entries[-1].outcome == "ran" and any("completed" in line for line in host.tasks.log)


@pytest.mark.anyio
@pytest.mark.timeout(90)
async def test_the_course_host_fills_in_the_everything_servers_form_then_declines_it_and_shows_its_progress():
    seen: list = []
    asked: list = []
    answerer = ScriptedAnswerer([
        accept(name="Ada", integer=700, email="ada"),  # out of range, no email: not sent, asked again
        accept(name="Ada", check=True, integer=7, email="ada@example.com", titledSingleSelectEnum="hero-2",
               titledMultipleSelectEnum=["fish-1", "fish-3"]),
        DECLINE])
    rules = elicitation_callback(answerer, asked)

    async def recording(context, params):  # what the server asked, as it arrived
        seen.append(params.requested_schema)
        return await rules(context, params)

    line = ProgressLine(io.StringIO())
    async with McpHost(approver=ScriptedApprover([True, True, True]), quiet=True, elicitation=recording,
                       progress=lambda name: line) as host:
        await host.connect("everything", everything_server(), read_timeout=30,
                           allow={"trigger-elicitation-request", "trigger-long-running-operation"})
        filled = await host.execute("trigger-elicitation-request", "{}")
        declined = await host.execute("trigger-elicitation-request", "{}")
        done = await host.execute("trigger-long-running-operation", '{"duration": 0.4, "steps": 4}')
    schema = seen[0]
    kinds = {f.name: f.kind for f in form_fields(schema)}  # every field of the reference form can be drawn
    assert kinds["untitledMultipleSelectEnum"] == kinds["titledMultipleSelectEnum"] == "choices"
    assert kinds["titledSingleSelectEnum"] == kinds["legacyTitledEnum"] == "choice"
    assert kinds["integer"] == "integer" and kinds["check"] == "boolean"
    assert problems(schema, {"name": "Ada", "titledSingleSelectEnum": "Superman"}) == [
        "Titled Single Select Enum: one of hero-1, hero-2, hero-3."]
    # Its integer field says "do not give us your phone number, pin, or other sensitive info": a warning, no question
    assert "pin" in schema["properties"]["integer"]["description"] and asks_for_secret("", schema) is None
    assert "User provided the requested information" in filled
    assert problems(schema, {"name": "Ada", "email": "ada"}) == [
        "String with email format: an email address, like ada@example.com."]
    assert "- Name: Ada" in filled and "- Email: ada@example.com" in filled
    assert "- Favorite Integer: 7" in filled and '"fish-3"' in filled
    assert "User declined" in declined
    assert [(a.outcome, a.fields) for a in asked] == [
        ("accepted", ["check", "email", "integer", "name", "titledMultipleSelectEnum", "titledSingleSelectEnum"]),
        ("decline", [])]
    assert answerer.answers == []  # three answers for two questions: the one out of range was asked again
    assert done.startswith("Long running operation completed")
    assert line.lines == ["1/4 (25%)", "2/4 (50%)", "3/4 (75%)", "4/4 (100%)"]
