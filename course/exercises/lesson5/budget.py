"""The check of lesson 5's main build: a paid search tool whose credit budget parallel calls cannot overspend.

The learner's `build_search_server(provider, credits)` gets a fake provider that is slow on purpose,
so calls that check the budget, await the request and only then spend all pass the check together.
Every request that reaches the provider is charged, answered or not; a request that is never sent
(`ConnectionError`) costs nothing; a timed-out one may have been charged.
"""

from __future__ import annotations

import asyncio
from typing import Any

from course.exercises import NotYet, exercise, run_async
from course.exercises.lesson5.client import (
    ADVICE,
    PROTOCOL_ERROR,
    call,
    in_memory,
    mcp_server,
    require_tool,
    text,
)
from course.exercises.lesson5.given import GIVEN
from course.exercises.seeds import draws

TOOL = "web_search"


class SlowProvider:
    """A paid search API: `await search(query)` answers after `delay` seconds and charges one credit."""

    def __init__(self, delay: float, failures: tuple[str, ...] = ()):
        self.delay, self.failures = delay, list(failures)  # what the next requests do: "unreachable", "timeout"
        self.charged = 0  # requests that reached the provider
        self.in_flight = self.most_in_flight = 0

    async def search(self, query: str) -> list[dict]:
        failure = self.failures.pop(0) if self.failures else None
        if failure == "unreachable":
            raise ConnectionError("the search API cannot be reached (the request was not sent)")
        self.charged += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        if failure == "timeout":
            raise TimeoutError("the search API did not answer in time")
        return [{"title": f"About {query}", "url": f"https://example.org/{len(query)}"}]


def build(build_search_server: Any, provider: SlowProvider, credits: int) -> Any:
    return mcp_server(build_search_server(provider, credits), "build_search_server(provider, credits)")


def session(server: Any, count: int, parallel: bool) -> tuple[dict, list]:
    """The server's tools and the results of `count` calls to the tool, all at once or one by one."""

    async def talk(client: Any) -> tuple[dict, list]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        calls = [lambda i=i: call(client, TOOL, {"query": f"kettle {i}"}) for i in range(count)]
        if TOOL not in tools:
            return tools, []
        if parallel:
            return tools, list(await asyncio.gather(*(c() for c in calls)))
        return tools, [await c() for c in calls]

    return run_async(lambda: in_memory(server, talk), limit=20, hint="does a call wait for a lock that is never "
                     "released? Release it on every path (async with does).")


def refusal(result: Any, what: str) -> None:
    """`result` must be an error result whose message says what to do next."""
    if isinstance(result, Exception):
        raise NotYet(f"{what} raised {type(result).__name__} in the client.", PROTOCOL_ERROR)
    message = text(result)
    if not result.is_error:
        raise NotYet(f"{what} should be an error result.",
                     "raise ToolError with advice, do not return a value.")
    if message.strip() == f"Error executing tool {TOOL}":
        raise NotYet(f"for {what} the model reads only 'Error executing tool {TOOL}'.",
                     "raise the SDK's ToolError (mcp.server.mcpserver.exceptions) with a message, not another "
                     "exception.")
    if not ADVICE.search(message.removeprefix(f"Error executing tool {TOOL}:")):
        raise NotYet(f"for {what} the message {message!r} says what went wrong, not what to do next.",
                     "add advice (e.g. 'answer from what you have', 'try again later').")


NEVER_SENT = ("a request that was never sent (ConnectionError) cost nothing: give its credit back (refund), so the "
              "session can still use it.")
TIMED_OUT = ("a request that timed out reached the provider, which may have charged it: keep the reservation "
             "(refund only when nothing was charged, e.g. a ConnectionError).")


def answers(results: list) -> list:
    """The successful results; each must carry the provider's hits."""
    good = [r for r in results if not isinstance(r, Exception) and not r.is_error]
    for r in good:
        if not isinstance((r.structured_content or {}).get("results"), list):
            raise NotYet("a successful search returned no list under 'results' (its structured content is "
                         f"{r.structured_content!r:.120}).",
                         "return a dict with the provider's hits under 'results', e.g. {'results': hits, ...}, and "
                         "annotate the return type as dict[str, Any], so the SDK sends it as structured content.")
    return good


@exercise("l5-budget", lesson=5, given=GIVEN)
def check_budget(build_search_server):
    if not callable(build_search_server):
        raise NotYet("build_search_server should be a function build_search_server(provider, credits).",
                     "keep the cell's `def build_search_server(provider, credits):` line and return the MCPServer you "
                     "build in it.")
    # Budgets the task does not show, all different, so no constant passes. The second session's is the smallest
    # (a budget shared between sessions then leaves it nothing), the parallel one the largest.
    budgets = draws().sample(range(3, 12), 5)
    (second, first, parallel), (never_sent, timed_out) = sorted(budgets[:3]), budgets[3:]
    for credits in (first, second):  # two sessions, one by one: each gets its own budget, and only that
        provider = SlowProvider(delay=0.01)
        tools, results = session(build(build_search_server, provider, credits), credits + 2, parallel=False)
        require_tool(tools, TOOL, "server")
        good = answers(results)
        if len(good) < credits and credits == second:  # the first session got all of its budget
            raise NotYet("a second server started with part of its budget spent.",
                         "keep the count inside build_search_server, so every server (every session) has a "
                         "budget of its own.")
        if not good and provider.charged == 0:
            raise NotYet("no call reached the provider.",
                         "every call failed before it (does web_search still raise NotImplementedError?). "
                         "Reserve a credit, then `hits = await provider.search(query)`, and return {'results': "
                         "hits}.")
        if len(good) > credits:
            raise NotYet("more calls succeeded than the budget allows, even one at a time.",
                         "count every credit you reserve (use the `credits` you are given), and give one back "
                         "only when its request was never sent.")
        if len(good) < credits:
            raise NotYet("fewer calls succeeded than the budget allows.",
                         "reserve one credit per call (use the `credits` you are given), and refuse only when "
                         "none is left.")
        refusal(results[-1], "a call after the budget was spent")
    # Many calls at once against a slow provider: a check that runs before any call spends lets them all in.
    provider = SlowProvider(delay=0.2)
    _, results = session(build(build_search_server, provider, parallel), parallel + 6, parallel=True)
    if provider.charged > parallel:
        raise NotYet("parallel calls overspent.",
                     "the provider received more requests than the budget allows. Every call passed the check "
                     "before any of them spent. Reserve the credit before the `await` (check and spend together, "
                     "under an asyncio.Lock), not after the answer.")
    good = answers(results)
    if provider.most_in_flight < 2 <= len(good):
        raise NotYet("the calls reached the provider one at a time.",
                     "the lock is held while waiting for the provider. Hold it only to check and reserve; "
                     "release it before the `await`.")
    if len(good) < parallel:
        raise NotYet("fewer parallel calls succeeded than the budget allows.",
                     "reserve one credit per call (use the `credits` you are given), and refuse only when no "
                     "credit is left.")
    for result in results:
        if isinstance(result, Exception) or result.is_error:
            refusal(result, "a call over the budget")
    # One by one again: the first request is never sent, or it times out.
    for credits, failure, lost, why in [
        (never_sent, "unreachable", 0, NEVER_SENT),
        (timed_out, "timeout", 1, TIMED_OUT),
    ]:
        provider = SlowProvider(delay=0.01, failures=(failure,))
        _, results = session(build(build_search_server, provider, credits), credits + 3, parallel=False)
        what = ("a call whose request could not be sent (ConnectionError)" if failure == "unreachable"
                else "a call that timed out (TimeoutError)")
        refusal(results[0], what)
        good = answers(results[1:])
        if provider.charged > credits:
            raise NotYet(f"after {what}, the session spent more than its budget.",
                         f"{why}")
        if len(good) != credits - lost:
            raise NotYet(f"after {what}, the session got {('fewer' if len(good) < credits - lost else 'more')} "
                         "answers than it should.",
                         f"{why}")
        refusal(results[-1], "a call after the budget was spent")
    return "The budget holds under parallel calls, and a credit goes back only when nothing was charged."
