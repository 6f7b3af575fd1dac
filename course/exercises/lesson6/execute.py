"""The check of lesson 6's execute step: `make_execute(client, tools, approve, timeout)` returns lesson 2's
`execute(name, arguments)` for one MCP client.

It runs on the document server (the notebook's example: a read, a rejected refund, a ticket, a missing
order) and on a server made up as it runs: tools that read, tools without annotations or without
`read_only_hint` (they must ask), one that fails, one that never answers, and one that the server has
but the allowlist does not.
"""

from __future__ import annotations

import inspect
import json
import re
import time
from typing import Any

from course.exercises import NotYet, exercise, run_async
from course.exercises.hints import trying
from course.exercises.lesson6.cases import (
    FAILS,
    KIND_NAMES,
    NOT_DESTRUCTIVE,
    READ,
    SLOW,
    UNANNOTATED,
    WRITES,
    docs_server,
    in_memory,
    made_server,
)
from course.exercises.lesson6.client import DOCS_ALLOW, awaited
from course.exercises.lesson6.given import GIVEN_EXECUTE
from course.exercises.seeds import draws

REJECTED = re.compile(r"reject|declin|denied|deny|not approved|refus|not run|did not run|was not|wasn't", re.IGNORECASE)
TOO_LONG = re.compile(r"time|too long|did not answer|didn't answer|no answer|slow|took|wait", re.IGNORECASE)


class Approver:
    """An `async approve(name, arguments)` that answers from a table, and records what it was asked."""

    def __init__(self, answers: dict[str, bool]):
        self.answers = answers
        self.asked: list[tuple[str, dict]] = []

    async def __call__(self, name: str, arguments: dict) -> bool:
        self.asked.append((name, arguments))
        return self.answers.get(name, False)


def executor(make_execute: Any, client: Any, tools: dict, approve: Any, timeout: float) -> Any:
    execute = make_execute(client, tools, approve, timeout)
    if inspect.iscoroutine(execute):
        execute.close()  # never awaited: close it, or Python warns about it later
        raise NotYet("make_execute(...) should return the function `execute` at once.",
                     "make make_execute a plain `def` with an `async def execute(name, arguments)` inside, and "
                     "return execute.")
    if not callable(execute):
        raise NotYet(f"make_execute(...) returned a {type(execute).__name__}, not a function.",
                     "define `async def execute(name, arguments)` inside make_execute and return it.")
    return execute


async def run(execute: Any, name: str, arguments: str, kind: str = "") -> tuple[str, float]:
    start = time.perf_counter()
    with trying(f"a call of {KIND_NAMES.get(kind, kind or 'a tool')} `{name}` with arguments {arguments}"):
        reply = await awaited(execute(name, arguments), "execute(name, arguments)")
    if not isinstance(reply, str):
        raise NotYet(f"execute returned a {type(reply).__name__}, not the text for the model.",
                     "return a str on every path: the result's text (result_text(result)), or 'Error: ...'.")
    return reply, time.perf_counter() - start


def arguments_for(tool: Any) -> dict:
    """Arguments that fit the schema well enough for a server that does not check them."""
    return {key: 1 for key in tool.input_schema.get("required", [])}


LIMIT = 10.0  # seconds for the whole conversation: a client that gives the slow tool no timeout waits this long


@exercise("l6-execute", lesson=6, given=GIVEN_EXECUTE)
def check_execute(make_execute):
    from mcp import MCPError

    if not callable(make_execute):
        raise NotYet("make_execute is not a function.",
                     "define `def make_execute(client, tools, approve, timeout)` in the cell.")
    check_on_docs(make_execute)
    rng = draws()
    made = made_server(rng, [READ, READ, UNANNOTATED, UNANNOTATED, WRITES, WRITES, NOT_DESTRUCTIVE, FAILS, SLOW,
                             READ])
    hidden = made.of_kind(READ)[-1].tool.name  # the server has it, the allowlist does not
    tools = {m.tool.name: m.tool for m in made.made if m.tool.name != hidden}
    # One writing tool of each kind is approved, the other rejected.
    answers = {m.tool.name: i % 2 == 0 for kind in (UNANNOTATED, WRITES)
               for i, m in enumerate(made.of_kind(kind))}
    answers[made.of_kind(NOT_DESTRUCTIVE)[0].tool.name] = rng.random() < 0.5
    approve = Approver(answers)
    timeout = round(rng.uniform(0.6, 0.9), 2)
    calls = [(m, json.dumps(arguments_for(m.tool))) for m in made.made if m.kind != SLOW and m.tool.name != hidden]
    slow = made.of_kind(SLOW)[0]

    async def talk(client: Any) -> dict:
        cursor = None
        while True:  # list first, as a host does: the SDK then knows each tool's output schema
            cursor = (await client.list_tools(cursor=cursor)).next_cursor
            if cursor is None:
                break
        execute = executor(make_execute, client, tools, approve, timeout)
        out: dict[str, Any] = {m.tool.name: await run(execute, m.tool.name, a, m.kind) for m, a in calls}
        before = len(made.calls), len(approve.asked)
        out["hidden"] = await run(execute, hidden, "{}", "a tool that is not in `tools`")
        out["bad json"] = await run(execute, calls[-1][0].tool.name, "{" + calls[-1][1][1:-1])
        out["bothered"] = (len(made.calls), len(approve.asked)) != before
        try:  # the learner's own timeout escaping execute (run_async would take a TimeoutError for its own)
            out["slow"] = await run(execute, slow.tool.name, "{}", SLOW)
        except (MCPError, TimeoutError) as e:
            out["slow"] = e
        out["after"] = await run(execute, calls[0][0].tool.name, calls[0][1])
        return out

    out = run_async(lambda: in_memory(made.server, talk), limit=LIMIT,
                    hint=": a slow tool kept execute waiting. Give each call the timeout: "
                         "client.call_tool(name, arguments, read_timeout_seconds=timeout)")
    if made.reached(hidden) or not out["hidden"][0].startswith("Error"):
        raise NotYet("a tool the server has but that is not in `tools` was run (or answered without 'Error').",
                     "only the tools you were given may run. For any other name return 'Error: ...' at once.")
    if not out["bad json"][0].startswith("Error") or out["bothered"]:
        raise NotYet("arguments that are not valid JSON reached the server or the approver (or got no 'Error').",
                     "parse them first inside try/except json.JSONDecodeError; on failure return 'Error: ...' that "
                     "asks for one JSON object, without calling the server or asking anyone.")
    judge_calls(calls, out, approve, made)
    judge_timeout(out, timeout, calls)
    return ("Reads run at once, anything that may write asks first, a stuck tool becomes a message, and a "
            "failure stays a failure.")


def judge_calls(calls: list, out: dict, approve: Approver, made: Any) -> None:
    """Each call that may write asked first, with its arguments as a dict; what ran is what the person approved."""
    asked = dict(approve.asked)
    for m, arguments in calls:
        name, (reply, _) = m.tool.name, out[m.tool.name]
        if m.kind in (READ, FAILS):
            judge_read_only(m, reply, asked, made)
            continue
        if name not in asked:
            if m.kind == NOT_DESTRUCTIVE:
                raise NotYet("a tool that says destructive_hint=False but has no read_only_hint ran without "
                             "asking.",
                             "Only read_only_hint=True lets a call run at once: without it, MCP assumes the tool "
                             "may write.")
            if made.reached(name) and not approve.asked:
                raise NotYet("a tool that may write ran, yet approve was never called. approve is async.",
                             "`if await approve(name, arguments):` (without await the coroutine counts as True).")
            raise NotYet("a tool without read_only_hint=True ran without asking.",
                         "call await approve(name, arguments) first (no annotations, or read_only_hint missing: "
                         "it may write).")
        if asked[name] != json.loads(arguments):
            raise NotYet("approve did not get the tool's name and its arguments as a dict.",
                         "call approve(name, json.loads(arguments)), so the person sees what will run.")
        if approve.answers[name]:
            if not made.reached(name) or reply != m.reply:
                raise NotYet("an approved call did not run or did not return its result.",
                             "after approve says True, call the tool and return result_text(result).")
        else:
            if made.reached(name):
                raise NotYet("a call the person rejected still reached the server.",
                             "run it only if approve returns True.")
            if not REJECTED.search(reply):
                raise NotYet(f"for a rejected call the model got {reply[:80]!r}.",
                             "tell the model the call was rejected and not run (so it does not retry).")


def judge_timeout(out: dict, timeout: float, calls: list) -> None:
    """A stuck tool became an 'Error' text within the timeout, and the next call still worked."""
    if isinstance(out["slow"], Exception):
        raise NotYet(f"a call that took longer than the timeout raised {type(out['slow']).__name__} out of "
                     "execute.",
                     "catch it and return a text for the model that starts with 'Error' and says it timed out.")
    reply, elapsed = out["slow"]
    if elapsed > timeout + 1.5:
        raise NotYet(f"the slow tool was given {elapsed:.1f} s.",
                     "use the `timeout` you were given (seconds per call), not a number of your own.")
    if not reply.startswith("Error") or not TOO_LONG.search(reply):
        raise NotYet(f"a call that timed out reached the model as {reply[:80]!r}.",
                     "catch the timeout around that one call and return a text that starts with 'Error' and says "
                     "the tool took too long.")
    if out["after"][0] != calls[0][0].reply and calls[0][0].kind == READ:
        raise NotYet("after a timeout the next call failed.",
                     "the connection is still fine; catch the timeout for that one call only.")


def judge_read_only(m: Any, reply: str, asked: dict, made: Any) -> None:
    """A read-only tool (or one that fails) ran at once, unasked, and its text reached the model as it was."""
    name = m.tool.name
    if name in asked:
        raise NotYet("a tool whose annotations say read_only_hint=True was sent to approve.",
                     "it only reads, so it runs at once.")
    if not made.reached(name):
        raise NotYet("a read-only tool never reached the server.",
                     "call it with await client.call_tool(name, arguments, read_timeout_seconds=timeout).")
    if m.kind == FAILS and not reply.startswith("Error"):
        raise NotYet("a call the server answered with is_error=True reads like a success.",
                     "the model cannot tell it failed. Turn the result into text with result_text(result), which "
                     "keeps the error flag.")
    if m.kind == READ and reply != m.reply:
        raise NotYet(f"for a read-only tool, execute returned {reply[:80]!r}.",
                     "return the result's text, result_text(result), as it is.")


def check_on_docs(make_execute: Any) -> None:
    """The notebook's example: the document server, a read, a rejected refund, a ticket."""
    with docs_server() as (server, store):
        on_docs(make_execute, server, store)


def on_docs(make_execute: Any, server: Any, store: Any) -> None:
    approve = Approver({"create_ticket": True, "issue_refund": False})

    async def talk(client: Any) -> tuple[str, str, str, str]:
        tools = {t.name: t for t in (await client.list_tools()).tools if t.name in DOCS_ALLOW}
        execute = executor(make_execute, client, tools, approve, 5)
        record = (await run(execute, "get_order_record", '{"order_id": "A1004"}'))[0]
        refund = (await run(execute, "issue_refund", '{"order_id": "A1004", "amount": 40, "reason": "sinks"}'))[0]
        ticket = (await run(execute, "create_ticket", '{"order_id": "A1004", "subject": "Chair", "message": '
                                                      '"It sinks."}'))[0]
        missing = (await run(execute, "get_order_record", '{"order_id": "A9999"}'))[0]
        return record, refund, ticket, missing

    record, _, ticket, missing = run_async(lambda: in_memory(server, talk), limit=15)
    if '"A1004"' not in record:
        raise NotYet(f"get_order_record for A1004 returned {record[:80]!r}.",
                     "a read-only tool runs at once: return result_text(result), the order's record as text.")
    from course.store import ShopStore

    if ShopStore(store).record("A1004")["refunded"]:
        if not approve.asked:
            raise NotYet("the refund ran, yet approve was never called. approve is async.",
                         "`if await approve(name, arguments):` (without await the coroutine counts as True).")
        raise NotYet("the refund the person rejected was paid.",
                     "run a tool that may write only if approve returns True.")
    if "T-" not in ticket:
        raise NotYet(f"the approved create_ticket returned {ticket[:80]!r}.",
                     "after approve says True, call the tool and return result_text(result).")
    if not missing.startswith("Error"):
        raise NotYet("the server answered a missing order with is_error=True, yet the text reads like an answer.",
                     "use result_text(result), which keeps the error flag.")
