"""Run the benchmarks: `python -m bench [name ...]` (default: all, notebooks last)."""

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(names: list[str]) -> None:
    found = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
                   if not m.name.startswith("_"))  # _timing and the like: helpers, not benchmarks
    found = [n for n in found if n != "notebooks"] + ["notebooks"]  # the slowest last
    for name in names or found:
        module = importlib.import_module(f"bench.{name}")
        print(f"\n== {name}: {(module.__doc__ or '').strip().splitlines()[0]}")
        start = time.perf_counter()
        module.main()
        print(f"   ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
