"""Grading a class: each learner's exercise cells checked in one sandbox (`-j N` learners at a time), each
exercise a status: pass, not yet, review (a pass outside the lesson's vocabulary, or no trustworthy
verdict) or no cell. A notebook of another lesson counts nothing; one that cannot be read is "unreadable".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.exercises import MARKER, REGISTRY, load_all
from course.grading.sandbox import ROOT, Sandbox, SandboxLimits
from course.grading.vocabulary import review

SOLUTIONS = ROOT / "solutions"


@dataclass
class Grade:
    """One exercise of one learner."""
    id: str
    status: str  # "pass", "not yet", "review", "no cell"
    message: str
    code: str | None = None  # exactly what ran
    output: str = ""
    output_lines: int = 0
    reasons: list[str] = field(default_factory=list)  # why a mentor reads it before it counts
    sandbox_passed: bool = False  # what the check in the sandbox answered
    seed: int | None = None  # a failure's cases: check(id, seed=...) replays them
    scored: bool = True  # False: an id that is not one of the lesson's (shown, never a column or a point)

    @property
    def passed(self) -> bool:
        return self.status == "pass"


@dataclass
class Learner:
    name: str
    path: Path
    lesson: int | None = None
    problem: str = ""  # "unreadable: ..." or "another lesson: ...": nothing counts
    never_run: bool = False
    results: list[Grade] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return 0 if self.problem else sum(r.passed for r in self.results if r.scored)

    @property
    def total(self) -> int:
        return sum(r.scored for r in self.results)


def exercise_cells(nb) -> dict[str, list[str]]:
    """{exercise id: [source of each cell with that id]} in notebook order."""
    cells: dict[str, list[str]] = {}
    for cell in nb.cells:
        first = (cell.get("source", "").lstrip().splitlines() or [""])[0]
        if cell.get("cell_type") == "code" and first.startswith(MARKER) and first[len(MARKER):].split():
            cells.setdefault(first[len(MARKER):].split()[0], []).append(cell.source)
    return cells


def learners(paths: list[Path], skip: Path | None = None) -> list[Path]:
    """The files to grade: the notebooks named, and every visible file in the folders named."""
    found = []
    for path in paths:
        found += sorted(p for p in path.rglob("*") if p.is_file() and not any(
            part.startswith(".") for part in p.relative_to(path).parts)
            and not (skip and skip.resolve() in p.resolve().parents)) if path.is_dir() else [path]
    return found


def read(learner: Learner) -> dict[str, list[str]]:
    """The learner's exercise cells; sets its lesson, or its problem when the file is no course notebook."""
    import nbformat

    if learner.path.suffix != ".ipynb":
        learner.problem = f"unreadable: not a notebook (a {learner.path.suffix or 'file without extension'})."
        return {}
    try:
        nb = nbformat.read(learner.path, as_version=4)
    except Exception as e:  # invalid JSON, not nbformat, unreadable bytes: one line for the mentor
        learner.problem = f"unreadable: {(str(e).strip().splitlines() or [type(e).__name__])[0][:200]}"
        return {}
    cells = exercise_cells(nb)
    lessons = Counter(REGISTRY[i].lesson for i in cells if i in REGISTRY)
    number = re.match(r"0?(\d+)_", learner.path.name)  # the course's file name, only when the cells say nothing
    learner.lesson = lessons.most_common(1)[0][0] if lessons else int(number.group(1)) if number else None
    learner.never_run = not any(c.get("outputs") or c.get("execution_count") for c in nb.cells
                                if c.get("cell_type") == "code")
    if learner.lesson is None:
        learner.problem = "unreadable: no course exercises in it (is it a course notebook?)."
    return cells


def prepare(learner: Learner, cells: dict[str, list[str]], lesson: int) -> None:
    ids = [i for i, ex in REGISTRY.items() if ex.lesson == lesson]
    for ex_id in [i for i in cells if i in ids] + [i for i in ids if i not in cells]:
        copies = cells.get(ex_id)
        if not copies:
            learner.results.append(Grade(ex_id, "no cell", f"no cell starting with `# EXERCISE {ex_id}` (deleted, "
                                                            "or its first line changed?)."))
            continue
        # An assemble step (its exercise `uses` others) runs after the cells of the pieces it assembles, and the
        # rule reads them together (a piece's class, the step's call); a piece under review is named, not repeated.
        pieces = [u for u in REGISTRY[ex_id].uses if cells.get(u)]
        code = "\n\n".join([cells[u][-1] for u in pieces] + [copies[-1]])
        flagged, spans, line = [u for u in pieces if review(cells[u][-1], lesson)], [], 1
        for u in pieces:
            if u in flagged:
                spans.append(range(line, line + cells[u][-1].count("\n") + 1))
            line += cells[u][-1].count("\n") + 2
        result = Grade(ex_id, "not yet", "", code, reasons=[f"runs the cell of {u} first, which is under review (see "
                                                            "there)" for u in flagged])
        result.reasons += [r for r in review(code, lesson) if not any(line_of(r) in span for span in spans)]
        if len(copies) > 1:
            result.reasons.insert(0, f"{len(copies)} cells carry the id {ex_id}: the last one is graded, and which "
                                     "one the notebook ran is not known")
        learner.results.append(result)
    learner.results += [Grade(i, "not yet", f"unknown exercise id; this lesson's ids: {', '.join(ids)}.",
                              cells[i][-1], scored=False) for i in cells if i not in ids]


def line_of(reason: str) -> int:
    number = reason.removeprefix("line ").partition(":")[0]
    return int(number) if number.isdigit() else 0


def grade_class(paths: list[Path], sandbox: Sandbox, jobs: int = 1, skip: Path | None = None, lesson: int | None = None,
                solutions: bool = False, done: Callable[[Learner], None] = lambda learner: None) -> list[Learner]:
    load_all()
    if solutions:  # one learner with every lesson's solutions/<id>.py as its cells
        class_ = [Learner("reference solutions", SOLUTIONS, 0)]
        for n in dict.fromkeys(ex.lesson for ex in REGISTRY.values()):
            prepare(class_[0], {i: [f.read_text(encoding="utf-8")] for i, ex in REGISTRY.items()
                                if ex.lesson == n and (f := SOLUTIONS / f"{i}.py").is_file()}, n)
    else:
        class_ = [Learner(path.stem, path) for path in learners(paths, skip)]
        cells: dict[str, Any] = {learner.name: read(learner) for learner in class_}
        if lesson is None:  # the class's lesson: the one most of its notebooks are
            lessons = Counter(learner.lesson for learner in class_ if not learner.problem)
            lesson = lessons.most_common(1)[0][0] if lessons else None
        for learner in (learner for learner in class_ if not learner.problem):
            if learner.lesson != lesson:
                learner.problem = (f"another lesson: this is lesson {learner.lesson}'s notebook and the class is "
                                   f"graded for lesson {lesson}; nothing in it counts.")
            else:
                prepare(learner, cells[learner.name], learner.lesson or 0)

    def run(learner: Learner) -> None:
        todo = [r for r in learner.results if r.scored and r.code is not None]
        answers = sandbox.run([{"id": r.id, "module": REGISTRY[r.id].check.__module__, "source": r.code}
                               for r in todo]) if todo else []
        for result, answer in zip(todo, answers, strict=True):
            settle(result, answer, sandbox.limits)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for learner, _ in zip(class_, pool.map(run, class_), strict=True):
            done(learner)
    return class_


def settle(result: Grade, answer: dict, limits: SandboxLimits) -> None:
    result.output, result.output_lines = answer.get("output", ""), answer.get("output_lines", 0)
    result.sandbox_passed = answer.get("passed") is True and "void" not in answer and not answer.get("forged")
    result.seed, result.message = answer.get("seed"), answer.get("message", "")
    if "void" in answer:
        result.message = f"no verdict: {answer['void']}"
        result.reasons.append(f"no verdict: {answer['void']} The code may have attacked the grader: read it, "
                              "then re-grade this learner or override the status.")
    elif answer.get("forged"):
        result.message = "no verdict: something other than the check wrote on the exercise's verdict channel."
        result.reasons.append("something other than the check wrote on the exercise's verdict channel, so the "
                              "check's answer cannot be trusted: read the code.")
    elif answer.get("timed_out"):
        result.message = f"no verdict after {limits.wall_seconds:g} s: the code probably loops forever."
    elif not result.message and answer.get("exit") != 0:
        code = answer.get("exit")
        result.message = ({-24: f"the check stopped: it used more than {limits.cpu_seconds} s of CPU time.",
                           -25: f"the check stopped: it wrote more than {limits.file_mb} MB."}.get(code or 0) or
                          f"the check stopped without a verdict (exit code {code}): the code exited, ran out of "
                          f"memory ({limits.memory_mb} MB) or crashed Python.")
    result.status = "review" if result.reasons else "pass" if result.sandbox_passed else "not yet"
