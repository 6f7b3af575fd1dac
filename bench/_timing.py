"""Helpers for the benchmarks (not a benchmark itself): medians of repeated timings."""

import statistics
import time
from collections.abc import Callable


def median_ms(fn: Callable[[], object], repeat: int = 200, warmup: int = 10) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000
