"""Hints in stages, used by every lesson: a failed `check(id)` shows what is wrong; `hint(id)` shows more.

A check's hint says first what is wrong, then how to go about it (course/exercises/registry.py). The
notebook shows those one at a time, and the reference solution last:

    check("l1-tool-message")    ❌ ... what is wrong                       (stage 1)
    hint("l1-tool-message")     💡 hint 1 of 2: how to go about it         (stage 2)
    hint("l1-tool-message")     💡 hint 2 of 2: solutions/l1-tool-message.py (stage 3, a last resort)
    hint("l1-tool-message")     no more hints

A check raises `NotYet(problem, how)`, the two texts as data, shown as written (no parser cuts a text
apart); a verdict of one text only (a failed `assert`, say) gets `HOW` before the solution. `trying(case)`
around a call of the learner's code makes a crash name the case that made it. The grader reports the whole
message (`Verdict.message`). Which stage a learner has reached lives in this kernel, per exercise; a verdict
with another failure starts again at stage 1, a pass clears it. `hint` never runs the learner's code again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from course.errors import NotYet
from course.paths import ROOT

if TYPE_CHECKING:  # the SDK is imported where a crash is read, not when the hints load
    import openai


class VerdictFields(Protocol):
    """What hints read of a check's verdict: registry.Verdict, which builds on this module (`skeleton`)."""

    @property
    def id(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def message(self) -> str: ...
    @property
    def stages(self) -> tuple[str, ...]: ...
    @property
    def failure(self) -> str: ...
    @property
    def seed(self) -> int | None: ...

OPEN, CLOSE = "([{", ")]}"


def scan(text: str) -> list[tuple[int, bool]]:
    """(index, in a value) for each character: inside brackets, quotes or code is a value the check
    quotes (`got {'role': 'tool'}`), which does not make two failures different (`skeleton`)."""
    marks, depth, quote = [], 0, ""
    for i, ch in enumerate(text):
        before = text[i - 1] if i else " "
        if quote:
            # An apostrophe inside a word (the model's) does not close a quote.
            if ch == quote and not (quote == "'" and text[i + 1:i + 2].isalnum()):
                quote = ""
            marks.append((i, True))
            continue
        if ch == '"' or (ch == "'" and not before.isalnum()) or (ch == "`" and "`" not in (before, text[i + 1:i + 2])):
            quote = ch
        elif ch in OPEN:
            depth += 1
        elif ch in CLOSE:
            depth = max(depth - 1, 0)
            marks.append((i, True))
            continue
        marks.append((i, depth > 0 or bool(quote)))
    return marks


def skeleton(message: str) -> str:
    """A hint's words without its values (quoted, bracketed, numbers): the same for the same fault."""
    words = "".join("…" if inside else message[i] for i, inside in scan(message))
    return re.sub(r"(\d+(\.\d+)?|…)(\s*(\d+(\.\d+)?|…))*", "…", words)


def solution_stage(id: str) -> str:
    """The last stage: where the reference solution is (empty when there is none)."""
    path = ROOT / "solutions" / f"{id}.py"
    if not path.exists():
        return ""
    return (f"the reference solution is solutions/{id}.py, the whole exercise cell (a last resort: "
            "read it, then write your own).")


@dataclass
class Reached:
    """How far one exercise's hints have been shown in this kernel, for one failure."""
    failure: str  # Verdict.failure: another one starts the stages again
    stages: tuple[str, ...]
    shown: int = 1


@dataclass
class Kernel:
    """What this kernel remembers about hints (a new kernel starts with none)."""
    reached: dict[str, Reached] = field(default_factory=dict)  # by exercise id
    told: bool = False  # has it said how to get the next hint? (once is enough)
    last: str | None = None  # the exercise that failed last, for `hint()` without an id


KERNEL = Kernel()


# For a failure whose check wrote what is wrong and nothing more (a verdict of one text): `hint` says how to go
# about it before it points to the solution.
HOW = ("try the case the message names in a cell of your own: call your function on it, print what it returns, "
       "and compare that with what the task's text asks for, point by point.")


def stages_of(verdict: VerdictFields) -> tuple[str, ...]:
    stages = tuple(verdict.stages)
    if len(stages) == 1 and not verdict.passed and verdict.failure not in ("NameError", "inspect") and \
            not verdict.message.startswith(("the cell does not run", "there is no exercise")):
        stages = (*stages, HOW)
    solution = solution_stage(verdict.id)
    return (*stages, solution) if solution else stages


def shown(verdict: VerdictFields) -> str:
    """What `check` prints for a verdict; a failure's stages so far (stage 1 unless this failure has had more)."""
    if verdict.passed:
        KERNEL.reached.pop(verdict.id, None)
        return str(verdict)
    stages = stages_of(verdict) or (verdict.message,)
    reached = KERNEL.reached.get(verdict.id)
    if reached is None or reached.failure != verdict.failure:
        reached = KERNEL.reached[verdict.id] = Reached(verdict.failure, stages)
    reached.stages = stages  # the same failure, perhaps in other words (the checks draw new cases)
    KERNEL.last = verdict.id
    lines = [f"❌ {verdict.id}: not yet. {stages[0]}"]
    if verdict.seed is not None:
        seed = verdict.seed
        lines.append(f'   (cases drawn from seed {seed}: check("{verdict.id}", seed={seed}) replays them)')
    lines += [more(verdict.id, n, stages) for n in range(2, reached.shown + 1)]
    if reached.shown < len(stages) and not KERNEL.told:
        KERNEL.told = True
        lines.append(f'   Stuck? hint("{verdict.id}") shows the next hint, one at a time.')
    return "\n".join(lines)


def more(id: str, n: int, stages: tuple[str, ...]) -> str:
    """Stage `n` as `hint` prints it. The check's verdict was stage 1, the problem; the hints are what follows
    it, counted from 1: the first `hint()` is "hint 1 of 2", never "hint 2 of 3"."""
    return f"💡 {id}, hint {n - 1} of {len(stages) - 1}: {stages[n - 1]}"


def next_hint(id: str | None = None) -> str:
    """The next stage of exercise `id`'s hint (the exercise that failed last, without an id)."""
    id = id or KERNEL.last
    if id is None:
        return 'no exercise has failed its check yet: run check("<id>") first, then hint("<id>").'
    reached = KERNEL.reached.get(id)
    if reached is None:
        return (f'no hint for {id} yet: run check("{id}") first (a hint follows a ❌; after a ✅ there is '
                "none).")
    if reached.shown >= len(reached.stages):
        return (f"no more hints for {id}: that was the last of {len(reached.stages) - 1}. Change your code, then "
                f'run check("{id}") again.')
    reached.shown += 1
    return more(id, reached.shown, reached.stages)


def hint(id: str | None = None) -> None:
    """Notebook entry point: print the next stage of an exercise's hint, after its check failed."""
    print(next_hint(id))


@contextmanager
def trying(what: str) -> Iterator[None]:
    """Name the case a check is trying: a crash of the learner's code inside says which case made it crash."""
    try:
        yield
    except NotYet:
        raise
    except Exception as e:
        if not hasattr(e, "check_case"):  # the innermost case names it
            e.check_case = what  # type: ignore[attr-defined]
        raise


def crashed(error: BaseException) -> tuple[str, str]:
    """What a crash of the learner's code says, as two stages: what crashed and where (the line of the learner's
    cell), then how to go about it, so that `hint` helps before it points to the solution."""
    import json
    import linecache

    import openai

    where = ""
    tb = error.__traceback__
    while tb is not None:  # the learner's deepest line: a frame outside the course, the SDKs and Python
        name = tb.tb_frame.f_code.co_filename
        if not any(part in name for part in ("/course/", "site-packages", "/lib/python")):
            line = linecache.getline(name, tb.tb_lineno).strip()
            if line:
                where = f", in your line `{line}`"
        tb = tb.tb_next
    case = getattr(error, "check_case", None)
    problem = (f"on {case}, your code raised {type(error).__name__} ({error}){where}." if case else
               f"your code raised {type(error).__name__} ({error}){where}, on one of the check's cases.")
    text = str(error)
    if isinstance(error, AttributeError) and "NoneType" in text:
        attribute = getattr(error, "name", None) or "an attribute"
        how = (f"in one of the check's cases the value whose `{attribute}` your code reads is None (an optional "
               "field: a tool with no annotations has `tool.annotations` None, a result may have no "
               "structured content). Test `if value is None` first and handle that case.")
    elif isinstance(error, TypeError) and "NoneType" in text:
        how = ("a value your code uses is None in one of the check's cases: an optional field, or a function of "
               "yours that returns nothing on some path. Look for None before you use it, and make every path of "
               "your function return a value.")
    elif isinstance(error, json.JSONDecodeError):
        how = ("in one of the check's cases the text your code parses is not JSON (a plain-text reply or an error "
               "message, say). Parse it inside try/except json.JSONDecodeError and handle the plain-text case.")
    elif isinstance(error, KeyError):
        how = (f"a dict in one of the check's cases has no key {error}: an optional key. Read it with "
               ".get(key, default), or test `key in d` first.")
    elif isinstance(error, IndexError):
        how = ("a list in one of the check's cases is shorter than your code expects (empty, say). Test its "
               "length, or loop over it, instead of taking a fixed index.")
    elif isinstance(error, openai.BadRequestError):  # the (scripted) API refused a request: HTTP 400
        return problem, refused(error)[1]
    else:
        how = ("the check tries inputs the notebook's example does not show: empty, missing, None, failing "
               "ones. Read the line named above, ask which input could make it fail, and handle that case.")
    return problem, how


REFUSED = "the API refused a request (HTTP 400): "


def refused(e: openai.BadRequestError) -> tuple[str, str]:
    """What a request the API refused (HTTP 400) says about what the learner's code sent (api_hints.rejected):
    what is wrong, then how to go about it."""
    detail = e.body.get("message", "") if isinstance(e.body, dict) else str(e)
    if "did not have response messages" in detail:
        return (REFUSED + "the model asked for several calls in one message, and not every one got its answer.",
                "every call in message.tool_calls needs its own tool message (answer every one), right after the "
                "assistant's message, before the next request.")
    if "must be a response to a preceeding message" in detail:
        return (REFUSED + "a tool message answers no call of the message before it.",
                "Append the assistant's message (message.model_dump(exclude_none=True)) first, then one tool "
                "message per call, with tool_call_id=call.id.")
    if "tool_choice" in detail and "only allowed when 'tools'" in detail:
        return (REFUSED + "tool_choice is only allowed together with tools.", "keep tools=tools in the request.")
    if "offered no tools" in detail:
        return (REFUSED + "the model wants to call a tool, but your request offered none.", "pass tools=tools.")
    if "Invalid type for" in detail:
        return (REFUSED + f"{detail:.120}",
                "a tool message's content must be text: the string execute(...) returns.")
    return (f"the API refused a request (HTTP 400: {detail:.120}).",
            "look at what your request sends: print the messages and tools you pass to create(...) just before "
            "the call, and compare them with the lesson's example.")
