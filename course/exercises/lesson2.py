"""Checks for lesson 2's exercises (notebooks/02_agent_loop.ipynb)."""

from __future__ import annotations

import json
import time

from course.exercises import NotYet, exercise

GIVEN = """
import json
import time
from course.agent import Limits, call_key, run_agent
"""


def _slow_toolbox(delay: float):
    from course.shop import shop_toolbox
    from course.tools import Toolbox

    class Slow(Toolbox):
        def execute(self, name: str, arguments: str) -> str:
            time.sleep(delay)  # a tool that takes a while, like a slow database
            return super().execute(name, arguments)

    return Slow(*shop_toolbox().tools.values())


@exercise("l2-wall-clock", lesson=2, given=GIVEN)
def check_wall_clock(ask_until):
    from course.backend import MODEL
    from course.scripted import ScriptedModel
    from course.shop import shop_toolbox
    from course.stories.lesson2 import latest_order, restless

    fake = ScriptedModel(latest_order)
    out = ask_until(fake.client(max_retries=0), MODEL, "I'm mia@example.com, where is my latest order?",
                    shop_toolbox(), 5.0)
    if not (isinstance(out, tuple) and len(out) == 2):
        raise NotYet(f"ask_until should return a pair (answer, stop_reason), got {out!r}.")
    answer, reason = out
    if len(fake.requests) < 3:
        raise NotYet(f"the question needs two tool steps and an answer (3 requests); your loop sent "
                     f"{len(fake.requests)}. Keep asking while the model calls tools.")
    if reason != "done" or not isinstance(answer, str) or "A1001" not in answer:
        raise NotYet(f"when the model answers in time, return (its answer, 'done'); got {out!r}.")

    # A model that never stops, with tools that take 50 ms: 0.3 s allows about 6 steps.
    # After 40 requests it gives up by itself, so a loop without a clock still ends.
    def endless(body: dict):
        return "I give up." if len(fake.requests) > 40 else restless(body)

    fake = ScriptedModel(endless)
    started = time.perf_counter()
    answer, reason = ask_until(fake.client(max_retries=0), MODEL, "Check my orders.", _slow_toolbox(0.05), 0.3)
    elapsed = time.perf_counter() - started
    if reason != "max_seconds":
        raise NotYet(f"a model that keeps calling tools should be stopped by the clock with 'max_seconds'; "
                     f"your loop ended with {reason!r} after {len(fake.requests)} requests. Compare "
                     "time.monotonic() - start with max_seconds before each request.")
    if elapsed > 0.3 + 0.25:
        raise NotYet(f"your loop ran {elapsed:.2f} s with max_seconds=0.3: check the clock before every request.")
    if len(fake.requests) < 3:
        raise NotYet("your loop stopped too early: it should go on while there is time left.")
    return f"Stopped after {len(fake.requests)} requests in {elapsed:.2f} s."


@exercise("l2-repeat-key", lesson=2, given=GIVEN)
def check_repeat_key(repeat_key):
    from course.agent import Limits, run_agent
    from course.scripted import ScriptedModel, raw_call
    from course.shop import shop_toolbox

    def same(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if repeat_key(*a) != repeat_key(*b):
            raise NotYet(f"these two calls should count as repeats ({why}), but their keys differ:\n"
                         f"  {a[0]}({a[1]}) -> {repeat_key(*a)!r}\n  {b[0]}({b[1]}) -> {repeat_key(*b)!r}")

    def different(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if repeat_key(*a) == repeat_key(*b):
            raise NotYet(f"these two calls are different ({why}), but get the same key {repeat_key(*a)!r}:\n"
                         f"  {a[0]}({a[1]})\n  {b[0]}({b[1]})")

    key = repeat_key("find_orders", '{"email": "mia@example.com"}')
    try:
        hash(key)
    except TypeError:
        raise NotYet(f"the key must be hashable (the loop keeps keys in a set); {key!r} is not. "
                     "Use a tuple or a string, not a dict or a list.") from None
    same(("find_orders", '{"email": "mia@example.com"}'), ("find_orders", '{ "email" :"mia@example.com" }'),
         "only the spacing differs")
    same(("search", '{"query": "refund", "limit": 3}'), ("search", '{"limit": 3, "query": "refund"}'),
         "only the key order differs")
    same(("find_orders", '{"email": "mia@example.com"}'), ("find_orders", '{"email": "  Mia@Example.COM "}'),
         "the text differs only in letter case and surrounding spaces")
    same(("search", '{"filter": {"tags": ["Kettle", "new"]}}'), ("search", '{"filter": {"tags": ["kettle", "NEW "]}}'),
         "strings inside nested objects and lists count too")
    different(("find_orders", '{"email": "mia@example.com"}'), ("get_order_status", '{"email": "mia@example.com"}'),
              "another tool")
    different(("find_orders", '{"email": "mia@example.com"}'), ("find_orders", '{"email": "leo@example.com"}'),
              "another customer")
    different(("search", '{"limit": 3}'), ("search", '{"limit": 4}'), "another number")
    different(("search", '{"query": "re fund"}'), ("search", '{"query": "refund"}'),
              "spaces inside a text change it")
    for broken in ('{"order_id": A1001}', ""):
        try:
            same(("get_order_status", broken), ("get_order_status", broken), "identical text, even if not JSON")
        except json.JSONDecodeError:
            raise NotYet(f"arguments that are not valid JSON ({broken!r}) must not crash the loop: "
                         "catch json.JSONDecodeError and use the text as it is.") from None

    # In the real loop: the second lookup never reaches the tool.
    toolbox, ran = shop_toolbox(), []

    def execute(name: str, arguments: str) -> str:
        ran.append(arguments)
        return toolbox.execute(name, arguments)

    fake = ScriptedModel([raw_call("find_orders", '{"email": "mia@example.com"}'),
                          raw_call("find_orders", '{"email": "MIA@example.com"}'), "You have two orders."])
    result = run_agent(fake.client(max_retries=0), "m", "My orders?", tools=toolbox.definitions(),
                       execute=execute, limits=Limits(max_steps=3), repeat_key=repeat_key)
    if len(ran) != 1:
        raise NotYet(f"with run_agent(..., repeat_key=repeat_key) the tool ran {len(ran)} times: {ran}.")
    return f"The loop ran find_orders once, then answered: {result.answer!r}"
