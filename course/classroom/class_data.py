"""The class server's data, in one folder the teacher chooses: a folder per learner (`make class-status`).

    python -m course.classroom.class_data [--data DIR]     # one line per learner: calls, failures, tickets, refunds

    class/                  # `--data` of the class server (default WORK/class, course/paths.py)
      anna/shop.json        # her shop: orders, tickets, refunds (lesson 5's store)
      anna/calls.jsonl      # a line per request: when, what, whether it worked (no arguments, no token)

A learner's folder is all the server keeps of them on disk (their web credits live in memory):
deleting it resets that learner, even while the server runs (`Workspaces` notices, and their
next request starts a fresh shop and a full credit budget); deleting the whole folder resets the class.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

from course import paths
from course.classroom.learners import NAME

DEFAULT_DATA = paths.WORK / "class"


@dataclass(frozen=True)
class LearnerData:
    name: str
    calls: int
    failed: int
    tickets: int | None  # None: the shop file is missing or unreadable
    refunds: int | None
    last: float | None  # when their last request came, seconds since the epoch
    note: str = ""  # why tickets and refunds are not shown


def learner_data(folder: Path) -> LearnerData:
    """What one learner's folder holds; a damaged file is reported, never a traceback."""
    calls = failed = 0
    last = None
    log = folder / "calls.jsonl"
    if log.exists():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by a crash
                continue
            calls += 1
            failed += entry.get("ok") is False  # None: the client left first (a session's end), not a failure
            last = entry.get("at", last)
    tickets: int | None = None
    refunds: int | None = None
    shop_file = folder / "shop.json"
    note = "" if shop_file.exists() else "no shop yet"  # a learner just reset, or who has only read so far
    try:
        shop = json.loads(shop_file.read_text(encoding="utf-8"))
        tickets, refunds = len(shop["tickets"]), len(shop["refunds"])
    except (OSError, ValueError, KeyError, TypeError):
        note = note or "shop.json unreadable"
    return LearnerData(folder.name, calls, failed, tickets, refunds, last, note)


def class_data(root: Path) -> list[LearnerData]:
    """Every learner who has a folder under `root`, by name."""
    if not root.is_dir():
        return []
    return [learner_data(f) for f in sorted(root.iterdir()) if f.is_dir() and NAME.match(f.name)]


def table(root: Path, rows: list[LearnerData]) -> str:
    if not rows:
        return f"No learner has data in {root} yet."
    lines = [f"{len(rows)} learners in {root}", f"{'learner':<16}{'calls':>7}{'failed':>8}{'tickets':>9}"
             f"{'refunds':>9}  last call"]
    for r in rows:  # every row in the header's columns; what is missing is said after them
        shop = f"{r.tickets:>9}{r.refunds:>9}" if r.tickets is not None else f"{'-':>9}{'-':>9}"
        when = time.strftime("%H:%M:%S", time.localtime(r.last)) if r.last else "-"
        lines.append(f"{r.name:<16}{r.calls:>7}{r.failed:>8}{shop}  {when:<9}" + (f"  ({r.note})" if r.note else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course.classroom.class_data", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"the class's data (default {DEFAULT_DATA})")
    args = parser.parse_args(argv)
    print(table(args.data, class_data(args.data)))


if __name__ == "__main__":
    main()
