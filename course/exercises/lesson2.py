"""Checks for lesson 2's exercises (notebooks/02_agent_loop.ipynb), in the order the lesson builds things.

Every check runs the learner's code on cases made up when it runs (limits, budgets, tool names,
arguments, models that call those tools), so only code that does the job in general passes.
Hints say what is wrong, then how to go about it.
"""

from __future__ import annotations

import copy
import json
import random

import openai

from course.exercises import NotYet, exercise
from course.exercises.lesson2_cases import (
    Recorder,
    calls_for,
    conversation,
    email_variants,
    made_up_tools,
    reference_run,
    rejected,
    stepper,
)

# What the notebook has imported before each exercise cell (tests/test_exercises_l2.py compares them).
GIVEN_LIMIT = """
from course.backend import connect
from course.exercises import check
from course.orders import shop_toolbox
from course.stories.lesson2 import latest_order
from course.agent import Limits, run_agent
from course.scripted import ScriptedModel
from course.stories.lesson2 import restless
from course import agent, show
"""
GIVEN_LOOP = GIVEN_LIMIT + """
import time
from course.agent import limit_reached, prompt_estimate
"""
GIVEN_KEY = GIVEN_LOOP + """
import json
"""
GIVEN_SKIP = GIVEN_KEY + """
from course.agent import REPEAT_NOTE, call_key
"""
GIVEN_FINISH = GIVEN_SKIP + """
from course.stories.lesson2 import stubborn, thorough
from course.scripted import Fail
from course.agent import FINISH_NOTE
"""

STOPS = ("max_steps", "max_tokens", "max_seconds")


# -- l2-limit-reached ---------------------------------------------------------------------------
@exercise("l2-limit-reached", lesson=2, given=GIVEN_LIMIT)
def check_limit_reached(limit_reached):
    from course.agent import Limits

    rng = random.Random()

    def ask(limits, *, tool_steps=0, tokens=0, elapsed=0.0, next_cost=100):
        try:
            got = limit_reached(limits, tool_steps=tool_steps, tokens=tokens, elapsed=elapsed, next_cost=next_cost)
        except TypeError as e:
            if limits.max_seconds is None and "NoneType" in str(e):
                raise NotYet("max_seconds may be None, which means no clock: compare elapsed with it only when "
                             "limits.max_seconds is not None.") from None
            raise
        if got is not None and got not in STOPS:
            raise NotYet(f"limit_reached should return None (go on) or one of {', '.join(map(repr, STOPS))}; "
                         f"got {got!r}.")
        return got

    for clock in rng.sample([None, None, rng.uniform(0.5, 30.0), rng.uniform(0.5, 30.0)], 4):
        steps, budget = rng.randint(1, 9), rng.randint(20, 90) * 100
        cost = rng.randint(1, budget // 4)
        limits = Limits(max_steps=steps, max_tokens=budget, max_seconds=clock)
        room = budget - 2 * cost  # the most tokens that still leave room for this step and a finish as big
        fine = dict(tool_steps=steps - 1, tokens=rng.randint(0, room), elapsed=(clock or 60.0) * 0.5, next_cost=cost)
        if ask(limits, **fine) is not None:
            raise NotYet("limit_reached stopped a run that is within every limit (fewer tool steps than "
                         "max_steps, a budget with room for this step and the finish, time left). Return None then.")
        if ask(limits, **{**fine, "tool_steps": 0, "tokens": 0, "elapsed": 0.0}) is not None:
            raise NotYet("limit_reached stopped a run before its first step, with nothing used yet: return None.")
        if ask(limits, **{**fine, "tool_steps": steps}) != "max_steps":
            raise NotYet("when tool_steps has reached max_steps (as many tool steps done as allowed), return "
                         "'max_steps': the run may not make another tool step.")
        if ask(limits, **{**fine, "tool_steps": steps + rng.randint(1, 3)}) != "max_steps":
            raise NotYet("with more tool steps done than max_steps, return 'max_steps' too.")
        if ask(limits, **{**fine, "tokens": room}) is not None:
            raise NotYet("when tokens + 2 × next_cost is exactly max_tokens, the step and a finish as big still "
                         "fit: return None. Stop only when tokens + 2 × next_cost > max_tokens.")
        over = room + rng.randint(1, cost)  # this step fits, but then the finish would not
        if ask(limits, **{**fine, "tokens": over}) != "max_tokens":
            raise NotYet("when this step would fit in the budget but leave no room for a final request as big "
                         "(tokens + next_cost ≤ max_tokens < tokens + 2 × next_cost), return 'max_tokens': the "
                         "budget must keep room for the controlled finish.")
        if ask(limits, **{**fine, "tokens": budget + rng.randint(0, 500)}) != "max_tokens":
            raise NotYet("when the tokens used already reach max_tokens, return 'max_tokens'.")
        if clock is None:
            if ask(limits, **{**fine, "elapsed": rng.uniform(1e3, 1e6)}) is not None:
                raise NotYet("with max_seconds=None there is no clock: elapsed time never stops the run.")
        else:
            if ask(limits, **{**fine, "elapsed": clock * rng.uniform(1.01, 3)}) != "max_seconds":
                raise NotYet("once elapsed has passed max_seconds, return 'max_seconds'.")
            if ask(limits, **{**fine, "elapsed": clock * 0.99}) is not None:
                raise NotYet("before max_seconds have passed, the clock does not stop the run.")
        both = ask(limits, **{**fine, "tool_steps": steps, "tokens": budget})
        if both not in ("max_steps", "max_tokens"):
            raise NotYet("when the steps and the budget are both used up, return one of them.")
    return "Every limit stops the run at the right moment, and not before."


# -- l2-agent-loop ------------------------------------------------------------------------------
def _loop(run_loop, script, limits, *, salt: str):
    """Run the learner's loop on a scripted model; what it returned, the requests it sent, the calls it ran."""
    from course.backend import MODEL
    from course.scripted import ScriptedModel

    tools, execute = script["tools"], Recorder(salt)
    messages = _question(salt)
    before = copy.deepcopy(messages)
    rule = stepper(tools, script["steps"], script["answer"], salt, script.get("parallel", False))

    def guarded(body: dict):
        if len(fake.requests) > 40:
            raise NotYet("your loop sent over 40 requests to a model that never stops calling tools: check the "
                         "limits before every request (limit_reached) and stop when one is reached.")
        return rule(body)

    fake = ScriptedModel(guarded)
    try:
        out = run_loop(fake.client(max_retries=0), MODEL, messages, tools, execute, limits)
    except openai.BadRequestError as e:
        raise rejected(e) from None
    if messages != before:
        raise NotYet("your loop changed the `messages` list it was given: copy it first "
                     "(messages = list(messages)), so the caller's conversation stays as it was.")
    if not (isinstance(out, tuple | list) and len(out) == 3):
        raise NotYet(f"run_loop should return a triple (answer, stop_reason, tokens); got {out!r:.120}.")
    return tuple(out), fake.requests, execute.calls


def _question(salt: str) -> list[dict]:
    return [{"role": "system", "content": "You are the support assistant of a small shop."},
            {"role": "user", "content": f"Please look into {salt}."}]


def _expected(script, limits, *, salt: str):
    """What a correct loop returns and sends for the same script."""
    from course.backend import MODEL
    from course.scripted import ScriptedModel

    tools = script["tools"]
    fake = ScriptedModel(stepper(tools, script["steps"], script["answer"], salt, script.get("parallel", False)))
    out = reference_run(fake.client(max_retries=0), MODEL, _question(salt), tools, Recorder(salt), limits)
    return out, fake.requests


@exercise("l2-agent-loop", lesson=2, given=GIVEN_LOOP)
def check_agent_loop(run_loop):
    from course.agent import Limits

    rng = random.Random()
    salt = f"case-{rng.getrandbits(24):x}"
    tools = made_up_tools(rng, 2)
    answer = f"All checked for {salt}."
    roomy = Limits(max_steps=20, max_tokens=1_000_000)

    # The model answers at once.
    (got, reason, tokens), requests, ran = _loop(run_loop, dict(tools=tools, steps=0, answer=answer), roomy, salt=salt)
    if not requests:
        raise NotYet("run_loop sent no request: ask the model with client.chat.completions.create(...).")
    if requests[0].get("tools") != tools:
        raise NotYet("offer the tools in every request: tools=tools.")
    if len(requests) > 1:
        raise NotYet("the model answered in text at once, but your loop sent another request: when the message "
                     "has no tool_calls, return (message.content, 'done', tokens).")
    if (got, reason) != (answer, "done"):
        raise NotYet(f"when the model answers, return (its text, 'done', tokens); got {(got, reason)!r:.120}.")

    # A few tool steps, one of them with two calls at once, then the answer.
    for parallel in (False, True):
        steps = rng.randint(1, 3)
        script = dict(tools=tools, steps=steps, answer=answer, parallel=parallel)
        limits = Limits(max_steps=steps + rng.randint(1, 3), max_tokens=1_000_000)
        (got, reason, tokens), requests, ran = _loop(run_loop, script, limits, salt=salt)
        (_, _, want_tokens, _), want_requests = _expected(script, limits, salt=salt)
        if len(requests) < len(want_requests):
            raise NotYet("a model that makes a few tool steps and then answers was stopped early: with fewer "
                         "tool steps than max_steps done, go on. Count a tool step when a response has tool calls.")
        if (got, reason) != (answer, "done"):
            raise NotYet(f"after its tool steps the model answered; return (its text, 'done', tokens), got "
                         f"{(got, reason)!r:.120}.")
        asked = [(c["function"]["name"], c["function"]["arguments"])
                 for m in want_requests[-1]["messages"] for c in m.get("tool_calls") or []]
        if ran != asked:
            raise NotYet("run every call the model asks for, once, with execute(call.function.name, "
                         "call.function.arguments).")
        sent = [m["content"] for m in requests[-1]["messages"] if m.get("role") == "tool"]
        if sent != [m["content"] for m in want_requests[-1]["messages"] if m.get("role") == "tool"]:
            raise NotYet("a tool message's content should be what execute returned for that call.")
        if tokens != want_tokens:
            raise NotYet("the tokens you return should be the sum of response.usage.total_tokens over every "
                         f"response of the run (got {tokens!r}).")

    # A model that never stops calling tools: the step limit.
    restless = dict(tools=tools, steps=None, answer=answer)
    for max_steps in sorted(rng.sample(range(1, 6), 2)) + [0]:
        limits = Limits(max_steps=max_steps, max_tokens=1_000_000)
        (got, reason, tokens), requests, ran = _loop(run_loop, restless, limits, salt=salt)
        if len(requests) > max_steps:
            raise NotYet("with a model that never stops calling tools, your loop made more tool steps than "
                         "max_steps allows. Check before every request: once tool_steps == max_steps, stop.")
        if len(requests) < max_steps:
            raise NotYet("with a model that never stops calling tools, your loop stopped early, before it had made "
                         "max_steps tool steps. Count one tool step per response with tool calls, from 0.")
        if reason != "max_steps" or got is not None:
            raise NotYet(f"when the step limit stops the run, return (None, 'max_steps', tokens); got "
                         f"{(got, reason)!r:.80}.")

    # The token budget, against the loop it should behave like: a budget that just fits a step and a finish
    # after a few steps, one that is a token short of that, and one at random.
    reply = rng.randint(5, 40) * 10
    (_, _, used, cost), _ = _expected(restless, Limits(max_steps=rng.randint(1, 3), max_tokens=10**6,
                                                       reply_tokens=reply), salt=salt)
    for budget in (used + 2 * cost, used + 2 * cost - 1, rng.randint(12, 60) * 100):
        limits = Limits(max_steps=30, max_tokens=budget, reply_tokens=reply)
        (got, reason, tokens), requests, _ = _loop(run_loop, restless, limits, salt=salt)
        (_, _, want_tokens, _), want_requests = _expected(restless, limits, salt=salt)
        if len(requests) > len(want_requests):
            raise NotYet("with a token budget, your loop sent a request the budget could not afford. Check "
                         "*before* each request: stop if tokens + 2 × next_cost > max_tokens, where next_cost = "
                         "prompt_estimate(messages, tools) + limits.reply_tokens (limit_reached does this).")
        if len(requests) < len(want_requests):
            raise NotYet("with a token budget, your loop stopped while the budget still had room. Estimate the "
                         "next request with prompt_estimate(messages, tools) + limits.reply_tokens, on the "
                         "conversation you are about to send, and count tokens from response.usage.total_tokens.")
        if reason != "max_tokens" or got is not None:
            raise NotYet(f"when the budget stops the run, return (None, 'max_tokens', tokens); got "
                         f"{(got, reason)!r:.80}.")
        if tokens != want_tokens:
            raise NotYet("the tokens you return should be the sum of response.usage.total_tokens over every "
                         "response of the run.")

    # A clock that has already run out.
    (got, reason, _), requests, _ = _loop(run_loop, restless, Limits(max_steps=9, max_seconds=1e-9), salt=salt)
    if requests or reason != "max_seconds":
        raise NotYet("with max_seconds, pass the time since the start (time.perf_counter() - start) as "
                     "limit_reached's `elapsed`: a run whose time is up must stop with 'max_seconds'.")
    return "Answers, tool steps, parallel calls, the step limit, the budget and the clock all behave."


# -- l2-repeat-key ------------------------------------------------------------------------------
@exercise("l2-repeat-key", lesson=2, given=GIVEN_KEY)
def check_repeat_key(repeat_key):
    from course.agent import Limits, run_agent
    from course.orders import shop_toolbox
    from course.scripted import ScriptedModel, raw_call

    rng = random.Random()

    def key(name: str, arguments: str):
        """repeat_key(name, arguments), checked the way the loop needs it: no crash, hashable."""
        try:
            k = repeat_key(name, arguments)
        except json.JSONDecodeError:
            raise NotYet("arguments that are not valid JSON must not crash the loop: catch json.JSONDecodeError "
                         "and use the text as it is.") from None
        except (AttributeError, TypeError, KeyError) as e:
            raise NotYet(f"for arguments that are valid JSON but not an object (a list, a text, a number or "
                         f"null), repeat_key raised {type(e).__name__}: {e}. The model can send any JSON: "
                         "normalise whatever json.loads returns, not only dicts.") from None
        try:
            hash(k)
        except TypeError:
            raise NotYet(f"the key must be hashable (the loop keeps keys in a set), but it is a "
                         f"{type(k).__name__} containing something that is not. Use a tuple of strings or a "
                         "string (json.dumps), not a dict or a list, also for nested values.") from None
        return k

    def same(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if key(*a) != key(*b):
            raise NotYet(f"two calls should count as repeats ({why}), but their keys differ.")

    def different(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if key(*a) == key(*b):
            raise NotYet(f"two calls are different ({why}), but get the same key.")

    email, shouted, other = email_variants(rng)
    tool, other_tool = rng.sample(["find_orders", "get_order_status", "search_docs", "track_parcel"], 2)
    n = rng.randint(2, 9)
    word = rng.choice(["Kettle", "Mug", "Teapot", "Lamp"])
    same((tool, json.dumps({"email": email})), (tool, json.dumps({"email": email}, indent=rng.randint(1, 3))),
         "only the spacing differs")
    same((tool, json.dumps({"query": word, "limit": n})), (tool, json.dumps({"limit": n, "query": word})),
         "only the key order differs")
    same((tool, json.dumps({"email": email})), (tool, json.dumps({"email": shouted})),
         "the text differs only in letter case and surrounding spaces")
    same((tool, json.dumps({"filter": {"tags": [word, "new"]}})),
         (tool, json.dumps({"filter": {"tags": [word.lower(), " NEW "]}})),
         "strings inside nested objects and lists count too")
    different((tool, json.dumps({"email": email})), (other_tool, json.dumps({"email": email})), "another tool")
    different((tool, json.dumps({"email": email})), (tool, json.dumps({"email": other})), "another customer")
    different((tool, json.dumps({"limit": n})), (tool, json.dumps({"limit": n + 1})), "another number")
    different((tool, json.dumps({"limit": n})), (tool, json.dumps({"limit": str(n)})), "a number is not a text")
    different((tool, json.dumps({"Query": word})), (tool, json.dumps({"query": word})),
              "keys are parameter names: only string values lose their case")
    different((tool, json.dumps({"query": f"{word} {n}"})), (tool, json.dumps({"query": f"{word}{n}"})),
              "spaces inside a text change it")
    # JSON that is not an object: the model sends it, and the loop must go on.
    same((tool, json.dumps([word, email])), (tool, json.dumps([f" {word.upper()}", shouted])),
         "a list of texts that differ only in case and spaces")
    same((tool, json.dumps(shouted)), (tool, json.dumps(email)), "one text that differs only in case and spaces")
    for value in (None, n, True):
        same((tool, json.dumps(value)), (tool, json.dumps(value)), "identical JSON that is not an object")
    different((tool, "null"), (tool, json.dumps({"email": None})), "null is not an object")
    # Text that is not JSON: only the very same text is a repeat.
    broken = f'{{"order_id": A{rng.randint(1000, 9999)}}}'
    for text in (broken, "", f"email={email}"):
        same((tool, text), (tool, text), "identical text, even if not JSON")
    different((tool, broken), (tool, broken.replace("A", "B")), "different text that is not JSON")

    # In the real loop: the second lookup never reaches the tool.
    toolbox, ran = shop_toolbox(), []

    def execute(name: str, arguments: str) -> str:
        ran.append(arguments)
        return toolbox.execute(name, arguments)

    fake = ScriptedModel([raw_call("find_orders", json.dumps({"email": email})),
                          raw_call("find_orders", json.dumps({"email": shouted})), "You have no orders."])
    result = run_agent(fake.client(max_retries=0), "gpt-4.1-mini", "My orders?", tools=toolbox.definitions(),
                       execute=execute, limits=Limits(max_steps=3), repeat_key=repeat_key)
    if len(ran) != 1 or result.stop_reason != "done":
        raise NotYet(f"with run_agent(..., repeat_key=repeat_key) the tool ran {len(ran)} times for the same "
                     "customer; it should run once.")
    return "Same call, same key: the loop ran the lookup once, then the model answered."


# -- l2-skip-repeats ----------------------------------------------------------------------------
@exercise("l2-skip-repeats", lesson=2, given=GIVEN_SKIP)
def check_skip_repeats(answer_calls):
    rng = random.Random()
    tools = made_up_tools(rng, 3)
    a, b, c = (t["function"]["name"] for t in tools)
    word = rng.choice(["kettle", "mug", "lamp"])
    email, shouted, _ = email_variants(rng)

    def loose_key(name: str, arguments: str):
        """The check's own key: letter case and spaces do not count, so `call_key` alone is not enough."""
        return name, "".join(arguments.lower().split())

    seen: set = set()
    execute = Recorder(word)

    def step(specs, what):
        calls = calls_for(rng, specs)
        before = set(seen)
        out = answer_calls(calls, execute, seen, loose_key)
        if not isinstance(out, list) or not all(isinstance(m, dict) for m in out):
            raise NotYet(f"answer_calls should return a list of tool messages (dicts); got {out!r:.100}.")
        if len(out) != len(calls):
            raise NotYet(f"for {what}, answer_calls returned {len(out)} messages for {len(calls)} calls. Every call "
                         "needs its tool message, a repeat too (the API requires one per tool_call_id): for a "
                         "repeat, a note instead of the result.")
        for m, tc in zip(out, calls, strict=True):
            if m.get("role") != "tool" or m.get("tool_call_id") != tc.id:
                raise NotYet(f"for {what}, the messages should be {{'role': 'tool', 'tool_call_id': call.id, "
                             "'content': ...}, one per call, in the order of the calls.")
            if not isinstance(m.get("content"), str):
                raise NotYet("a tool message's content must be text.")
        return calls, out, before

    first = json.dumps({"q": email})
    calls, out, before = step([(a, first), (b, json.dumps({"q": word})), (a, json.dumps({"q": shouted}))],
                              "a step that asks for the same call twice")
    runs = [n for n, _ in execute.calls]
    if runs.count(a) == 0:
        raise NotYet("a call the run has not seen before was not run. Check `seen` before you add the call's key "
                     "to it, and run the call when its key was not there.")
    if runs.count(a) > 1:
        raise NotYet("a call was run twice in one step although its key is the same as an earlier call's. Use "
                     "repeat_key(name, arguments), not the raw text, and add each key to `seen` as soon as the "
                     "call has run, so a repeat later in the same step is caught.")
    if execute.calls[:2] != [(a, first), (b, json.dumps({"q": word}))]:
        raise NotYet("run each new call with execute(call.function.name, call.function.arguments), in order.")
    note = out[2]["content"]
    if "not run" not in note.lower() or a not in note:
        raise NotYet("the message for a repeat should tell the model that the call was not run, and name the "
                     "tool: REPEAT_NOTE.format(name=...) says so, or write your own with the words 'not run'.")
    if out[0]["content"] != Recorder(word)(a, first):
        raise NotYet("the content for a call that ran should be what execute returned.")
    if len(seen) != 2 or not before <= seen:
        raise NotYet("add the key of every call you run (repeat_key(name, arguments)) to the `seen` set you were "
                     "given, and nothing else: the run keeps it from step to step.")

    # The next step: the set remembers the first one.
    count = len(execute.calls)
    calls, out, _ = step([(b, json.dumps({"q": word.upper()})), (c, json.dumps({"q": word}))],
                         "a step after it")
    if len(execute.calls) - count != 1 or execute.calls[-1][0] != c:
        raise NotYet("a call already run in an earlier step ran again: keep the keys in the `seen` set you were "
                     "given (do not start a new one), so they last from one step to the next.")
    if len(seen) != 3:
        raise NotYet("add the key of every call you run to `seen`.")
    return "New calls ran once each; repeats got a note instead, in the same step and in the next."


# -- l2-finish ----------------------------------------------------------------------------------
@exercise("l2-finish", lesson=2, given=GIVEN_FINISH)
def check_finish(final_answer):
    from course.backend import MODEL
    from course.scripted import ScriptedModel, call

    rng = random.Random()
    nonce = f"N{rng.getrandbits(24):x}"
    tools = made_up_tools(rng, 2)
    why = rng.choice(["the assistant has used all {n} tool steps it is allowed",
                      "the token budget ({n}00 tokens) does not allow another step",
                      "the time limit of {n} seconds is reached"]).format(n=rng.randint(2, 9))

    for reply in (f"I found part of it for {nonce}; the rest I could not check.", ""):
        def model(body: dict, reply=reply):
            if body.get("tool_choice") != "none" and body.get("tools"):
                return call(tools[0]["function"]["name"], q=nonce)  # tools are on: a model goes on calling them
            return reply

        fake = ScriptedModel(model)
        messages = conversation(rng, tools, nonce)
        given = copy.deepcopy(messages)
        try:
            answer = final_answer(fake.client(max_retries=0), MODEL, messages, tools, why)
        except openai.BadRequestError as e:
            raise rejected(e) from None
        if len(fake.requests) != 1:
            raise NotYet(f"final_answer should send exactly one request; it sent {len(fake.requests)}.")
        sent = fake.requests[0]
        if sent.get("tool_choice") != "none":
            raise NotYet("the last request must switch the tools off with tool_choice='none', or the model can "
                         "call another tool instead of answering.")
        if sent.get("tools") != tools:
            raise NotYet("keep the tools listed in the last request (tools=tools): the conversation has tool "
                         "calls, and tool_choice='none' switches them off without hiding them.")
        if sent["messages"][:len(given)] != given:
            raise NotYet("the last request should send the whole conversation, as it was, and then your note.")
        notes = [m for m in sent["messages"][len(given):] if why in str(m.get("content"))]
        if not notes:
            raise NotYet("add a note after the conversation that tells the model why it must answer now: put the "
                         "`why` text in it (FINISH_NOTE.format(why=why) does).")
        if reply:
            if answer != reply:
                raise NotYet(f"return the model's text (message.content); got {answer!r:.80}.")
        elif not (isinstance(answer, str) and answer.strip() and why in answer):
            raise NotYet("when the model sends empty text, return an answer of your own that says why the run "
                         f"stopped (put `why` in it), so the customer is not left with nothing; got {answer!r:.80}.")
        if messages[:len(sent["messages"])] != sent["messages"] or \
                messages[len(sent["messages"]):] != [{"role": "assistant", "content": answer}]:
            raise NotYet("append the note and then the answer ({'role': 'assistant', 'content': answer}) to "
                         "`messages`, so the conversation can go on after the finish.")
    return "Tools off, a note that says why, and an answer, even when the model sends none."
