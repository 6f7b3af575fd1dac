"""Grading a class: find the learners' notebooks, grade each learner's exercises in a sandbox,
`-j N` learners at a time.

A learner's exercises are checked in one sandbox: one worker imports the course once, and each
exercise runs in a process forked from it (worker.py). A file of the course that changed during the
run sends each exercise to a sandbox of its own, so the change is pinned on the exercise that made
it. An endless loop costs its learner the time limit once; a file that is not a readable notebook
becomes a learner with a problem ("could not be read: ...") and grading goes on.
"""

from __future__ import annotations

import os
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
# Frames, file descriptors, signals and code built at run time are how a cell reaches the grader's own
# process (where the verdict is written); no reference solution uses any of them. (Not getattr: honest
# code uses it, e.g. to read an approver's optional name.)
SUSPICIOUS = re.compile(r"REGISTRY|run_check|check_source|course\.exercises|course\.grading|_getframe|ctypes|"
                        r"gc\.get_objects|sys\.modules|__code__|builtins|os\._exit|/proc/|\benviron\b|getenv|"
                        r"currentframe|\bf_back\b|\bf_locals\b|\bf_globals\b|\btb_frame\b|\bstack\(\)|"
                        r"\bos\.(?:kill|killpg|write|dup2?|fdopen|fork)\b|/dev/fd|\bsignal\b|\bnonce\b|"
                        r"\b(?:exec|eval|compile|__import__)\(|importlib|addaudithook|\bstack\(|\bregistry\b|"
                        r"from course import|_default_encoder|setattr\(\s*(?:os|json|sys|builtins|inspect)\b|"
                        r"\bsetsid\b|getppid|\bexecv|\bf_loc|\bgetattr\([^)]*[\"'][^\"']*[\"']\s*\+")


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
    scored: bool = True  # False: a cell whose id is not one of the lesson's (shown, never a column or a point)


@dataclass
class Learner:
    name: str
    path: Path
    problem: str = ""  # the file could not be graded at all
    results: list[Result] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results if r.scored)

    @property
    def total(self) -> int:
        """The lesson's exercises (a mistyped id in a cell adds none)."""
        return sum(r.scored for r in self.results)


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
    # The course's file name (`07_model_adapters.ipynb`) says the lesson only when the cells do not:
    # a mentor's numbering of learners ("03_anna.ipynb" holding lesson 4) must not add lesson 3.
    number = re.match(r"0?(\d+)_", path.name)
    if number and not lessons:
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
        restored = any(name.startswith("repo course/") for name in run["tampered"])
        return False, ("the code changed the grader or the course while it was checked ("
                       + ", ".join(run["tampered"][:5]) + "): no pass"
                       + ("; the repo's course files were put back." if restored else "."))
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
    for path in [SOLUTIONS] if solutions else learners(paths, skip):
        learner = Learner("reference solutions" if solutions else path.stem, path)
        class_.append(learner)
        if solutions:
            # A lesson being written may have its check before its solution: a row, not a traceback.
            ids = [i for i in starter if i in REGISTRY]
            cells = {i: (SOLUTIONS / f"{i}.py").read_text(encoding="utf-8") for i in ids
                     if (SOLUTIONS / f"{i}.py").is_file()}
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
                result.message = (f"no reference solution: solutions/{ex_id}.py is missing." if solutions else
                                  f"no cell starting with `# EXERCISE {ex_id}` in the notebook (deleted, or its "
                                  "first line changed?).")
        for ex_id in cells:
            if ex_id not in ids:
                learner.results.append(Result(ex_id, False, f"unknown exercise id; this lesson's ids: "
                                                            f"{', '.join(ids)}.", cells[ex_id], scored=False))

    def run(learner: Learner) -> None:
        items = [(r, {"id": r.id, "module": REGISTRY[r.id].check.__module__, "source": r.code})
                 for r in learner.results if r.scored and r.code is not None]
        for result, _ in items:
            found = SUSPICIOUS.search(result.code or "")
            if found:
                result.review = f"the code mentions `{found.group(0)}`: read it before trusting the verdict."
        check_all(sandbox, items)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for learner, _ in zip(class_, pool.map(run, class_), strict=True):
            done(learner)
    return class_


def exercise_answer(answer: dict, index: int) -> dict:
    """What a sandbox's answer says of one of its exercises, in the shape `outcome` reads."""
    verdicts, outputs = answer.get("verdicts") or [], answer.get("outputs") or []
    mine = verdicts[index] if index < len(verdicts) else {
        "verdict": None, "exit": answer.get("exit"), "timed_out": bool(answer.get("timed_out")), "forged": False}
    forged = ["the verdict channel: a verdict the grader did not write"] if mine.get("forged") else []
    return {"verdict": mine.get("verdict"), "exit": mine.get("exit"), "timed_out": bool(mine.get("timed_out")),
            "tampered": [*(answer.get("tampered") or []), *forged], "problem": answer.get("problem"),
            **(outputs[index] if index < len(outputs) else {"output": "", "output_lines": 0})}


def settle(result: Result, answer: dict, index: int, sandbox: Sandbox) -> None:
    mine = exercise_answer(answer, index)
    result.passed, result.message = outcome(result.id, mine, sandbox)
    result.output, result.output_lines = mine["output"], mine["output_lines"]


def trusted(answer: dict) -> dict:
    """The answer, with the worker's last verdict dropped if the worker was killed: a child that kills it
    could have written that line just before (through /proc, which only root can here, README)."""
    verdicts = answer.get("verdicts") or []
    return answer if answer.get("exit") == 0 else {**answer, "verdicts": verdicts[:-1]}


def check_all(sandbox: Sandbox, items: list[tuple[Result, dict]]) -> None:
    """Check one learner's exercises in one sandbox, each in a process of its own forked from its worker."""
    if not hasattr(os, "fork"):  # Windows: a sandbox per exercise (worker.py checks it in its own process)
        for result, job in items:
            settle(result, trusted(sandbox.run([job])), 0, sandbox)
        return
    while items:
        answer = trusted(sandbox.run([job for _, job in items]))
        if len(items) == 1:
            settle(items[0][0], answer, 0, sandbox)
            return
        if answer.get("problem") or answer.get("tampered"):
            # The sandbox failed (its supervisor killed, say), a file of the course changed, or the channel was
            # written by another: which exercise did it is known only from runs of their own.
            for result, job in items:
                settle(result, trusted(sandbox.run([job])), 0, sandbox)
            return
        done = len(answer["verdicts"])
        for index, (result, _) in enumerate(items[:done]):
            settle(result, answer, index, sandbox)
        if done == 0:  # the worker ended before any verdict it vouches for: the first exercise, alone, says why
            settle(items[0][0], trusted(sandbox.run([items[0][1]])), 0, sandbox)
            done = 1
        items = items[done:]
