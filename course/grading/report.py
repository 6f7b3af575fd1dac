"""What a mentor gets back: a feedback file per learner (HTML and JSON), a class CSV, a summary.

Per exercise, in notebook order: the verdict, the hint, the learner's code, its diff against the
starter cell of the course's notebook, and the head of what it printed. The CSV has a row per
learner and a column per exercise (1 passed, 0 not), then `passed`, `total` and `note`: it imports
into a spreadsheet or a gradebook as it is.
"""

from __future__ import annotations

import csv
import difflib
import html
import json
import re
from dataclasses import asdict
from pathlib import Path

from course.grading.runner import Learner, Result

STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.pass h2{color:#17692b}.fail h2{color:#a4161a}pre{background:#f6f8fa;padding:.5rem;overflow-x:auto}
.add{color:#17692b}.del{color:#a4161a}.review{background:#fff3cd;padding:.3rem .5rem}"""


def file_stem(learner: Learner, taken: set[str]) -> str:
    """A report name from the learner's file name (spaces kept; unique within the class)."""
    stem = re.sub(r"[\\/:*?\"<>|]+", "_", learner.name).strip() or "learner"
    name, n = stem, 2
    while name.lower() in taken:
        name, n = f"{stem} ({n})", n + 1
    taken.add(name.lower())
    return name


def diff(result: Result) -> list[str]:
    if result.code is None:
        return []
    return list(difflib.unified_diff(result.starter.splitlines(), result.code.splitlines(), "starter cell",
                                     "learner's cell", lineterm="", n=2))


def shown_output(result: Result) -> str:
    text = result.output.rstrip("\n")
    shown = text.count("\n") + 1 if text else 0
    if result.output_lines > shown:
        text += f"\n… ({result.output_lines - shown} more lines not shown)"
    return text


def verdict_line(result: Result) -> str:
    if not result.scored:
        return f"? {result.id}: not an exercise of this lesson"
    return f"{'✅' if result.passed else '❌'} {result.id}: {'passed' if result.passed else 'not yet'}"


def as_html(learner: Learner) -> str:
    parts = [f"<!doctype html><html lang='en'><meta charset='utf-8'><title>Feedback: {html.escape(learner.name)}"
             f"</title><style>{STYLE}</style><h1>Feedback: {html.escape(learner.name)}</h1>",
             f"<p>File: <code>{html.escape(learner.path.name)}</code>. "]
    if learner.problem:
        parts.append(f"</p><p class='problem'>{html.escape(learner.problem)}</p>")
    else:
        parts.append(f"{learner.passed} of {learner.total} exercises passed.</p>")
        # The verdicts at a glance, each a link to its section: a mentor reads the failures first.
        parts.append("<ul class='overview'>" + "".join(
            f"<li><a href='#{html.escape(r.id)}'>{html.escape(verdict_line(r))}</a></li>" for r in learner.results)
            + "</ul>")
    for r in learner.results:
        parts.append(f"<section class='{'pass' if r.passed else 'fail'}' id='{html.escape(r.id)}'>"
                     f"<h2 class='verdict'>{html.escape(verdict_line(r))}</h2>"
                     f"<p class='hint'>{html.escape(r.message)}</p>")
        if r.review:
            parts.append(f"<p class='review'>⚠ {html.escape(r.review)}</p>")
        if r.code is not None:
            parts.append(f"<h3>Code</h3><pre class='code'>{html.escape(r.code)}</pre>")
            lines = diff(r)
            marked = "\n".join(f"<span class='{'add' if x.startswith('+') else 'del' if x.startswith('-') else ''}'>"
                               f"{html.escape(x)}</span>" for x in lines)
            parts.append(f"<h3>Changes from the starter cell</h3><pre class='diff'>{marked or '(unchanged)'}</pre>")
            parts.append(f"<h3>Printed</h3><pre class='output'>{html.escape(shown_output(r)) or '(nothing)'}</pre>")
        parts.append("</section>")
    return "".join(parts) + "</html>\n"


def as_json(learner: Learner) -> str:
    return json.dumps({"learner": learner.name, "file": learner.path.name, "problem": learner.problem,
                       "passed": learner.passed, "total": learner.total,
                       "exercises": [{**asdict(r), "output": shown_output(r), "diff": diff(r)}
                                     for r in learner.results]}, ensure_ascii=False, indent=1)


def columns(class_: list[Learner]) -> list[str]:
    """Exercise ids in the order they first appear in the class."""
    return list(dict.fromkeys(r.id for learner in class_ for r in learner.results if r.scored))


def write(class_: list[Learner], out: Path) -> dict[str, Path]:
    """Write the feedback files and class.csv into `out`; {learner's file: its HTML report}."""
    out.mkdir(parents=True, exist_ok=True)
    taken: set[str] = {"class"}
    written = {}
    for learner in class_:
        stem = file_stem(learner, taken)
        (out / f"{stem}.html").write_text(as_html(learner), encoding="utf-8")
        (out / f"{stem}.json").write_text(as_json(learner), encoding="utf-8")
        written[str(learner.path)] = out / f"{stem}.html"
    ids = columns(class_)
    with (out / "class.csv").open("w", newline="", encoding="utf-8") as f:
        table = csv.writer(f)
        table.writerow(["learner", "file", *ids, "passed", "total", "note"])
        for learner in class_:
            marks = {r.id: int(r.passed) for r in learner.results if r.scored}
            table.writerow([learner.name, learner.path.name, *(marks.get(i, "") for i in ids), learner.passed,
                            learner.total, learner.problem])
    return written


def stale(out: Path, class_: list[Learner]) -> list[str]:
    """Learners with a report in `out` from an earlier run who are not in this class (kept: the mentor's files)."""
    taken: set[str] = {"class"}
    now = {file_stem(learner, taken) for learner in class_}
    found = []
    for path in sorted(out.glob("*.json")) if out.is_dir() else []:
        try:
            shape = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(shape, dict) and {"learner", "exercises"} <= set(shape) and path.stem not in now:
            found.append(path.stem)
    return found


def summary_line(learner: Learner) -> str:
    if learner.problem:
        return f"  {learner.name}: {learner.problem}"
    marks = " ".join(("✅ " if r.passed else "❌ " if r.scored else "? ") + r.id
                     + (" ⚠ read the code" if r.review else "") for r in learner.results)
    return f"  {learner.name}: {learner.passed}/{learner.total}  {marks}"
