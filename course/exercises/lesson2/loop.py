"""The check of `l2-agent-loop`: the learner's loop against a correct one, on models that answer, call tools
and never stop, under step, token and time limits."""


from __future__ import annotations

import copy
import random
from typing import Any

import openai

from course.exercises import NotYet, exercise
from course.exercises.api_hints import capped, rejected
from course.exercises.lesson2.cases import Recorder, made_up_tools, reference_run, stepper
from course.exercises.lesson2.given import GIVEN_LOOP
from course.exercises.seeds import draws


def _loop(run_loop, script, limits, *, salt: str):
    """Run the learner's loop on a scripted model; what it returned, the requests it sent, the calls it ran."""
    from course.backend import MODEL

    tools, execute = copy.deepcopy(script["tools"]), Recorder(salt)  # the learner's to change: the check's stay
    messages = _question(salt)
    before = copy.deepcopy(messages)
    rule = stepper(tools, script["steps"], script["answer"], salt, script.get("parallel", False))

    fake = capped(rule, 40, "your loop sent over 40 requests to a model that never stops calling tools.",
                  "check the limits before every request (limit_reached) and stop when one is reached.")
    try:
        out = run_loop(fake.client(max_retries=0), MODEL, messages, tools, execute, limits)
    except openai.BadRequestError as e:
        raise rejected(e) from None
    if messages != before:
        raise NotYet("your loop changed the `messages` list it was given.",
                     "copy it first (messages = list(messages)), so the caller's conversation stays as it was.")
    if not (isinstance(out, tuple | list) and len(out) == 3):
        raise NotYet(f"run_loop should return a triple (answer, stop_reason, tokens); got {out!r:.120}.",
                     "every way out of your loop (the answer, each limit) should return a tuple of three: the text or "
                     "None, the reason, the tokens counted so far.")
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


def judge_answer_at_once(run_loop: Any, rng: random.Random, tools: list, answer: str, salt: str) -> None:
    """The model answers at once: one request, its text, 'done'."""
    from course.agent import Limits

    roomy = Limits(max_steps=20, max_tokens=1_000_000)
    (got, reason, tokens), requests, ran = _loop(run_loop, dict(tools=tools, steps=0, answer=answer), roomy, salt=salt)
    if not requests:
        raise NotYet("run_loop sent no request.",
                     "ask the model with client.chat.completions.create(...).")
    if requests[0].get("tools") != tools:
        raise NotYet("offer the tools in every request.",
                     "tools=tools.")
    if len(requests) > 1:
        raise NotYet("the model answered in text at once, but your loop sent another request.",
                     "when the message has no tool_calls, return (message.content, 'done', tokens).")
    if (got, reason) != (answer, "done"):
        raise NotYet(f"when the model answers, return (its text, 'done', tokens): expected {(answer, 'done')!r:.120}, "
                     f"got {(got, reason)!r:.120}.",
                     "when the message has no tool_calls, its content is the answer: return it with the reason 'done'.")


def judge_tool_steps(run_loop: Any, rng: random.Random, tools: list, answer: str, salt: str) -> None:
    """A few tool steps, one of them with two calls at once, then the answer."""
    from course.agent import Limits

    for parallel in (False, True):
        steps = rng.randint(1, 3)
        script = dict(tools=tools, steps=steps, answer=answer, parallel=parallel)
        limits = Limits(max_steps=steps + rng.randint(1, 3), max_tokens=1_000_000)
        (got, reason, tokens), requests, ran = _loop(run_loop, script, limits, salt=salt)
        (_, _, want_tokens, _), want_requests = _expected(script, limits, salt=salt)
        if len(requests) < len(want_requests):
            raise NotYet("a model that makes a few tool steps and then answers was stopped early.",
                         "with fewer tool steps than max_steps done, go on. Count a tool step when a response "
                         "has tool calls (one step, however many calls it holds).")
        if (got, reason) != (answer, "done"):
            raise NotYet(f"after its tool steps the model answered; expected ({answer!r:.80}, 'done', tokens), got "
                         f"{(got, reason)!r:.120}.",
                         "the answer is the content of the first response without tool calls; return it with 'done', "
                         "as for a model that answers at once.")
        asked = [(c["function"]["name"], c["function"]["arguments"])
                 for m in want_requests[-1]["messages"] for c in m.get("tool_calls") or []]
        if ran != asked:
            raise NotYet(f"your loop ran {ran!r:.160}, but the model asked for {asked!r:.160}.",
                         "run every call the model asks for, once and in order, with execute(call.function.name, "
                         "call.function.arguments); with two calls in one message, run both.")
        sent = [m["content"] for m in requests[-1]["messages"] if m.get("role") == "tool"]
        if sent != [m["content"] for m in want_requests[-1]["messages"] if m.get("role") == "tool"]:
            raise NotYet(f"the tool messages sent {sent!r:.160}, not what execute returned for those calls.",
                         "use the string execute(...) returned for each call, unchanged, as its tool message's "
                         "content.")
        if tokens != want_tokens:
            raise NotYet("the tokens you return should be the sum of response.usage.total_tokens over every response "
                         f"of the run: expected {want_tokens}, got {tokens!r}.",
                         "add response.usage.total_tokens after every request, the last one (the answer) included, "
                         "starting from 0.")


def judge_step_limit(run_loop: Any, rng: random.Random, tools: list, answer: str, salt: str) -> None:
    """A model that never stops calling tools, two calls at every step: the step limit counts steps, not calls."""
    from course.agent import Limits

    restless = {"tools": tools, "steps": None, "answer": answer}
    for max_steps in sorted(rng.sample(range(2, 6), 2)) + [1, 0]:
        limits = Limits(max_steps=max_steps, max_tokens=1_000_000)
        (got, reason, tokens), requests, ran = _loop(run_loop, {**restless, "parallel": "every"}, limits, salt=salt)
        if len(requests) > max_steps:
            raise NotYet("with a model that never stops calling tools, your loop made more tool steps than "
                         "max_steps allows.",
                         "Check before every request: once tool_steps == max_steps, stop.")
        if len(requests) < max_steps:
            raise NotYet("with a model that never stops calling tools (two calls per step) and "
                         f"max_steps={max_steps}, your loop stopped early, after {len(requests)} requests, before "
                         "it had made max_steps tool steps.",
                         "Count one tool step per response with tool calls (however many calls it holds), from 0.")
        if reason != "max_steps" or got is not None:
            raise NotYet("when the step limit stops the run, return (None, 'max_steps', tokens); got "
                         f"{(got, reason)!r:.80}.",
                         "when limit_reached says 'max_steps', return at once, with None as the answer and its reason "
                         "as it is.")


def judge_budget(run_loop: Any, rng: random.Random, tools: list, answer: str, salt: str) -> None:
    """The token budget, against the loop it should behave like: a budget that just fits a step and a finish
    after a few steps, one that is a token short of that, and one at random."""
    from course.agent import Limits

    restless = {"tools": tools, "steps": None, "answer": answer}  # a model that never stops calling tools
    # after a few steps, one that is a token short of that, and one at random.
    reply = rng.randint(5, 40) * 10
    (_, _, used, cost), _ = _expected(restless, Limits(max_steps=rng.randint(1, 3), max_tokens=10**6,
                                                       reply_tokens=reply), salt=salt)
    for budget in (used + 2 * cost, used + 2 * cost - 1, rng.randint(12, 60) * 100):
        limits = Limits(max_steps=30, max_tokens=budget, reply_tokens=reply)
        (got, reason, tokens), requests, _ = _loop(run_loop, restless, limits, salt=salt)
        (_, _, want_tokens, _), want_requests = _expected(restless, limits, salt=salt)
        if len(requests) > len(want_requests):
            raise NotYet("with a token budget, your loop sent a request the budget could not afford.",
                         "Check *before* each request: stop if tokens + 2 × next_cost > max_tokens, where "
                         "next_cost = prompt_estimate(messages, tools) + limits.reply_tokens (limit_reached does "
                         "this).")
        if len(requests) < len(want_requests):
            raise NotYet("with a token budget, your loop stopped while the budget still had room.",
                         "Estimate the next request with prompt_estimate(messages, tools) + limits.reply_tokens, "
                         "on the conversation you are about to send, and count tokens from "
                         "response.usage.total_tokens.")
        if reason != "max_tokens" or got is not None:
            raise NotYet("when the budget stops the run, return (None, 'max_tokens', tokens); got "
                         f"{(got, reason)!r:.80}.",
                         "when limit_reached says 'max_tokens', return at once, with None as the answer and its "
                         "reason as it is.")
        if tokens != want_tokens:
            raise NotYet("the tokens you return should be the sum of response.usage.total_tokens over every response "
                         f"of the run: expected {want_tokens}, got {tokens!r}.",
                         "add response.usage.total_tokens after every request, and return that sum when the budget "
                         "stops the run.")


def judge_clock(run_loop: Any, rng: random.Random, tools: list, answer: str, salt: str) -> None:
    """A clock that has already run out."""
    from course.agent import Limits

    restless = {"tools": tools, "steps": None, "answer": answer}  # a model that never stops calling tools
    (got, reason, _), requests, _ = _loop(run_loop, restless, Limits(max_steps=9, max_seconds=1e-9), salt=salt)
    if requests or reason != "max_seconds":
        raise NotYet("with max_seconds, pass the time since the start (time.perf_counter() - start) as "
                     "limit_reached's `elapsed`.",
                     "a run whose time is up must stop with 'max_seconds'.")


@exercise("l2-agent-loop", lesson=2, given=GIVEN_LOOP)
def check_agent_loop(run_loop):
    rng = draws()
    salt = f"case-{rng.getrandbits(24):x}"
    tools = made_up_tools(rng, 2)
    answer = f"All checked for {salt}."
    for judge in (judge_answer_at_once, judge_tool_steps, judge_step_limit, judge_budget, judge_clock):
        judge(run_loop, rng, tools, answer, salt)
    return "Answers, tool steps, parallel calls, the step limit, the budget and the clock all behave."
