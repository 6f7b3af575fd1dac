"""MCP client: the course host's call path against the raw SDK `Client.call_tool`, same server (goal ratio <= 1.1).

Both go through the same connection to the same server, so the difference is what the host
adds per call: policy and allowlist check, decision log, JSON parsing, result to text.
Timings alternate between the two paths to spread machine noise evenly.
"""

import asyncio
import statistics
import time

from course.host import McpHost, in_memory, stdio
from course.host.env_server import server as env_server

TOOL, ARGUMENTS = "environment_names", {}


async def compare(host: McpHost, server_name: str, repeat: int) -> tuple[float, float]:
    client = host.connections[server_name].client
    raw_times, host_times = [], []
    for _ in range(20):  # warm-up: first calls import jsonschema and fill caches
        await client.call_tool(TOOL, ARGUMENTS)
        await host.execute(TOOL, "{}")
    for _ in range(repeat):
        start = time.perf_counter()
        await client.call_tool(TOOL, ARGUMENTS)
        raw_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        await host.execute(TOOL, "{}")
        host_times.append(time.perf_counter() - start)
    return statistics.median(raw_times) * 1000, statistics.median(host_times) * 1000


async def run() -> None:
    for label, spec, repeat in [("in memory", in_memory(env_server), 500),
                                ("stdio", stdio("course.host.env_server"), 300)]:
        async with McpHost(quiet=True) as host:
            await host.connect("env", spec, allow={TOOL})
            raw, course = await compare(host, "env", repeat)
        print(f"   {label:<10} raw Client.call_tool {raw:6.3f} ms · course host.execute {course:6.3f} ms · "
              f"ratio {course / raw:4.2f} (goal <= 1.1)")


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
