"""Queries at class scale: concurrent questions embedded in one batch, repeated ones from a cache (issue 21).

    index = DocIndex(embedder=BatchingEmbedder(MiniLM()))   # the class server's index

One learner's question costs MiniLM one forward pass (~10 ms). Fifty learners asking at once
cost fifty passes, each in its own thread, fighting over two cores: p95 near a second. Batched,
the questions that arrive while a pass runs wait for the next one, and go in together: a pass
over 16 short questions costs little more than over one. Questions asked before (a class works
through the same exercises) come from a small cache and cost no pass at all.

A batch gives each question the vector it would get alone: the model pads the shorter ones and
masks the padding out of its mean (tests/test_search_batching.py compares the hits).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from course.search.embeddings import Embedder, normalize

MAX_BATCH = 32  # questions per forward pass
CACHED = 2048  # questions remembered (384 floats each: ~3 MB)


@dataclass
class _Question:
    text: str
    vector: np.ndarray | None = None
    error: BaseException | None = None


class BatchingEmbedder:
    """An `Embedder` for many threads at once: single questions are batched and cached; lists of
    texts (a folder's sections) go straight to `inner`. Its name is `inner`'s, so the vectors in
    the embedding cache are the same ones."""

    def __init__(self, inner: Embedder, max_batch: int = MAX_BATCH, cached: int = CACHED):
        self.inner, self.max_batch, self.cached = inner, max_batch, cached
        self._turn = threading.Condition()
        self._queue: list[_Question] = []
        self._encoding = False  # a thread is running a batch: the others queue for the next one
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.passes = self.hits = 0  # forward passes run, questions answered from the cache

    @property
    def name(self) -> str:
        return self.inner.name

    def encode(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if len(texts) != 1:
            return normalize(self.inner.encode(texts))
        return self.question(texts[0])[None, :]

    def question(self, text: str) -> np.ndarray:
        """The vector of one question: from the cache, or from the next batch (which this thread may run)."""
        with self._turn:
            known = self._cache.get(text)
            if known is not None:
                self._cache.move_to_end(text)
                self.hits += 1
                return known
            mine = _Question(text)
            self._queue.append(mine)
            while mine.vector is None and mine.error is None:
                if self._encoding:
                    self._turn.wait()
                    continue
                batch, self._queue = self._queue[:self.max_batch], self._queue[self.max_batch:]
                self._encoding = True
                self._turn.release()  # others queue up while this thread runs the model
                try:
                    self._run(batch)
                finally:
                    self._turn.acquire()
                    self._encoding = False
                    self._turn.notify_all()
        if mine.error is not None:
            raise mine.error
        assert mine.vector is not None
        return mine.vector

    def _run(self, batch: list[_Question]) -> None:
        texts = list(dict.fromkeys(q.text for q in batch))  # the same question twice: one row
        try:
            vectors = dict(zip(texts, normalize(self.inner.encode(texts)), strict=True))
        except BaseException as e:  # every question of the batch gets the error, not only this thread's
            for q in batch:
                q.error = e
            return
        self.passes += 1
        with self._turn:
            for text, vector in vectors.items():
                vector.setflags(write=False)  # shared by every caller that asks the same question
                self._cache[text] = vector
            while len(self._cache) > self.cached:
                self._cache.popitem(last=False)
        for q in batch:
            q.vector = vectors[q.text]
