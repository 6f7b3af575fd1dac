"""Grading a class in the sandbox: lesson-4 notebooks per minute with -j 2 (goal >= 30 per minute).

A class of CLASS copies of lesson 4 (five exercises, two of them solved) is graded as `make grade`
grades it: each learner's exercises in one sandboxed worker, in the default sandbox (bubblewrap
where it works) and in the process sandbox. Reports are written to a temporary folder.
"""

import tempfile
import time
from pathlib import Path

import nbformat

from bench._figures import Figure, at_least, at_most
from course.grading import report
from course.grading.runner import grade_class
from course.grading.sandbox import ROOT, Sandbox

CLASS = 30  # issue 13's class
JOBS = 2
GOAL = 30  # notebooks per minute: issue 13's class of 30 graded within a minute


def build(folder: Path) -> None:
    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    for cell in nb.cells:
        for id in ("l4-refund-limit", "l4-allowlist"):
            if cell.source.startswith(f"# EXERCISE {id}"):
                cell.source = (ROOT / "solutions" / f"{id}.py").read_text()
    for n in range(CLASS):
        nbformat.write(nb, folder / f"learner {n:02}.ipynb")


def main() -> list[Figure]:
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        build(folder)
        for mode in dict.fromkeys(["auto", "process"]):
            with Sandbox(mode) as sandbox:
                start = time.perf_counter()
                class_ = grade_class([folder], sandbox, JOBS)
                report.write(class_, Path(tmp) / f"reports-{mode}")
                seconds = time.perf_counter() - start
            wrong = sum(learner.passed != 2 for learner in class_)  # the two solved exercises pass
            figures += [Figure(f"sandbox {sandbox.mode}, {CLASS} notebooks, -j {JOBS}", CLASS / seconds * 60,
                               "notebooks/min", at_least(GOAL)),
                        Figure(f"sandbox {sandbox.mode}: wrong verdicts", wrong, "", at_most(0))]
    return figures
