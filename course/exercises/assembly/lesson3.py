"""Lesson 3's assemble step: the shop's documents cut by the learner's `split_sections`, searched with the
learner's `rank` and `search_docs`, scored with the learner's `hit_at_k` and `best_sections`, next to the course's
`DocIndex` and `evaluate` on the same documents and questions.

Both sides embed with one small keyword embedder (hashed words, weighted by idf), so the step runs in a second
anywhere (the grader's sandbox has no embedding cache, and MiniLM would take most of its time limit): the
comparison is the learner's pipeline against the course's on the same vectors, not a new measurement of the
lesson's model.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from course.exercises.assembly.pieces import Assembly, gather, judged
from course.exercises.registry import exercise
from course.paths import DATA

PIECES = {"l3-sections": "split_sections", "l3-rank": "rank", "l3-search-docs": "search_docs",
          "l3-hit-at-k": "hit_at_k", "l3-best-per-doc": "best_sections"}
# Eight of tests/search_questions.json, here because the grader's sandbox has no tests/ folder.
QUESTIONS: list[dict[str, Any]] = [
    {"question": "Can I get a refund a week after buying?", "doc": "refunds", "section": "Time limits"},
    {"question": "How soon will the money be back in my bank?", "doc": "refunds",
     "section": "How the money comes back"},
    {"question": "Is there an expiry date on vouchers?", "doc": "gift-cards", "section": "Validity and balance"},
    {"question": "My mug arrived smashed, what now?", "doc": "damaged-items", "section": "Reporting a problem",
     "also": ["Broken glass and ceramics", "Replacement or refund"]},
    {"question": "Do you take PayPal?", "doc": "payments", "section": "Ways to pay"},
    {"question": "How do I delete my profile for good?", "doc": "account", "section": "Closing your account"},
    {"question": "I saw it cheaper at another store", "doc": "price-match", "section": "Our promise"},
    {"question": "How many days until my package shows up?", "doc": "shipping", "section": "Delivery times"},
]
QUESTION = "Who pays for return postage?"  # one that shares its words with the answer: keywords find it
# What the notebook has imported before the assemble cell (tests/test_exercises_lessons.py compares them).
GIVEN = """
from course.backend import connect
from course.exercises import check, hint
from course.stories.lesson3 import document_search
from course.paths import DATA
from course import show
from course.search import Section, load_sections
from pathlib import Path
from course.search import DocIndex
import numpy as np
from course.search import cosine, heatmap, normalize
from IPython.display import HTML, display
from course.search import words
import time
from course.search import EmbeddingCache
import shutil
import tempfile
import json
from course.paths import ROOT
from course.search import evaluate
from course.doctools import DocTools
from course.tools import ToolFailure
from course.agent import Limits, run_agent
"""


class WordHash:
    """A small embedder: each word hashed into one of 4096 dimensions, weighted by how rare it is in the shop's
    documents (idf), the vector normalized. Keyword search in vector form: no model to load."""

    name = "word-hash-idf-4096"

    def __init__(self) -> None:
        from course.search import load_sections, words

        documents = [set(words(s.embedding_text())) for s in load_sections(DATA)]
        every = set().union(*documents)
        self.idf = {w: math.log(len(documents) / sum(w in d for d in documents)) for w in every}

    def encode(self, texts: list[str]) -> np.ndarray:
        from course.search import words

        out = np.zeros((len(texts), 4096), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text):
                slot = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % 4096
                out[row, slot] += self.idf.get(word, 0.0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class LearnersIndex:
    """The learner's sections and vectors, searched with the learner's `rank`: what `best_sections` asks of an
    index (`search(query, k)` → hits with `.doc` and `.heading`)."""

    def __init__(self, p: Mapping[str, Any], embedder: WordHash) -> None:
        self.p, self.embedder = p, embedder
        self.sections = [s for path in sorted(DATA.glob("*.md"))
                         for s in p["split_sections"](path.stem, path.read_text(encoding="utf-8"))]
        self.vectors = embedder.encode([s.embedding_text() for s in self.sections])

    def search(self, query: str, k: int = 3) -> list[Any]:
        from course.search import Hit

        rows = self.p["rank"](self.embedder.encode([query])[0], self.vectors, k)
        return [Hit(self.sections[i].doc, self.sections[i].heading, 0.0, "") for i in rows]

    def search_docs(self, query: str, k: int = 3) -> list[dict]:
        return self.p["search_docs"](query, self.sections, self.vectors, self.embedder.encode, k)


def story(p: Mapping[str, Any], questions: list[dict]) -> tuple[str, float, list[str]]:
    """The learner's: the top citation for the lesson's question, hit@3 on the test questions, the documents of
    the best section per document for "refund"."""
    index = LearnersIndex(p, WordHash())
    top = index.search_docs(QUESTION, 3)[0]["cite_as"]
    score = p["hit_at_k"](index.search, questions, 3)
    best = [h.doc for h in p["best_sections"](index, "refund", 3)]
    return top, round(float(score), 3), best


def courses(questions: list[dict]) -> tuple[str, float, list[str]]:
    from course.search import DocIndex, evaluate

    # The course's index on the same embedder; its vectors made here, not by embed_all, whose progress bar
    # would be a widget in the notebook's output.
    index = DocIndex(embedder="lexical")
    index.embedder = WordHash()
    index.vectors = index.embedder.encode([s.embedding_text() for s in index.sections])
    index.mode = "embeddings"
    hit = index.search(QUESTION, 3)[0]
    top = next(s.label for s in index.sections if (s.doc, s.heading) == (hit.doc, hit.heading))
    score = evaluate(index, questions)["hit@3"]
    best = list(dict.fromkeys(h.doc for h in index.search("refund", 12)))[:3]
    return top, round(float(score), 3), best


def assemble(namespace: Mapping[str, Any]) -> Assembly:
    pieces = gather(PIECES, namespace)
    questions = QUESTIONS
    got = story({p.name: p.value for p in pieces}, questions)
    want = courses(questions)
    top, score, best = got
    return Assembly("l3-assemble", pieces, got=got, want=want,
                    lines=[f"{QUESTION} → {top}", f"hit@3 on {len(questions)} test questions: {score:.0%}",
                           f"the best section of each document for 'refund': {', '.join(best)}"])


@exercise("l3-assemble", lesson=3, given=GIVEN, uses=tuple(PIECES))
def check_assemble(split_sections, rank, search_docs, hit_at_k, best_sections):
    return judged(assemble(dict(split_sections=split_sections, rank=rank, search_docs=search_docs,
                                hit_at_k=hit_at_k, best_sections=best_sections)))
