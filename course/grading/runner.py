"""Grading a class: each learner's exercise cells checked in one sandbox (`-j N` learners at a time), each
exercise a status: pass, not yet, review (a pass outside the lesson's vocabulary, or no trustworthy
verdict) or no cell. A notebook of another lesson counts nothing; one that cannot be read is "unreadable".

A learner is a notebook, or a folder that holds notebooks named as the course names them (02_agent_loop.ipynb,
...): the folder's notebook of the class's lesson is graded, and a check that takes earlier lessons' cells
(lesson 8's whole assistant) gets them from the folder's other notebooks, as data: they run in the sandbox only,
and each is read by the vocabulary rule of its own lesson.
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
from course.paths import lesson_notebook

SOLUTIONS = ROOT / "solutions"
# A folder holding one of these is one learner's (lesson 8 reads the earlier lessons' pieces from them).
COURSE_NOTEBOOKS = frozenset(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


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
    # A check that takes earlier lessons' cells (Exercise.earlier), for a learner's folder: {id: cell} as sent to
    # the sandbox, and {id: the notebook it was read from, or why there is none}. None: a notebook on its own.
    sources: dict[str, str] | None = None
    notebooks: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "pass"


@dataclass
class Learner:
    name: str
    path: Path  # the notebook graded (of a learner's folder: its notebook of the class's lesson, once chosen)
    lesson: int | None = None
    folder: str = ""  # the learner's folder, when the learner is one
    problem: str = ""  # "unreadable: ..." or "another lesson: ...": nothing counts
    never_run: bool = False
    results: list[Grade] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # for the mentor, counting nothing (which notebook was graded)

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


def learner_folder(path: Path) -> bool:
    """Whether `path` is one learner's folder: it holds a notebook named as the course names it."""
    return path.is_dir() and any((path / name).is_file() for name in COURSE_NOTEBOOKS)


def learners(paths: list[Path], skip: Path | None = None) -> list[Path]:
    """Who to grade: the notebooks named, every visible file in the folders named, and each learner's folder
    (learner_folder) among them as one learner."""
    found = []
    for path in paths:
        if not path.is_dir() or learner_folder(path):
            found.append(path)
            continue
        for p in sorted(path.iterdir()):
            if not p.name.startswith(".") and not (skip and skip.resolve() in (p.resolve(), *p.resolve().parents)):
                found += learners([p], skip) if p.is_dir() else [p]
    return found


def read_folder(learner: Learner) -> dict[Path, tuple[Learner, dict[str, list[str]]]]:
    """{notebook: (it read as a learner, its cells)} of the notebooks directly in a learner's folder that read as
    course notebooks; the folder's lesson (for the class's): the latest one it holds."""
    books = {}
    for path in sorted(learner.path.iterdir()):
        if path.is_file() and path.suffix == ".ipynb" and not path.name.startswith("."):
            book = Learner(path.stem, path)
            cells = read(book)
            if not book.problem:
                books[path] = (book, cells)
    learner.folder = learner.path.name
    learner.lesson = max((book.lesson or 0 for book, _ in books.values()), default=None)
    if not books:
        learner.problem = "unreadable: no course notebook in the folder that can be read."
    return books


def choose(learner: Learner, books: dict[Path, tuple[Learner, dict[str, list[str]]]], lesson: int) -> dict:
    """The folder's notebook of `lesson` (the course's name for it first, as lesson 8 reads it): it is graded."""
    ofs = [p for p in books if books[p][0].lesson == lesson]
    ofs.sort(key=lambda p: (p.name not in COURSE_NOTEBOOKS, not p.name.startswith(f"{lesson:02d}_")))
    if not ofs:
        learner.problem = (f"another lesson: the folder holds no notebook of lesson {lesson} (it holds "
                           f"{', '.join(p.name for p in books)}); nothing in it counts.")
        return {}
    book, cells = books[ofs[0]]
    learner.path, learner.lesson, learner.never_run = book.path, lesson, book.never_run
    if len(ofs) > 1:
        learner.notices.append(f"the folder holds {len(ofs)} notebooks of lesson {lesson} "
                               f"({', '.join(p.name for p in ofs)}): {ofs[0].name} is graded, the others are not.")
    return cells


def earlier(folder: Path, books: dict[Path, tuple[Learner, dict[str, list[str]]]], ids: tuple[str, ...]):
    """({id: cell}, {id: where from}, reasons) of earlier lessons' exercises, from the folder's notebook named as
    the course names that lesson's (the one lesson 8 reads in the notebook); each cell read by the vocabulary
    rule of its own lesson."""
    sources, notebooks, reasons = {}, {}, []
    for id in ids:
        lesson = REGISTRY[id].lesson
        found = lesson_notebook(folder, lesson)
        notebooks[id] = f"no {lesson:02d}_*.ipynb in the folder" if found is None else found.name \
            if found in books else f"{found.name} (unreadable, or no course exercises in it)"
        copies = books[found][1].get(id) if found is not None and found in books else None
        if copies:
            sources[id] = copies[-1]
            reasons += [f"{notebooks[id]}, the cell of {id}: {why}" for why in review(copies[-1], lesson)]
            if len(copies) > 1:
                reasons.append(f"{notebooks[id]}: {len(copies)} cells carry the id {id}; the last one is graded")
    return sources, notebooks, reasons


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


def prepare(learner: Learner, cells: dict[str, list[str]], lesson: int, books: dict | None = None) -> None:
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
        if books is not None and REGISTRY[ex_id].earlier:  # a learner's folder: the whole assistant
            result.sources, result.notebooks, reasons = earlier(learner.path.parent, books, REGISTRY[ex_id].earlier)
            result.reasons += reasons
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
        class_ = [Learner(path.name if path.is_dir() else path.stem, path) for path in learners(paths, skip)]
        cells: list[Any] = [read_folder(learner) if learner.path.is_dir() else read(learner) for learner in class_]
        if lesson is None:  # the class's lesson: the one most of its notebooks are
            lessons = Counter(learner.lesson for learner in class_ if not learner.problem)
            lesson = lessons.most_common(1)[0][0] if lessons else None
        for learner, found in zip(class_, cells, strict=True):
            books = found if learner.folder and not learner.problem else None
            if books is not None:
                found = choose(learner, books, lesson or 0)
            if learner.problem:
                continue
            if learner.lesson != lesson:
                learner.problem = (f"another lesson: this is lesson {learner.lesson}'s notebook and the class is "
                                   f"graded for lesson {lesson}; nothing in it counts.")
            else:
                prepare(learner, found, learner.lesson or 0, books)

    def run(learner: Learner) -> None:
        todo = [r for r in learner.results if r.scored and r.code is not None]
        answers = sandbox.run([{"id": r.id, "module": REGISTRY[r.id].check.__module__, "source": r.code,
                                **({} if r.sources is None else {
                                    "sources": r.sources, "notebooks": r.notebooks,
                                    "modules": sorted({REGISTRY[i].check.__module__ for i in REGISTRY[r.id].earlier})})}
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
