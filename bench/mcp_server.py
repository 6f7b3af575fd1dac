"""MCP server overhead: the document server vs a minimal SDK server doing the same call (goal: ratio <= 1.1).

Both servers answer `list_documents` with the same data and the same contract (a `dict[str, Any]`
result: structured content, generic output schema; ours reads the index, the minimal one returns a
copy), so the ratio measures what the course server adds: the index wrapper, error
mapping, the lifespan, the store. Rounds alternate between the two servers to share the noise.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench._figures import Figure, at_most
from course.processes import stop, wait_for_port
from course.servers import free_port, http_server
from course.servers.docs import build_server

MINIMAL = """
import json, sys
from typing import Any
from mcp.server.mcpserver import MCPServer
DATA = json.load(open(sys.argv[1]))
mcp = MCPServer("minimal", log_level="WARNING")
@mcp.tool()
def list_documents() -> dict[str, Any]:
    \"\"\"List the documents.\"\"\"
    return DATA
if len(sys.argv) > 2:
    mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), streamable_http_path="/mcp")
else:
    mcp.run()
"""

CALLS, SPAWNS = 200, 7


def minimal_server(data: dict):
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("minimal", log_level="WARNING")

    @mcp.tool()
    def list_documents() -> dict[str, Any]:
        """List the documents."""
        return data

    return mcp


async def call_ms(client: Client, n: int) -> list[float]:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await client.call_tool("list_documents", {})
        times.append(time.perf_counter() - start)
    return times


async def compare_calls(ours, minimal, rounds: int = 10) -> tuple[float, float]:
    """Median call_tool time (ms) through two connected transports, alternating rounds."""
    a_times, b_times = [], []
    async with Client(ours, read_timeout_seconds=60) as a, Client(minimal, read_timeout_seconds=60) as b:
        await call_ms(a, 10), await call_ms(b, 10)  # warm up (ours waits for its index here)
        for _ in range(rounds):
            a_times += await call_ms(a, CALLS // rounds)
            b_times += await call_ms(b, CALLS // rounds)
    return statistics.median(a_times) * 1000, statistics.median(b_times) * 1000


async def connect_and_list(params: StdioServerParameters) -> float:
    start = time.perf_counter()
    async with Client(params, read_timeout_seconds=60) as client:
        await client.list_tools()
    return time.perf_counter() - start


def ratio(label: str, ours: float, minimal: float, unit: str = "ms") -> list[Figure]:
    return [Figure(f"{label}: ours / minimal", ours / minimal, "", at_most(1.1)),
            Figure(f"{label}: ours", ours, unit), Figure(f"{label}: minimal", minimal, unit)]


async def run(folder: Path) -> list[Figure]:
    store = folder / "shop.json"
    ours = build_server(store_path=store, embedder="lexical")
    async with Client(ours) as client:
        data = (await client.call_tool("list_documents", {})).structured_content
    (folder / "data.json").write_text(json.dumps(data))

    figures = ratio("call_tool in memory", *await compare_calls(ours, minimal_server(data)))

    docs_args = ["-m", "course.servers.docs", "--embedder", "lexical", "--store", str(store)]
    ours_stdio = StdioServerParameters(command=sys.executable, args=docs_args)
    minimal_stdio = StdioServerParameters(command=sys.executable, args=["-c", MINIMAL, str(folder / "data.json")])
    figures += ratio("call_tool over stdio", *await compare_calls(ours_stdio, minimal_stdio))

    port = free_port()
    with tempfile.TemporaryFile() as log, http_server("course.servers.docs", "--embedder", "lexical", "--store",
                                                      str(store)) as url:
        proc = subprocess.Popen([sys.executable, "-c", MINIMAL, str(folder / "data.json"), str(port)], stderr=log)
        try:
            wait_for_port(port, proc, log, 30)
            figures += ratio("call_tool over HTTP", *await compare_calls(url, f"http://127.0.0.1:{port}/mcp"))
        finally:
            stop(proc)

    a, b = [], []
    for _ in range(SPAWNS):
        a.append(await connect_and_list(ours_stdio))
        b.append(await connect_and_list(minimal_stdio))
    return figures + ratio("connect + list_tools stdio", statistics.median(a), statistics.median(b), unit="s")


def main() -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        return anyio.run(run, Path(folder))


if __name__ == "__main__":
    print(*main(), sep="\n")
