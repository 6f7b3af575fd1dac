"""Notebooks under nbval, as `make test` runs them: each lesson, then all together (goal <= 60 s)."""

import subprocess
import sys
import time
from pathlib import Path

from bench._figures import Figure, at_most

ROOT = Path(__file__).resolve().parents[1]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "notebooks/sanitize.cfg", "-q",
         "-p", "no:cacheprovider"]


def run(paths: list[str]) -> tuple[float, bool]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *paths, *NBVAL], cwd=ROOT, capture_output=True)
    return time.perf_counter() - start, done.returncode == 0


def main() -> list[Figure]:
    notebooks = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9]*.ipynb"))
    figures = []
    for nb in notebooks + ["all"]:
        seconds, ok = run(notebooks if nb == "all" else [nb])
        goal = at_most(60) if nb == "all" else at_most(10) if nb.startswith("notebooks/01") else None
        name = f"all {len(notebooks)} notebooks together" if nb == "all" else nb
        figures.append(Figure(name, seconds, "s", goal, None if ok else "fails under nbval"))
    return figures
