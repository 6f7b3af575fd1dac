"""Grade the exercises in learners' notebooks: `python -m course.exercises NOTEBOOK...`.

Runs each exercise cell on its own, in a child process with a time limit, and prints a
verdict per exercise as soon as it is known. An exercise of the lesson that is missing
from the notebook (cell deleted, marker changed) counts as not passed. Exit status: 0 when
every exercise passes, 1 when some do not, 2 for a bad command line.
`--solutions` grades the reference solutions.

Grading runs the learner's code with your account and environment: read it first if in doubt.
"""

import multiprocessing
import re
import sys
from pathlib import Path

from course.exercises import REGISTRY, Verdict, check_source, exercise_cells, load_all

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
LIMIT = 30.0  # seconds per exercise: an endless loop must not stop the grading


def _run(id: str, source: str, queue) -> None:
    verdict = check_source(id, source)
    queue.put((verdict.passed, verdict.message))


def grade(id: str, source: str, limit: float = LIMIT) -> Verdict:
    """check_source in a child process, so a learner's endless loop costs `limit` seconds, not forever."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_run, args=(id, source, queue), daemon=True)
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return Verdict(id, False, f"no verdict after {limit:g} s: the code probably loops forever.")
    if queue.empty():
        return Verdict(id, False, f"the check stopped without a verdict (exit code {child.exitcode}).")
    passed, message = queue.get()
    return Verdict(id, passed, message)


def expected_ids(path: str, found: dict[str, str]) -> list[str]:
    """The exercises of the notebook's lesson: from the ids it has, its check cells, or its name."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    ids = set(found) | set(re.findall(r'check\(\\"(l\d-[a-z0-9-]+)\\"\)', text))
    lessons = {REGISTRY[i].lesson for i in ids if i in REGISTRY}
    number = re.match(r"0?(\d)_", Path(path).name)
    if number:
        lessons.add(int(number.group(1)))
    return sorted(i for i, ex in REGISTRY.items() if ex.lesson in lessons)


def report(verdicts: list[Verdict], v: Verdict) -> None:
    verdicts.append(v)
    print(f"  {v}", flush=True)


def main(args: list[str]) -> int:
    if not args:
        print(__doc__)
        return 2
    load_all()
    verdicts: list[Verdict] = []
    if args == ["--solutions"]:
        for id in sorted(REGISTRY):
            report(verdicts, grade(id, (SOLUTIONS / f"{id}.py").read_text()))
        args = []
    for path in args:
        if not Path(path).is_file():
            print(f"{path}: no such notebook (a path with spaces needs quotes)")
            return 2
        cells = exercise_cells(path)
        expected = expected_ids(path, cells)
        print(f"{path}: {len(expected)} exercises", flush=True)
        if not expected:
            print("  no course exercises found: is this a course notebook?")
            verdicts.append(Verdict(path, False, "no exercises"))
        for id in expected:
            if id in cells:
                report(verdicts, grade(id, cells[id]))
            else:
                report(verdicts, Verdict(id, False, f"no cell starting with `# EXERCISE {id}` in the notebook "
                                                    "(deleted, or its first line changed?)."))
        for id in sorted(set(cells) - set(expected)):
            report(verdicts, Verdict(id, False, f"unknown exercise id; known ids: {', '.join(expected)}."))
    passed = sum(v.passed for v in verdicts)
    print(f"{passed} of {len(verdicts)} exercises passed")
    return 0 if passed == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
