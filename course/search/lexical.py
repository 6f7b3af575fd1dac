"""Keyword search (BM25): the fallback without the embedding model, and lesson 3's comparison."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

STOPWORDS = set("""a about after all also an and any are as at be because been before but by can could do
does for from had has have how i if in into is it its my no not of on or our so than that the their them
then there these they this to up us was we were what when where which who why will with you your""".split())


def words(text: str) -> list[str]:
    """The words keyword search compares: lower case, without stop words, stemmed (kettles -> kettle,
    charged -> charg). Not an LLM's tokens."""
    out = []
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in STOPWORDS:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        out.append(word)
    return out


class BM25:
    """Okapi BM25 over the sections' words: finds sections that share the query's words."""

    def __init__(self, texts: list[str], k1: float = 1.5, b: float = 0.75):
        docs = [Counter(words(t)) for t in texts]
        self.vocab = {w: i for i, w in enumerate(sorted({w for d in docs for w in d}))}
        tf = np.zeros((len(docs), len(self.vocab)), dtype=np.float32)
        for row, counts in enumerate(docs):
            for word, n in counts.items():
                tf[row, self.vocab[word]] = n
        lengths = tf.sum(axis=1, keepdims=True)
        df = (tf > 0).sum(axis=0)
        idf = np.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        # Precompute each word's weight in each section; a query only sums columns.
        self.weights = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / max(lengths.mean(), 1)))

    def scores(self, query: str) -> np.ndarray:
        columns = [self.vocab[w] for w in words(query) if w in self.vocab]
        return self.weights[:, columns].sum(axis=1)
