"""Checks for lesson 3's exercises (notebooks/03_document_search.ipynb), in the order the lesson builds things.

Every check tries the learner's code on the lesson's example and on cases it makes up as it
runs (markdown documents with odd headings, random vectors, a tiny word-count embedder,
question sets), so only code that does the job in general passes. None loads the embedding
model: they run in milliseconds. Hints say what is wrong, then how to go about it.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np

from course.exercises import NotYet, exercise
from course.exercises.lesson3_cases import (
    QuestionSet,
    WordCounts,
    as_indices,
    corpus,
    flat,
    hit_rate,
    make_doc,
    question_set,
    spread,
    unit,
)
from course.search import Hit, Section

# What the notebook has imported before each exercise cell (tests/test_exercises_l3.py compares them).
GIVEN_SECTIONS = """
from course.backend import connect
from course.exercises import check
from course.stories.lesson3 import document_search
from course.paths import DATA
from course import show
from course.search import Section, load_sections
"""
GIVEN_RANK = GIVEN_SECTIONS + """
from pathlib import Path
from course.search import DocIndex
import numpy as np
"""
GIVEN_SEARCH_DOCS = GIVEN_RANK + """
from course.search import cosine, heatmap, normalize
from IPython.display import HTML, display
from course.search import words
"""
GIVEN_HIT_AT_K = GIVEN_SEARCH_DOCS + """
import time
from course.search import EmbeddingCache
import shutil
import tempfile
import json
from course.paths import ROOT
"""
GIVEN_BEST_PER_DOC = GIVEN_HIT_AT_K + """
from course.search import evaluate
from course.doctools import DocTools
from course.tools import ToolError
from course.agent import Limits, run_agent
"""


# -- l3-sections --------------------------------------------------------------------------------
SECTION_HINTS = {
    "intro": ("the text before the first `## ` heading was lost: it becomes a section of its own, with the "
              "heading \"Overview\", before the others"),
    "no-intro": ("there was an Overview section, though the document has no text before its first `## ` "
                 "heading: make one only when that text is not empty (blank lines do not count)"),
    "subheading": ("a `### ` heading started a section of its own. Only `## ` starts a section (does your test "
                   "also match \"### \"? line.startswith(\"## \") does not); deeper headings stay in the text"),
    "fence": ("a `## ` line inside a code block (between two ``` lines) was taken for a heading. Keep track of "
              "whether you are inside a block: a line starting with ``` opens or closes one"),
    "odd": ("a heading was not read right: a heading is the rest of its `## ` line, stripped of spaces, "
            "whatever it contains (digits, '#', punctuation)"),
    "empty-section": "a `## ` section with no text was lost: keep it, with the text \"\"",
    "blank-lines": ("blank lines inside a section ended it or lost the text after them: a section ends only at "
                    "the next `## `"),
}


def _sections_of(split_sections, doc) -> list:
    from course.search import Section

    if {"parse_markdown", "load_sections"} & set(getattr(getattr(split_sections, "__code__", None), "co_names", ())):
        raise NotYet("split_sections hands the work to the course's parse_markdown/load_sections: this exercise "
                     "is to write the split yourself, line by line.")
    got = split_sections(doc.name, doc.markdown)
    if got is None:
        raise NotYet("split_sections returns None: return the list of Section objects.")
    if not isinstance(got, list):
        raise NotYet(f"split_sections returns a {type(got).__name__}, not a list: collect the sections in a list.")
    wrong = [s for s in got if not isinstance(s, Section)]
    if wrong:
        raise NotYet(f"the list holds a {type(wrong[0]).__name__}: make each section with "
                     "Section(doc, title, heading, text).")
    return got


def _compare_sections(got: list, doc) -> None:
    if any(s.doc != doc.name for s in got):
        raise NotYet("a section's `doc` is not the `doc` argument: every section of the document gets the name "
                     "you were given.")
    if any(s.title != doc.title for s in got):
        seen = next(s.title for s in got if s.title != doc.title)
        raise NotYet(f"a section's title is {seen!r:.60}: the title is the text of the document's `# ` line, "
                     "without the '# ' (and the same for every section of the document).")
    want = [(h, flat(t)) for h, t in doc.expected]
    have = [(s.heading, flat(s.text)) for s in got]
    if have == want:
        return
    headings = [h for h, _ in want]
    if [s.heading for s in got] != headings:
        if "Overview" == headings[0] and "intro" in doc.features and "Overview" not in [s.heading for s in got]:
            raise NotYet(SECTION_HINTS["intro"] + ".")
        if "intro" not in doc.features and got and got[0].heading == "Overview" and "Overview" not in headings:
            raise NotYet(SECTION_HINTS["no-intro"] + ".")
        if len(got) > len(want):
            for feature in ("subheading", "fence"):
                if feature in doc.features:
                    raise NotYet(SECTION_HINTS[feature] + ".")
        if len(got) < len(want):
            for feature in ("empty-section", "blank-lines"):
                if feature in doc.features:
                    raise NotYet(SECTION_HINTS[feature] + ".")
        if sorted(s.heading for s in got) == sorted(headings):
            raise NotYet("the sections are not in the order of the document: keep them in the order they come.")
        if "odd" in doc.features or any(h.strip() != h or h.startswith("#") for h in (s.heading for s in got)):
            raise NotYet(SECTION_HINTS["odd"] + f"; you have {[s.heading for s in got]!r:.120}.")
        raise NotYet(f"expected {len(want)} sections, one per `## ` heading (plus Overview for any text before "
                     f"the first one); got {len(got)}.")
    for (heading, text), section in zip(want, got, strict=True):
        mine = flat(section.text)
        if mine == text:
            continue
        if mine.startswith("#"):
            raise NotYet("a section's text starts with a heading line: the `## ` line gives the heading and is "
                         "not part of the text (nor is the `# ` title line).")
        if text and text in mine:
            raise NotYet("a section's text runs on past its end: a section ends where the next `## ` heading "
                         "starts.")
        if "###" in text and "###" not in mine:
            raise NotYet("a `### ` line is missing from its section's text: deeper headings are part of the text.")
        if "```" in text and "```" not in mine:
            raise NotYet("a code block's lines are missing from their section's text: they are part of it.")
        raise NotYet(f"the text of a section (heading {heading!r:.40}) is not the lines between its heading and "
                     "the next, joined with \"\\n\" and stripped.")


@exercise("l3-sections", lesson=3, given=GIVEN_SECTIONS)
def check_sections(split_sections):
    from course.paths import DATA
    from course.search import parse_markdown

    rng = random.Random()
    docs = [make_doc(rng, "intro"), make_doc(rng), make_doc(rng, "intro", "subheading"),
            make_doc(rng, "fence"), make_doc(rng, "odd", rng.choice(["intro", "blank-lines"])),
            make_doc(rng, "empty-section", "blank-lines"), make_doc(rng, "intro", "subheading", "fence", "odd")]
    for doc in docs:
        _compare_sections(_sections_of(split_sections, doc), doc)
    refunds = (DATA / "refunds.md").read_text()
    got = [(s.doc, s.title, s.heading, flat(s.text)) for s in _sections_of(split_sections, _Given("refunds", refunds))]
    want = [(s.doc, s.title, s.heading, flat(s.text)) for s in parse_markdown("refunds", refunds)]
    if got != want:
        raise NotYet("refunds.md does not split into its Overview and its five `## ` sections: compare "
                     "split_sections('refunds', ...) with load_sections(DATA) for the refunds document.")
    return f"refunds.md and {len(docs)} documents the check wrote (odd headings, code blocks, ### ...) split right."


class _Given:
    """A real document, given as it is (its expected sections come from the course's parser)."""

    def __init__(self, name: str, markdown: str):
        self.name, self.markdown = name, markdown


# -- l3-rank ------------------------------------------------------------------------------------
def _rank_case(rank, query, rows, k) -> None:
    kept_q, kept_rows = query.copy(), rows.copy()
    got = as_indices(rank(query, rows, k), "rank", len(rows))
    if not (np.array_equal(query, kept_q) and np.array_equal(rows, kept_rows)):
        raise NotYet("rank changed the arrays it was given (in-place /= or normalising rows in place?): "
                     "the caller's vectors must stay as they were. Compute new arrays: rows / norms.")
    cosine = unit(rows) @ unit(query)
    want = [int(i) for i in np.argsort(-cosine)[:k]]
    if got == want:
        return
    if len(got) != k:
        raise NotYet(f"rank returned {len(got)} row numbers for k={k}: return exactly k, the best k.")
    if got == [int(i) for i in np.argsort(-(rows @ query))[:k]]:
        raise NotYet("your ranking is by the dot product of the raw vectors, so long vectors win whatever their "
                     "direction. Cosine similarity divides by both lengths: normalise each row and the query to "
                     "length 1 first (v / np.linalg.norm(v)), then take the dot product.")
    if got == [int(i) for i in np.argsort(cosine)[:k]]:
        raise NotYet("your list starts with the least similar rows: best first (np.argsort(-scores), or [::-1]).")
    if set(got) == set(want):
        raise NotYet("the right rows, but not best first: sort them by similarity, highest first.")
    raise NotYet("the rows returned are not the k most similar by cosine similarity: score each row as "
                 "(row · query) / (|row| |query|), then take the k highest, best first.")


@exercise("l3-rank", lesson=3, given=GIVEN_RANK)
def check_rank(rank):
    example_q = np.array([1.0, 0.0], dtype=np.float32)
    example = np.array([[10.0, 10.0], [0.9, 0.1], [0.0, 1.0], [-1.0, 0.0]], dtype=np.float32)
    _rank_case(rank, example_q, example, 2)
    gen = np.random.default_rng()
    for _ in range(6):
        n, dim = int(gen.integers(5, 40)), int(gen.integers(3, 64))
        query, rows = spread(gen, n, dim)
        for k in (1, int(gen.integers(2, n)), n):
            _rank_case(rank, query, rows, k)
    return "The k most similar rows by cosine similarity, best first, on random vectors of every length."


# -- l3-search-docs -----------------------------------------------------------------------------
KEYS = {"document", "section", "cite_as", "score"}


def _search_case(search_docs, sections, query: str, k: int) -> None:
    embed = WordCounts()
    vectors = embed([s.embedding_text() for s in sections])
    embed.calls.clear()
    kept_vectors, kept_sections = vectors.copy(), list(sections)
    got = search_docs(query, sections, vectors, embed, k)
    if not (np.array_equal(vectors, kept_vectors) and sections == kept_sections):
        raise NotYet("search_docs changed the sections or vectors it was given (normalising in place?): make new "
                     "arrays instead, the index reuses these for every search.")
    if any(len(texts) != 1 for texts in embed.calls) or len(embed.calls) > 1:
        raise NotYet("search_docs embedded more than the query: `vectors` already holds one vector per section "
                     "(row i is sections[i]); embed only the query, embed([query])[0].")
    if not embed.calls:
        raise NotYet("search_docs never embedded the query: embed([query])[0] is its vector.")
    if not isinstance(got, list) or not all(isinstance(h, dict) for h in got):
        raise NotYet(f"search_docs should return a list of dicts (one per hit); got {type(got).__name__}"
                     + (f" of {type(got[0]).__name__}" if isinstance(got, list) and got else "") + ".")
    for hit in got:
        if set(hit) != KEYS:
            raise NotYet(f"each hit should have exactly the keys {sorted(KEYS)}; one has {sorted(hit)}.")
    try:
        json.dumps(got)
    except TypeError as e:
        raise NotYet(f"the hits are not JSON ({e}): a tool result goes to the model as JSON, and json.dumps "
                     "refuses numpy numbers. Make the score a Python float: float(score).") from None
    q = embed([query])[0]
    cosine, dots = unit(vectors) @ unit(q), vectors @ q
    best = np.argsort(-cosine)[:k]
    want = [(sections[i].doc, sections[i].heading) for i in best]
    have = [(h["document"], h["section"]) for h in got]
    if have and have == [(sections[i].heading, sections[i].doc) for i in best][:len(have)]:
        raise NotYet("document and section are swapped: \"document\" is the section's doc, \"section\" its heading.")
    for hit in got:
        if hit["cite_as"] != f"{hit['document']} › {hit['section']}":
            raise NotYet(f"cite_as is {hit['cite_as']!r:.60}: it should read 'document › section', e.g. "
                         "'refunds › Time limits' (the same as Section.label).")
    raw = ("the check's embedder (like many) gives vectors of different lengths, so the raw dot product favours "
           "long sections. Normalise the section vectors and the query to length 1 first (or divide by both "
           "lengths): then the dot product is the cosine.")
    if have == want:
        for hit, i in zip(got, best, strict=True):
            if abs(hit["score"] - float(cosine[i])) > 0.006:
                if abs(hit["score"] - float(dots[i])) < 1e-3 * max(1.0, abs(float(dots[i]))):
                    raise NotYet("the scores are raw dot products, not cosine similarities: " + raw)
                raise NotYet(f"a score is {hit['score']}, but the cosine similarity is {float(cosine[i]):.3f}: "
                             "the score is the cosine of the query with the section's vector.")
        return
    if len(have) != k:
        raise NotYet(f"search_docs returned {len(have)} hits for k={k}: return the best k.")
    if have == [(sections[i].doc, sections[i].heading) for i in np.argsort(-dots)[:k]]:
        raise NotYet("the hits are ranked by the raw dot product: " + raw)
    raise NotYet("the hits are not the k sections most similar to the query (cosine similarity), best first.")


@exercise("l3-search-docs", lesson=3, given=GIVEN_SEARCH_DOCS)
def check_search_docs(search_docs):
    rng = random.Random()
    cases = 0
    while cases < 4:
        sections = corpus(rng, docs=rng.randint(3, 5))
        words = " ".join(rng.sample(sections[rng.randrange(len(sections))].text.split(), 3))
        embed = WordCounts()
        top = np.sort(unit(embed([s.embedding_text() for s in sections])) @ unit(embed([words])[0]))[::-1][:6]
        if np.diff(top).max() > -1e-4:
            continue  # a near tie: either order would be right
        cases += 1
        for k in (1, rng.randint(2, 4)):
            _search_case(search_docs, sections, words, k)
    return "Hits cite their section, best first by cosine similarity, ready to send as JSON."


# -- l3-hit-at-k --------------------------------------------------------------------------------
class _Search:
    """search(query, k): the case's hits for a question, at most k of them."""

    def __init__(self, qs: QuestionSet):
        self.qs = qs
        self.asked: list[int] = []

    def __call__(self, query: str, k: int | None = None) -> list[Hit]:
        if k is None:
            raise NotYet("search was called without k: call search(q[\"question\"], k), so it returns the first k "
                         "hits.")
        if query not in self.qs.ranked:
            raise NotYet("search was called with something that is not a question's text: call "
                         "search(q[\"question\"], k) for each question q.")
        if isinstance(k, bool) or not isinstance(k, int):
            raise NotYet(f"search was called with k={k!r}: pass the whole number k you were given.")
        self.asked.append(k)
        return list(self.qs.ranked[query][:k])


HIT_HINTS = {
    "at-k": "off by one: an answer at the k-th place did not count. The first k hits are hits[:k] (positions 0 "
            "to k-1), and search(question, k) gives exactly those",
    "after-k": "off by one: an answer just after the k-th place counted; only the first k hits count",
    "also-only": "a section listed in a question's \"also\" did not count: it answers the question just as well",
    "same-heading-other-doc": ("a hit with the right heading in another document counted: many documents have a "
                               "section called Overview. Compare the document too"),
    "both": "a question with two answering sections in the top k counted twice: count each question once (any(...))",
}


def _hit_case(hit_at_k, qs: QuestionSet, kind: str = "") -> None:
    kept = copy.deepcopy(qs.questions)
    search = _Search(qs)
    got = hit_at_k(search, qs.questions, qs.k)
    if qs.questions != kept:
        raise NotYet("hit_at_k changed the questions it was given: only read them (a question set is reused for "
                     "every method you compare).")
    if isinstance(got, bool) or not isinstance(got, int | float | np.number):
        raise NotYet(f"hit_at_k should return a number (the fraction of questions answered), not "
                     f"{type(got).__name__}.")
    if not search.asked:
        raise NotYet("hit_at_k never called search: call search(q[\"question\"], k) for each question.")
    want = hit_rate(qs)
    if abs(float(got) - want) < 1e-9:
        return
    n = len(qs.questions)
    if want and abs(float(got) - want * n) < 1e-9:
        raise NotYet("hit_at_k returned how many questions were answered: divide by the number of questions, so "
                     "it is a fraction from 0 to 1.")
    if want and abs(float(got) - want * 100) < 1e-6:
        raise NotYet("hit_at_k returned a percentage: return the fraction, from 0 to 1 (print it with :.0%).")
    if kind in HIT_HINTS:
        raise NotYet(HIT_HINTS[kind] + ".")
    raise NotYet("that is not the fraction of questions whose answering section (its doc and section, or a "
                 "section in \"also\") is among the first k hits of search(question, k).")


@exercise("l3-hit-at-k", lesson=3, given=GIVEN_HIT_AT_K)
def check_hit_at_k(hit_at_k):
    rng = random.Random()
    for k in (1, 2, 3, rng.randint(4, 6)):
        for kind in HIT_HINTS:  # one mistake at a time, so the hint can name it
            _hit_case(hit_at_k, question_set(rng, k, ["first", "missing", kind, kind]), kind)
        _hit_case(hit_at_k, question_set(rng, k))
    return "hit@k right for k from 1 to 6, with answers at the edge of the top k, `also` sections and Overviews."


# -- l3-best-per-doc ----------------------------------------------------------------------------
class StubIndex:
    """Answers every search with the same ranked hits, and records what it was asked: (query, k)."""

    def __init__(self, hits: list[Hit]):
        self.hits = hits
        # A DocIndex has its sections: a learner may ask for all of them with len(index.sections).
        self.sections = [Section(h.doc, h.doc, h.heading, h.excerpt) for h in hits]
        self.asked: list[tuple[str, int]] = []

    def search(self, query: str, k: int = 3) -> list[Hit]:
        self.asked.append((query, k))
        return list(self.hits[:k])


def ranked_hits(rng: random.Random, k: int) -> list[Hit]:
    """Hits, best first, where documents repeat in the first k and k documents appear within the first 2k."""
    docs = [f"{w}-{i}" for i, w in enumerate(rng.sample(["refunds", "returns", "orders", "warranty", "shipping",
                                                         "payments", "account", "privacy"], 8))]
    order = [docs[0], docs[0]] + docs[1:k] if k > 1 else [docs[0], docs[0]]
    order += [rng.choice(docs[:k]) for _ in range(2 * k - len(order))] + rng.choices(docs, k=2 * k)
    return [Hit(doc, f"Section {i}", round(0.9 - i * 0.02, 2), f"{doc} {i}") for i, doc in enumerate(order)]


def returned_hits(got, name: str) -> list[Hit]:
    if got is None:
        raise NotYet(f"{name} returns None: return the list of hits.")
    if not isinstance(got, list):
        raise NotYet(f"{name} returns a {type(got).__name__}, not a list: build a list of hits.")
    wrong = [h for h in got if not isinstance(h, Hit)]
    if wrong:
        raise NotYet(f"return the Hit objects that index.search gave you, unchanged (found a "
                     f"{type(wrong[0]).__name__} in the list).")
    return got


@exercise("l3-best-per-doc", lesson=3, given=GIVEN_BEST_PER_DOC)
def check_best_per_doc(best_sections):
    rng = random.Random()
    for k in (1, 2, 3, rng.randint(4, 5)):
        ranked = ranked_hits(rng, k)
        query = f"question {rng.randint(1, 999)}"
        index = StubIndex(ranked)
        got = returned_hits(best_sections(index, query, k=k), "best_sections")
        if not index.asked:
            raise NotYet("call index.search(query, some_k) to get the ranked hits first.")
        if any(q != query for q, _ in index.asked):
            raise NotYet("search for the query you were given, not another one.")
        docs = [h.doc for h in got]
        if len(docs) != len(set(docs)):
            raise NotYet("a document appears twice: keep only the first (best) hit of each document.")
        first = {}
        for hit in ranked:
            first.setdefault(hit.doc, hit)
        want = list(first.values())[:k]
        if got == want:
            continue
        if len(got) < k:
            raise NotYet(f"only {len(got)} hit(s) for k={k}: ask the index for more hits than k (say 4*k), since "
                         "several of the best ones can come from the same document.")
        if len(got) > k:
            raise NotYet(f"{len(got)} hits for k={k}: return at most k.")
        if sorted(got, key=lambda h: -h.score) != got and set(got) == set(want):
            raise NotYet("the hits are not best first: keep the order index.search gives.")
        raise NotYet("expected the best section of each document (its first hit, as hits come best first), best "
                     "first, and k of them.")
    return "One section per document leaves room for other documents in the model's context."
