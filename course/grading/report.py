"""What a mentor reads: index.html (the class at a glance), a page and a JSON file per learner, class.csv,
the similar pairs (copydetect), and the mentor's own comments and overrides (feedback.json).

class.csv has a row per learner (with a roster, an absent learner is a row "missing"), a status per
exercise, points and max points, the lesson, the sandbox and when it was graded; re-grading one learner
merges into it. It imports as is into Moodle ("Import grades: CSV file", learner as the identifier,
`points` as the grade) or any spreadsheet: cells that start with = + - @ are quoted with a leading '.
"""

from __future__ import annotations

import csv
import html
import io
import json
import unicodedata
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

from course.grading.runner import SOLUTIONS, Grade, Learner

COURSE = SOLUTIONS.parent / "course"

STYLE = """body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}td,th{padding:.2rem .5rem;
border-bottom:1px solid #eee}pre{background:#f6f8fa;padding:.5rem;white-space:pre-wrap;word-break:break-all}
.pass{color:#17692b}.not-yet,.no-cell{color:#a4161a}.review,.unsafe{background:#fff3cd}.wrapped{color:#a4161a}
.char{background:#fde2e1;border:1px solid #a4161a}"""
WRAP = 100
SIMILAR = 0.8  # copydetect's share of one cell's fingerprints found in the other
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def page(title: str, body: str, sandbox: str) -> str:
    warning = "" if sandbox.startswith("bubblewrap") else f"<p class='unsafe'>⚠ {html.escape(sandbox)}</p>"
    return (f"<!doctype html><html lang='en'><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style><h1>{html.escape(title)}</h1>{warning}{body}</html>\n")


def shown_code(code: str) -> str:
    """The code exactly as it ran, escaped: long lines wrapped and marked, invisible and non-ASCII characters shown."""
    out = []
    for number, line in enumerate(code.split("\n"), 1):
        pieces = [line[i:i + WRAP] for i in range(0, len(line), WRAP)] or [""]
        marked = []
        for piece in pieces:
            marked.append("".join(html.escape(c) if c.isascii() and (c.isprintable() or c in " ") else
                                  f"<span class='char' title='{html.escape(unicodedata.name(c, 'unnamed'))}'>"
                                  f"{html.escape(c if c.isprintable() and c != ' ' else '')}U+{ord(c):04X}</span>"
                                  for c in piece))
        out.append(f"{number:3} " + "<span class='wrapped'>⏎ wrapped</span>\n    ".join(marked))
    return "\n".join(out)


def status(r: Grade, feedback: dict) -> str:
    return feedback.get(r.id, {}).get("override") or r.status


def learner_page(learner: Learner, feedback: dict, sandbox: str, copies: list[tuple]) -> str:
    reasons = [(r.id, why) for r in learner.results for why in r.reasons]
    body = [f"<p>File: <code>{html.escape(learner.path.name)}</code>; lesson {learner.lesson or '?'}; "
            f"graded in the {html.escape(sandbox)}.</p>"]
    if learner.never_run:
        body.append("<p class='review' id='never-run'>never run: the notebook has no outputs (it was handed in "
                    "without running it).</p>")
    if reasons:
        body.append("<h2>Read before trusting the verdicts</h2><ul class='reasons'>" + "".join(
            f"<li><a href='#{html.escape(i)}'>{html.escape(i)}</a>: {html.escape(why)}</li>" for i, why in reasons)
            + "</ul>")
    if learner.problem:
        body.append(f"<p class='problem'>{html.escape(learner.problem)}</p>")
    for a, b, share in copies:
        body.append(f"<p class='review copy'>{html.escape(a)} and {html.escape(b)} are {share:.0%} alike.</p>")
    for r in learner.results:
        note, shown = feedback.get(r.id, {}), status(r, feedback)
        body.append(f"<section id='{html.escape(r.id)}'><h2 class='verdict {shown.replace(' ', '-')}'>"
                    f"{html.escape(r.id)}: {html.escape(shown)}</h2><p class='hint'>{html.escape(r.message)}</p>")
        if note.get("override"):
            body.append(f"<p class='override'>Changed from {html.escape(r.status)} to {html.escape(note['override'])}"
                        f" by {html.escape(note.get('by', '?'))}: {html.escape(note.get('why', ''))}</p>")
        if note.get("comment"):
            body.append(f"<p class='comment'>Mentor ({html.escape(note.get('by', '?'))}): "
                        f"{html.escape(note['comment'])}</p>")
        if r.code is not None:
            body.append(f"<h3>Code, as it ran</h3><pre class='code'>{shown_code(r.code)}</pre>"
                        f"<h3>Printed</h3><pre class='output'>{html.escape(r.output) or '(nothing)'}"
                        + (f"\n… ({r.output_lines - r.output.count(chr(10))} more lines)" if r.output_lines >
                           r.output.count("\n") + 1 else "") + "</pre>")
        body.append("</section>")
    return page(f"Feedback: {learner.name}", "".join(body), sandbox)


def index_page(class_: list[Learner], ids: list[str], stems: dict[int, str], feedback: dict, sandbox: str,
               copies: list[tuple], roster: list[str]) -> str:
    head = "".join(f"<th>{html.escape(i)}</th>" for i in ids)
    rows = []
    for learner in class_:
        mine, fb = {r.id: r for r in learner.results if r.scored}, feedback.get(learner.name, {})
        cells = "".join(f"<td class='unreadable'>{html.escape(learner.problem.split(':')[0])}</td>" if learner.problem
                        else f"<td class='{status(mine[i], fb).replace(' ', '-')}'>{html.escape(status(mine[i], fb))}"
                        f"</td>" if i in mine else "<td></td>" for i in ids)
        why = "; ".join(f"{r.id}: {w}" for r in learner.results for w in r.reasons) or learner.problem
        rows.append(f"<tr><td><a href='{html.escape(stems[id(learner)])}.html'>{html.escape(learner.name)}</a></td>"
                    f"{cells}<td>{learner.passed}/{learner.total}</td><td class='why'>{html.escape(why)}</td></tr>")
    graded = {learner.name for learner in class_}
    rows += [f"<tr class='missing'><td>{html.escape(name)}</td>" + "<td class='no-cell'>missing</td>" * len(ids)
             + "<td>0</td><td>on the roster, no notebook</td></tr>" for name in roster if name not in graded]
    pairs = "".join(f"<li>{html.escape(a)} ~ {html.escape(b)}: {share:.0%}</li>" for a, b, share in copies)
    body = (f"<table class='overview'><tr><th>learner</th>{head}<th>passed</th><th>review reasons</th></tr>"
            + "".join(rows) + f"</table><h2>Similar code</h2><ul class='copies'>{pairs or '<li>none</li>'}</ul>")
    return page(f"Class overview ({len(class_)} notebooks)", body, sandbox)


def similar(class_: list[Learner]) -> list[tuple[str, str, float]]:
    """Pairs of exercise cells more than SIMILAR alike: between learners, against solutions/, and against the
    course's own implementation of the piece (a course module that defines what the check takes)."""
    from copydetect import CodeFingerprint, compare_files  # type: ignore[import-untyped]

    def fingerprint(code: str):
        try:
            return CodeFingerprint("cell.py", 10, 1, filter=True, language="python", fp=io.StringIO(code))
        except Exception:  # too short to fingerprint
            return None

    by_id: dict[str, list[tuple[str, object]]] = {}
    for learner in class_:
        for r in learner.results:
            if r.code and r.scored and not learner.problem and r.code.strip() != r.starter.strip():
                by_id.setdefault(r.id, []).append((learner.name, fingerprint(r.code)))
    found = []
    for ex_id, cells in by_id.items():
        file = SOLUTIONS / f"{ex_id}.py"
        given = [("solutions/" + file.name, fingerprint(file.read_text(encoding="utf-8")))] if file.is_file() else []
        given += [(f"course/{m.relative_to(COURSE).as_posix()}", fingerprint(m.read_text(encoding="utf-8")))
                  for m in implementations(ex_id)]
        for n, (a, fa) in enumerate(cells):
            for b, fb in cells[n + 1:] + given:
                if fa is not None and fb is not None:
                    shares = compare_files(fa, fb)[1]  # against a whole module: how much of the cell is in it
                    share = shares[0] if b.startswith("course/") else min(shares)
                    if share >= SIMILAR:
                        found.append((f"{a} {ex_id}", f"{b} {ex_id}" if "/" not in b else b, float(share)))
    return found


def implementations(ex_id: str) -> list[Path]:
    from course.exercises import load_all

    registry = load_all()
    needs = registry[ex_id].needs if ex_id in registry else []
    return [m for m in sorted(COURSE.rglob("*.py")) if m.relative_to(COURSE).parts[0] not in ("exercises", "grading")
            and any(f"def {n}(" in m.read_text(encoding="utf-8") for n in needs)]


def safe(value) -> str:
    text = str(value)
    return "'" + text if text.startswith(FORMULA) else text


def write(class_: list[Learner], out: Path, sandbox: str = "bubblewrap sandbox", roster: list[str] | None = None,
          copies: bool = True) -> dict[str, Path]:
    """Write every learner's page and JSON, index.html and class.csv (merged) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    feedback = load_feedback(out)
    pairs = similar(class_) if copies else []
    stems, taken = {}, {"index", "class", "feedback"}
    for learner in class_:
        stem = "".join(c if c.isalnum() or c in " -_." else "_" for c in learner.name).strip() or "learner"
        name, n = stem, 2
        while name.lower() in taken:
            name, n = f"{stem} ({n})", n + 1
        taken.add(name.lower())
        stems[id(learner)] = name
        mine = [p for p in pairs if any(x.startswith(learner.name + " ") for x in p[:2])]
        (out / f"{name}.html").write_text(learner_page(learner, feedback.get(learner.name, {}), sandbox, mine),
                                          encoding="utf-8")
        (out / f"{name}.json").write_text(json.dumps({**asdict(learner), "path": str(learner.path),
                                                      "sandbox": sandbox}, ensure_ascii=False, indent=1), "utf-8")
    ids = list(dict.fromkeys(r.id for learner in class_ for r in learner.results if r.scored))
    (out / "index.html").write_text(index_page(class_, ids, stems, feedback, sandbox, pairs, roster or []),
                                      encoding="utf-8")
    write_csv(class_, out / "class.csv", ids, feedback, sandbox, roster or [])
    return {str(learner.path): out / f"{stems[id(learner)]}.html" for learner in class_}


def write_csv(class_: list[Learner], path: Path, ids: list[str], feedback: dict, sandbox: str,
              roster: list[str]) -> None:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows: dict[str, dict] = {}
    if path.is_file():  # merge: learners graded earlier and not now keep their row
        with path.open(newline="", encoding="utf-8") as f:
            rows = {r["learner"]: r for r in csv.DictReader(f)}
        ids = list(dict.fromkeys([*ids, *(k for r in rows.values() for k in r if k.startswith("l") and "-" in k)]))
    for learner in class_:
        fb = feedback.get(learner.name, {})
        marks = {r.id: status(r, fb) for r in learner.results if r.scored}
        rows[safe(learner.name)] = {"learner": safe(learner.name), "file": safe(learner.path.name),
                                    "lesson": learner.lesson or "", "status": learner.problem.split(":")[0] or "graded",
                                    **{i: marks.get(i, "") for i in ids},
                                    "points": 0 if learner.problem else sum(v == "pass" for v in marks.values()),
                                    "max_points": learner.total, "sandbox": sandbox, "graded_at": now,
                                    "note": safe(learner.problem)}
    for name in roster:
        rows.setdefault(safe(name), {"learner": safe(name), "status": "missing", "points": 0})
    fields = ["learner", "file", "lesson", "status", *ids, "points", "max_points", "sandbox", "graded_at", "note"]
    with path.open("w", newline="", encoding="utf-8") as f:
        table = csv.DictWriter(f, fields, restval="", extrasaction="ignore")
        table.writeheader()
        table.writerows(rows.values())


def load_feedback(out: Path) -> dict:
    """{learner: {exercise: {"comment", "override", "by", "why"}}} from out/feedback.json (the mentor's file)."""
    try:
        return json.loads((out / "feedback.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def add_feedback(out: Path, learner: str, exercise: str, by: str, comment: str = "", override: str = "",
                 why: str = "") -> None:
    feedback = load_feedback(out)
    note = feedback.setdefault(learner, {}).setdefault(exercise, {})
    note.update({k: v for k, v in {"comment": comment, "override": override, "why": why}.items() if v}, by=by)
    (out / "feedback.json").write_text(json.dumps(feedback, ensure_ascii=False, indent=1), encoding="utf-8")


def summary_line(learner: Learner) -> str:
    if learner.problem:
        return f"  {learner.name}: {learner.problem}"
    marks = " ".join({"pass": "✅ ", "review": "⚠ review "}.get(r.status, "❌ ") + r.id
                     for r in learner.results if r.scored)
    return f"  {learner.name}: {learner.passed}/{learner.total}  {marks}"
