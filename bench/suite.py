"""`make test`'s pytest: its wall time (goal <= 180 s on a quiet 2-core CI machine) and its 10 slowest items.

Read from the JUnit file the last `make test` wrote (`.cache/make-test.xml`, or TEST_REPORT), not measured
by running the suite again: a benchmark that re-ran 1,600 items would take as long as the suite itself.
An item's time is its setup, call and teardown, on whichever xdist worker ran it.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

from bench._figures import Figure, at_most
from course.paths import ROOT

GOAL_SECONDS = 180  # the guide's "make test's pytest in <= 3 minutes once the environment exists"
SLOWEST = 10


def report_path() -> Path:
    return ROOT / os.environ.get("TEST_REPORT", ".cache/make-test.xml")


def read(path: Path) -> tuple[float, int, list[tuple[str, float]], dict[str, int], str]:
    """(the run's wall time, its item count, [(item, seconds)] slowest first, {"failed"/"skipped": how many},
    when it started) from a JUnit XML file."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    wall = sum(float(s.get("time", 0)) for s in suites)
    items = [(f"{case.get('classname', '')}::{case.get('name', '')}", float(case.get("time", 0)))
             for s in suites for case in s.iter("testcase")]
    counts = {"failed": sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites),
              "skipped": sum(int(s.get("skipped", 0)) for s in suites)}
    started = min((s.get("timestamp", "") for s in suites), default="")[:16].replace("T", " ")
    return wall, len(items), sorted(items, key=lambda item: -item[1]), counts, started


def figures(path: Path) -> list[Figure]:
    if not path.exists():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        return [Figure("make test's pytest", 0, "s", at_most(GOAL_SECONDS), error=f"no {shown}: run `make test` first")]
    wall, count, slowest, counts, started = read(path)
    # A run that failed or skipped items did not do the suite's work (no chromium: the browser tests skip), so its
    # time is no measure of the suite's: say so rather than pass it.
    error = f"{counts['failed']} item(s) failed: the time of a failing run is not the suite's" if counts["failed"] \
        else None
    about = f"{count} items" + (f", {counts['skipped']} skipped" if counts["skipped"] else "") + \
        (f", run {started}" if started else "")
    found = [Figure(f"make test's pytest ({about})", wall, "s", at_most(GOAL_SECONDS), error=error)]
    return found + [Figure(f"  {name}", seconds, "s") for name, seconds in slowest[:SLOWEST]]


def main() -> list[Figure]:
    return figures(report_path())
