"""MCP client: the course's `Connection.call_tool` vs the raw SDK `Client.call_tool`, same server (goal ratio <= 1.1).

Both go through the same connection to the same server, so the difference is what the course
adds per call. A third figure shows the host's whole path for a model's call
(`McpHost.execute`: lesson 4's policy and decision log, JSON parsing, result to text).
Timings alternate between the paths to spread machine noise evenly.
"""

import asyncio
import statistics
import time

from bench._figures import Figure, at_most
from course.host import McpHost, in_memory, stdio
from course.servers.env_names import server as env_server

TOOL = "environment_names"


async def timed(call, times: list[float]) -> None:
    start = time.perf_counter()
    await call()
    times.append(time.perf_counter() - start)


async def compare(host: McpHost, repeat: int) -> tuple[float, float, float]:
    connection = host.connections["env"]
    paths = {"raw": lambda: connection.client.call_tool(TOOL, {}),
             "course": lambda: connection.call_tool(TOOL, {}, 10.0),
             "host": lambda: host.execute(TOOL, "{}")}
    times: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(20):  # warm-up: the first calls fill caches
        for call in paths.values():
            await call()
    for _ in range(repeat):
        for name, call in paths.items():
            await timed(call, times[name])
    return tuple(statistics.median(times[name]) * 1000 for name in paths)


async def run() -> list[Figure]:
    figures = []
    for label, spec, repeat in [("in memory", in_memory(env_server), 500),
                                ("stdio", stdio("course.servers.env_names"), 300)]:
        async with McpHost(quiet=True) as host:
            await host.connect("env", spec, allow={TOOL})
            raw, course, whole = await compare(host, repeat)
        figures += [Figure(f"{label}: course Connection.call_tool / raw Client.call_tool", course / raw, "",
                           at_most(1.1)),
                    Figure(f"{label}: raw Client.call_tool", raw, "ms"),
                    Figure(f"{label}: course Connection.call_tool", course, "ms"),
                    Figure(f"{label}: whole McpHost.execute", whole, "ms")]
    return figures


def main() -> list[Figure]:
    return asyncio.run(run())


if __name__ == "__main__":
    print(*main(), sep="\n")
