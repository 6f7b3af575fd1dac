"""Grading a class: find the learners' notebooks, grade every exercise in a sandbox, `-j N` at a time.

Each exercise is its own sandboxed run, so an endless loop costs one worker slot for the time
limit, not the whole class; a file that is not a readable notebook becomes a learner with a
problem ("could not be read: ...") and grading goes on.
"""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from course.exercises import MARKER, REGISTRY, load_all
from course.grading.sandbox import ROOT, Sandbox

SOLUTIONS = ROOT / "solutions"
# Names a cell has no business touching; the verdict stands, but the report asks the mentor to look.
SUSPICIOUS = re.compile(r"REGISTRY|run_check|check_source|course\.exercises|course\.grading|_getframe|ctypes|"
                        r"gc\.get_objects|sys\.modules|__code__|builtins|os\._exit|/proc/|\benviron\b|getenv")


@dataclass
class Result:
    """One exercise of one learner."""
    id: str
    passed: bool
    message: str
    code: str | None = None  # None: the notebook has no cell for it
    starter: str = ""
    output: str = ""
    output_lines: int = 0
    review: str = ""  # why a mentor should read this code by hand


@dataclass
class Learner:
    name: str
    path: Path
    problem: str = ""  # the file could not be graded at all
    results: list[Result] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)


def starters() -> dict[str, str]:
    """{exercise id: starter cell}, from the course's tracked notebooks (the working copy if not in git)."""
    import nbformat

    found: dict[str, str] = {}
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "notebooks/[0-9]*.ipynb"], capture_output=True,
                            text=True)
    names = listed.stdout.split() if listed.returncode == 0 and listed.stdout.strip() else \
        [str(p.relative_to(ROOT)) for p in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))]
    for name in names:
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:{name}"], capture_output=True, text=True)
        text = shown.stdout if shown.returncode == 0 else (ROOT / name).read_text(encoding="utf-8")
        found.update(exercise_cells(nbformat.reads(text, as_version=4)))
    return found


def exercise_cells(nb) -> dict[str, str]:
    """{exercise id: source} in notebook order (a copied cell: the last copy counts)."""
    cells: dict[str, str] = {}
    for cell in nb.cells:
        source = cell.get("source", "")
        first = source.lstrip().splitlines()[0] if source.strip() else ""
        if cell.get("cell_type") == "code" and first.startswith(MARKER) and first[len(MARKER):].split():
            id = first[len(MARKER):].split()[0]
            cells.pop(id, None)
            cells[id] = source
    return cells


def expected_ids(path: Path, nb, cells: dict[str, str], starter: dict[str, str]) -> list[str]:
    """The exercises of the notebook's lesson, in notebook order, then those it lacks in the course's order."""
    text = "\n".join(c.get("source", "") for c in nb.cells)
    ids = set(cells) | set(re.findall(r'check\(["\'](l\d+-[a-z0-9-]+)["\']\)', text))
    lessons = {REGISTRY[i].lesson for i in ids if i in REGISTRY}
    number = re.match(r"0?(\d+)_", path.name)
    if number:
        lessons.add(int(number.group(1)))
    wanted = [i for i in starter if i in REGISTRY and REGISTRY[i].lesson in lessons]
    wanted += sorted(i for i, ex in REGISTRY.items() if ex.lesson in lessons and i not in wanted)
    return [i for i in cells if i in wanted] + [i for i in wanted if i not in cells]


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


def read(path: Path) -> tuple[object | None, str]:
    import nbformat

    if not path.is_file():
        return None, "could not be read: no such file (a path with spaces needs quotes)."
    if path.suffix != ".ipynb":
        return None, f"could not be read: not a notebook (a {path.suffix or 'file without extension'}, not .ipynb)."
    try:
        return nbformat.read(path, as_version=4), ""
    except Exception as e:  # invalid JSON, not nbformat, unreadable bytes: one line for the mentor
        detail = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        return None, f"could not be read: {detail}"


def outcome(id: str, run: dict, sandbox: Sandbox) -> tuple[bool, str]:
    """The verdict of one sandboxed run, in words."""
    limits = sandbox.limits
    if run.get("tampered"):
        return False, ("the code changed the grader's files or the course while it was checked ("
                       + ", ".join(run["tampered"][:5]) + "): no pass; the files were restored.")
    if run.get("timed_out"):
        return False, f"no verdict after {limits.wall_seconds:g} s: the code probably loops forever."
    verdict = run.get("verdict")
    if verdict:
        return bool(verdict["passed"]), verdict["message"]
    if run.get("problem"):
        return False, f"the sandbox could not run this exercise: {run['problem']}"
    code = run.get("exit")
    why = {-getattr(signal, "SIGXCPU", 24): f"it used more than {limits.cpu_seconds} s of CPU time",
           -getattr(signal, "SIGXFSZ", 25): f"it wrote more than {limits.file_mb} MB (a file or printed output)"}
    return False, (f"the check stopped without a verdict: {why[code]}." if code in why else
                   f"the check stopped without a verdict (exit code {code}): the code exited, ran out of memory "
                   f"({limits.memory_mb} MB) or crashed Python.")


def grade_class(paths: list[Path], sandbox: Sandbox, jobs: int = 1, skip: Path | None = None,
                solutions: bool = False, done: Callable[[Learner], None] = lambda learner: None) -> list[Learner]:
    load_all()
    starter = starters()
    class_: list[Learner] = []
    work: list[tuple[Learner, Result]] = []
    for path in [SOLUTIONS] if solutions else learners(paths, skip):
        learner = Learner("reference solutions" if solutions else path.stem, path)
        class_.append(learner)
        if solutions:
            cells = {i: (SOLUTIONS / f"{i}.py").read_text(encoding="utf-8") for i in starter if i in REGISTRY}
            ids = list(cells)
        else:
            nb, learner.problem = read(path)
            if nb is None:
                continue
            cells = exercise_cells(nb)
            ids = expected_ids(path, nb, cells, starter)
            if not ids:
                learner.problem = "could not be read: no course exercises in it (is it a course notebook?)."
        for ex_id in ids:
            result = Result(ex_id, False, "", cells.get(ex_id), starter.get(ex_id, ""))
            learner.results.append(result)
            if result.code is None:
                result.message = (f"no cell starting with `# EXERCISE {ex_id}` in the notebook (deleted, or its "
                                  "first line changed?).")
            else:
                work.append((learner, result))
        for ex_id in cells:
            if ex_id not in ids:
                learner.results.append(Result(ex_id, False, f"unknown exercise id; this lesson's ids: "
                                                            f"{', '.join(ids)}.", cells[ex_id]))

    waiting = {id(learner): sum(1 for owner, _ in work if owner is learner) for learner in class_}

    def run(item: tuple[Learner, Result]) -> None:
        learner, result = item
        found = SUSPICIOUS.search(result.code or "")
        if found:
            result.review = f"the code mentions `{found.group(0)}`: read it before trusting the verdict."
        answer = sandbox.run({"id": result.id, "module": REGISTRY[result.id].check.__module__,
                              "source": result.code})
        result.passed, result.message = outcome(result.id, answer, sandbox)
        result.output, result.output_lines = answer.get("output", ""), answer.get("output_lines", 0)

    for learner in class_:
        if not waiting[id(learner)]:
            done(learner)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for (learner, _), _ in zip(work, pool.map(run, work), strict=True):
            waiting[id(learner)] -= 1
            if not waiting[id(learner)]:
                done(learner)
    return class_
