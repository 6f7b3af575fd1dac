"""What lesson 4's checks make up as they run, and how they call the learner's code so it cannot peek.

A check builds its calls first and works out what the answers should be only afterwards, from the
specification. The learner's function runs in a thread of its own, so no frame it could inspect
(its caller's, or any other thread's) holds an expected answer: only code that decides passes.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any

from course.exercises import NotYet
from course.exercises.lesson1.cases import FIELDS, tool_name

LIMIT = 10.0  # seconds a learner's function may take for all of a check's calls


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    changed: bool = False  # the function changed an argument it was given


def apart(fn, calls: list[tuple]) -> list[Outcome]:
    """`fn(*call)` for every call, from a fresh thread: what each returned or raised, and if it changed its input."""
    outcomes: list[Outcome] = []

    def work() -> None:
        for call in calls:
            before = copy.deepcopy(call)
            try:
                outcomes.append(Outcome(fn(*call)))
            except BaseException as e:  # noqa: BLE001 - the check says what went wrong
                outcomes.append(Outcome(error=e))
            try:
                outcomes[-1].changed = call != before
            except NotYet:  # the arguments now hold themselves: changed, for sure
                outcomes[-1].changed = True

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(LIMIT)
    if thread.is_alive():
        raise NotYet(f"your function did not return within {LIMIT:g} s.",
                     "look for a loop that never ends.")
    for o in outcomes:
        if isinstance(o.error, NotImplementedError):
            raise o.error
    return outcomes


def names(rng: random.Random, n: int) -> list[str]:
    """`n` different tool names, made up for this run."""
    taken: set[str] = set()
    for _ in range(n):
        taken.add(tool_name(rng, taken))
    return sorted(taken, key=lambda _: rng.random())


def arguments(rng: random.Random) -> dict:
    """Some arguments a model might send, with one value that tells this call from the others."""
    key = rng.choice(FIELDS)
    return {"ref": f"C{rng.getrandbits(32):08x}", key: rng.choice(["Köln", 3, 2.5, "A1004", True, None])}


def look_alikes(name: str) -> list[str]:
    """Names that are close to `name` but are other tools."""
    return [name + "_all", name[:-1], name.upper(), f" {name}", name.replace("_", "-"), f"{name}s"]


# -- a guard, driven as the agent loop drives it ------------------------------------------------------
@dataclass
class Call:
    tool: str
    arguments: dict
    answer: str = ""  # what the check's approver says if asked: "approve", "reject" or "timeout"


@dataclass
class Trace:
    """What happened during a run of a guard: every question, every call of the tool, every reply."""

    events: list[tuple[str, int, Any]] = field(default_factory=list)  # ("asked" | "called" | "ran", call, what)
    replies: list[Any] = field(default_factory=list)
    errors: list[BaseException | None] = field(default_factory=list)
    results: dict[int, str] = field(default_factory=dict)

    def of(self, kind: str, i: int) -> list[Any]:
        return [what for k, n, what in self.events if k == kind and n == i]

    def first(self, kind: str, i: int) -> int:
        return next((at for at, (k, n, _) in enumerate(self.events) if k == kind and n == i), -1)


class CheckApprover:
    """An approver with answers set in advance per call; it records what it was shown."""

    def __init__(self, calls: list[Call], trace: Trace, who: str):
        self.calls, self.trace, self.who = calls, trace, who
        self.made: list[Any] = []

    def tidy(self) -> None:
        """Close the questions a guard never awaited (the check's hint says so; Python's warning need not)."""
        for coroutine in self.made:
            coroutine.close()

    def __call__(self, request: Any):
        i = self._which(request)
        self.trace.events.append(("called", i, None))

        async def answer() -> bool:
            from course.errors import ApprovalTimeout

            self.trace.events.append(("asked", i, snapshot(request)))
            await asyncio.sleep(0)
            if i < 0:
                return False
            if self.calls[i].answer == "timeout":
                raise ApprovalTimeout("no decision in time (the check's approver)")
            return self.calls[i].answer == "approve"

        self.made.append(answer())
        return self.made[-1]

    def _which(self, request: Any) -> int:
        ref = getattr(request, "arguments", {}).get("ref") if isinstance(getattr(request, "arguments", None),
                                                                         dict) else None
        return next((i for i, c in enumerate(self.calls) if c.arguments["ref"] == ref), -1)


def snapshot(request: Any) -> Any:
    """The request as it was when asked: a guard that changes the arguments later cannot change what was shown."""
    from dataclasses import is_dataclass, replace

    shown = getattr(request, "arguments", None)
    if is_dataclass(request) and not isinstance(request, type) and isinstance(shown, dict):
        return replace(request, arguments=copy.deepcopy(request.arguments))  # type: ignore[attr-defined]
    return request


def spy(calls: list[Call], trace: Trace, rng: random.Random):
    """A tool runner (like `toolbox.execute`) that records every call it gets and answers with a made-up result."""

    def execute(name: str, arguments_json: str) -> str:
        try:
            args = json.loads(arguments_json)
        except (TypeError, ValueError):
            args = arguments_json
        ref = args.get("ref") if isinstance(args, dict) else None
        i = next((n for n, c in enumerate(calls) if c.arguments["ref"] == ref), -1)
        result = json.dumps({"done": name, "receipt": f"R{rng.getrandbits(24):06x}"})
        trace.events.append(("ran", i, (name, args)))
        trace.results[i] = result
        return result

    return execute


def drive(run, calls: list[Call], trace: Trace) -> None:
    """Call `run(name, arguments_json)` for every call, one after the other, on a fresh event loop."""
    from course.exercises import run_async

    async def all_calls() -> None:
        for call in calls:
            try:
                reply = run(call.tool, json.dumps(call.arguments, ensure_ascii=False))
                if asyncio.iscoroutine(reply) or isinstance(reply, asyncio.Future):
                    reply = await reply
                trace.replies.append(reply)
                trace.errors.append(None)
            except NotImplementedError:
                raise
            except Exception as e:  # noqa: BLE001 - the check says what went wrong
                trace.replies.append(None)
                trace.errors.append(e)

    run_async(all_calls, limit=LIMIT,
              hint="look for an await that never ends: something your guard waits for that never comes.")


def guard_case(rng: random.Random):
    """A policy, the calls a model makes and the approver's answers, all made up for this run."""
    from course.permissions import Policy

    read, write, other, off = names(rng, 4)
    limit = rng.randint(100, 900)

    def no_big_amounts(name: str, args: dict):
        amount = args.get("amount")
        return "deny" if isinstance(amount, int | float) and amount > limit else None

    policy = Policy({read: "read", write: "write", other: "write", off: "read"}, allowlist={read, write, other},
                    rules=[no_big_amounts])
    calls = [Call(read, arguments(rng)), Call(write, arguments(rng), "approve"),
             Call(write, arguments(rng), "reject"), Call(other, arguments(rng), "timeout"),
             Call(off, arguments(rng)), Call(other, {**arguments(rng), "amount": limit + rng.randint(1, 99)}),
             Call(other, {**arguments(rng), "amount": rng.randint(1, limit)}, "approve")]
    rng.shuffle(calls)
    return policy, calls
