"""Grading a class: find the learners' notebooks, check each learner's exercises in one sandbox
(`-j N` learners at a time), and give every exercise a status: pass, not yet, review or no cell.

A pass counts only inside the lesson's vocabulary (vocabulary.py): a cell outside it is "review", with
the reasons, whatever the sandbox answered. A notebook of another lesson than the class's says so and
counts nothing; a file that is not a readable notebook is "unreadable" and grading goes on.
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
from course.grading.sandbox import ROOT, Sandbox
from course.grading.vocabulary import review

SOLUTIONS = ROOT / "solutions"


@dataclass
class Grade:
    """One exercise of one learner."""
    id: str
    status: str  # "pass", "not yet", "review", "no cell"
    message: str
    code: str | None = None  # exactly what ran
    starter: str = ""
    output: str = ""
    output_lines: int = 0
    reasons: list[str] = field(default_factory=list)  # why a mentor reads it before it counts
    sandbox_passed: bool = False  # what the check in the sandbox answered
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


def starters() -> dict[str, str]:
    """{exercise id: starter cell}, from the course's notebooks."""
    import nbformat

    found: dict[str, str] = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        found.update({i: cells[-1] for i, cells in exercise_cells(nbformat.read(path, as_version=4)).items()})
    return found


def exercise_cells(nb) -> dict[str, list[str]]:
    """{exercise id: [source of each cell with that id]} in notebook order."""
    cells: dict[str, list[str]] = {}
    for cell in nb.cells:
        source = cell.get("source", "")
        first = source.lstrip().splitlines()[0] if source.strip() else ""
        if cell.get("cell_type") == "code" and first.startswith(MARKER) and first[len(MARKER):].split():
            cells.setdefault(first[len(MARKER):].split()[0], []).append(source)
    return cells


def lesson_of(path: Path, nb, cells: dict) -> int | None:
    text = "\n".join(c.get("source", "") for c in nb.cells)
    ids = set(cells) | set(re.findall(r'check\(["\'](l\d+-[a-z0-9-]+)["\']\)', text))
    lessons = Counter(REGISTRY[i].lesson for i in ids if i in REGISTRY)
    number = re.match(r"0?(\d+)_", path.name)  # the course's file name, only when the cells say nothing
    return lessons.most_common(1)[0][0] if lessons else int(number.group(1)) if number else None


def learners(paths: list[Path], skip: Path | None = None) -> list[Path]:
    """The files to grade: the notebooks named, and every visible file in the folders named."""
    found = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and not any(
                part.startswith(".") for part in p.relative_to(path).parts)
                and not (skip and skip.resolve() in p.resolve().parents))
        else:
            found.append(path)
    return found


def read(path: Path) -> tuple[Any, str]:
    import nbformat

    if path.suffix != ".ipynb":
        return None, f"unreadable: not a notebook (a {path.suffix or 'file without extension'}, not .ipynb)."
    try:
        return nbformat.read(path, as_version=4), ""
    except Exception as e:  # invalid JSON, not nbformat, unreadable bytes: one line for the mentor
        detail = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        return None, f"unreadable: {detail}"


def prepare(learner: Learner, cells: dict[str, list[str]], lesson: int, starter: dict[str, str]) -> None:
    ids = [i for i in starter if i in REGISTRY and REGISTRY[i].lesson == lesson]
    ids += sorted(i for i, ex in REGISTRY.items() if ex.lesson == lesson and i not in ids)
    for ex_id in [i for i in cells if i in ids] + [i for i in ids if i not in cells]:
        copies = cells.get(ex_id)
        if not copies:
            learner.results.append(Grade(ex_id, "no cell", f"no cell starting with `# EXERCISE {ex_id}` (deleted, "
                                           "or its first line changed?).", starter=starter.get(ex_id, "")))
            continue
        # An assemble step (its exercise `uses` others) runs after the cells of the pieces it assembles.
        code = "\n\n".join([cells[u][-1] for u in REGISTRY[ex_id].uses if cells.get(u)] + [copies[-1]])
        result = Grade(ex_id, "not yet", "", code, starter.get(ex_id, ""), reasons=review(code, lesson))
        if len(copies) > 1:
            result.reasons.insert(0, f"{len(copies)} cells carry the id {ex_id}: the last one is graded, and which "
                                     "one the notebook ran is not known")
        learner.results.append(result)
    for ex_id in cells:
        if ex_id not in ids:
            learner.results.append(Grade(ex_id, "not yet", f"unknown exercise id; this lesson's ids: "
                                                            f"{', '.join(ids)}.", cells[ex_id][-1], scored=False))


def grade_class(paths: list[Path], sandbox: Sandbox, jobs: int = 1, skip: Path | None = None, lesson: int | None = None,
                solutions: bool = False, done: Callable[[Learner], None] = lambda learner: None) -> list[Learner]:
    load_all()
    starter = starters()
    class_: list[Learner] = []
    notebooks: dict[int, tuple[Any, dict]] = {}
    for path in [SOLUTIONS] if solutions else learners(paths, skip):
        learner = Learner("reference solutions" if solutions else path.stem, path)
        class_.append(learner)
        if solutions:
            learner.lesson = 0
            for ex_id in (i for i in starter if i in REGISTRY):
                file = SOLUTIONS / f"{ex_id}.py"
                code = file.read_text(encoding="utf-8") if file.is_file() else None
                learner.results.append(Grade(ex_id, "not yet" if code else "no cell", "" if code else
                                               f"no reference solution: solutions/{ex_id}.py is missing.", code,
                                               reasons=review(code, REGISTRY[ex_id].lesson) if code else []))
            continue
        nb, learner.problem = read(path)
        if nb is not None:
            cells = exercise_cells(nb)
            learner.lesson = lesson_of(path, nb, cells)
            learner.never_run = not any(c.get("outputs") or c.get("execution_count") for c in nb.cells
                                        if c.get("cell_type") == "code")
            notebooks[id(learner)] = (nb, cells)
            if learner.lesson is None:
                learner.problem = "unreadable: no course exercises in it (is it a course notebook?)."
    if lesson is None:  # the class's lesson: the one most of its notebooks are
        lessons = Counter(learner.lesson for learner in class_ if learner.lesson and not learner.problem)
        lesson = lessons.most_common(1)[0][0] if lessons else None
    for learner in class_:
        if id(learner) in notebooks and not learner.problem:
            if lesson is None or learner.lesson != lesson:
                learner.problem = (f"another lesson: this is lesson {learner.lesson}'s notebook and the class is "
                                   f"graded for lesson {lesson}; nothing in it counts.")
            else:
                prepare(learner, notebooks[id(learner)][1], lesson, starter)

    def run(learner: Learner) -> None:
        todo = [r for r in learner.results if r.scored and r.code is not None]
        answers = sandbox.run([{"id": r.id, "module": REGISTRY[r.id].check.__module__, "source": r.code}
                               for r in todo]) if todo else []
        for result, answer in zip(todo, answers, strict=True):
            settle(result, answer, sandbox)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for learner, _ in zip(class_, pool.map(run, class_), strict=True):
            done(learner)
    return class_


def settle(result: Grade, answer: dict, sandbox: Sandbox) -> None:
    limits = sandbox.limits
    result.output, result.output_lines = answer.get("output", ""), answer.get("output_lines", 0)
    result.sandbox_passed = answer.get("passed") is True and "void" not in answer
    if "void" in answer:
        result.reasons.append(f"the sandbox's answer is {answer['void']}")
        result.message = "no verdict: " + answer["void"]
    elif answer.get("forged"):
        result.reasons.append("the exercise's verdict pipe carried something else than the one verdict the check "
                              "writes: void")
        result.message, result.sandbox_passed = "no verdict: the verdict pipe was written by other code.", False
    elif answer.get("timed_out"):
        result.message = f"no verdict after {limits.wall_seconds:g} s: the code probably loops forever."
    elif answer.get("message") or answer.get("exit") == 0:
        result.message = answer.get("message", "")
    else:
        code = answer.get("exit")
        result.message = ({-24: f"the check stopped: it used more than {limits.cpu_seconds} s of CPU time.",
                           -25: f"the check stopped: it wrote more than {limits.file_mb} MB."}.get(code or 0) or
                          f"the check stopped without a verdict (exit code {code}): the code exited, ran out of "
                          f"memory ({limits.memory_mb} MB) or crashed Python.")
    result.status = "review" if result.reasons else "pass" if result.sandbox_passed else "not yet"
