"""Lesson 7's assemble step: the lesson's story with the learner's model-half pieces on the docs server, next to the
course's adapters and `McpHost` on the same scripted model.

| piece | its part in the story |
|---|---|
| `read_response` | reads every Responses API answer (the course's `ResponsesAdapter` sends the requests) |
| `from_mcp` | turns every MCP result into the text and error flag the model reads (`Client(server)`, no host) |
| `collect` | streams Chat Completions answers to `on_text`; the course's adapter reads the same chunks for the calls |
| `success_rate` | scores the learner's assistant on held-out questions, as `summary`'s "task success" does |
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from course.adapters import ChatCompletionsAdapter, ModelTurn, ResponsesAdapter
from course.evaluation.agent import Question
from course.exercises.assembly.pieces import Assembly, gather, judged
from course.exercises.lesson7.given import GIVEN
from course.exercises.registry import exercise, run_async

PIECES = {"l7-read-response": "read_response", "l7-error-flag": "from_mcp", "l7-stream": "collect",
          "l7-success-rate": "success_rate"}
ALLOW = {"search_docs", "read_section"}
QUESTION = "How many days do I have to ask for a refund?"  # the lesson's
SECRET = ("read_section", {"document": "refunds", "section": "Secret rules"})  # section 4's failing call
# Six of tests/search_questions_heldout.json (the grader's sandbox has no tests/ folder): four BM25 finds first,
# two it does not, so a rate that counts wrongly shows.
QUESTIONS = [Question("Can I pay for my order with cash when the courier arrives?", "payments", "Ways to pay"),
             Question("Do you sell my email address to advertisers?", "privacy", "Sharing with other companies",
                      ("How we use your data",)),
             Question("Can your mugs go in the oven?", "product-care", "Stoneware mugs"),
             Question("Is sending a parcel back free?", "returns", "Who pays for return postage"),
             Question("What does express shipping cost?", "shipping", "Delivery costs"),
             Question("The box looked fine but the lamp inside was cracked when I opened it", "damaged-items",
                      "Damage found after unpacking", ("Broken glass and ceramics", "Reporting a problem"))]


class LearnersResponses(ResponsesAdapter):
    """The course's Responses adapter, each answer read by the learner's `read_response`."""

    def __init__(self, client, model: str, read_response) -> None:
        super().__init__(client, model)
        self.read_response = read_response

    def _read(self, r, history: list[dict]) -> ModelTurn:  # type: ignore[override]
        history.extend(item.model_dump(exclude_none=True) for item in r.output)
        return self.read_response(r)


class LearnersStream(ChatCompletionsAdapter):
    """Chat Completions streamed: the learner's `collect` hands the text to `on_text` and makes the answer; the
    course's adapter reads the same chunks for what `collect` does not (call fragments, stop, usage)."""

    def __init__(self, client, model: str, collect) -> None:
        super().__init__(client, model)
        self.collect = collect

    async def stream(self, history, tools, on_text) -> ModelTurn:
        extra = {"tools": tools} if tools else {}
        stream = await self.client.chat.completions.create(model=self.model, messages=history, stream=True,
                                                           stream_options={"include_usage": True}, **extra)
        chunks = [chunk async for chunk in stream]
        turn = await ChatCompletionsAdapter(_Replay(chunks), self.model).stream(history, tools, lambda piece: None)
        return dataclasses.replace(turn, text=self.collect(iter(chunks), on_text) or None)


class _Replay:
    """A client whose stream is chunks already received."""

    def __init__(self, chunks: list) -> None:
        self.chat = self
        self.completions = self
        self.chunks = chunks

    async def create(self, **_: Any):
        async def replay():
            for chunk in self.chunks:
                yield chunk

        return replay()


def mcp_execute(client, from_mcp):
    """`execute` on an MCP client with no host: each `CallToolResult` through the learner's `from_mcp`."""
    calls = iter(range(1, 1000))

    async def execute(name: str, arguments: str) -> tuple[str, bool]:
        result = from_mcp(f"call_{next(calls)}", await client.call_tool(name, json.loads(arguments or "{}")))
        return result.text, result.is_error

    return execute


async def story(make, execute, tools: list[dict], rate) -> tuple:
    """The lesson's four scenes with `make(api, script)` adapters: (answer and tools, what the model read of a
    failed call, the streamed pieces, the rate on QUESTIONS); the course's and the learner's both run this."""
    from course.adapters import run
    from course.scripted import ScriptedModel, call
    from course.stories.lesson7 import policy_desk

    asked = await run(make("Responses", ScriptedModel(policy_desk)), QUESTION, tools, execute)
    fake = ScriptedModel([call(SECRET[0], **SECRET[1]), "Sorry."])
    failed = await run(make("Responses", fake), "Read me the secret rules.", tools, execute)
    pieces: list[str] = []
    streamed = await run(make("Chat Completions", ScriptedModel(policy_desk)), QUESTION, tools, execute,
                         on_text=pieces.append)
    answers = [(await run(make("Responses", ScriptedModel(policy_desk)), q.question, tools, execute)).answer
               for q in QUESTIONS]
    return ((asked.answer, tuple(c.name for c in asked.calls)),
            (fake.requests[-1]["input"][-1]["output"], failed.results[0].is_error),
            (tuple(pieces), streamed.answer), await rate(answers))


async def yours(p: Mapping[str, Any], store: Path) -> tuple:
    from mcp import Client

    from course.backend import MODEL
    from course.host import to_openai_tool
    from course.servers.docs import build_server

    def make(api, scripted):
        if api == "Responses":
            return LearnersResponses(scripted.async_client(), MODEL, p["read_response"])
        return LearnersStream(scripted.async_client(), MODEL, p["collect"])

    async def rate(answers):
        return round(float(p["success_rate"](answers, QUESTIONS)), 2)

    async with Client(build_server(store_path=store, embedder="lexical")) as client:
        tools = [to_openai_tool(t) for t in (await client.list_tools()).tools if t.name in ALLOW]
        return await story(make, mcp_execute(client, p["from_mcp"]), tools, rate)


async def courses(store: Path) -> tuple:
    from course.adapters import host_execute
    from course.backend import MODEL
    from course.evaluation import evaluate, summary
    from course.host import McpHost, in_memory
    from course.scripted import ScriptedModel
    from course.servers.docs import build_server
    from course.stories.lesson7 import policy_desk

    def make(api, scripted):
        return (ResponsesAdapter if api == "Responses" else ChatCompletionsAdapter)(scripted.async_client(), MODEL)

    async with McpHost(quiet=True) as host:
        await host.connect("docs", in_memory(build_server(store_path=store, embedder="lexical")), allow=ALLOW)
        execute = host_execute(host)

        async def rate(answers):  # the lesson's evaluation, on Chat Completions as in section 7
            rows = await evaluate(lambda: ChatCompletionsAdapter(ScriptedModel(policy_desk).async_client(), MODEL),
                                  QUESTIONS, host.tools(), execute)
            return summary(rows)["task success"]

        return await story(make, execute, host.tools(), rate)


def assemble(namespace: Mapping[str, Any]) -> Assembly:
    pieces = gather(PIECES, namespace)
    chosen = {p.name: p.value for p in pieces}
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(io.StringIO()):
        got = run_async(lambda: yours(chosen, Path(work) / "yours.json"), limit=60)
        want = run_async(lambda: courses(Path(work) / "course.json"), limit=60)
    (answer, tools), (read, flagged), (streamed, _), rate = got
    return Assembly("l7-assemble", pieces, got=got, want=want, lines=[
        f"Responses API, {' → '.join(tools)}: {answer}",
        f"a section that does not exist: the model read {read!r:.120} (is_error {flagged})",
        f"Chat Completions, streamed in {len(streamed)} pieces: {'|'.join(streamed[:8])}|…",
        f"task success on {len(QUESTIONS)} held-out questions: {rate:.0%}"])


@exercise("l7-assemble", lesson=7, given=GIVEN, uses=tuple(PIECES))
def check_assemble(read_response, from_mcp, collect, success_rate):
    return judged(assemble(dict(read_response=read_response, from_mcp=from_mcp, collect=collect,
                                success_rate=success_rate)))
