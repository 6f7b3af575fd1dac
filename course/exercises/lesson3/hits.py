"""The checks of `l3-hit-at-k` and `l3-best-per-doc`: what is done with the hits a search returns."""


from __future__ import annotations

import copy
import random

import numpy as np

from course.exercises import NotYet, exercise
from course.exercises.lesson3.cases import QuestionSet, hit_rate, question_set
from course.exercises.lesson3.given import GIVEN_BEST_PER_DOC, GIVEN_HIT_AT_K
from course.exercises.seeds import draws
from course.search import Hit, Section


# -- l3-hit-at-k --------------------------------------------------------------------------------
class _Search:
    """search(query, k): the case's hits for a question, at most k of them."""

    def __init__(self, qs: QuestionSet):
        self.qs = qs
        self.asked: list[int] = []

    def __call__(self, query: str, k: int | None = None) -> list[Hit]:
        if k is None:
            raise NotYet("search was called without k.",
                         'call search(q["question"], k), so it returns the first k hits.')
        if query not in self.qs.ranked:
            raise NotYet("search was called with something that is not a question's text.",
                         'call search(q["question"], k) for each question q.')
        if isinstance(k, bool) or not isinstance(k, int):
            raise NotYet(f"search was called with k={k!r}.",
                         "pass the whole number k you were given.")
        self.asked.append(k)
        return list(self.qs.ranked[query][:k])


HIT_HINTS = {  # (what is wrong, how to go about it)
    "at-k": ("off by one: an answer at the k-th place did not count.",
             "the first k hits are hits[:k] (positions 0 to k-1), and search(question, k) gives exactly those."),
    "after-k": ("off by one: an answer just after the k-th place counted.", "only the first k hits count."),
    "also-only": ("a section listed in a question's \"also\" did not count.",
                  "it answers the question just as well: a hit counts if it is the question's section or one in "
                  "\"also\"."),
    "same-heading-other-doc": ("a hit with the right heading in another document counted.",
                               "many documents have a section called Overview: compare the document too."),
    "both": ("a question with two answering sections in the top k counted twice.",
             "count each question once (any(...))."),
}


def _hit_case(hit_at_k, qs: QuestionSet, kind: str = "") -> None:
    # The learner's to change: the right answer comes from the check's own.
    search = _Search(copy.deepcopy(qs))
    got = hit_at_k(search, search.qs.questions, qs.k)
    if search.qs.questions != qs.questions:
        raise NotYet("hit_at_k changed the questions it was given.",
                     "only read them (a question set is reused for every method you compare).")
    if isinstance(got, bool) or not isinstance(got, int | float | np.number):
        raise NotYet(f"hit_at_k should return a number (the fraction of questions answered), not {type(got).__name__}.",
                     "count the questions answered in the first k hits, then return that count divided by the number "
                     "of questions (one float).")
    if not search.asked:
        raise NotYet("hit_at_k never called search.",
                     'call search(q["question"], k) for each question.')
    want = hit_rate(qs)
    if abs(float(got) - want) < 1e-9:
        return
    n = len(qs.questions)
    if want and abs(float(got) - want * n) < 1e-9:
        raise NotYet("hit_at_k returned how many questions were answered.",
                     "divide by the number of questions, so it is a fraction from 0 to 1.")
    if want and abs(float(got) - want * 100) < 1e-6:
        raise NotYet("hit_at_k returned a percentage.",
                     "return the fraction, from 0 to 1 (print it with :.0%).")
    if kind in HIT_HINTS:
        problem, how = HIT_HINTS[kind]
        raise NotYet(problem, how)
    answered = round(want * n)
    raise NotYet(f"hit_at_k gave {float(got):.3f} for {n} questions and k={qs.k}; {answered} of them have an "
                 f"answering section among their first k hits, so it is {want:.3f}.",
                 "for each question q, look at search(q[\"question\"], k) and count q if one hit is its doc and "
                 "section (or a section in \"also\"); divide by the number of questions.")


@exercise("l3-hit-at-k", lesson=3, given=GIVEN_HIT_AT_K)
def check_hit_at_k(hit_at_k):
    rng = draws()
    for k in (1, 2, 3, rng.randint(4, 6)):
        for kind in HIT_HINTS:  # one mistake at a time, so the hint can name it
            _hit_case(hit_at_k, question_set(rng, k, ["first", "missing", kind, kind]), kind)
        _hit_case(hit_at_k, question_set(rng, k))
    return "hit@k right for k from 1 to 6, with answers at the edge of the top k, `also` sections and Overviews."


# -- l3-best-per-doc ----------------------------------------------------------------------------
def shown(hit: Hit | None) -> str:
    return f"{hit.doc} › {hit.heading} ({hit.score:.2f})" if hit is not None else "nothing"


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
        raise NotYet(f"{name} returns None.",
                     "return the list of hits.")
    if not isinstance(got, list):
        raise NotYet(f"{name} returns a {type(got).__name__}, not a list.",
                     "build a list of hits.")
    hits = got
    wrong = [h for h in hits if not isinstance(h, Hit)]
    if wrong:
        raise NotYet("return the Hit objects that index.search gave you, unchanged (found a "
                     f"{type(wrong[0]).__name__} in the list).",
                     "pick hits out of the list index.search returns and put those very objects in your list; do not "
                     "build new ones or take their fields apart.")
    return hits


@exercise("l3-best-per-doc", lesson=3, given=GIVEN_BEST_PER_DOC)
def check_best_per_doc(best_sections):
    rng = draws()
    for k in (1, 2, 3, rng.randint(4, 5)):
        ranked = ranked_hits(rng, k)
        query = f"question {rng.randint(1, 999)}"
        index = StubIndex(list(ranked))  # the learner's to change: the right answer comes from the check's
        got = returned_hits(best_sections(index, query, k=k), "best_sections")
        if not index.asked:
            raise NotYet("best_sections never called index.search.",
                         "call index.search(query, some_k) to get the ranked hits first, then pick from them.")
        if any(q != query for q, _ in index.asked):
            raise NotYet(f"best_sections searched for {next(q for q, _ in index.asked if q != query)!r:.80}, but the "
                         f"query was {query!r:.80}.",
                         "search for the query you were given, as it is: pass `query` to index.search unchanged.")
        docs = [h.doc for h in got]
        if len(docs) != len(set(docs)):
            raise NotYet("a document appears twice.",
                         "keep only the first (best) hit of each document.")
        first = {}
        for hit in ranked:
            first.setdefault(hit.doc, hit)
        want = list(first.values())[:k]
        if got == want:
            continue
        if len(got) < k:
            raise NotYet(f"only {len(got)} hit(s) for k={k}.",
                         "ask the index for more hits than k (say 4*k), since several of the best ones can come "
                         "from the same document.")
        if len(got) > k:
            raise NotYet(f"{len(got)} hits for k={k}.",
                         "return at most k.")
        if sorted(got, key=lambda h: -h.score) != got and set(got) == set(want):
            raise NotYet("the hits are not best first.",
                         "keep the order index.search gives.")
        differed = next(i for i, (a, b) in enumerate(zip([*got, None], [*want, None], strict=False)) if a != b)
        raise NotYet(f"for k={k}, your hit {differed + 1} is {shown(got[differed] if differed < len(got) else None)}"
                     f", but it should be {shown(want[differed] if differed < len(want) else None)}, the best "
                     "section of a document not in your list yet.",
                     "walk the ranked hits in order and keep the first hit of each document not seen yet (hits come "
                     "best first), until you have k.")
    return "One section per document leaves room for other documents in the model's context."
