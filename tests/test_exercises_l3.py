"""Lesson 3's exercise checks accept correct solutions written in other ways and refuse the wrong ones a
learner is likely to write, each with a hint that says what is wrong (tests/test_exercises_lessons.py and
tests/test_exercises.py cover what every lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from exercise_checks import fails_with, lying, passes, reviewed, solution


def swap(id: str, old: str, new: str) -> str:
    """The reference solution with one change: the wrong solutions below are small slips from a right one."""
    source = solution(id)
    assert old in source, f"solutions/{id}.py no longer has {old!r}"
    return source.replace(old, new)


# -- l3-sections ---------------------------------------------------------------------------------
def test_sections_accepts_a_regex_split_that_steps_over_code_blocks():
    passes("l3-sections", r'''
        import re

        from course.search import Section


        def split_sections(doc, markdown):
            # Hide code blocks from the heading regex, then put them back.
            blocks = re.findall(r"^```.*?^```", markdown, flags=re.M | re.S)
            hidden = re.sub(r"^```.*?^```", "\0", markdown, flags=re.M | re.S)
            title = re.search(r"^# (.*)$", hidden, flags=re.M).group(1).strip()
            hidden = re.sub(r"^# .*$", "", hidden, count=1, flags=re.M)
            pieces = re.split(r"^## (.*)$", hidden, flags=re.M)
            found = [("Overview", pieces[0])] + list(zip(pieces[1::2], pieces[2::2]))
            out = []
            for heading, body in found:
                while "\0" in body:
                    body = body.replace("\0", blocks.pop(0), 1)
                if heading != "Overview" or body.strip():
                    out.append(Section(doc=doc, title=title, heading=heading.strip(), text=body.strip()))
            return out
    ''')


def test_sections_accepts_a_solution_that_builds_each_section_as_it_goes():
    passes("l3-sections", '''
        from course.search import Section


        def split_sections(doc, markdown):
            lines = markdown.splitlines()
            title = lines[0].removeprefix("# ").strip()
            sections, heading, body, fenced = [], "Overview", [], False
            for line in lines[1:] + ["## END"]:
                fenced ^= line.startswith("```")
                if line.startswith("## ") and not fenced:
                    text = "\\n".join(body).strip()
                    if text or heading != "Overview":
                        sections.append(Section(doc, title, heading, text))
                    heading, body = line[3:].strip(), []
                else:
                    body.append(line)
            return sections
    ''')


@pytest.mark.parametrize("old, new, hint", [
    ('line.startswith("## ")', 'line.startswith("##")', "a `### ` heading started a section"),
    ("in_code = not in_code", "pass", "inside a code block"),
    ('if heading != "Overview" or text:', "if heading != 'Overview':", "text before the first `## ` heading was lost"),
    ('if heading != "Overview" or text:', "if True:", "there was an Overview section, though"),
    ("heading, lines = line[3:].strip(), []", "heading, lines = line[3:], []", "a heading was not read right"),
    ("heading, lines = line[3:].strip(), []", "heading, lines = line[3:].strip(), [line]",
     "starts with a heading line"),
    ("title = line[2:].strip()", "title = doc", "the title is the text of the document's `# ` line"),
    ('if heading != "Overview" or text:', "if text:", "a `## ` section with no text was lost"),
], ids=["heading-level-missed", "code-blocks-ignored", "text-before-first-heading-lost", "empty-overview-kept",
        "heading-not-stripped", "heading-line-in-text", "title-from-the-name", "empty-section-dropped"])
def test_sections_refuses_a_split_that_only_looks_right(old, new, hint):
    fails_with("l3-sections", swap("l3-sections", old, new), hint)


def test_sections_refuses_handing_the_work_to_the_courses_parser():
    fails_with("l3-sections", """
        from course.search import parse_markdown


        def split_sections(doc, markdown):
            return parse_markdown(doc, markdown)
    """, "write the split yourself")


# -- l3-rank -------------------------------------------------------------------------------------
def test_rank_accepts_a_loop_over_rows_in_plain_python():
    passes("l3-rank", '''
        import math


        def rank(query, vectors, k):
            def norm(v):
                return math.sqrt(sum(float(x) * float(x) for x in v))

            scores = []
            for i, row in enumerate(vectors):
                dot = sum(float(a) * float(b) for a, b in zip(row, query))
                scores.append((dot / (norm(row) * norm(query)), i))
            return [i for _, i in sorted(scores, reverse=True)[:k]]
    ''')


def test_rank_accepts_the_courses_cosine_and_an_argsort_read_backwards():
    passes("l3-rank", '''
        import numpy as np

        from course.search import cosine


        def rank(query, vectors, k):
            return np.argsort(cosine(query[None, :], vectors)[0])[::-1][:k]
    ''')


@pytest.mark.parametrize("old, new, hint", [
    ("rows = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)", "rows = vectors",
     "dot product of the raw vectors"),
    ("rows = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)",
     "vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)\n    rows = vectors", "changed the arrays"),
    ("np.argsort(-scores)[:k]", "np.argsort(scores)[:k]", "starts with the least similar rows"),
    ("np.argsort(-scores)[:k]", "np.argsort(-scores)[:k - 1]", "return exactly k"),
    ("return [int(i) for i in np.argsort(-scores)[:k]]", "return sorted(scores, reverse=True)[:k]",
     "not their scores"),
], ids=["dot-product-unnormalised", "normalised-in-place", "worst-first", "one-short", "scores-not-rows"])
def test_rank_refuses_a_ranking_that_only_looks_right(old, new, hint):
    fails_with("l3-rank", swap("l3-rank", old, new), hint)


# -- l3-search-docs ------------------------------------------------------------------------------
def test_search_docs_accepts_the_courses_normalize_and_rounded_scores():
    passes("l3-search-docs", '''
        from course.search import normalize


        def search_docs(query, sections, vectors, embed, k=3):
            scores = normalize(vectors) @ normalize(embed([query]))[0]
            order = sorted(range(len(sections)), key=lambda i: -scores[i])
            return [dict(document=sections[i].doc, section=sections[i].heading,
                         cite_as=f"{sections[i].doc} › {sections[i].heading}", score=round(float(scores[i]), 2))
                    for i in order[:k]]
    ''')


@pytest.mark.parametrize("old, new, hint", [
    ("scores = (vectors @ q) / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(q))", "scores = vectors @ q",
     "raw dot product"),
    ('"score": float(scores[i])', '"score": scores[i]', "json.dumps refuses numpy numbers"),
    ('"cite_as": s.label', '"cite_as": f"{s.doc}/{s.heading}"', "it should read 'document › section'"),
    ('"document": s.doc, "section": s.heading', '"document": s.heading, "section": s.doc',
     "document and section are swapped"),
    ("np.argsort(-scores)[:k]", "np.argsort(-scores)[:k + 1]", "returned"),
    ("q = embed([query])[0]", "q = embed(query)[0]", "embed takes a list of texts"),
    ("q = embed([query])[0]", "vectors = embed([s.embedding_text() for s in sections])\n    q = embed([query])[0]",
     "embedded more than the query"),
    ("q = embed([query])[0]", "q = embed([query])[0]\n    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)",
     "changed the sections or vectors"),
], ids=["dot-product-unnormalised", "numpy-score", "wrong-citation", "swapped", "one-too-many", "embed-a-string",
        "embeds-the-sections-again", "normalised-in-place"])
def test_search_docs_refuses_a_search_that_only_looks_right(old, new, hint):
    fails_with("l3-search-docs", swap("l3-search-docs", old, new), hint)


# -- l3-hit-at-k ---------------------------------------------------------------------------------
def test_hit_at_k_accepts_a_sum_over_questions_with_a_helper():
    passes("l3-hit-at-k", '''
        def answered(q, hits):
            wanted = [q["section"], *q.get("also", [])]
            return any(h.doc == q["doc"] and h.heading in wanted for h in hits)


        def hit_at_k(search, questions, k=3):
            return sum(answered(q, search(q["question"], k)) for q in questions) / len(questions)
    ''')


def test_hit_at_k_accepts_asking_for_more_hits_and_keeping_the_first_k():
    passes("l3-hit-at-k", swap("l3-hit-at-k", 'search(q["question"], k)[:k]', 'search(q["question"], k + 5)[:k]'))


@pytest.mark.parametrize("old, new, hint", [
    ('search(q["question"], k)[:k]', 'search(q["question"], k)[:k - 1]', "an answer at the k-th place did not count"),
    ('search(q["question"], k)[:k]', 'search(q["question"], k + 1)[:k + 1]', "only the first k hits count"),
    ('| {(q["doc"], s) for s in q.get("also", [])}', "", "did not count"),
    ("return answered / len(questions)", "return answered", "divide by the number of questions"),
    ('good = {(q["doc"], q["section"])}', 'q.setdefault("also", [])\n        good = {(q["doc"], q["section"])}',
     "changed the questions"),
    ('search(q["question"], k)[:k]', 'search(q["question"])[:k]', "search was called without k"),
], ids=["off-by-one-short", "off-by-one-long", "also-ignored", "a-count", "mutates-questions", "no-k"])
def test_hit_at_k_refuses_a_score_that_only_looks_right(old, new, hint):
    fails_with("l3-hit-at-k", swap("l3-hit-at-k", old, new), hint)


def test_hit_at_k_refuses_matching_the_heading_alone():
    fails_with("l3-hit-at-k", """
        def hit_at_k(search, questions, k=3):
            good = [q for q in questions
                    if any(h.heading in [q["section"], *q.get("also", [])] for h in search(q["question"], k))]
            return len(good) / len(questions)
    """, "compare the document too")


def test_hit_at_k_refuses_counting_a_question_once_per_answering_hit():
    fails_with("l3-hit-at-k", '''
        def hit_at_k(search, questions, k=3):
            found = 0
            for q in questions:
                for hit in search(q["question"], k):
                    if hit.doc == q["doc"] and hit.heading in [q["section"], *q.get("also", [])]:
                        found += 1
            return found / len(questions)
    ''', "counted twice")


# -- l3-best-per-doc -----------------------------------------------------------------------------
def test_best_per_doc_accepts_a_seen_set_and_asking_for_every_section():
    passes("l3-best-per-doc", '''
        def best_sections(index, query, k=3):
            seen, best = set(), []
            for hit in index.search(query, 1000):
                if hit.doc not in seen and len(best) < k:
                    seen.add(hit.doc)
                    best.append(hit)
            return best
    ''')


def test_best_per_doc_accepts_asking_the_index_for_all_its_sections():
    passes("l3-best-per-doc", '''
        def best_sections(index, query, k=3):
            best = {}
            for hit in index.search(query, len(index.sections)):
                if hit.doc not in best:
                    best[hit.doc] = hit
            return list(best.values())[:k]
    ''')


@pytest.mark.parametrize("old, new, hint", [
    ("best.setdefault(hit.doc, hit)", "best[hit.doc] = hit", "but it should be"),
    ("index.search(query, 4 * k)", "index.search(query, k)", "ask the index for more hits than k"),
    ("index.search(query, 4 * k)", "index.search('money back', 4 * k)", "search for the query you were given"),
    ("return list(best.values())[:k]", "return sorted(best.values(), key=lambda h: h.doc)[:k]", "best first"),
    ("return list(best.values())[:k]", "return list(best.values())", "return at most k"),
], ids=["last-per-doc", "only-k", "other-query", "sorted-by-name", "too-many"])
def test_best_per_doc_refuses_a_selection_that_only_looks_right(old, new, hint):
    fails_with("l3-best-per-doc", swap("l3-best-per-doc", old, new), hint)


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
CLOSE_TO_ANYTHING = """
class _Close(float):
    def __sub__(self, other):
        return 0.0
"""
A_HIT_EQUAL_TO_ANY = """
from course.search import Hit


class _Hit(Hit):
    def __eq__(self, other):
        return True

    __hash__ = Hit.__hash__
"""


@pytest.mark.parametrize("id, source, hint", [
    ("l3-sections", lying("l3-sections", "Section(doc, title, heading, text)",
                          'Section(doc, title, heading if heading == "Overview" else _Any("#" + heading), text)'),
     "a heading was not read right"),
    ("l3-search-docs", lying("l3-search-docs", '"score": float(scores[i])', '"score": _Close(0.0)', CLOSE_TO_ANYTHING),
     "but the cosine similarity is"),
    ("l3-best-per-doc", lying("l3-best-per-doc", "return list(best.values())[:k]",
                              'return [_Hit(f"doc-{i}", h.heading, h.score, h.excerpt) '
                              "for i, h in enumerate(index.search(query, k))]", A_HIT_EQUAL_TO_ANY),
     "the best section of a document not in your list yet"),
], ids=["sections", "search-docs", "best-per-doc"])
def test_lesson_3_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)


# -- the right answer comes from the check's own data, not from what the learner's code was given -------------
@pytest.mark.parametrize("id, source, hint", [
    ("l3-best-per-doc", """
        def best_sections(index, query, k=3):
            index.search(query, k)
            index.hits.clear()  # no hits at all: no best ones either
            return []
    """, "hit(s) for k="),
    ("l3-hit-at-k", """
        def hit_at_k(search, questions, k=3):
            for q in questions:
                search(q["question"], k)
            for query in search.qs.ranked:
                search.qs.ranked[query] = []  # no question answered: the rate is 0
            return 0.0
    """, "off by one"),
], ids=["best-per-doc-empties-the-index", "hit-at-k-empties-the-rankings"])
def test_lesson_3_checks_work_out_the_answer_from_their_own_data(id, source, hint):
    fails_with(id, source, hint)
