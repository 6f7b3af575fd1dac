"""Lesson 2's assemble step: the lesson's three runs (the two-step question, a model that repeats a call, a
model that never stops) with the learner's loop, repeat key, repeat skipping and finish, against the course's
`run_agent` on the same scripted models."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from course.exercises.assembly.pieces import Assembly, gather, judged
from course.exercises.lesson2.given import GIVEN_FINISH
from course.exercises.registry import exercise

PIECES = {"l2-agent-loop": "run_loop", "l2-repeat-key": "repeat_key", "l2-skip-repeats": "answer_calls",
          "l2-finish": "final_answer"}
SYSTEM = {"role": "system", "content": "You are the support assistant of Northwind Goods, an online shop. "
                                       "Use the tools to look things up; never invent order details."}
# What the notebook has imported before the assemble cell (tests/test_exercises_lessons.py compares them).
GIVEN = GIVEN_FINISH + """
from course.agent import arun_agent
import asyncio
"""
QUESTION = "Hi, I'm mia@example.com. Where is my latest order?"


def assembled(pieces: Mapping[str, Any]):
    """A loop made of the pieces: `run_loop`, whose tool calls go through `answer_calls` (so a repeat is not run
    again), and `final_answer` when a limit stops it, as the course's `run_agent` does."""
    run_loop, answer_calls, final_answer = pieces["run_loop"], pieces["answer_calls"], pieces["final_answer"]

    def run(client, model, messages, tools, execute, limits):
        seen: set = set()
        transcript: list[dict] = []  # the conversation as the model saw it, and the tool messages after

        class Recording:  # the client, keeping what was sent and answered: the finish needs the conversation
            class chat:  # noqa: N801 - the SDK's shape: client.chat.completions.create
                class completions:  # noqa: N801
                    @staticmethod
                    def create(**params):
                        response = client.chat.completions.create(**params)
                        transcript[:] = [*copy.deepcopy(params["messages"]),
                                         response.choices[0].message.model_dump(exclude_none=True)]
                        return response

        def run_one(name, arguments):
            call = SimpleNamespace(id=f"call_{len(transcript)}_{name}",
                                   function=SimpleNamespace(name=name, arguments=arguments))
            (message,) = answer_calls([call], execute, seen, pieces["repeat_key"])
            transcript.append({**message, "tool_call_id": _last_call_id(transcript, len(transcript))})
            return message["content"]

        answer, stop, tokens = run_loop(Recording, model, messages, tools, run_one, limits)
        if stop != "done":
            answer = final_answer(client, model, transcript, tools, stop)
        return answer, stop

    return run


def _last_call_id(transcript: list[dict], upto: int) -> str:
    """The id of the call a tool message answers: the next unanswered call of the last assistant message."""
    answered = {m.get("tool_call_id") for m in transcript[:upto] if m.get("role") == "tool"}
    for message in reversed(transcript[:upto]):
        if message.get("role") == "assistant" and message.get("tool_calls"):
            todo = [c["id"] for c in message["tool_calls"] if c["id"] not in answered]
            return todo[0] if todo else message["tool_calls"][-1]["id"]
    return "call_0"


def stories():
    from course.agent import Limits
    from course.stories.lesson2 import latest_order, restless, stubborn

    return [("the lesson's question (two tool steps)", latest_order, QUESTION, Limits(max_steps=5)),
            ("a model that repeats its call", stubborn, QUESTION, Limits(max_steps=5)),
            ("a model that never stops (max_steps=2)", restless, QUESTION, Limits(max_steps=2))]


def assemble(namespace: Mapping[str, Any]) -> Assembly:
    from course.agent import run_agent
    from course.backend import MODEL
    from course.orders import shop_toolbox
    from course.scripted import ScriptedModel

    pieces = gather(PIECES, namespace)
    loop = assembled({p.name: p.value for p in pieces})
    result = Assembly("l2-assemble", pieces, got=[], want=[])
    for title, rule, question, limits in stories():
        toolbox = shop_toolbox()
        course = run_agent(ScriptedModel(rule).client(), MODEL, [SYSTEM, {"role": "user", "content": question}],
                           tools=toolbox.definitions(), execute=toolbox.execute, limits=limits)
        toolbox = shop_toolbox()
        answer, stop = loop(ScriptedModel(rule).client(), MODEL, [SYSTEM, {"role": "user", "content": question}],
                            toolbox.definitions(), toolbox.execute, limits)
        result.got.append((answer, stop))
        result.want.append((course.answer, course.stop_reason))
        result.lines.append(f"{title}: {stop}: {answer}")
    return result


@exercise("l2-assemble", lesson=2, given=GIVEN, uses=tuple(PIECES))
def check_assemble(run_loop, repeat_key, answer_calls, final_answer):
    return judged(assemble(dict(run_loop=run_loop, repeat_key=repeat_key, answer_calls=answer_calls,
                                final_answer=final_answer)))
