"""Lesson 9's elicitation tool with another client: mcp 1.30 (the last 1.x, handshake era only), over stdio,
answers the server's question with its own `elicitation_callback`, and a decline refunds nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
