"""Grading a class in bubblewrap: 30 lesson-4 notebooks with -j 2, vocabulary rule, overview and copy
detection included (goal: at most 30 s on a quiet CI machine).

A class of CLASS copies of lesson 4 (five exercises, two of them solved) is graded as `make grade`
grades it, and its reports (index.html, a page per learner, class.csv, similar pairs) are written.
One sandbox serves a notebook (all its exercises); the profile figures say what a sandbox's start-up
(bubblewrap, the course's import) costs against one more exercise in it.
"""

import tempfile
import time
from pathlib import Path

import nbformat

from bench._figures import Figure, at_most
from course.grading import report
from course.grading.runner import grade_class
from course.grading.sandbox import ROOT, Sandbox

CLASS = 30
JOBS = 2
GOAL_SECONDS = 30


def build(folder: Path) -> None:
    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    for cell in nb.cells:
        for id in ("l4-refund-limit", "l4-allowlist"):
            if cell.source.startswith(f"# EXERCISE {id}"):
                cell.source = (ROOT / "solutions" / f"{id}.py").read_text()
    for n in range(CLASS):
        nbformat.write(nb, folder / f"learner {n:02}.ipynb")


def profile(sandbox: Sandbox) -> tuple[float, float]:
    """(seconds for a sandbox with one exercise, seconds each further exercise adds), on the starter cell."""
    job = {"id": "l4-refund-limit", "module": "course.exercises.lesson4",
           "source": "# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n    raise NotImplementedError\n"}
    times = []
    for n in (1, 5):
        start = time.perf_counter()
        sandbox.run([job] * n)
        times.append(time.perf_counter() - start)
    return times[0], (times[1] - times[0]) / 4


def main() -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        build(folder)
        with Sandbox("auto") as sandbox:
            one, each = profile(sandbox)
            start = time.perf_counter()
            class_ = grade_class([folder], sandbox, JOBS)
            report.write(class_, Path(tmp) / "reports", sandbox.label)
            seconds = time.perf_counter() - start
        wrong = sum(learner.passed != 2 for learner in class_)  # the two solved exercises pass
    return [Figure(f"bubblewrap, {CLASS} lesson-4 notebooks, -j {JOBS}, with rule, overview, copies", seconds, "s",
                   at_most(GOAL_SECONDS)),
            Figure("wrong verdicts", wrong, "", at_most(0)),
            Figure("profile: a sandbox with one exercise (bubblewrap start-up, the course's import)", one, "s"),
            Figure("profile: each further exercise in the same sandbox", each, "s")]
