"""`make class-status`: the class at a glance, a line per learner (calls, failed, refused, tickets, refunds, last call).

    python -m course.classroom.status [--data DIR]

Its own module, not `class_data`'s `__main__`: the package imports `class_data`, and `python -m` of a
module the package has already imported makes Python warn (RuntimeWarning) in the teacher's terminal.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from course.classroom.class_data import DEFAULT_DATA, LearnerData, class_data


def table(root: Path, rows: list[LearnerData]) -> str:
    if not rows:
        return f"No learner has data in {root} yet."
    lines = [f"{len(rows)} learners in {root}", f"{'learner':<16}{'calls':>7}{'failed':>8}{'refused':>9}{'tickets':>9}"
             f"{'refunds':>9}  last call"]
    for r in rows:  # every row in the header's columns; what is missing is said after them
        shop = f"{r.tickets:>9}{r.refunds:>9}" if r.tickets is not None else f"{'-':>9}{'-':>9}"
        when = time.strftime("%H:%M:%S", time.localtime(r.last)) if r.last else "-"
        counts = f"{r.calls:>7}{r.failed:>8}{r.refused:>9}"
        lines.append(f"{r.name:<16}{counts}{shop}  {when:<9}" + (f"  ({r.note})" if r.note else ""))
    return "\n".join(lines)


def refusals(rows: list[LearnerData]) -> str:
    """The line under the table when someone was refused: what it means, and what to do."""
    flooding = sorted(((r.refused, r.name) for r in rows if r.refused), reverse=True)
    if not flooding:
        return ""
    names = ", ".join(f"{name} ({n})" for n, name in flooding[:5])
    return (f"\nrefused: requests beyond a learner's fair share (the class server's --in-flight, --waiting, "
            f"--sessions), answered at once and not served. Most: {names}.\nUsually a loop that calls without "
            "waiting for each answer, or many notebooks left open: ask them to wait, or to close a few.")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course.classroom.status", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help=f"the class's data (default {DEFAULT_DATA})")
    args = parser.parse_args(argv)
    if args.data is None:  # the default folder not there yet: no class server has served anyone
        args.data = DEFAULT_DATA
    elif not args.data.is_dir():  # a mistyped DATA would read as "nobody has called yet": say it is not there
        parser.exit(2, f"{args.data}: no such folder. Give the DATA the class server was started with "
                       "(its start prints \"learners' data in ...\"), e.g. make class-status DATA=class.\n")
    rows = class_data(args.data)
    print(table(args.data, rows) + refusals(rows))


if __name__ == "__main__":
    main()
