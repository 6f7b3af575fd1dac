"""Keyword search (BM25, from the `bm25s` library): the fallback without the embedding model, and
lesson 3's comparison.

Lesson 3 is about embeddings; BM25 is here to compare with and to fall back on, so the
course uses a maintained implementation rather than its own.
"""

from __future__ import annotations

import logging

import bm25s
import numpy as np
import Stemmer

# bm25s sets its logger to DEBUG when imported: under an MCP server's logging every index build would
# print "Building index from tokens" on stderr, into the learner's notebook.
logging.getLogger("bm25s").setLevel(logging.WARNING)
_STEMMER = Stemmer.Stemmer("english")  # Snowball: kettles -> kettl, charged -> charg, pulling -> pull


def words(text: str) -> list[str]:
    """The words keyword search compares: lower case, without English stop words, stemmed
    (`"Pulling the cables"` -> `["pull", "cabl"]`). Not an LLM's tokens."""
    return bm25s.tokenize(text, stopwords="en_plus", stemmer=_STEMMER, return_ids=False, show_progress=False)[0]


class BM25:
    """Okapi BM25 over texts' words: finds the texts that share the query's words."""

    def __init__(self, texts: list[str]):
        self._bm25 = bm25s.BM25()
        self._bm25.index([words(t) for t in texts], show_progress=False)
        self._count = len(texts)

    def scores(self, query: str) -> np.ndarray:
        """One score per text, in the order given; 0 where a text shares no word with the query."""
        known = [w for w in words(query) if w in self._bm25.vocab_dict]
        if not known:
            return np.zeros(self._count, dtype=np.float32)
        return self._bm25.get_scores(known)
