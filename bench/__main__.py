"""Run the benchmarks: `python -m bench [name ...]` (default: all, notebooks last).

Each benchmark's `main()` returns its figures; every figure is printed with its goal, and
the exit status is 1 when a goal is missed or a benchmark fails, so `make bench` fails too.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path

from bench._figures import Figure

Benchmark = Callable[[], Iterable[Figure]]


def discover(names: list[str]) -> dict[str, tuple[str, Benchmark]]:
    """{name: (first line of its docstring, its main)} for the named benchmarks, or all of them."""
    found = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
                   if not m.name.startswith("_"))  # _timing and the like: helpers, not benchmarks
    found = [n for n in found if n != "notebooks"] + ["notebooks"]  # the slowest last
    benchmarks = {}
    for name in names or found:
        module = importlib.import_module(f"bench.{name}")
        benchmarks[name] = ((module.__doc__ or "").strip().splitlines()[0], module.main)
    return benchmarks


def run(benchmarks: dict[str, tuple[str, Benchmark]]) -> int:
    """Run each benchmark, print its figures with their goals; 1 if any goal is missed or a benchmark fails."""
    missed: list[str] = []
    for name, (about, measure) in benchmarks.items():
        print(f"\n== {name}: {about}", flush=True)
        start = time.perf_counter()
        try:
            figures = list(measure())
        except Exception as e:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            figures = [Figure("the benchmark", 0, error=f"{type(e).__name__}: {e}")]
        width = max((len(f.name) for f in figures), default=0)
        for figure in figures:
            print(f"   {figure.name:<{width}}  {figure.shown():>11}   {figure.verdict()}")
            if figure.missed:
                missed.append(f"{name}: {figure.name} {figure.shown()} ({figure.verdict()})")
        print(f"   ({time.perf_counter() - start:.1f} s)", flush=True)
    print()
    if missed:
        print(f"{len(missed)} goal(s) missed:", *missed, sep="\n  ")
        return 1
    print("Every goal met.")
    return 0


def main(names: list[str]) -> int:
    return run(discover(names))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
