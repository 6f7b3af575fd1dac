# EXERCISE l3-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l3-sections
from course.search import Section


def split_sections(doc, markdown):
    """Cut one markdown document into Sections at its `## ` headings."""
    title, heading, lines = "", "Overview", []
    parts = []  # (heading, lines), in document order
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code  # a "## " line inside a code block is text, not a heading
        if not in_code and line.startswith("# ") and not title:
            title = line[2:].strip()
        elif not in_code and line.startswith("## "):
            parts.append((heading, lines))
            heading, lines = line[3:].strip(), []
        else:
            lines.append(line)
    parts.append((heading, lines))
    sections = []
    for heading, body in parts:
        text = "\n".join(body).strip()
        if heading != "Overview" or text:  # no Overview when nothing comes before the first heading
            sections.append(Section(doc, title, heading, text))
    return sections


# the reference piece of l3-rank
import numpy as np


def rank(query, vectors, k):
    """Row numbers of the k rows of `vectors` most similar to `query` (cosine similarity), best first."""
    rows = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)  # a new array: the caller's stays as it was
    scores = rows @ (query / np.linalg.norm(query))
    return [int(i) for i in np.argsort(-scores)[:k]]


# the reference piece of l3-search-docs
import numpy as np


def search_docs(query, sections, vectors, embed, k=3):
    """The k sections most similar to `query`, best first, each citing itself as 'document › section'."""
    q = embed([query])[0]
    scores = (vectors @ q) / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(q))
    hits = []
    for i in np.argsort(-scores)[:k]:
        s = sections[i]
        hits.append({"document": s.doc, "section": s.heading, "cite_as": s.label, "score": float(scores[i])})
    return hits


# the reference piece of l3-hit-at-k
def hit_at_k(search, questions, k=3):
    """The fraction of questions with an answering section among the first k hits of search(question, k)."""
    answered = 0
    for q in questions:
        good = {(q["doc"], q["section"])} | {(q["doc"], s) for s in q.get("also", [])}
        if any((hit.doc, hit.heading) in good for hit in search(q["question"], k)[:k]):
            answered += 1
    return answered / len(questions)


# the reference piece of l3-best-per-doc
def best_sections(index, query, k=3):
    """The best section of each document: at most k hits, from k different documents."""
    best = {}
    for hit in index.search(query, 4 * k):  # more than k: the best hits may share a document
        best.setdefault(hit.doc, hit)  # hits come best first, so the first one of a document wins
    return list(best.values())[:k]
