"""Evaluating the agent, not only the search (lesson 7): run it over a question set and count.

For each question: did the answer cite the right section (task success), did the model
call the tools it should have (tool choice), how many steps and tokens did it take, and
why did it stop. Offline the model is scripted, so the table measures everything except the
model (the tools, the search, the loop); with a key the same code measures a real model.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from course.adapters import Run, run

EXPECTED_TOOLS = ("search_docs", "read_section")  # what a careful model does for a policy question


@dataclass(frozen=True)
class Question:
    question: str
    doc: str
    section: str
    also: tuple[str, ...] = ()
    tools: tuple[str, ...] = EXPECTED_TOOLS

    def cited(self, answer: str | None) -> bool:
        """The answer names one of the right sections as `document › section`."""
        return any(f"{self.doc} › {s}" in (answer or "") for s in (self.section, *self.also))


def load_questions(path: Path | str) -> list[Question]:
    rows = json.loads(Path(path).read_text())["questions"]
    return [Question(q["question"], q["doc"], q["section"], tuple(q.get("also", ()))) for q in rows]


@dataclass(frozen=True)
class Row:
    """One question's run, as the table shows it."""

    question: str
    success: bool
    right_tools: bool
    steps: int
    tokens: int
    stop: str


def judge(q: Question, result: Run) -> Row:
    called = tuple(c.name for c in result.calls)
    return Row(q.question, q.cited(result.answer), called == q.tools, result.steps, result.tokens,
               result.stop_reason)


async def evaluate(make_adapter: Callable[[], object], questions: list[Question], tools: list[dict], execute,
                   *, max_steps: int = 6) -> list[Row]:
    """Run every question in a fresh conversation (`make_adapter()` per question) and judge it."""
    rows = []
    for q in questions:
        result = await run(make_adapter(), q.question, tools, execute, max_steps=max_steps)
        rows.append(judge(q, result))
    return rows


def summary(rows: list[Row]) -> dict:
    """The figures the lesson reports: rates, means and how the runs stopped."""
    n = len(rows) or 1
    return {"questions": len(rows),
            "task success": round(sum(r.success for r in rows) / n, 2),
            "tool choice": round(sum(r.right_tools for r in rows) / n, 2),
            "mean steps": round(sum(r.steps for r in rows) / n, 2),
            "mean tokens": round(sum(r.tokens for r in rows) / n),
            "stop reasons": dict(sorted(Counter(r.stop for r in rows).items()))}


def failures(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not (r.success and r.right_tools)]
