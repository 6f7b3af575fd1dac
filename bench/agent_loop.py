"""Agent loop: overhead per step beyond the model call, with the scripted model (goal <= 1 ms median).

A run of STEPS tool steps (plus the forced finish) is timed, then the very same requests
it sent are replayed as raw SDK calls on a fresh scripted model. The difference, per model
call, is what the loop itself costs: limit checks, token estimates, repeat keys, the
transcript. The tool is instant, so tool time does not count.
"""

import asyncio
import statistics
import time

from bench._figures import Figure, at_most
from course.agent import Limits, arun_agent, run_agent
from course.orders import shop_toolbox
from course.scripted import ScriptedModel, call

STEPS = 8
REPEAT = 30
QUESTION = "I'm mia@example.com, where is my latest order?"
TOOLS = shop_toolbox().definitions()
LIMITS = Limits(max_steps=STEPS, max_tokens=1_000_000)


def busy(body: dict):
    """Calls a tool every time, with new arguments (no repeats), until tools are switched off."""
    if body.get("tool_choice") == "none":
        return "Here is what I found."
    return call("get_order_status", order_id=f"A{1000 + len(body['messages'])}")


def instant(name: str, arguments: str) -> str:
    return '{"status": "shipped"}'


def sync_pair() -> tuple[float, float, int]:
    fake = ScriptedModel(busy)
    client = fake.client(max_retries=0)
    start = time.perf_counter()
    result = run_agent(client, "gpt-4.1-mini", QUESTION, tools=TOOLS, execute=instant, limits=LIMITS)
    loop = time.perf_counter() - start
    replay = ScriptedModel(busy).client(max_retries=0)
    start = time.perf_counter()
    for body in fake.requests:
        replay.chat.completions.create(**body)
    return loop, time.perf_counter() - start, result.steps


async def async_pair() -> tuple[float, float, int]:
    fake = ScriptedModel(busy)
    async with fake.async_client(max_retries=0) as client:
        start = time.perf_counter()
        result = await arun_agent(client, "gpt-4.1-mini", QUESTION, tools=TOOLS, execute=instant, limits=LIMITS)
        loop = time.perf_counter() - start
    async with ScriptedModel(busy).async_client(max_retries=0) as replay:
        start = time.perf_counter()
        for body in fake.requests:
            await replay.chat.completions.create(**body)
        return loop, time.perf_counter() - start, result.steps


def figures(label: str, pairs: list[tuple[float, float, int]]) -> list[Figure]:
    steps = pairs[0][2]
    assert steps == STEPS + 1, f"expected {STEPS + 1} model calls, got {steps}"
    per_step = [(loop - raw) / steps * 1000 for loop, raw, _ in pairs]
    loop_ms = statistics.median(p[0] for p in pairs) / steps * 1000
    raw_ms = statistics.median(p[1] for p in pairs) / steps * 1000
    return [Figure(f"{label}: loop overhead per step (median)", statistics.median(per_step), "ms", at_most(1)),
            Figure(f"{label}: a step in the loop", loop_ms, "ms"),
            Figure(f"{label}: the raw SDK call alone", raw_ms, "ms")]


def main() -> list[Figure]:
    for _ in range(5):  # warm up imports and caches
        sync_pair()
    result = figures("sync", [sync_pair() for _ in range(REPEAT)])

    async def all_async():
        for _ in range(5):
            await async_pair()
        return [await async_pair() for _ in range(REPEAT)]

    return result + figures("async", asyncio.run(all_async()))


if __name__ == "__main__":
    print(*main(), sep="\n")
