"""Checks for lesson 2's exercises (notebooks/02_agent_loop.ipynb)."""

from __future__ import annotations

import json
import time

import openai

from course.exercises import NotYet, exercise

GIVEN = """
import json
import time
from course.agent import call_key
"""

APPEND_HINT = ("Append the model's message (message.model_dump(exclude_none=True)) to messages before its tool "
               "messages, as in lesson 1.")


def _slow_toolbox(delay: float):
    from course.orders import shop_toolbox
    from course.tools import Toolbox

    class Slow(Toolbox):
        def execute(self, name: str, arguments: str) -> str:
            time.sleep(delay)  # a tool that takes a while, like a slow database
            return super().execute(name, arguments)

    return Slow(*shop_toolbox().tools.values())


def _ask(ask_until, fake, question, toolbox, max_seconds):
    """Call the learner's loop; a request the API rejects becomes a hint, not a traceback."""
    from course.backend import MODEL

    try:
        out = ask_until(fake.client(max_retries=0), MODEL, question, toolbox, max_seconds)
    except openai.BadRequestError as e:
        detail = (e.body or {}).get("message", str(e)) if isinstance(e.body, dict) else str(e)
        hint = APPEND_HINT if "tool" in detail else "Look at what your loop sends."
        raise NotYet(f"the API rejected a request (HTTP 400: {detail}). {hint}") from None
    if any(r.get("tool_choice") == "none" for r in fake.requests):
        raise NotYet("a request set tool_choice='none': that is run_agent's controlled finish. Write your own "
                     "loop here (client.chat.completions.create, toolbox.tool_messages), not run_agent.")
    if not (isinstance(out, tuple) and len(out) == 2):
        raise NotYet(f"ask_until should return a pair (answer, stop_reason), got {out!r}.")
    return out


def _clock_run(ask_until, delay: float, max_seconds: float, give_up_after: int):
    """A model that keeps calling tools that take `delay` seconds; after `give_up_after` requests it
    answers by itself, so a loop without a clock still ends (and the check can say so)."""
    from course.scripted import ScriptedModel
    from course.stories.lesson2 import restless

    fake = ScriptedModel(lambda body: "I give up." if len(fake.requests) > give_up_after else restless(body))
    started = time.perf_counter()
    answer, reason = _ask(ask_until, fake, "Check my orders.", _slow_toolbox(delay), max_seconds)
    elapsed = time.perf_counter() - started
    if reason != "max_seconds":
        raise NotYet(f"a model that keeps calling tools should be stopped by the clock with 'max_seconds'; "
                     f"your loop ended with {reason!r} after {len(fake.requests)} requests. Compare "
                     "time.perf_counter() - start with max_seconds before each request.")
    if answer is not None:
        raise NotYet(f"when the clock stops the loop, return (None, 'max_seconds'); got ({answer!r}, {reason!r}).")
    if elapsed < max_seconds:
        raise NotYet(f"your loop returned 'max_seconds' after {elapsed:.2f} s, before max_seconds={max_seconds} "
                     f"had passed ({len(fake.requests)} requests). Stop because of the clock, not a count.")
    if elapsed > max_seconds + 0.25:
        raise NotYet(f"your loop ran {elapsed:.2f} s with max_seconds={max_seconds}: check the clock before "
                     "every request.")
    return len(fake.requests), elapsed


@exercise("l2-wall-clock", lesson=2, given=GIVEN)
def check_wall_clock(ask_until):
    from course.orders import shop_toolbox
    from course.scripted import ScriptedModel
    from course.stories.lesson2 import latest_order

    fake = ScriptedModel(latest_order)
    answer, reason = _ask(ask_until, fake, "I'm mia@example.com, where is my latest order?", shop_toolbox(), 5.0)
    if len(fake.requests) < 3:
        offered = any(r.get("tools") for r in fake.requests)
        why = ("Keep asking while the model calls tools." if offered else
               "The model answered without calling a tool: did you pass tools=toolbox.definitions()?")
        raise NotYet(f"the question needs two tool steps and an answer (3 requests); your loop sent "
                     f"{len(fake.requests)}. {why}")
    if reason != "done" or not isinstance(answer, str) or "A1001" not in answer:
        raise NotYet(f"when the model answers in time, return (its answer, 'done'); got {(answer, reason)!r}.")

    # Tools of 50 ms: 0.3 s allows about 5 steps. Tools of 10 ms: 0.5 s allows about 25, so a loop
    # that counts steps instead of watching the clock cannot pass both.
    slow, slow_time = _clock_run(ask_until, 0.05, 0.3, give_up_after=12)
    quick, quick_time = _clock_run(ask_until, 0.01, 0.5, give_up_after=60)
    if quick < 12:
        raise NotYet(f"with tools of 10 ms your loop stopped after {quick} requests, although 0.5 s leave room "
                     "for about 25: it should go on while there is time left.")
    return (f"With 50 ms tools: {slow} requests in {slow_time:.2f} s; with 10 ms tools: {quick} requests "
            f"in {quick_time:.2f} s.")


@exercise("l2-repeat-key", lesson=2, given=GIVEN)
def check_repeat_key(repeat_key):
    from course.agent import Limits, run_agent
    from course.orders import shop_toolbox
    from course.scripted import ScriptedModel, raw_call

    def key(name: str, arguments: str):
        """repeat_key(name, arguments), checked the way the loop needs it: no crash, hashable."""
        try:
            k = repeat_key(name, arguments)
        except json.JSONDecodeError:
            raise NotYet(f"arguments that are not valid JSON ({arguments!r}) must not crash the loop: "
                         "catch json.JSONDecodeError and use the text as it is.") from None
        try:
            hash(k)
        except TypeError:
            raise NotYet(f"the key must be hashable (the loop keeps keys in a set), but for {name}({arguments}) "
                         f"it is {k!r}. Use a tuple of strings or a string (json.dumps), not a dict or a "
                         "list, also for nested values.") from None
        return k

    def same(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if key(*a) != key(*b):
            raise NotYet(f"these two calls should count as repeats ({why}), but their keys differ:\n"
                         f"  {a[0]}({a[1]}) -> {key(*a)!r}\n  {b[0]}({b[1]}) -> {key(*b)!r}")

    def different(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if key(*a) == key(*b):
            raise NotYet(f"these two calls are different ({why}), but get the same key {key(*a)!r}:\n"
                         f"  {a[0]}({a[1]})\n  {b[0]}({b[1]})")

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
    different(("search", '{"limit": 3}'), ("search", '{"limit": "3"}'), "a number is not a text")
    different(("search", '{"Query": "refund"}'), ("search", '{"query": "refund"}'),
              "keys are parameter names: only string values lose their case")
    different(("search", '{"query": "re fund"}'), ("search", '{"query": "refund"}'),
              "spaces inside a text change it")
    for broken in ('{"order_id": A1001}', ""):
        same(("get_order_status", broken), ("get_order_status", broken), "identical text, even if not JSON")
    different(("get_order_status", '{"order_id": A1001}'), ("get_order_status", '{"order_id": A1002}'),
              "different text that is not JSON")

    # In the real loop: the second lookup never reaches the tool.
    toolbox, ran = shop_toolbox(), []

    def execute(name: str, arguments: str) -> str:
        ran.append(arguments)
        return toolbox.execute(name, arguments)

    fake = ScriptedModel([raw_call("find_orders", '{"email": "mia@example.com"}'),
                          raw_call("find_orders", '{"email": "MIA@example.com"}'), "You have two orders."])
    result = run_agent(fake.client(max_retries=0), "gpt-4.1-mini", "My orders?", tools=toolbox.definitions(),
                       execute=execute, limits=Limits(max_steps=3), repeat_key=repeat_key)
    if len(ran) != 1:
        raise NotYet(f"with run_agent(..., repeat_key=repeat_key) the tool ran {len(ran)} times: {ran}.")
    return f"The loop ran find_orders once, then answered: {result.answer!r}"
