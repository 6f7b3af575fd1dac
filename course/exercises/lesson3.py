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
    """Answers every search with the same ranked hits, and records what it was asked."""

    def __init__(self, hits: list[Hit]):
        self.hits = hits
        self.asked: list[int] = []

    def search(self, query: str, k: int = 3) -> list[Hit]:
        self.asked.append(k)
        return list(self.hits[:k])


def hits(*rows: tuple[str, str, float]) -> list[Hit]:
    return [Hit(doc, heading, score, f"{doc} {heading}") for doc, heading, score in rows]


@exercise("l3-min-score", lesson=3, given=GIVEN)
def check_min_score(search_min_score):
    ranked = hits(("refunds", "Time limits", 0.71), ("returns", "Overview", 0.42), ("refunds", "Partial refunds", 0.40),
                  ("shipping", "Delivery costs", 0.18))
    index = StubIndex(ranked)
    got = search_min_score(index, "Can I get a refund a week after buying?", k=4, min_score=0.4)
    if got is None:
        raise NotYet("search_min_score returns None: return the list of hits.")
    if not index.asked:
        raise NotYet("call index.search(query, k) to get the ranked hits first.")
    if list(got) != ranked[:3]:
        raise NotYet(f"with min_score=0.4 and scores 0.71, 0.42, 0.40, 0.18 expected the first three hits, "
                     f"best first (a score equal to the minimum is kept); got {[h.score for h in got]}.")
    if list(search_min_score(StubIndex(ranked), "Do you sell bicycles?", k=3, min_score=0.9)) != []:
        raise NotYet("when no hit reaches min_score, return an empty list: better no answer than a wrong one.")
    index = StubIndex(ranked)
    if [h.score for h in search_min_score(index, "refund", k=2, min_score=0.1)] != [0.71, 0.42] or index.asked != [2]:
        raise NotYet("pass k on to index.search: k=2 should give at most two hits.")
    return "Weak matches are dropped; an empty list means 'not in our documents'."


@exercise("l3-best-per-doc", lesson=3, given=GIVEN)
def check_best_per_doc(best_sections):
    ranked = hits(("refunds", "Time limits", 0.71), ("refunds", "Partial refunds", 0.66), ("returns", "Overview", 0.60),
                  ("refunds", "Cancelled orders", 0.55), ("returns", "Starting a return", 0.50),
                  ("orders", "Cancelling an order", 0.45), ("warranty", "Overview", 0.30))
    index = StubIndex(ranked)
    got = best_sections(index, "Can I get my money back?", k=3)
    if got is None:
        raise NotYet("best_sections returns None: return the list of hits.")
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
    if [h.doc for h in best_sections(StubIndex(ranked), "refund", k=1)] != ["refunds"]:
        raise NotYet("with k=1, return only the single best hit.")
    return "One section per document leaves room for other documents in the model's context."
