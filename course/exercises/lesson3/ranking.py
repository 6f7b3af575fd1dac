"""The checks of `l3-rank` and `l3-search-docs`: the k most similar by cosine similarity, best first, on random
vectors of different lengths (so a raw dot product gives itself away)."""


from __future__ import annotations

import json
import operator

import numpy as np

from course.exercises import NotYet, exercise
from course.exercises.lesson3.cases import WordCounts, as_indices, corpus, spread, unit
from course.exercises.lesson3.given import GIVEN_RANK, GIVEN_SEARCH_DOCS
from course.exercises.seeds import draws


# -- l3-rank ------------------------------------------------------------------------------------
def _rank_case(rank, query, rows, k) -> None:
    kept_q, kept_rows = query.copy(), rows.copy()
    got = as_indices(rank(query, rows, k), "rank", len(rows))
    if not (np.array_equal(query, kept_q) and np.array_equal(rows, kept_rows)):
        raise NotYet("rank changed the arrays it was given (in-place /= or normalising rows in place?).",
                     "the caller's vectors must stay as they were. Compute new arrays: rows / norms.")
    cosine = unit(rows) @ unit(query)
    want = [int(i) for i in np.argsort(-cosine)[:k]]
    if got == want:
        return
    if len(got) != k:
        raise NotYet(f"rank returned {len(got)} row numbers for k={k}.",
                     "return exactly k, the best k.")
    if got == [int(i) for i in np.argsort(-(rows @ query))[:k]]:
        raise NotYet("your ranking is by the dot product of the raw vectors, so long vectors win whatever their "
                     "direction.",
                     "Cosine similarity divides by both lengths: normalise each row and the query to length 1 "
                     "first (v / np.linalg.norm(v)), then take the dot product.")
    if got == [int(i) for i in np.argsort(cosine)[:k]]:
        raise NotYet("your list starts with the least similar rows.",
                     "best first (np.argsort(-scores), or [::-1]).")
    if set(got) == set(want):
        raise NotYet("the right rows, but not best first.",
                     "sort them by similarity, highest first.")
    raise NotYet("the rows returned are not the k most similar by cosine similarity.",
                 "score each row as (row · query) / (|row| |query|), then take the k highest, best first.")


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
    same_sections = len(sections) == len(kept_sections) and all(map(operator.is_, sections, kept_sections))
    if not (np.array_equal(vectors, kept_vectors) and same_sections):
        raise NotYet("search_docs changed the sections or vectors it was given (normalising in place?).",
                     "make new arrays instead, the index reuses these for every search.")
    if any(len(texts) != 1 for texts in embed.calls) or len(embed.calls) > 1:
        raise NotYet("search_docs embedded more than the query.",
                     "`vectors` already holds one vector per section (row i is sections[i]); embed only the "
                     "query, embed([query])[0].")
    if not embed.calls:
        raise NotYet("search_docs never embedded the query.",
                     "embed([query])[0] is its vector.")
    if not isinstance(got, list) or not all(isinstance(h, dict) for h in got):
        raise NotYet(f"search_docs should return a list of dicts (one per hit); got {type(got).__name__}"
                     + (f" of {type(got[0]).__name__}" if isinstance(got, list) and got else "") + ".",
                     "make one dict per hit, with the keys the task names, and return them in a list, best first.")
    for hit in got:
        if set(hit) != KEYS:
            raise NotYet(f"each hit should have exactly the keys {sorted(KEYS)}; one has {sorted(hit)}.",
                         "build each hit's dict with those keys and no others (no extra fields, none missing or "
                         "renamed).")
    try:
        json.dumps(got)
    except TypeError as e:
        raise NotYet(f"the hits are not JSON ({e}).",
                     "a tool result goes to the model as JSON, and json.dumps refuses numpy numbers. Make the "
                     "score a Python float: float(score).") from None
    q = embed([query])[0]
    cosine, dots = unit(vectors) @ unit(q), vectors @ q
    best = np.argsort(-cosine)[:k]
    want = [(sections[i].doc, sections[i].heading) for i in best]
    have = [(h["document"], h["section"]) for h in got]
    if have and have == [(sections[i].heading, sections[i].doc) for i in best][:len(have)]:
        raise NotYet("document and section are swapped.",
                     '"document" is the section\'s doc, "section" its heading.')
    for hit in got:
        if hit["cite_as"] != f"{hit['document']} › {hit['section']}":
            raise NotYet(f"cite_as is {hit['cite_as']!r:.60}.",
                         "it should read 'document › section', e.g. 'refunds › Time limits' (the same as "
                         "Section.label).")
    raw = ("the check's embedder (like many) gives vectors of different lengths, so the raw dot product favours "
           "long sections: normalise the section vectors and the query to length 1 first (or divide by both "
           "lengths), then the dot product is the cosine.")
    if have == want:
        for hit, i in zip(got, best, strict=True):
            if abs(hit["score"] - float(cosine[i])) > 0.006:
                if abs(hit["score"] - float(dots[i])) < 1e-3 * max(1.0, abs(float(dots[i]))):
                    raise NotYet("the scores are raw dot products, not cosine similarities.", raw)
                raise NotYet(f"a score is {hit['score']}, but the cosine similarity is {float(cosine[i]):.3f}.",
                             "the score is the cosine of the query with the section's vector.")
        return
    if len(have) != k:
        raise NotYet(f"search_docs returned {len(have)} hits for k={k}.",
                     "return the best k.")
    if have == [(sections[i].doc, sections[i].heading) for i in np.argsort(-dots)[:k]]:
        raise NotYet("the hits are ranked by the raw dot product.", raw)
    raise NotYet(f"for k={k} the hits are {have}; the k sections most similar to the query, best first, are "
                 f"{want}.",
                 "score every section by cosine similarity with the query, sort by it (highest first) and keep "
                 "the first k.")


@exercise("l3-search-docs", lesson=3, given=GIVEN_SEARCH_DOCS)
def check_search_docs(search_docs):
    rng = draws()
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
