"""Checks for lesson 3's exercises (notebooks/03_document_search.ipynb).

The checks use a small stand-in index with known scores, so they run in milliseconds
and do not depend on the embedding model.
"""

from __future__ import annotations

from course.exercises import NotYet, exercise
from course.search import Hit

GIVEN = """
from course.search import DocIndex, Hit
"""


class StubIndex:
    """Answers every search with the same ranked hits, and records what it was asked: (query, k)."""

    def __init__(self, hits: list[Hit]):
        self.hits = hits
        self.asked: list[tuple[str, int]] = []

    def search(self, query: str, k: int = 3) -> list[Hit]:
        self.asked.append((query, k))
        return list(self.hits[:k])


def hits(*rows: tuple[str, str, float]) -> list[Hit]:
    return [Hit(doc, heading, score, f"{doc} {heading}") for doc, heading, score in rows]


def returned_hits(got, name: str) -> list[Hit]:
    """The learner's result, if it is a list of Hit objects; else a hint that says what it is instead."""
    if got is None:
        raise NotYet(f"{name} returns None: return the list of hits.")
    if not isinstance(got, list):
        raise NotYet(f"{name} returns a {type(got).__name__}, not a list: build a list, for example with a "
                     "list comprehension [hit for hit in ... if ...].")
    wrong = [h for h in got if not isinstance(h, Hit)]
    if wrong:
        raise NotYet(f"return the Hit objects that index.search gave you, unchanged (found a "
                     f"{type(wrong[0]).__name__} in the list).")
    return got


def asked_for(index: StubIndex, query: str) -> list[int]:
    """The k values the learner's code searched with, after checking it searched for the query given."""
    if not index.asked:
        raise NotYet("call index.search(query, k) to get the ranked hits first.")
    other = [q for q, _ in index.asked if q != query]
    if other:
        raise NotYet(f"search for the query you were given ({query!r}), not {other[0]!r}.")
    return [k for _, k in index.asked]


def scores(got: list[Hit]) -> list[float]:
    return [h.score for h in got]


@exercise("l3-min-score", lesson=3, given=GIVEN)
def check_min_score(search_min_score):
    ranked = hits(("refunds", "Time limits", 0.71), ("returns", "Overview", 0.42), ("refunds", "Partial refunds", 0.40),
                  ("shipping", "Delivery costs", 0.18))
    question = "Can I get a refund a week after buying?"
    index = StubIndex(ranked)
    got = returned_hits(search_min_score(index, question, k=4, min_score=0.4), "search_min_score")
    if asked_for(index, question) != [4]:
        raise NotYet(f"call index.search(query, k) once, with the k you were given (k=4; you asked for "
                     f"{', '.join(map(str, asked_for(index, question)))}).")
    if got != ranked[:3]:
        raise NotYet(f"with min_score=0.4 and scores 0.71, 0.42, 0.40, 0.18 expected the first three hits, "
                     f"best first (a score equal to the minimum is kept); got {scores(got)}.")
    for min_score, expected in [(0.9, []), (0.1, ranked), (0.5, ranked[:1])]:
        got = returned_hits(search_min_score(StubIndex(ranked), question, k=4, min_score=min_score),
                            "search_min_score")
        if got != expected:
            raise NotYet(f"with min_score={min_score} expected scores {scores(expected) or 'none (no hits)'}, "
                         f"got {scores(got)}: use the min_score argument, not a fixed number.")
    index = StubIndex(ranked)
    got = returned_hits(search_min_score(index, "refund", k=2, min_score=0.1), "search_min_score")
    if asked_for(index, "refund") != [2] or scores(got) != [0.71, 0.42]:
        raise NotYet(f"call index.search(query, k) with the k you were given (k=2; you asked for "
                     f"{', '.join(map(str, asked_for(index, 'refund')))}) and got {scores(got)}.")
    return "Weak matches are dropped; an empty list means 'not in our documents'."


@exercise("l3-best-per-doc", lesson=3, given=GIVEN)
def check_best_per_doc(best_sections):
    ranked = hits(("refunds", "Time limits", 0.71), ("refunds", "Partial refunds", 0.66), ("returns", "Overview", 0.60),
                  ("refunds", "Cancelled orders", 0.55), ("returns", "Starting a return", 0.50),
                  ("orders", "Cancelling an order", 0.45), ("warranty", "Overview", 0.30))
    question = "Can I get my money back?"
    index = StubIndex(ranked)
    got = returned_hits(best_sections(index, question, k=3), "best_sections")
    asked_for(index, question)
    docs = [h.doc for h in got]
    if len(docs) != len(set(docs)):
        raise NotYet(f"a document appears twice ({docs}): keep only the first (best) hit of each document.")
    if len(got) < 3:
        raise NotYet(f"only {len(got)} hit(s) for k=3: ask the index for more hits than k (say 4*k), since "
                     "several of the best ones can come from the same document.")
    if [(h.doc, h.heading) for h in got] != [("refunds", "Time limits"), ("returns", "Overview"),
                                             ("orders", "Cancelling an order")]:
        raise NotYet(f"expected the best section of each document, best first, and k of them; got "
                     f"{[f'{h.doc} › {h.heading}' for h in got]}.")
    index = StubIndex(ranked)
    got = returned_hits(best_sections(index, "refund", k=1), "best_sections")
    asked_for(index, "refund")
    if [h.doc for h in got] != ["refunds"]:
        raise NotYet(f"with k=1, return only the single best hit; got {[f'{h.doc} › {h.heading}' for h in got]}.")
    return "One section per document leaves room for other documents in the model's context."
