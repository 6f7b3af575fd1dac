"""What a mentor reads: index.html, a page and a JSON file per learner (templates/), class.csv, the similar
code (copydetect) and the mentor's own comments and overrides (feedback.json).

class.csv imports as is into Moodle ("Import grades: CSV file", `learner` as the identifier, `points` as
the grade) or any spreadsheet: a cell that starts with = + - @ gets a leading '.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from dataclasses import asdict
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from course.exercises import load_all
from course.grading.runner import SOLUTIONS, Grade, Learner, exercise_cells
from course.paths import lesson_notebook

COURSE = SOLUTIONS.parent / "course"
WRAP = 100
SIMILAR = 0.8  # copydetect's share of one cell's fingerprints found in the other
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def shown_code(code: str) -> Markup:
    """The code exactly as it ran: long lines wrapped and marked, invisible and non-ASCII characters shown."""
    def char(c: str) -> str:
        if c.isascii() and (c.isprintable() or c == " "):
            return escape(c)
        return (f"<span class='char' title='{escape(unicodedata.name(c, 'unnamed'))}'>"
                f"{escape(c if c.isprintable() and c != ' ' else '')}U+{ord(c):04X}</span>")

    lines = []
    for number, line in enumerate(code.split("\n"), 1):
        pieces = ["".join(map(char, line[i:i + WRAP])) for i in range(0, len(line), WRAP)] or [""]
        lines.append(f"{number:3} " + "<span class='wrapped'>⏎ wrapped</span>\n    ".join(pieces))
    return Markup("\n".join(lines))


TEMPLATES = Environment(loader=PackageLoader("course.grading"), autoescape=select_autoescape(default=True))
TEMPLATES.filters["shown_code"] = shown_code


def status(r: Grade, feedback: dict) -> str:
    return feedback.get(r.id, {}).get("override") or r.status


def similar(class_: list[Learner]) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """{(learner, other): [(exercise, share)]} of the cells that earned a pass or a review and are more than
    SIMILAR alike: between learners, with solutions/, and with the course's own implementation of the piece. What
    the notebook hands out in the cell (an assemble step's scaffold, say) is everyone's: copydetect's boilerplate."""
    from copydetect import CodeFingerprint, compare_files  # type: ignore[import-untyped]

    stubs: dict[str, list] = {}
    registry = load_all()

    def fingerprint(code: str, ex_id: str, boilerplate=None):
        if boilerplate is None and ex_id not in stubs:
            stub = fingerprint(handed_out(registry[ex_id].lesson).get(ex_id, ""), ex_id, [])
            stubs[ex_id] = list(stub.hashes) if stub is not None else []
        try:
            made = CodeFingerprint("cell.py", 10, 1, stubs[ex_id] if boilerplate is None else boilerplate, True,
                                   "python", fp=io.StringIO(code))
        except Exception:  # too short to fingerprint
            return None
        return made if len(made.hashes) else None  # all of it handed out: nobody's to copy

    by_id: dict[str, list[tuple[str, object]]] = {}
    for learner in class_:
        for r in learner.results:
            # An assemble step's code is its pieces' (compared on their own): listed again, it is only noise.
            if r.code and r.scored and not learner.problem and r.status in ("pass", "review") and \
                    not registry[r.id].uses:
                by_id.setdefault(r.id, []).append((learner.name, fingerprint(r.code, r.id)))
    found: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for ex_id, cells in by_id.items():
        file = SOLUTIONS / f"{ex_id}.py"
        given = [("solutions/" + file.name, fingerprint(file.read_text(encoding="utf-8"), ex_id))] \
            if file.is_file() else []
        given += [(f"course/{m.relative_to(COURSE).as_posix()}", fingerprint(m.read_text(encoding="utf-8"), ex_id))
                  for m in implementations(ex_id)]
        pairs = {}
        for n, (a, fa) in enumerate(cells):
            for b, fb in cells[n + 1:] + given:
                if fa is not None and fb is not None:
                    shares = compare_files(fa, fb)[1]  # against a whole module: how much of the cell is in it
                    share = shares[0] if b.startswith("course/") else min(shares)
                    if share >= SIMILAR:
                        pairs[a, b] = float(share)
        # Two learners who both copied solutions/ (or the course) are listed with it, not with each other too.
        sourced = {a for a, b in pairs if b.startswith(("solutions/", "course/"))}
        for (a, b), share in pairs.items():
            if not {a, b} <= sourced:
                found.setdefault((a, b), []).append((ex_id, share))
    return found


@cache
def handed_out(lesson: int) -> dict[str, str]:
    """{exercise id: its cell as the lesson's notebook hands it out}."""
    import nbformat

    found = lesson_notebook(SOLUTIONS.parent / "notebooks", lesson)
    return {i: c[-1] for i, c in exercise_cells(nbformat.read(found, as_version=4)).items()} if found else {}


def implementations(ex_id: str) -> list[Path]:

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
    feedback, pairs, roster = load_feedback(out), similar(class_) if copies else {}, roster or []
    ids = list(dict.fromkeys(r.id for learner in class_ for r in learner.results if r.scored))
    stems, taken, rows = {}, {"index", "class", "feedback"}, list[dict[str, Any]]()
    for learner in class_:
        stem = "".join(c if c.isalnum() or c in " -_." else "_" for c in learner.name).strip() or "learner"
        name, n = stem, 2
        while name.lower() in taken:
            name, n = f"{stem} ({n})", n + 1
        taken.add(name.lower())
        stems[learner.name], fb = name, feedback.get(learner.name, {})
        mine = {pair: found for pair, found in pairs.items() if learner.name in pair}
        reasons = [(r.id, why) for r in learner.results for why in r.reasons]
        shown = {r.id: status(r, fb) for r in learner.results}
        (out / f"{name}.html").write_text(TEMPLATES.get_template("learner.html").render(
            title=f"Feedback: {learner.name}", learner=learner, feedback=fb, sandbox=sandbox, copies=mine,
            reasons=reasons, shown=shown), encoding="utf-8")
        (out / f"{name}.json").write_text(json.dumps({**asdict(learner), "path": str(learner.path),
                                                      "sandbox": sandbox}, ensure_ascii=False, indent=1), "utf-8")
        marks = [learner.problem.split(":")[0] if learner.problem else shown.get(i, "") for i in ids]
        rows.append({"name": learner.name, "page": f"{name}.html", "marks": marks, "score":
                     f"{learner.passed}/{learner.total}", "why": "; ".join(f"{i}: {w}" for i, w in reasons)
                     or learner.problem})
    graded = {learner.name for learner in class_}
    rows += [{"name": n, "missing": True, "marks": ["missing"] * len(ids), "score": "0", "why":
              "on the roster, no notebook"} for n in roster if n not in graded]
    (out / "index.html").write_text(TEMPLATES.get_template("index.html").render(
        title=f"Class overview ({len(class_)} notebooks)", ids=ids, rows=rows, copies=pairs, sandbox=sandbox),
        encoding="utf-8")
    write_csv(class_, out / "class.csv", ids, feedback, sandbox, roster)
    return {str(learner.path): out / f"{stems[learner.name]}.html" for learner in class_}


def write_csv(class_: list[Learner], path: Path, ids: list[str], feedback: dict, sandbox: str,
              roster: list[str]) -> None:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows: dict[str, dict] = {}
    if path.is_file():  # merge: learners graded earlier and not now keep their row
        with path.open(newline="", encoding="utf-8") as f:
            rows = {r["learner"]: r for r in csv.DictReader(f)}
        ids = list(dict.fromkeys([*ids, *(k for r in rows.values() for k in r if k.startswith("l") and "-" in k)]))
    for learner in class_:
        marks = {r.id: status(r, feedback.get(learner.name, {})) for r in learner.results if r.scored}
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
    """Record a mentor's comment or override, then draw the reports again from the learners' JSON files."""
    feedback = load_feedback(out)
    note = feedback.setdefault(learner, {}).setdefault(exercise, {})
    note.update({k: v for k, v in {"comment": comment, "override": override, "why": why}.items() if v}, by=by)
    (out / "feedback.json").write_text(json.dumps(feedback, ensure_ascii=False, indent=1), encoding="utf-8")
    class_, sandbox = [], "bubblewrap sandbox"
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "results" in data:
            sandbox = data.pop("sandbox", sandbox)
            class_.append(Learner(**{**data, "path": Path(data["path"]),
                                     "results": [Grade(**r) for r in data.pop("results")]}))
    write(class_, out, sandbox)


def summary_line(learner: Learner) -> str:
    if learner.problem:
        return f"  {learner.name}: {learner.problem}"
    marks = " ".join({"pass": "✅ ", "review": "⚠ review "}.get(r.status, "❌ ") + r.id
                     for r in learner.results if r.scored)
    return f"  {learner.name}: {learner.passed}/{learner.total}  {marks}"
