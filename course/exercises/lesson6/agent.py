"""The check of lesson 6's last build: the async agent loop over an MCP client's tools.

The learner's `agent(llm, model, question, tools, execute, max_steps)` runs once with the course's
host on the document server in memory (the lesson's story), then against scripted models that make
calls the learner cannot foresee (random tools, rounds and parallel calls), and against a model that
never stops asking for tools.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from course.backend import MODEL
from course.exercises import NotYet, exercise, run_async
from course.exercises.lesson6.cases import READ, docs_server, input_schema, made_server
from course.exercises.lesson6.client import DOCS_ALLOW, awaited
from course.exercises.lesson6.given import GIVEN_AGENT
from course.exercises.seeds import draws

QUESTION = "The mugs from my order A1002 arrived broken. What does your policy say? Can I get my money back?"


class Model:
    """A scripted model's rule that records each request, and what the check expects of the loop."""

    def __init__(self, rule: Any):
        self.rule = rule
        self.requests: list[dict] = []
        self.answers: list[Any] = []
        self.wrong_results = False

    def __call__(self, body: dict) -> Any:
        from course.scripted import tool_calls_since_user

        self.requests.append(body)
        if any(result != expected(name, arguments) for name, arguments, result in tool_calls_since_user(body)):
            self.wrong_results = True
        turn = self.rule(body)
        if isinstance(turn, str):
            self.answers.append(turn)
        return turn


def expected(name: str, arguments: dict) -> str:
    """What the check's `execute` answers: a text no loop can make up."""
    digest = hashlib.sha1(f"{name} {json.dumps(arguments, sort_keys=True)}".encode()).hexdigest()[:10]
    return f"{name} says {digest}"


class Execute:
    """An async `execute(name, arguments)` that counts calls made and calls awaited."""

    def __init__(self) -> None:
        self.made = self.ran = 0

    def __call__(self, name: str, arguments: str) -> Any:
        self.made += 1
        return self.run(name, arguments)

    async def run(self, name: str, arguments: str) -> str:
        self.ran += 1
        return expected(name, json.loads(arguments))


def loop(agent: Any, llm: Any, question: str, tools: list, execute: Any, max_steps: int) -> Any:
    async def go() -> Any:
        return await awaited(agent(llm, MODEL, question, tools, execute, max_steps),
                             "agent(llm, model, question, tools, execute, max_steps)")

    return guarded(go)


def guarded(go: Any) -> Any:
    """`run_async(go)`, with what typical slips raise turned into hints."""
    import openai

    try:
        return run_async(go, limit=20, hint="does the loop stop when the model answers in text? Return its text then.")
    except AttributeError as e:
        if "coroutine" in str(e):
            raise NotYet("llm is an async client (AsyncOpenAI).",
                         "`response = await llm.chat.completions.create(...)`."
                         ) from None
        raise
    except openai.BadRequestError as e:
        raise NotYet(f"the API refused a request ({e.message[:300]}).",
                         "print the messages your loop sends just before that request: every tool call needs its tool "
                         "message, right after the assistant's message (lesson 1).") from None
    except TypeError as e:
        if "coroutine" in str(e):
            raise NotYet("execute is async.",
                         "`await execute(name, arguments)` gives its text; without await the tool message holds "
                         "a coroutine.") from None
        raise NotYet(f"a request could not be sent ({e}).",
                     "the messages must be dicts, or the SDK's message objects, with text content.") from None


def scripted(rng: random.Random, names: list[str], rounds: int) -> Any:
    """A rule: `rounds` steps of 1-3 calls (random tools and arguments), then an answer."""
    from course.scripted import call

    answer = f"Done: {rng.choice(['all good', 'two left', 'refund sent'])} ({rng.randint(100, 999)})."
    plan = [[call(rng.choice(names), n=rng.randint(1, 99), word=rng.choice(["a", "b"])) for _ in range(rng.randint(
        1, 3))] for _ in range(rounds)]

    def rule(body: dict) -> Any:
        step = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        return plan[step] if step < len(plan) else answer

    return rule


def definitions(rng: random.Random) -> list[dict]:
    made = made_server(rng, [READ] * rng.randint(2, 4), pages=1).made
    return [{"type": "function", "function": {"name": m.tool.name, "description": m.tool.description,
                                              "parameters": input_schema(rng)}} for m in made]


@exercise("l6-agent", lesson=6, given=GIVEN_AGENT)
def check_agent(agent):
    from course.scripted import ScriptedModel, call

    if not callable(agent):
        raise NotYet("agent is not a function.",
                     "define `async def agent(llm, model, question, tools, execute, max_steps)` in the cell.")
    story(agent)
    rng = draws()
    for rounds, spare in [(rng.randint(2, 3), 0), (rng.randint(1, 3), rng.randint(1, 2)), (0, 0)]:
        tools = definitions(rng)
        model = Model(scripted(rng, [t["function"]["name"] for t in tools], rounds))
        execute = Execute()
        got = loop(agent, ScriptedModel(model).async_client(max_retries=0), f"Question {rng.randint(1, 999)}?",
                   tools, execute, rounds + 1 + spare)
        if execute.made > execute.ran:
            raise NotYet("execute is async.",
                         "`await execute(name, arguments)` gives its text.")
        if model.wrong_results:
            raise NotYet("a tool message holds the wrong text.",
                         "answer each call with the text `await execute(call.function.name, "
                         "call.function.arguments)` returns, under that call's id.")
        if len(model.requests) < rounds + 1:
            raise NotYet("the loop stopped before the model answered.",
                         "while the model asks for tools, run them and ask again" + (
                             " (the answer may come on the last allowed step: max_steps counts requests, all of "
                             "them)." if spare == 0 and rounds else "."))
        if any("tools" not in body for body in model.requests):
            raise NotYet("a request went out without the tools.",
                         "pass tools=tools on every request.")
        if got != model.answers[-1]:
            raise NotYet(f"agent returned {str(got)[:80]!r}, not the model's answer.",
                         "return message.content of the response that asks for no tool.")
    max_steps = rng.randint(2, 4)
    tools = definitions(rng)
    name = tools[0]["function"]["name"]
    model = Model(lambda body: call(name, n=len(body["messages"])))  # never done
    got = loop(agent, ScriptedModel(model).async_client(max_retries=0), "Loop forever?", tools, Execute(), max_steps)
    if len(model.requests) != max_steps:
        more = "more" if len(model.requests) > max_steps else "fewer"
        raise NotYet(f"with a model that never stops calling tools, the loop sent {more} requests than max_steps "
                     "allows.",
                     "send at most max_steps requests (count the first one too), then stop.")
    if not isinstance(got, str) or not got.strip():
        raise NotYet(f"when the step limit ended the loop, agent returned {got!r}.",
                     "return a short text that says the step limit was reached: the user gets an answer either way.")
    return "The loop asks, runs every call through execute, and stops at an answer or at the step limit."


def story(agent: Any) -> None:
    """The lesson's story: the course's host on the document server, in memory, with the scripted model."""
    from course.host import McpHost, in_memory
    from course.scripted import ScriptedModel
    from course.stories.lesson6 import refund_desk

    model = Model(refund_desk)

    async def yes(request: Any) -> bool:
        return True

    async def go() -> tuple[Any, list]:
        async with McpHost(approver=yes, quiet=True) as host:
            await host.connect("docs", in_memory(server), allow=DOCS_ALLOW)
            reply = await awaited(agent(ScriptedModel(model).async_client(max_retries=0), MODEL, QUESTION,
                                        host.tools(), host.execute, 6),
                                  "agent(llm, model, question, tools, execute, max_steps)")
            return reply, [o.tool for o in host.outcomes]

    with docs_server() as (server, _):
        reply, ran = guarded(go)
    if not ran:
        raise NotYet("no tool call reached the document server.",
                     "run each of the model's calls with `await execute(call.function.name, "
                     "call.function.arguments)`.")
    if not model.answers or reply != model.answers[-1]:
        raise NotYet(f"for the lesson's question, agent returned {str(reply)[:80]!r}.",
                     "return the model's answer text (message.content) once it answers without asking for a tool.")
