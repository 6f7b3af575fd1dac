"""The class server's query batcher: concurrent questions in one forward pass, the same hits as one by one."""

from __future__ import annotations

import copy
import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from course import paths
from course.search import BatchingEmbedder, DocIndex, MiniLM, model_available

ASKED = json.loads((Path(__file__).parent / "search_questions.json").read_text())["questions"]
DOCS = ("payments", "shipping", "refunds", "account", "price-match")


class Gated:
    """A fake model whose first pass waits for the test: the questions asked meanwhile queue up."""

    name = "gated"

    def __init__(self):
        self.calls: list[list[str]] = []
        self.gate = threading.Event()

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            self.gate.wait(30)
        return np.array([[len(t), 1.0, sum(map(ord, t)) % 7] for t in texts], dtype=np.float32)


def wait_for(condition, seconds: float = 30.0) -> None:
    done = threading.Event()
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("the condition never held")


def test_questions_asked_during_a_pass_go_into_the_next_pass_together():
    model = Gated()
    batcher = BatchingEmbedder(model)
    with ThreadPoolExecutor(6) as pool:
        first = pool.submit(batcher.encode, ["first question"])
        wait_for(lambda: len(model.calls) == 1)
        rest = [pool.submit(batcher.encode, [f"question {i}"]) for i in range(5)]
        wait_for(lambda: len(batcher._queue) == 5)
        model.gate.set()
        vectors = [first.result(), *(f.result() for f in rest)]
    assert model.calls[1:] == [[f"question {i}" for i in range(5)]]  # five questions, one pass
    assert all(v.shape == (1, 3) for v in vectors) and batcher.passes == 2


def test_a_question_asked_before_costs_no_pass_and_a_list_of_sections_is_never_batched():
    model = Gated()
    model.gate.set()
    batcher = BatchingEmbedder(model, cached=2)
    a, again = batcher.encode(["refunds"]), batcher.encode(["refunds"])
    batcher.encode(["b"]), batcher.encode(["c"])  # "refunds" is now the oldest of three: forgotten
    batcher.encode(["refunds"])
    batcher.encode(["one section", "another"])
    assert np.array_equal(a, again) and batcher.hits == 1
    assert model.calls == [["refunds"], ["b"], ["c"], ["refunds"], ["one section", "another"]]
    assert batcher.name == model.name  # the embedding cache's key: the same vectors as the model's own


def test_a_failing_pass_fails_every_question_in_it_and_the_next_pass_runs():
    class Broken(Gated):
        def encode(self, texts):
            if not self.calls:
                self.calls.append(texts)
                raise RuntimeError("out of memory")
            return super().encode(texts)

    batcher = BatchingEmbedder(Broken())
    with pytest.raises(RuntimeError, match="out of memory"):
        batcher.encode(["q"])
    batcher.inner.gate.set()
    assert batcher.encode(["q"]).shape == (1, 3)


@pytest.mark.skipif(bool(model_available()), reason="needs lesson 3's model")
def test_the_class_asking_at_once_gets_the_same_hits_as_one_by_one_search(tmp_path):
    # Five of the shop's documents (30 sections) and the twelve questions about them: batching changes how the
    # questions are embedded, not the sections, so embedding all 76 sections first (when no test before this one
    # left them in the worker's embedding cache, which this index reads too) would only add seconds.
    for doc in DOCS:
        shutil.copy(paths.DATA / f"{doc}.md", tmp_path)
    alone = DocIndex(tmp_path, embedder=MiniLM())
    together = copy.copy(alone)  # the same sections and vectors; only the questions are embedded another way
    together.embedder = batcher = BatchingEmbedder(MiniLM())
    asked = [q["question"] for q in ASKED if q["doc"] in DOCS]
    assert len(asked) == 12
    expected = [alone.search(q, 3) for q in asked]
    with ThreadPoolExecutor(12) as pool:
        found = list(pool.map(lambda q: together.search(q, 3), asked * 2))
    assert [[(h.doc, h.heading) for h in hits] for hits in found] == [[(h.doc, h.heading) for h in hits]
                                                                     for hits in expected] * 2
    assert np.allclose([[h.score for h in hits] for hits in found], [[h.score for h in hits]
                                                                      for hits in expected] * 2, atol=1e-4)
    assert batcher.passes <= len(asked)  # each question asked twice, embedded at most once


def test_the_class_server_batches_its_questions_when_the_model_is_there_and_says_lexical_otherwise(monkeypatch):
    from course.classroom import server

    assert server.class_embedder("lexical") == "lexical"
    monkeypatch.setattr("course.search.model_available", lambda: None)
    assert isinstance(server.class_embedder("auto"), BatchingEmbedder)
    monkeypatch.setattr("course.search.model_available", lambda: "sentence-transformers is not installed.")
    assert server.class_embedder("auto") == "auto"  # DocIndex then says why, and searches by keywords
