"""Lesson 2's exercise checks accept correct solutions written in other ways and refuse the wrong ones a
learner is likely to write, each with a hint that says what is wrong (tests/test_exercises_lessons.py and
tests/test_exercises.py cover what every lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from exercise_checks import fails_with, lying, passes, reviewed, solution


# -- l2-limit-reached ----------------------------------------------------------------------------
def test_limit_reached_accepts_the_limits_checked_in_another_order():
    passes("l2-limit-reached", """
        def limit_reached(limits, *, tool_steps, tokens, elapsed, next_cost):
            hits = {
                "max_seconds": limits.max_seconds is not None and elapsed >= limits.max_seconds,
                "max_tokens": tokens + next_cost * 2 > limits.max_tokens,
                "max_steps": not tool_steps < limits.max_steps,
            }
            return next((name for name, hit in hits.items() if hit), None)
    """)


LIMIT = """
def limit_reached(limits, *, tool_steps, tokens, elapsed, next_cost):
    if {steps}:
        return "max_steps"
    if {budget}:
        return "max_tokens"
    if {clock}:
        return "max_seconds"
    return {go_on}
"""


def limit(steps="tool_steps >= limits.max_steps", budget="tokens + 2 * next_cost > limits.max_tokens",
          clock="limits.max_seconds is not None and elapsed >= limits.max_seconds", go_on="None") -> str:
    return LIMIT.format(steps=steps, budget=budget, clock=clock, go_on=go_on)


@pytest.mark.parametrize("source, hint", [
    (limit(steps="tool_steps > limits.max_steps"), "when tool_steps has reached max_steps"),
    (limit(steps="tool_steps + 1 >= limits.max_steps"), "within every limit"),
    (limit(budget="tokens + next_cost > limits.max_tokens"), "keep room for the controlled finish"),
    (limit(budget="tokens > limits.max_tokens"), "keep room for the controlled finish"),
    (limit(budget="tokens + 2 * next_cost >= limits.max_tokens"), "exactly max_tokens"),
    (limit(clock="elapsed >= limits.max_seconds"), "max_seconds may be None"),
    (limit(go_on="False"), "should return None (go on)"),
], ids=["steps-one-too-many", "steps-one-too-few", "no-room-for-the-finish", "budget-after-the-fact",
        "exact-budget-refused", "clock-without-none", "false-instead-of-none"])
def test_limit_reached_refuses_a_rule_that_only_looks_right(source, hint):
    fails_with("l2-limit-reached", source, hint)


# -- l2-agent-loop -------------------------------------------------------------------------------
def test_agent_loop_accepts_a_loop_with_its_own_budget_check_and_a_helper():
    passes("l2-agent-loop", """
        import itertools
        import time

        from course.agent import prompt_estimate


        def answer(execute, call):
            return {"role": "tool", "tool_call_id": call.id,
                    "content": execute(call.function.name, call.function.arguments)}


        def run_loop(client, model, messages, tools, execute, limits):
            conversation, used, began = [*messages], [], time.perf_counter()
            for steps in itertools.count():
                if steps == limits.max_steps:
                    return None, "max_steps", sum(used)
                cost = prompt_estimate(conversation, tools) + limits.reply_tokens
                if sum(used) + 2 * cost > limits.max_tokens:
                    return None, "max_tokens", sum(used)
                if limits.max_seconds and time.perf_counter() - began >= limits.max_seconds:
                    return None, "max_seconds", sum(used)
                reply = client.chat.completions.create(model=model, tools=tools, messages=conversation)
                used.append(reply.usage.total_tokens)
                message = reply.choices[0].message
                if not message.tool_calls:
                    return message.content, "done", sum(used)
                conversation += [message.model_dump(exclude_none=True)]
                conversation += [answer(execute, c) for c in message.tool_calls]
    """)


LOOP = """
import time

from course.agent import limit_reached, prompt_estimate


def run_loop(client, model, messages, tools, execute, limits):
    {copy}
    tokens, tool_steps, start = 0, {first_step}, time.perf_counter()
    while True:
        next_cost = {cost}
        stop = limit_reached(limits, tool_steps=tool_steps, tokens=tokens, elapsed={elapsed}, next_cost=next_cost)
        if stop:
            return None, {reason}, tokens
        response = client.chat.completions.create(model=model, messages=messages, tools=tools)
        tokens += {usage}
        {after}
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content, "done", tokens
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            messages.append({{"role": "tool", "tool_call_id": call.id,
                             "content": execute(call.function.name, call.function.arguments)}})
        tool_steps += 1
"""


def loop(copy="messages = list(messages)", first_step="0",
         cost="prompt_estimate(messages, tools) + limits.reply_tokens", elapsed="time.perf_counter() - start",
         reason="stop", usage="response.usage.total_tokens", after="pass") -> str:
    return LOOP.format(copy=copy, first_step=first_step, cost=cost, elapsed=elapsed, reason=reason, usage=usage,
                       after=after)


def test_agent_loop_check_accepts_the_template_used_below():
    passes("l2-agent-loop", loop())


BUDGET_AFTER = """if tokens > limits.max_tokens:
            return None, "max_tokens", tokens"""


@pytest.mark.parametrize("source, hint", [
    (loop(copy="pass"), "changed the `messages` list it was given"),
    (loop(first_step="1"), "stopped early"),
    (loop(first_step="-1"), "more tool steps than max_steps"),
    (loop(cost="0", after=BUDGET_AFTER), "a request the budget could not afford"),
    (loop(cost="prompt_estimate(messages, tools)"), "a request the budget could not afford"),
    (loop(cost="2 * (prompt_estimate(messages, tools) + limits.reply_tokens)"), "the budget still had room"),
    (loop(reason='"max_steps"'), "return (None, 'max_tokens', tokens)"),
    (loop(usage="response.usage.prompt_tokens"), "sum of response.usage.total_tokens"),
    (loop(elapsed="0"), "pass the time since the start"),
], ids=["mutates-the-input", "counts-steps-from-one", "one-step-too-many", "budget-checked-after",
        "no-room-for-the-reply", "estimates-too-much", "wrong-stop-reason", "prompt-tokens-only", "no-clock"])
def test_agent_loop_refuses_a_loop_that_only_looks_right(source, hint):
    fails_with("l2-agent-loop", source, hint)


def test_agent_loop_turns_an_unanswered_call_into_a_hint():
    first_only = loop().replace("for call in message.tool_calls:", "for call in message.tool_calls[:1]:")
    fails_with("l2-agent-loop", first_only, "every call in message.tool_calls needs its own tool message")


# -- l2-repeat-key -------------------------------------------------------------------------------
def test_repeat_key_accepts_a_frozen_structure_instead_of_json_text():
    passes("l2-repeat-key", """
        import json


        def freeze(value):
            if isinstance(value, str):
                return "text", value.strip().lower()
            if isinstance(value, dict):
                return "object", tuple(sorted((k, freeze(v)) for k, v in value.items()))
            if isinstance(value, list):
                return "list", tuple(freeze(v) for v in value)
            return "value", json.dumps(value)


        def repeat_key(name, arguments):
            try:
                return name, "json", freeze(json.loads(arguments))
            except ValueError:
                return name, "text", arguments
    """)


KEY = """
import json


def normalize(value):
    if isinstance(value, str):
        return {text}
    if isinstance(value, dict):
        return {{k: normalize(v) for k, v in value.items()}}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def repeat_key(name, arguments):
    {parse}
    return {key}
"""
PARSE = """try:
        data = json.loads(arguments)
    except json.JSONDecodeError:
        return name, arguments"""


def key(text="value.strip().casefold()", parse=PARSE, key="name, json.dumps(normalize(data), sort_keys=True)") -> str:
    return KEY.format(text=text, parse=parse, key=key)


def test_repeat_key_check_accepts_the_template_used_below():
    passes("l2-repeat-key", key())


@pytest.mark.parametrize("source, hint", [
    (key(key="name, json.dumps({k: normalize(v) for k, v in data.items()}, sort_keys=True)"),
     "valid JSON but not an object"),
    (key(text="value.casefold()"), "differs only in letter case and surrounding spaces"),
    (key(parse=PARSE.replace("json.loads(arguments)", "json.loads(arguments.lower())")), "keys are parameter names"),
    (key(text='"".join(value.split()).casefold()'), "spaces inside a text change it"),
    (key(key="name, normalize(data)"), "must be hashable"),
    (key(parse="data = json.loads(arguments)"), "must not crash the loop"),
], ids=["objects-only", "case-but-not-spaces", "keys-lowercased", "inner-spaces-dropped", "unhashable",
        "crashes-on-bad-json"])
def test_repeat_key_refuses_a_key_that_only_looks_right(source, hint):
    fails_with("l2-repeat-key", source, hint)


# -- l2-skip-repeats -----------------------------------------------------------------------------
def test_skip_repeats_accepts_a_note_of_its_own_and_a_helper():
    passes("l2-skip-repeats", """
        def answer_one(call, execute, seen, repeat_key):
            key = repeat_key(call.function.name, call.function.arguments)
            if key in seen:
                return f"{call.function.name}: not run again, its result is already above."
            result = execute(call.function.name, call.function.arguments)
            seen.add(key)
            return result


        def answer_calls(calls, execute, seen, repeat_key):
            return [dict(role="tool", tool_call_id=c.id, content=answer_one(c, execute, seen, repeat_key))
                    for c in calls]
    """)


SKIP = """
from course.agent import REPEAT_NOTE


def answer_calls(calls, execute, seen, repeat_key):
    {start}
    messages = []
    for call in calls:
        name, arguments = call.function.name, call.function.arguments
        key = {key}
        {before}
        if key in seen:
            {repeat}
        else:
            seen.add(key)
            content = execute(name, arguments)
        messages.append({{"role": "tool", "tool_call_id": call.id, "content": content}})
    return messages
"""


def skip(start="pass", key="repeat_key(name, arguments)", before="pass",
         repeat="content = REPEAT_NOTE.format(name=name)") -> str:
    return SKIP.format(start=start, key=key, before=before, repeat=repeat)


def test_skip_repeats_check_accepts_the_template_used_below():
    passes("l2-skip-repeats", skip())


@pytest.mark.parametrize("source, hint", [
    (skip(repeat="continue"), "Every call needs its tool message"),
    (skip(start="seen = set(seen)"), "the `seen` set you were given"),
    (skip(key="(name, arguments)"), "Use repeat_key(name, arguments), not the raw text"),
    (skip(before="seen.add(key)"), "a call the run has not seen before was not run"),
    (skip(repeat='content = "You already asked for that."'), "with the words 'not run'"),
], ids=["no-message-for-a-repeat", "a-set-of-its-own", "raw-text-as-key", "key-added-before-the-check",
        "note-that-does-not-say-not-run"])
def test_skip_repeats_refuses_code_that_only_looks_right(source, hint):
    fails_with("l2-skip-repeats", source, hint)


# -- l2-finish -----------------------------------------------------------------------------------
def test_finish_accepts_a_note_and_a_fallback_of_its_own():
    passes("l2-finish", """
        def final_answer(client, model, messages, tools, why):
            messages += [dict(role="user", content=f"Stop here ({why}). No more tools: answer the customer now.")]
            message = client.chat.completions.create(
                model=model, tools=tools, tool_choice="none", messages=messages).choices[0].message
            answer = message.content or f"Sorry, {why}, so I could not finish."
            messages += [dict(role="assistant", content=answer)]
            return answer
    """)


FINISH = """
from course.agent import FINISH_NOTE


def final_answer(client, model, messages, tools, why):
    messages.append({{"role": "user", "content": {note}}})
    response = client.chat.completions.create({options})
    answer = response.choices[0].message.content{fallback}
    {append}
    return answer
"""


def finish(note="FINISH_NOTE.format(why=why)",
           options='model=model, messages=messages, tools=tools, tool_choice="none"',
           fallback=' or f"I had to stop: {why}."', append='messages.append({"role": "assistant", "content": answer})'):
    return FINISH.format(note=note, options=options, fallback=fallback, append=append)


def test_finish_check_accepts_the_template_used_below():
    passes("l2-finish", finish())


@pytest.mark.parametrize("source, hint", [
    (finish(options="model=model, messages=messages, tools=tools"), "tool_choice='none'"),
    (finish(options='model=model, messages=messages, tool_choice="none"'),
     "tool_choice is only allowed together with tools"),
    (finish(options='model=model, messages=messages, tools=tools[:1], tool_choice="none"'),
     "keep the tools listed"),
    (finish(note='"Please answer the customer now."'), "put the `why` text in it"),
    (finish(fallback=""), "when the model sends empty text"),
    (finish(append="pass"), "append the note and then the answer"),
], ids=["tools-still-on", "tools-dropped", "some-tools-dropped", "note-without-why", "empty-answer-returned",
        "answer-not-appended"])
def test_finish_refuses_a_finish_that_only_looks_right(source, hint):
    fails_with("l2-finish", source, hint)


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
@pytest.mark.parametrize("id, source, hint", [
    ("l2-limit-reached", lying("l2-limit-reached", 'return "max_tokens"', 'return _Any("max_steps")'),
     "return 'max_tokens'"),
    ("l2-agent-loop", lying("l2-agent-loop", 'return message.content, "done", tokens',
                            'return message.content, "done", _AnyInt(0)'),
     "the tokens you return should be the sum of response.usage.total_tokens"),
    ("l2-skip-repeats", lying("l2-skip-repeats", '"tool_call_id": call.id', '"tool_call_id": _Any("")'),
     "the messages should be {'role': 'tool', 'tool_call_id': call.id"),
    ("l2-finish", lying("l2-finish", "answer = response.choices[0].message.content", 'answer = _Any("x")'),
     "return the model's text (message.content); got 'x'"),
], ids=["limit-reached", "agent-loop", "skip-repeats", "finish"])
def test_lesson_2_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)


def test_agent_loop_stops_a_loop_that_never_checks_its_limits():
    endless = solution("l2-agent-loop").replace("if stop:", "if False:")
    fails_with("l2-agent-loop", endless, "your loop sent over 40 requests")


# -- what the audit found: a loop that counts tool calls, not tool steps, passed about 1 run in 3 -------------
def test_agent_loop_refuses_a_loop_that_counts_tool_calls_instead_of_tool_steps():
    source = solution("l2-agent-loop")
    old = ('            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})\n'
           '        tool_steps += 1')
    assert old in source
    calls_counted = source.replace(old, old.replace("\n        tool_steps += 1", "\n            tool_steps += 1"))
    fails_with("l2-agent-loop", calls_counted, "however many calls it holds", tries=10)
