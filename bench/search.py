"""Document search (lesson 3): hit@1/hit@3 for embeddings, lexical (BM25) and hybrid on the course's questions
and on held-out ones; model load, query p50, re-index, memory.

Runs in a fresh Python process so that import time and peak memory are not blurred by
other benchmarks. Goals: hit@3 >= 0.95 and ahead of lexical; load <= 3 s after import;
query p50 <= 10 ms; re-index from cache <= 0.5 s. The held-out questions
(tests/search_questions_heldout.json, written apart from any tuning) carry no goal: they
report how far the course's figures generalise.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._figures import Figure, above, at_least, at_most
from course.search import evaluate  # lives in course/: lesson 3 shows the same figures

QUESTIONS = Path(__file__).resolve().parents[1] / "tests" / "search_questions.json"
HELDOUT = QUESTIONS.with_name("search_questions_heldout.json")
MARK = "FIGURES "  # the line of the child's output that carries its figures


def load_questions(path: Path = QUESTIONS) -> list[dict]:
    return json.loads(path.read_text())["questions"]


def quality(name: str, index, questions: list[dict], goal: bool) -> tuple[list[Figure], float]:
    result = evaluate(index, questions)
    for miss in result["misses"]:
        print(f"   {name} missed in top 3: {miss}")
    return [Figure(f"{name} hit@1", result["hit@1"]),
            Figure(f"{name} hit@3", result["hit@3"], "", at_least(0.95) if goal else None),
            Figure(f"{name} strict hit@1 (first section only)", result["strict hit@1"]),
            Figure(f"{name} strict hit@3 (first section only)", result["strict hit@3"])], result["hit@3"]


def measure() -> list[Figure]:
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
    by_meaning, meaning_hit3 = quality("embeddings", index, questions, goal=True)
    by_words, words_hit3 = quality("lexical", lexical, questions, goal=False)
    from course.evaluation.ranking import Hybrid

    fused, _ = quality("hybrid", Hybrid(index), questions, goal=False)
    heldout = load_questions(HELDOUT)
    print(f"   held-out: {len(heldout)} questions ({HELDOUT.name})")
    unseen = [f for name, idx in [("held-out embeddings", index), ("held-out lexical", lexical),
                                  ("held-out hybrid", Hybrid(index))]
              for f in quality(name, idx, heldout, goal=False)[0]]
    texts = itertools.cycle(q["question"] for q in questions)
    query_ms = median_ms(lambda: index.search(next(texts), 3), repeat=200)
    lexical_ms = median_ms(lambda: lexical.search(next(texts), 3), repeat=200)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [*by_meaning, *by_words, *fused, *unseen,
            Figure("embeddings hit@3 minus lexical hit@3", meaning_hit3 - words_hit3, "", above(0)),
            Figure("import sentence-transformers", imported, "s"),
            Figure("model load, after the import", loaded, "s", at_most(3)),
            Figure(f"first index build (embeds {len(index.sections)} sections)", built, "s"),
            Figure("re-index from the cache", reindexed * 1000, "ms", at_most(500)),
            Figure("query p50, embeddings", query_ms, "ms", at_most(10)),
            Figure("query p50, lexical", lexical_ms, "ms"),
            Figure("peak memory", peak, "MiB")]


def main() -> list[Figure]:
    root = Path(__file__).resolve().parents[1]
    code = ("import json; from bench.search import measure; "
            f"print({MARK!r} + json.dumps([f.as_json() for f in measure()]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600)
    lines = done.stdout.splitlines()
    print(*(line for line in lines if not line.startswith(MARK)), sep="\n")
    if done.returncode:
        raise RuntimeError(f"the measuring process failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return [Figure.from_json(f) for f in json.loads(next(line for line in lines if line.startswith(MARK))[len(MARK):])]


if __name__ == "__main__":
    print(*measure(), sep="\n")
