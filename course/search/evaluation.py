"""How good a search is: hit@1 and hit@3 on a set of questions (lesson 3 and `make bench`)."""

from __future__ import annotations

from typing import Any


def evaluate(index: Any, questions: list[dict], strict: bool = False) -> dict:
    """hit@1 and hit@3: how often an answering section is first, or among the first three.

    Each question names its `doc` and `section`; `also` lists other sections of that document
    that answer it just as well. They count as hits, except in the `strict hit@1`/`strict hit@3`
    figures (and in `hit@1`/`hit@3` too when `strict`). One search per question.
    """
    counts = {"hit@1": 0, "hit@3": 0, "strict hit@1": 0, "strict hit@3": 0}
    misses = []
    for q in questions:
        first = {(q["doc"], q["section"])}
        good = first if strict else first | {(q["doc"], s) for s in q.get("also", [])}
        found = [(h.doc, h.heading) for h in index.search(q["question"], 3)]
        counts["hit@1"] += bool(found) and found[0] in good
        counts["hit@3"] += bool(good & set(found))
        counts["strict hit@1"] += bool(found) and found[0] in first
        counts["strict hit@3"] += bool(first & set(found))
        if not good & set(found):
            misses.append(f"{q['question']!r} -> " + (f"{found[0][0]} › {found[0][1]}" if found else "nothing"))
    return {name: n / len(questions) for name, n in counts.items()} | {"misses": misses}
