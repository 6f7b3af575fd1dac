"""The class server's data, in one folder the teacher chooses: a folder per learner (`make class-status`).

    python -m course.classroom.status [--data DIR]     # a line per learner: calls, failures, refusals, tickets...

    class/                  # `--data` of the class server (default WORK/class, course/paths.py)
      anna/shop.json        # her shop: orders, tickets, refunds (lesson 5's store)
      anna/calls.jsonl      # a line per request: when, what, whether it worked or was refused (no arguments)

A learner's folder is all the server keeps of them on disk (their web credits live in memory):
deleting it resets that learner, even while the server runs (`Workspaces` notices, and their
next request starts a fresh shop and a full credit budget); deleting the whole folder resets the class.
"""

from __future__ import annotations

import json
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
    refused: int  # requests their share refused unserved (-32029, or 503 for a session): who floods
    tickets: int | None  # None: the shop file is missing or unreadable
    refunds: int | None
    last: float | None  # when their last request came, seconds since the epoch
    note: str = ""  # why tickets and refunds are not shown


def learner_data(folder: Path) -> LearnerData:
    """What one learner's folder holds; a damaged file is reported, never a traceback."""
    calls = failed = refused = 0
    last = None
    log = folder / "calls.jsonl"
    if log.exists():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by a crash
                continue
            calls += 1
            if entry.get("refused"):  # not their code failing: more at once than their share
                refused += 1
            else:
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
    return LearnerData(folder.name, calls, failed, refused, tickets, refunds, last, note)


def class_data(root: Path) -> list[LearnerData]:
    """Every learner who has a folder under `root`, by name."""
    if not root.is_dir():
        return []
    return [learner_data(f) for f in sorted(root.iterdir()) if f.is_dir() and NAME.match(f.name)]
