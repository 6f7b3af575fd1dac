"""The index: a folder's sections, searchable by meaning, or by keywords as a fallback (lesson 3).

Sections are embedded with all-MiniLM-L6-v2 and ranked by cosine similarity. Without
sentence-transformers or the model, `DocIndex` says what to install and falls back to a
lexical (BM25) search, and says so.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from course import paths
from course.errors import ToolFailure
from course.search.cache import EmbeddingCache, embed_all
from course.search.documents import Section, excerpt, load_sections
from course.search.embeddings import Embedder, MiniLM, ModelUnavailable, model_available, normalize
from course.search.lexical import BM25


@dataclass(frozen=True)
class Hit:
    doc: str
    heading: str
    score: float  # cosine similarity (embeddings) or BM25 score (lexical): compare within one mode only
    excerpt: str


class DocIndex:
    """The sections of a folder of markdown files, searchable by meaning (or by words, as a fallback).

    `embedder`: "auto" (MiniLM if it loads, else lexical, with a message), "lexical", or any
    object with `encode(texts) -> array` (and a `name`, used in the cache key). `shared_cache`:
    a class's read-only cache to copy vectors from (default `COURSE_SHARED_EMBEDDINGS`, course.paths).
    """

    def __init__(self, folder: Path = paths.DATA, *, cache_dir: Path = paths.WORK / "embeddings",
                 embedder: str | Embedder = "auto", shared_cache: Path | None = paths.SHARED_EMBEDDINGS):
        self.folder = Path(folder).expanduser()
        self.sections = load_sections(self.folder)
        self.cache_dir = Path(cache_dir)
        self.shared_cache = shared_cache
        self._lexical: BM25 | None = None
        self.embedder: Embedder | None = None
        self.vectors: np.ndarray | None = None
        if embedder == "lexical":
            self.mode = "lexical"
        elif embedder == "auto":
            reason = model_available()
            if reason:
                self._fall_back(reason)
            else:
                self._use(MiniLM())
        elif isinstance(embedder, str):
            raise ValueError(f"embedder must be 'auto', 'lexical' or an object with encode(); got {embedder!r}")
        else:
            if not callable(getattr(embedder, "encode", None)):
                raise TypeError(f"{type(embedder).__name__} has no encode(texts) method.")
            self._use(embedder)

    def _use(self, embedder: Embedder) -> None:
        self.mode = "embeddings"
        self.embedder = embedder
        try:
            name = getattr(embedder, "name", None) or type(embedder).__name__
            self.vectors = embed_all([s.embedding_text() for s in self.sections], embedder,
                                     EmbeddingCache(self.cache_dir, name, self.shared_cache))
        except ModelUnavailable as e:
            self._fall_back(str(e))

    def _fall_back(self, reason: str) -> None:
        print(f"Semantic search is not available: {reason}\nUsing lexical search (BM25) instead: it finds "
              "sections that share the question's words, not its meaning.", file=sys.stderr)
        self.mode, self.embedder, self.vectors = "lexical", None, None

    @property
    def lexical(self) -> BM25:
        if self._lexical is None:
            self._lexical = BM25([s.embedding_text() for s in self.sections])
        return self._lexical

    def lexical_scores(self, query: str) -> np.ndarray:
        """One BM25 score per section, in `self.sections` order, whatever the mode (0: no shared word)."""
        return self.lexical.scores(query)

    def scores(self, query: str) -> np.ndarray:
        """One score per section, in `self.sections` order."""
        if self.mode == "embeddings" and self.embedder is not None and self.vectors is not None:
            try:
                q = normalize(self.embedder.encode([query]))[0]
                return self.vectors @ q  # vectors have length 1: the dot product is the cosine
            except ModelUnavailable as e:
                self._fall_back(str(e))
        return self.lexical_scores(query)

    def search(self, query: str, k: int = 3) -> list[Hit]:
        """The `k` sections most similar to `query`, best first."""
        if not isinstance(query, str) or not query.strip():
            raise ToolFailure("The query is empty. Describe what you are looking for in a few words, "
                              "for example 'refund time limit'.")
        if not isinstance(k, int) or k < 1:
            raise ToolFailure(f"k must be a whole number of results, at least 1 (got {k!r}).")
        scores = self.scores(query.strip())
        best = np.argsort(-scores, kind="stable")[:k]  # stable: ties keep document order
        if self.mode == "lexical":
            best = best[scores[best] > 0]  # no shared word: not a match at all
        return [Hit(self.sections[i].doc, self.sections[i].heading, float(scores[i]),
                    excerpt(self.sections[i].text)) for i in best]

    def section(self, doc: str, heading: str) -> Section | None:
        for s in self.sections:
            if s.doc == doc and s.heading.casefold() == heading.casefold():
                return s
        return None

    def documents(self) -> dict[str, list[Section]]:
        """{doc: its sections}, in file order."""
        docs: dict[str, list[Section]] = {}
        for s in self.sections:
            docs.setdefault(s.doc, []).append(s)
        return docs

    def __repr__(self) -> str:
        return (f"DocIndex({len(self.documents())} documents, {len(self.sections)} sections, "
                f"mode={self.mode!r})")
