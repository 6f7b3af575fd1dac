"""Lesson 8's assemble step: the whole assistant, from the learner's pieces of five lessons, answers lesson 6's
refund request through MCP (in memory, `Client(server)`, on the scripted model), next to the course's
`McpHost` + `arun_agent` on the same request.

| lesson | piece | its part |
|---|---|---|
| 2 | `run_loop` | the loop (sync: it runs in a thread, each tool call comes back to the event loop) |
| 4 | `decide`, `guard` | the policy and the approval around every call |
| 5 | `shipping` | a second server, connected and offered |
| 6 | `list_tools`, `to_openai`, `make_execute` | listing, converting and calling the servers' tools |
| 8 | `customer_orders_only`, `changed_tools` | the rule no text can talk around; nothing changed since pinning |

This lesson's pieces come from the notebook's namespace; the earlier lessons' from the learner's saved
notebooks next to it. Graded, the check takes them as `sources` when the grader has the learner's folder
(course/grading/runner.py: the cells, read there and run only in the sandbox); a notebook graded on its own
gets lesson 8's two pieces graded in the course's host.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import io
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from course.errors import NotYet
from course.exercises.assembly.pieces import Assembly, LearnersPolicy, Piece, definitions, gather, judged
from course.exercises.lesson8.given import GIVEN_TOOLS
from course.exercises.registry import REGISTRY, exercise, exercise_cells, load_all, run_async, run_cell, run_check
from course.paths import lesson_notebook

HERE = {"l8-injection-rule": "customer_orders_only", "l8-changed-tool": "changed_tools"}
EARLIER = {"l2-agent-loop": "run_loop", "l4-policy": "decide", "l4-guard": "guard", "l5-constrained-tool": "shipping",
           "l6-list-tools": "list_tools", "l6-to-openai": "to_openai", "l6-execute": "make_execute"}
ALLOW = {"search_docs", "read_section", "get_order_record", "issue_refund"}
QUESTION = "The mugs from my order A1002 arrived broken. What does your policy say? Can I get my money back?"
# What the notebook imports after its last exercise, before this cell (tests/test_exercises_lessons.py).
GIVEN = GIVEN_TOOLS + """
from course.architecture.attacks import title_pull_server
from course.host import pinning
import os
import sys
from course.host import stdio_command
from course.host.redaction import redact
from course.host.screening import stdio_review
import logging
from logging.handlers import BufferingHandler
"""


def saved(id: str, name: str, folder: Path, sources: Mapping[str, str] | None,
          notebooks: Mapping[str, str] | None = None, course: Callable[[str, str], Any] | None = None) -> Piece:
    """An earlier lesson's piece from the learner's saved notebook in `folder`, or, when `sources` is given, from
    `sources` alone ({id: cell}, read from the notebooks `notebooks` names: the grader's); the course's piece
    (`course(id, name)`, the reference solution by default) where the learner's is missing or not yet."""
    from course.exercises.assembly.pieces import reference

    ex = REGISTRY.get(id) or load_all()[id]
    course = reference if course is None else course
    if sources is not None:  # never the folder: in the grader's sandbox it is nobody's
        source, where = sources.get(id), (notebooks or {}).get(id, "the given source")
    else:
        found = lesson_notebook(folder, ex.lesson)
        where = found.name if found else f"no {ex.lesson:02d}_*.ipynb here"
        source = exercise_cells(found).get(id) if found else None
    if source is None:
        return Piece(id, name, course(id, name), False, f"not found in {where}")
    namespace, failed = run_cell(ex, id, source)
    verdict = failed or run_check(id, namespace)
    if not verdict.passed:
        return Piece(id, name, course(id, name), False, f"not yet in {where}")
    return Piece(id, name, namespace[name], True, where=where)


async def whole_assistant(p: Mapping[str, Any], question: str, store: Path) -> tuple[str, str]:
    """The learner's assistant: lesson 6's client pieces on two servers, lesson 4's guard with lesson 8's rule,
    lesson 2's loop; (answer, stop reason)."""
    from mcp import Client

    from course.agent import Limits
    from course.approval import ScriptedApprover
    from course.backend import MODEL
    from course.scripted import ScriptedModel
    from course.servers.docs import build_server
    from course.stories.lesson6 import refund_desk

    async with Client(build_server(store_path=store, embedder="lexical")) as docs, Client(p["shipping"]) as ship:
        owner, listed = {}, {}
        for server, client, allow in (("docs", docs, ALLOW), ("shipping", ship, {"shipping_cost"})):
            tools = await p["list_tools"](client, allow)
            pinned = {t.name: t for t in tools}
            changed = p["changed_tools"](pinned, await p["list_tools"](client, allow))  # lesson 8: pinned
            if changed:
                raise RuntimeError(f"changed since pinning: {sorted(changed)}")
            run = p["make_execute"](client, pinned, lambda name, args: _yes(), 10)  # the guard asks, not this
            owner[server], listed[server] = run, tools
        definitions_, routes = definitions(p["to_openai"], listed)
        risks = {name: "read" if tool.annotations and tool.annotations.read_only_hint else "write"
                 for name, tool in _named(listed, routes).items()}
        policy = LearnersPolicy(p["decide"], risks, set(routes), [p["customer_orders_only"](question)])

        async def execute(name, arguments):  # the name the model saw, back to its server's tool
            server, tool = routes[name]
            return await owner[server](tool, arguments)

        guarded = p["guard"](execute, policy, ScriptedApprover([True]))
        loop = asyncio.get_running_loop()

        async def one_call(name, arguments):
            out = await guarded(name, arguments)
            return await out if inspect.isawaitable(out) else out  # lesson 4's guard returns what execute does

        def sync_execute(name, arguments):  # lesson 2's loop is sync: its calls come back to this loop
            return asyncio.run_coroutine_threadsafe(one_call(name, arguments), loop).result(30)

        answer, stop, _ = await asyncio.to_thread(p["run_loop"], ScriptedModel(refund_desk).client(), MODEL,
                                                  [{"role": "user", "content": question}], definitions_,
                                                  sync_execute, Limits(max_steps=6))
    return answer, stop


def _named(listed: Mapping[str, list], routes: Mapping[str, tuple[str, str]]) -> dict[str, Any]:
    """{name the model sees: the Tool}."""
    tools = {(server, t.name): t for server, found in listed.items() for t in found}
    return {name: tools[route] for name, route in routes.items()}


async def _yes() -> bool:
    return True


async def courses_assistant(shipping: Any, question: str, store: Path, rule: Any = None,
                            changed_tools: Any = None) -> tuple[str, str]:
    """The course's host and loop; with lesson 8's pieces `rule` (a host rule) and `changed_tools` (asked about
    the tools the host listed, pinned as listed) when given: what the check grades, since the grader's sandbox
    has neither the earlier notebooks nor the reference solutions."""
    from course.agent import Limits, arun_agent
    from course.approval import ScriptedApprover
    from course.backend import MODEL
    from course.host import McpHost, in_memory
    from course.scripted import ScriptedModel
    from course.servers.docs import build_server
    from course.stories.lesson6 import refund_desk

    async with McpHost(approver=ScriptedApprover([True]), quiet=True, rules=[rule] if rule else []) as host:
        await host.connect("docs", in_memory(build_server(store_path=store, embedder="lexical")), allow=ALLOW)
        if shipping is not None:
            await host.connect("shipping", in_memory(shipping), allow={"shipping_cost"})
        if changed_tools is not None:
            listed = host.listed["docs"]
            if changed_tools({t.name: t for t in listed}, listed):
                return "changed since pinning", "stopped"
        result = await arun_agent(ScriptedModel(refund_desk).async_client(), MODEL, question, tools=host.tools(),
                                  execute=host.execute, limits=Limits(max_steps=6))
    return result.answer, result.stop_reason


def run_both(pieces: Mapping[str, Any]) -> tuple[tuple[str, str], tuple[str, str]]:
    """(the learner's whole assistant's answer and stop reason, the course's) on lesson 6's refund request."""
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(io.StringIO()):
        got = run_async(lambda: whole_assistant(pieces, QUESTION, Path(work) / "yours.json"), limit=60)
        want = run_async(lambda: courses_assistant(pieces["shipping"], QUESTION, Path(work) / "course.json"), 60)
    return got, want


def assemble(namespace: Mapping[str, Any], folder: Path | None = None,
             sources: Mapping[str, str] | None = None, notebooks: Mapping[str, str] | None = None) -> Assembly:
    """Lesson 8's pieces from `namespace`, the earlier lessons' from the notebooks in `folder` (the working
    folder: the kernel's is the notebook's) or from `sources` (read from `notebooks`)."""
    folder = Path.cwd() if folder is None else folder
    here = gather(HERE, namespace)
    earlier = [saved(id, name, folder, sources, notebooks) for id, name in EARLIER.items()]
    got, want = run_both({p.name: p.value for p in [*earlier, *here]})
    result = Assembly("l8-assemble", [*earlier, *here], got=got, want=want)
    result.lines = [f"the customer: {QUESTION}", f"your assistant ({got[1]}): {got[0]}"]
    return result


def _none(id: str, name: str) -> None:
    """No course piece in the grader's sandbox (it has no solutions/): a piece not the learner's is a "not yet"."""
    return None


@exercise("l8-assemble", lesson=8, given=GIVEN, uses=tuple(HERE), earlier=tuple(EARLIER))
def check_assemble(customer_orders_only, changed_tools, sources: Mapping[str, str] | None = None,
                   notebooks: Mapping[str, str] | None = None):
    """Graded. With `sources` (the earlier lessons' cells, {id: source}, from the learner's notebooks `notebooks`
    names; the grader sends them for a learner's folder): the whole assistant, every piece the learner's. Without:
    this lesson's two pieces in the course's host (the whole assistant is what the notebook shows)."""
    namespace = dict(customer_orders_only=customer_orders_only, changed_tools=changed_tools)
    if sources is not None:
        pieces = [*(saved(id, name, Path(), sources, notebooks, _none) for id, name in EARLIER.items()),
                  *gather(HERE, namespace, _none)]
        theirs = [p for p in pieces if not p.mine]
        if theirs:
            raise NotYet("the whole assistant runs only with your own pieces, and these are not yet: " +
                         "; ".join(f"{p.name} ({p.id}): {p.why}" for p in theirs),
                         "make those exercises' checks pass in their notebooks (check(...) under each), save the "
                         "notebooks in one folder, then have them graded again.")
        got, want = run_both({p.name: p.value for p in pieces})
        note = judged(Assembly("l8-assemble", pieces, got=got, want=want))
        return f"{note} Yours: " + ", ".join(f"{p.name} ({p.id}, {p.where or 'this notebook'})" for p in pieces) + "."
    pieces = gather(HERE, namespace, _none)
    if not all(p.mine for p in pieces):
        return judged(Assembly("l8-assemble", pieces))
    p = {piece.name: piece.value for piece in pieces}
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(io.StringIO()):
        got = run_async(lambda: courses_assistant(None, QUESTION, Path(work) / "yours.json",
                                                  p["customer_orders_only"](QUESTION), p["changed_tools"]), 60)
        want = run_async(lambda: courses_assistant(None, QUESTION, Path(work) / "course.json"), 60)
    return judged(Assembly("l8-assemble", pieces, got=got, want=want))
