"""Grade the exercises in learners' notebooks: `python -m course.exercises NOTEBOOK...`.

Runs each exercise cell in a fresh namespace and prints one verdict per exercise.
Exit status 0 when every exercise passes. `--solutions` grades the reference solutions.
"""

import sys
from pathlib import Path

from course.exercises import check_source, exercise_cells, load_all

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"


def main(args: list[str]) -> int:
    if not args:
        print(__doc__)
        return 2
    verdicts = []
    if args == ["--solutions"]:
        verdicts = [check_source(id, (SOLUTIONS / f"{id}.py").read_text()) for id in sorted(load_all())]
    for path in args if args != ["--solutions"] else []:
        if not Path(path).exists():
            print(f"{path}: no such notebook")
            return 2
        cells = exercise_cells(path)
        print(f"{path}: {len(cells)} exercises")
        verdicts += [check_source(id, source) for id, source in cells.items()]
    for v in verdicts:
        print(f"  {v}")
    passed = sum(v.passed for v in verdicts)
    print(f"{passed} of {len(verdicts)} exercises passed")
    return 0 if passed == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
