"""Document search (lesson 3): hit@1/hit@3 for embeddings vs lexical, model load, query p50, re-index, memory.

Runs in a fresh Python process so that import time and peak memory are not blurred by
other benchmarks. Goals: hit@3 >= 0.95 and ahead of lexical; load <= 3 s after import;
query p50 <= 10 ms; re-index from cache <= 0.5 s.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from course.search import evaluate  # lives in course/: lesson 3 shows the same figures

QUESTIONS = Path(__file__).resolve().parents[1] / "tests" / "search_questions.json"


def load_questions() -> list[dict]:
    return json.loads(QUESTIONS.read_text())["questions"]


def measure() -> None:
    """The benchmark proper, in this process (main() runs it in a fresh one)."""
    import resource

    from bench._timing import median_ms

    start = time.perf_counter()
    import sentence_transformers  # noqa: F401  (what a notebook pays once)

    from course import search
    imported = time.perf_counter() - start
    start = time.perf_counter()
    search.load_model()
    loaded = time.perf_counter() - start

    questions = load_questions()
    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        index = search.DocIndex(cache_dir=Path(cache))
        built = time.perf_counter() - start
        start = time.perf_counter()
        search.DocIndex(cache_dir=Path(cache))
        reindexed = time.perf_counter() - start
    lexical = search.DocIndex(embedder="lexical")
    print(f"   corpus: {len(index.documents())} documents, {len(index.sections)} sections; "
          f"{len(questions)} questions (tests/search_questions.json)")
    for name, idx in [("embeddings", index), ("lexical", lexical)]:
        result = evaluate(idx, questions)
        print(f"   {name:<10} hit@1 {result['hit@1']:.2f}  hit@3 {result['hit@3']:.2f}  "
              f"(strict, first section only: {result['strict hit@1']:.2f} / {result['strict hit@3']:.2f})")
        for miss in result["misses"]:
            print(f"      missed in top 3: {miss}")
    texts = itertools.cycle(q["question"] for q in questions)
    query_ms = median_ms(lambda: index.search(next(texts), 3), repeat=200)
    lexical_ms = median_ms(lambda: lexical.search(next(texts), 3), repeat=200)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"   import sentence-transformers {imported:.2f} s; model load {loaded:.2f} s (goal <= 3 s)")
    print(f"   first index build {built:.2f} s (embeds {len(index.sections)} sections); "
          f"re-index from cache {reindexed * 1000:.1f} ms (goal <= 500 ms)")
    print(f"   query p50: embeddings {query_ms:.2f} ms (goal <= 10 ms), lexical {lexical_ms:.3f} ms")
    print(f"   peak memory {peak:.0f} MiB")


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", "from bench.search import measure; measure()"], cwd=root,
                          capture_output=True, text=True, timeout=600)
    print(done.stdout, end="")
    if done.returncode:
        print(done.stderr[-2000:])


if __name__ == "__main__":
    measure()
