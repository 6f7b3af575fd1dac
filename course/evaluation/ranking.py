"""Rankings beyond plain embeddings, for lesson 3's evaluation: BM25 + embeddings fused (hybrid).

Reciprocal rank fusion (Cormack et al., 2009): each section scores sum(1 / (K + rank)) over
the two rankings, so a section both searches like wins, and neither score's scale matters.
K = 60 is the paper's constant, not tuned here (tuning it on the course's own questions
would be exactly the overfitting the held-out set is there to catch).
"""

from __future__ import annotations

import numpy as np

from course.search import DocIndex, Hit
from course.search.documents import excerpt

K = 60


class Hybrid:
    """Embeddings and BM25 over the same `DocIndex`, fused by reciprocal rank; `search` like `DocIndex`."""

    name = "hybrid (embeddings + BM25, RRF)"

    def __init__(self, index: DocIndex, k: int = K):
        self.index, self.k = index, k

    def scores(self, query: str) -> np.ndarray:
        fused = np.zeros(len(self.index.sections))
        for scores in (self.index.scores(query), self.index.lexical_scores(query)):
            ranks = np.empty(len(scores), dtype=int)
            ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
            fused += 1.0 / (self.k + ranks)
        return fused

    def search(self, query: str, k: int = 3) -> list[Hit]:
        scores = self.scores(query.strip())
        best = np.argsort(-scores, kind="stable")[:k]
        sections = self.index.sections
        return [Hit(sections[i].doc, sections[i].heading, float(scores[i]), excerpt(sections[i].text))
                for i in best]
