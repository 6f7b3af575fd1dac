"""The exercise registry and the in-notebook API, used by every lesson.

In a notebook, an exercise is two cells:

    # EXERCISE l1-tool-message          <- the learner edits this cell
    def tool_message(call, result): ...

    check("l1-tool-message")            <- prints a verdict; never stops Run All

A check is a function registered with `@exercise`; its parameter names are the names
it takes from the learner's namespace. It raises `NotYet(problem, how)` when the solution is not there yet:
two texts, what is wrong and how to go about it (hints as data: no parser cuts them apart). `check`
shows the problem; `hint(id)` shows how, then where the reference solution is (course/exercises/hints.py).
Reference solutions live in
`solutions/<id>.py`; `tests/test_exercises.py` proves each check passes on its solution
and fails on the notebook's stub. Mentors grade learners' notebooks in a sandbox with
`python -m course.grading` (course/grading/).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import linecache
import pkgutil
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.errors import DuplicateExercise, NotYet
from course.exercises import hints, seeds

MARKER = "# EXERCISE "
STUB = ("your code still raises NotImplementedError",
        "replace the stub in the exercise cell with your solution, run it, then run this check again.")


@dataclass(frozen=True)
class Exercise:
    id: str
    lesson: int
    check: Callable[..., Any]
    given: str  # code run before the learner's cell when it is checked outside the notebook
    # The exercises whose cells an assemble step runs with (course/exercises/assembly/): graded on its own, the
    # assemble cell needs theirs before it.
    uses: tuple[str, ...] = ()
    # The exercises of earlier lessons whose cells, read from the learner's saved notebooks, the check can take
    # as its optional `sources` (lesson 8's whole assistant; the grader sends them when a learner has a folder).
    earlier: tuple[str, ...] = ()

    @property
    def needs(self) -> list[str]:
        """The names the check takes from the learner's namespace: its parameters without a default (one with a
        default is the grader's to give, never the learner's namespace)."""
        return [n for n, p in inspect.signature(self.check).parameters.items() if p.default is inspect.Parameter.empty]


@dataclass(frozen=True)
class Verdict:
    id: str
    passed: bool
    message: str  # the whole hint: what the grader reports
    # The hint in stages, for the notebook (what is wrong, how to go about it; the message alone when a check
    # wrote one text); and what failed where, so that a new failure starts the stages again. Neither takes part
    # in comparing verdicts.
    stages: tuple[str, ...] = field(default=(), compare=False)
    failure: str = field(default="", compare=False, repr=False)
    # The seed the check drew its cases from, when it drew any: check(id, seed=...) replays them.
    seed: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.passed and not self.stages:
            object.__setattr__(self, "stages", (self.message,))
        if not self.passed and not self.failure:
            object.__setattr__(self, "failure", self.message)

    def __str__(self) -> str:
        return (f"✅ {self.id}: passed. {self.message}".rstrip() if self.passed
                else f"❌ {self.id}: not yet. {self.message}")


REGISTRY: dict[str, Exercise] = {}


def exercise(id: str, *, lesson: int, given: str = "", uses: tuple[str, ...] = (),
             earlier: tuple[str, ...] = ()) -> Callable:
    """Register a check function under a stable exercise id."""

    def register(check: Callable) -> Callable:
        old = REGISTRY.get(id)
        # Re-importing the same module (a reload) registers the same function again: that is fine.
        if old is not None and (old.check.__module__, old.check.__qualname__) != (check.__module__, check.__qualname__):
            raise DuplicateExercise(f"exercise id {id!r} is already registered by "
                                    f"{old.check.__module__}.{old.check.__qualname__}; give "
                                    f"{check.__module__}.{check.__qualname__} an id of its own.")
        REGISTRY[id] = Exercise(id, lesson, check, given, tuple(uses), tuple(earlier))
        return check

    return register


def load_all() -> dict[str, Exercise]:
    """Import every `course.exercises.lessonN` module, and the assemble steps, so all checks are registered."""
    here = Path(__file__).parent
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith("lesson"):
            importlib.import_module(f"{__package__}.{info.name}")
    for info in pkgutil.iter_modules([str(here / "assembly")]):
        importlib.import_module(f"{__package__}.assembly.{info.name}")
    return REGISTRY


def run_check(id: str, namespace: dict, seed: int | None = None) -> Verdict:
    """Run one check against a namespace (its cases drawn from `seed`, or from the code's). Never raises."""
    ex = REGISTRY.get(id) or load_all().get(id)
    if ex is None:
        message = f"there is no exercise {id!r}. Known: {', '.join(sorted(REGISTRY))}."
        return Verdict(id, False, message, stages=(message,))
    return judge(ex, namespace, seed)


def judge(ex: Exercise, namespace: dict, seed: int | None = None, options: dict | None = None) -> Verdict:
    """Run an exercise's check against a namespace (and `options`, its optional parameters, from the grader). Never
    raises.

    The check draws its cases from `seed`; without one, from a seed made of the learner's code, so the same
    code gets the same verdict on every run (course/exercises/seeds.py). A failure on drawn cases says its seed."""
    id = ex.id
    missing = [n for n in ex.needs if n not in namespace]
    if missing:
        names = f"`{'`, `'.join(missing)}`"
        problem, how = f"there is no {names} in this kernel yet.", f"define {names} in the exercise cell and run " \
                                                                  "that cell first."
        return Verdict(id, False, joined(problem, how), stages=(problem, how), failure="NameError")
    seed = seeds.of_code([namespace[n] for n in ex.needs]) if seed is None else seed
    verdict = _judge(ex, namespace, seed, options or {})
    if not verdict.passed and seeds.drawn() and verdict.failure not in ("NotImplementedError", "NameError"):
        object.__setattr__(verdict, "seed", seed)
    return verdict


def _judge(ex: Exercise, namespace: dict, seed: int, options: dict) -> Verdict:
    id = ex.id
    seeds.start(seed)
    try:
        note = ex.check(*(namespace[n] for n in ex.needs), **options)
    except NotYet as e:
        if len(e.args) == 2:  # hints as data: NotYet(problem, how), no parser needed
            problem, how = map(str, e.args)
            return Verdict(id, False, joined(problem, how), stages=(problem, how), failure=raised_at(e))
        return Verdict(id, False, str(e), failure=raised_at(e))  # one text: `hint` adds hints.HOW
    except NotImplementedError:
        wrong, how = STUB
        return Verdict(id, False, f"{wrong}: {how}", stages=(f"{wrong}.", how), failure="NotImplementedError")
    except AssertionError as e:
        return Verdict(id, False, str(e) or "a check failed.", failure=raised_at(e))
    except Exception as e:  # the learner's code crashed: show what, without a traceback
        hint = undefined(e)
        if hint:  # the name is another cell's: the hint says what to do, in stages
            return Verdict(id, False, joined(*hint), stages=hint, failure="NameError")
        problem, how = hints.crashed(e)
        return Verdict(id, False, f"{problem} {how}", stages=(problem, how), failure=type(e).__name__)
    return Verdict(id, True, note or "")


def joined(problem: str, how: str) -> str:
    """The whole hint, as the grader reports it: "what is wrong: how to go about it" (or two sentences)."""
    return f"{problem} {how}" if how[:1].isupper() else f"{problem.rstrip('.')}: {how}"


def raised_at(e: BaseException) -> str:
    """Where a check raised its hint, and the hint's words without the values the check drew: a re-run with the
    same fault (new random cases) is the same failure, another fault is another."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else ""
    return f"{where} {hints.skeleton(' '.join(map(str, e.args)))}"


def undefined(error: BaseException) -> tuple[str, str] | None:
    """The hint (what is wrong, how to go about it) for a NameError the learner's code raised when a check called
    it, else None.

    In the notebook the name may come from another cell; the check runs the exercise cell on its own."""
    if not isinstance(error, NameError) or isinstance(error, UnboundLocalError):  # the latter: a bug in the function
        return None
    name = f"`{error.name}`" if getattr(error, "name", None) else "a name"
    return (f"your code uses {name}, which the exercise cell does not define ({error}).",
            f"Keep the exercise cell self-contained: define {name} in it, since the check runs that cell without "
            "the notebook's other cells.")


def self_contained(error: BaseException) -> None:
    """For a check that reports what the learner's code raised: a NameError gets `undefined`'s hint instead of
    the check's own advice (catching it, say, would not help)."""
    hint = undefined(error)
    if hint:
        problem, how = hint
        raise NotYet(problem, how) from None


WAITS = ("look for a wait that never ends: a loop with no way out, or an await on something that never comes (a "
         "lock never released, an answer nobody sends).")


def run_async(make_coroutine, limit: float = 10.0, hint: str = WAITS) -> Any:
    """Run `make_coroutine()` to completion on a fresh loop in a daemon thread, within `limit` seconds; past it, the
    learner's code gets `hint`: how to go about a function that does not finish."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(asyncio.wait_for(make_coroutine(), limit))
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(limit + 5)
    if thread.is_alive() or isinstance(box.get("error"), TimeoutError | asyncio.TimeoutError):
        raise NotYet(f"your function did not finish within {limit:g} s.", hint)
    if "error" in box:
        close_unawaited(box["error"])
        raise box["error"]
    return box["value"]


def close_unawaited(error: BaseException | None) -> None:
    """Close the coroutines the learner's code made and never awaited (`execute(...)` with no `await`): the
    failure's traceback keeps them alive, so Python's "never awaited" warning would come when they are collected,
    in whatever runs then. The verdict says what was forgotten instead."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        tb = error.__traceback__
        while tb is not None:
            for value in list(tb.tb_frame.f_locals.values()):
                if inspect.iscoroutine(value) and inspect.getcoroutinestate(value) == inspect.CORO_CREATED:
                    value.close()
            tb = tb.tb_next
        error = error.__cause__ or error.__context__


def check(id: str, namespace: dict | None = None, *, seed: int | None = None) -> None:
    """Notebook entry point: check an exercise against the caller's variables and print the verdict (of a
    failure, what is wrong; `hint(id)` then shows how to go about it). `seed`: replay the cases of a failure
    that printed it."""
    if namespace is None:
        namespace = sys._getframe(1).f_globals  # the notebook's globals
    print(hints.shown(run_check(id, namespace, seed)))


# -- outside the notebook: tests and mentors ----------------------------------------------
def exercise_cells(notebook: str | Path | Any) -> dict[str, str]:
    """{exercise id: source} of a notebook's exercise cells (a path, or a notebook already read), in notebook
    order; of a copied cell the last copy counts, where it is; a bare `# EXERCISE ` line is no exercise."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4) if isinstance(notebook, str | Path) else notebook
    cells: dict[str, str] = {}
    for cell in nb.cells:
        source = cell.get("source", "")
        first = source.lstrip().splitlines()[0] if source.strip() else ""
        if cell.get("cell_type") == "code" and first.startswith(MARKER) and first[len(MARKER):].split():
            id = first[len(MARKER):].split()[0]
            cells.pop(id, None)  # a copy further down: the learner ran that one last
            cells[id] = source
    return cells


def check_source(id: str, source: str, seed: int | None = None) -> Verdict:
    """Run `given` + a cell's source in a fresh namespace, then the check (in this process: tests use it)."""
    ex = REGISTRY.get(id) or load_all().get(id)
    namespace, failed = run_cell(ex, id, source)
    return failed or run_check(id, namespace, seed)


def run_cell(ex: Exercise | None, id: str, source: str, namespace: dict | None = None) -> tuple[dict, Verdict | None]:
    """Run `given` + a cell's source in a fresh module namespace (or only the cell, in `namespace`);
    a verdict when the cell does not run."""
    if namespace is None:
        # A real module, so that Pydantic and dataclasses can resolve names defined in the cell.
        module = types.ModuleType(f"exercise_{id.replace('-', '_')}")
        sys.modules[module.__name__] = module
        namespace = module.__dict__
        if ex is not None:
            exec(compile(ex.given, f"<imports for {id}>", "exec"), namespace)
    if ex is not None:
        filename = f"<exercise {id}>"
        # As IPython does for a cell: inspect.getsource (show.source) finds the cell's functions in linecache.
        linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
        try:
            exec(compile(source, filename, "exec"), namespace)
        except NameError as e:
            problem = f"the cell uses `{e.name}`, which only the notebook defines."
            how = "keep the exercise cell self-contained and put test calls in a cell of their own."
            return namespace, Verdict(id, False, joined(problem, how), stages=(problem, how), failure="NameError")
        except SyntaxError as e:
            message = f"the cell does not run: SyntaxError on line {e.lineno}: {e.msg}"
            return namespace, Verdict(id, False, message, stages=(message,))
        except Exception as e:
            if raised_in(e, inspect.__file__):  # a class's source, say: not even Jupyter has that one
                problem = ("inspect cannot read a source the cell asks for when the cell is checked on its own, "
                           f"outside the notebook ({type(e).__name__}).")
                how = "Move the show.source(...) or inspect.getsource(...) call into a cell of its own."
                return namespace, Verdict(id, False, joined(problem, how), stages=(problem, how), failure="inspect")
            message = f"the cell does not run: {type(e).__name__}: {e}"
            return namespace, Verdict(id, False, message, stages=(message,), failure=type(e).__name__)
    return namespace, None


def raised_in(error: BaseException, filename: str) -> bool:
    """Whether `error` was raised by code in `filename`."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename == filename
