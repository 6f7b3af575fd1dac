"""Cases lesson 3's checks make up as they run: markdown documents, vectors, embedders and question sets.

Each case is built from its parts, so the check knows the right answer without running the
course's own code, and knows which feature of the case a wrong answer tripped over.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from course.exercises import NotYet

WORDS = ["parcel", "voucher", "kettle", "lamp", "invoice", "courier", "warranty", "basket", "receipt", "stock",
         "discount", "postage", "balance", "label", "deposit", "colour", "scratch", "deadline", "bank", "store"]
ODD_HEADINGS = ["2. Returns & refunds (EU)", "C# and F# mugs", "What if it's late?", "Ünïcode — and dashes",
                "FAQ: #1 question", "Money back   ", "  Spaced out", "Ends with ##", "Overview of fees", "A"]


def sentence(rng: random.Random, n: int = 6) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


@dataclass
class Doc:
    """A markdown document the check wrote, and the sections it must split into."""

    name: str
    title: str
    lines: list[str] = field(default_factory=list)
    expected: list[tuple[str, str]] = field(default_factory=list)  # (heading, text)
    features: set[str] = field(default_factory=set)

    @property
    def markdown(self) -> str:
        return "\n".join(self.lines) + "\n"


def _body(rng: random.Random, features: set[str]) -> list[str]:
    lines = [sentence(rng), ""]
    if "subheading" in features:
        lines += [f"### {rng.choice(WORDS).title()} {rng.choice(WORDS)}", sentence(rng)]
    if "fence" in features:
        lines += ["```", f"## {rng.choice(WORDS)} is not a heading here", f"# {rng.choice(WORDS)} nor here", "```"]
    if "blank-lines" in features:
        lines += ["", "", sentence(rng, 3), ""]
    return lines


def make_doc(rng: random.Random, *features: str) -> Doc:
    """A document with the given features: intro, subheading, fence, odd, empty-section, blank-lines."""
    wanted = set(features)
    name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{rng.randint(1, 99)}"
    doc = Doc(name, f"{rng.choice(WORDS).title()} {rng.choice(['Policy', 'Guide', 'Rules'])}", features=wanted)
    doc.lines = [f"# {doc.title}", ""]
    if "intro" in wanted:
        intro = [sentence(rng), sentence(rng, 4), ""]
        doc.lines += intro
        doc.expected.append(("Overview", "\n".join(intro).strip()))
    count = rng.randint(2, 4)
    if "odd" in wanted:  # always one with spaces around it, in a random place
        headings = rng.sample([h for h in ODD_HEADINGS if h == h.strip()], count - 1)
        headings.insert(rng.randrange(count), rng.choice([h for h in ODD_HEADINGS if h != h.strip()]))
    else:
        headings = rng.sample([f"{w.title()} {rng.choice(WORDS)}" for w in WORDS], count)
    empty = rng.randrange(count) if "empty-section" in wanted else -1
    for i, heading in enumerate(headings):
        body = [] if i == empty else _body(rng, wanted)
        doc.lines += [f"## {heading}", *body]
        doc.expected.append((heading.strip(), "\n".join(body).strip()))
    return doc


def flat(text: str) -> str:
    return " ".join(str(text).split())


# -- vectors ------------------------------------------------------------------------------------
def unit(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def spread(rng: np.random.Generator, n: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """A query and n rows of very different lengths, whose cosine and dot-product orders differ, no ties."""
    while True:
        query = rng.normal(size=dim).astype(np.float32) * rng.uniform(0.2, 5)
        rows = rng.normal(size=(n, dim)).astype(np.float32) * rng.uniform(0.05, 20, size=(n, 1)).astype(np.float32)
        cosine = unit(rows) @ unit(query)
        dots = rows @ query
        order = np.argsort(-cosine)
        gaps = np.diff(np.sort(cosine))
        if gaps.min() > 1e-4 and list(order[:3]) != list(np.argsort(-dots)[:3]):
            return query, rows


def as_indices(got, name: str, n: int) -> list[int]:
    """The learner's result as a list of row numbers, or a hint saying what it is instead."""
    if got is None:
        raise NotYet(f"{name} returns None.",
                     "return the row numbers, best first.")
    try:
        items = list(got)
    except TypeError:
        raise NotYet(f"{name} should return a list of row numbers, not a {type(got).__name__}.",
                     "collect the row numbers (ints) of the best rows in a list, best first, and return that "
                     "list.") from None
    indices = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | np.integer):
            if isinstance(item, float | np.floating):
                raise NotYet(f"{name} returns numbers like {float(item):.3f}.",
                             "return the row numbers (indices) of the best rows, not their scores. np.argsort "
                             "gives row numbers.")
            raise NotYet(f"{name} should return row numbers (ints), found a {type(item).__name__}.",
                         "return the positions of the rows in the matrix (what np.argsort gives), not the rows, texts "
                         "or scores.")
        if not 0 <= int(item) < n:
            raise NotYet(f"{name} returned row number {int(item)}, but there are only {n} rows.",
                         "row numbers go from 0 to len(rows) - 1: take them from the order of the scores, one score "
                         "per row.")
        indices.append(int(item))
    return indices


# -- a tiny embedder: counts of words, so long texts get long vectors -------------------------------
class WordCounts:
    """Embeds a text as its word counts over WORDS: texts sharing words are close, and length varies."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, texts):
        if isinstance(texts, str):
            raise NotYet("embed takes a list of texts and returns one vector per text.",
                         "embed([query])[0] is the query's vector.")
        texts = list(texts)
        self.calls.append(texts)
        rows = np.zeros((len(texts), len(WORDS)), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace("-", " ").split():
                if word in WORDS:
                    rows[i, WORDS.index(word)] += 1
            rows[i] += 0.01  # no zero vector
        return rows


def corpus(rng: random.Random, docs: int = 4):
    """Sections of a few documents (several share a heading such as Overview), word counts vary a lot."""
    from course.search import Section

    sections = []
    for d in range(docs):
        name = f"{rng.choice(WORDS)}-{d}"
        for heading in ["Overview", *rng.sample(ODD_HEADINGS[:5], 2)]:
            sections.append(Section(name, name.title(), heading, " ".join(
                sentence(rng, rng.choice([3, 8, 30])) for _ in range(rng.randint(1, 3)))))
    return sections


# -- hit@k --------------------------------------------------------------------------------------
@dataclass
class QuestionSet:
    questions: list[dict]
    ranked: dict[str, list]  # question text -> hits, best first
    k: int


KINDS = ["at-k", "after-k", "also-only", "both", "same-heading-other-doc", "first", "missing"]


def question_set(rng: random.Random, k: int, kinds: list[str] | None = None) -> QuestionSet:
    """Questions whose answer sits where `kinds` say: exactly at k, just after k, only an `also` section in
    the top k, both in the top k, a section of the same heading in another document first, first, nowhere.
    Each kind tells correct hit@k from one usual mistake; the other hits never answer."""
    from course.search import Hit

    docs = [f"{w}-{i}" for i, w in enumerate(rng.sample(WORDS, 6))]
    headings = ["Overview", "Time limits", "Fees", "Contact", "Exceptions", "Steps", "Costs"]
    questions: list[dict] = []
    ranked: dict[str, list] = {}
    kinds = list(kinds or KINDS + rng.choices(KINDS, k=rng.randint(2, 5)))
    rng.shuffle(kinds)
    for n, kind in enumerate(kinds):
        doc, other = rng.sample(docs, 2)
        section, also = rng.sample(headings, 2)
        q: dict[str, Any] = {"question": f"Question {n}: {sentence(rng, 5)}", "doc": doc, "section": section}
        if kind in ("also-only", "both") or rng.random() < 0.3:
            q["also"] = [also]
        others = [h for h in headings if h not in (section, also)]
        hits = [Hit(rng.choice([d for d in docs if d != doc]), rng.choice(others), 0.0, "") for _ in range(k + 3)]
        place = {"at-k": [(k - 1, section)], "after-k": [(k, section)], "first": [(0, section)],
                 "also-only": [(k - 1, also), (k + 1, section)], "both": [(0, also), (max(k - 1, 1), section)],
                 "missing": []}.get(kind, [])
        for i, heading in place:
            hits[i] = Hit(doc, heading, 0.0, "")
        if kind == "same-heading-other-doc":
            hits[0] = Hit(other, section, 0.0, "")
        questions.append(q)
        ranked[q["question"]] = [Hit(h.doc, h.heading, round(1 - i / 10, 2), f"{h.doc} {h.heading}")
                                 for i, h in enumerate(hits)]
    return QuestionSet(questions, ranked, k)


def answers(q: dict, hit, *, also: bool = True, doc: bool = True) -> bool:
    good = [q["section"], *(q.get("also", []) if also else [])]
    return hit.heading in good and (not doc or hit.doc == q["doc"])


def hit_rate(qs: QuestionSet, *, k: int | None = None, also: bool = True, doc: bool = True,
             per_hit: bool = False) -> float:
    """hit@k of a question set, or of one of the usual mistakes (a k off by one, `also` ignored, ...)."""
    k = qs.k if k is None else k
    total = 0
    for q in qs.questions:
        top = qs.ranked[q["question"]][:max(k, 0)]
        found = [h for h in top if answers(q, h, also=also, doc=doc)]
        total += len(found) if per_hit else bool(found)
    return total / len(qs.questions)
