"""An older-protocol client (mcp 1.x `ClientSession`, run by the mcp1 venv's python) reading the docs server.

    <mcp1 python> v1_resources_client.py <server python> <store file>

Prints one JSON object: what it listed, read and got, in mcp 1.x's own (camelCase) attribute names.
The server runs from this checkout (PYTHONPATH), so the test checks the code under test.
"""

import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]


async def main(python: str, store: str) -> None:
    params = StdioServerParameters(command=python, args=["-m", "course.servers.docs", "--embedder", "lexical",
                                                         "--store", store], env={"PYTHONPATH": str(ROOT)})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        resources = await session.list_resources()
        templates = await session.list_resource_templates()
        section = await session.read_resource("docs://refunds/time-limits")
        prompts = await session.list_prompts()
        prompt = await session.get_prompt("refund_reply", {"order_id": "A1002", "tone": "formal"})
    print(json.dumps({
        "protocol": init.protocolVersion,
        "resources": [str(r.uri) for r in resources.resources],
        "templates": [t.uriTemplate for t in templates.resourceTemplates],
        "section": section.contents[0].text,
        "prompts": {p.name: [a.name for a in p.arguments or []] for p in prompts.prompts},
        "prompt": prompt.messages[0].content.text,
    }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
