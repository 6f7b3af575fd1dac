"""Notebooks under nbval, as `make test` runs them: each lesson, then all together (goal <= 60 s)."""

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "notebooks/sanitize.cfg", "-q",
         "-p", "no:cacheprovider"]


def run(paths: list[str]) -> tuple[float, bool]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *paths, *NBVAL], cwd=ROOT, capture_output=True)
    return time.perf_counter() - start, done.returncode == 0


def main() -> None:
    notebooks = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9]*.ipynb"))
    for nb in notebooks:
        seconds, ok = run([nb])
        goal = " (goal <= 10 s)" if nb.startswith("notebooks/01") else ""
        print(f"   {nb:<40} {seconds:5.1f} s{goal}{'' if ok else '  FAILED'}")
    seconds, ok = run(notebooks)
    print(f"   all {len(notebooks)} notebooks together{'':<13} {seconds:5.1f} s (goal <= 60 s){'' if ok else '  FAILED'}")
