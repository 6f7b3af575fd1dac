"""What a learner sees in a notebook before running anything: the outputs stored in the .ipynb files."""

import ast
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("0*.ipynb"))


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def stored_texts(path: Path):
    for cell in cells(path):
        for output in cell.get("outputs", []):
            for value in [output.get("text", ""), *output.get("data", {}).values()]:
                yield "".join(value) if isinstance(value, list) else json.dumps(value)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_output_is_a_widget_that_breaks_after_reopening(path):
    # Widget state is not saved, so a stored widget view reads "Error displaying widget: model not found".
    views = [cell["source"] for cell in cells(path) for output in cell.get("outputs", [])
             if "application/vnd.jupyter.widget-view+json" in output.get("data", {})]
    assert views == [], f"{path.name}: cells store widget views: {views}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_output_shows_a_progress_bar_that_never_moved(path):
    stuck = [t for t in stored_texts(path) if re.search(r"\b0%\|.*\b0/\d+", t)]
    assert stuck == [], f"{path.name}: {stuck}"


def test_lesson_6_never_shows_the_secret_it_proves_does_not_leak():
    lesson6 = next(p for p in NOTEBOOKS if p.name.startswith("06_"))
    assert any("demo-secret-123" in "".join(c["source"]) for c in cells(lesson6)), "the lesson plants the secret"
    assert not [t for t in stored_texts(lesson6) if "demo-secret-123" in t]


def test_every_check_of_the_store_in_lesson_4_says_what_to_do_when_it_fails():
    lesson4 = next(p for p in NOTEBOOKS if p.name.startswith("04_"))
    bare = []
    for cell in cells(lesson4):
        source = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
        try:
            tree = ast.parse(source)
        except SyntaxError:  # top-level await: a cell of the notebook, not a module
            tree = ast.parse(f"async def cell():\n{''.join('    ' + line for line in source.splitlines(True))}")
        bare += [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Assert) and node.msg is None
                 and "store" in ast.unparse(node.test)]  # state that running cells again changes
    assert bare == [], "a learner re-running a cell would get a bare AssertionError"


def sanitized(text: str) -> str:
    """`text` as nbval compares it, with notebooks/sanitize.cfg's rules."""
    from nbval.plugin import get_sanitize_patterns  # type: ignore[import-untyped]

    rules = get_sanitize_patterns((NOTEBOOKS[0].parent / "sanitize.cfg").read_text())
    for regex, replacement in rules:
        text = re.sub(regex, replacement, text)
    return text


def test_the_sanitizer_leaves_a_setting_as_stored_so_a_stale_timeout_fails_nbval():
    settings = ["Error: slow_report did not answer within 0.3 s. Tell the user this is not available right now.\n",
                "no timeout: still waiting after 1 s; without an outer limit this cell would never end\n",
                "429 rate limited: waited 1 s (Retry-After), then retried once\n",
                "connect: 2.0 s | read: 5.0 s\n", "2 conversations, 4 tool calls of 0.1 s each"]
    assert [sanitized(text) for text in settings] == settings


def test_the_sanitizer_replaces_what_the_trace_and_the_decision_log_measure(capsys):
    from course.agent.result import Result, Step
    from course.permissions import DecisionLog

    Result("ok", "done", 1, 10, [Step(1, [], 10, 0.3886)], [], seconds=0.4351).show()
    log = DecisionLog()
    log.record("get_order_status", {"order_id": "A1001"}, "allowed", "risk: read")
    log.show()
    printed = capsys.readouterr().out
    assert re.findall(r"\d+\.\d+ m?s", printed) == ["388.6 ms", "435.1 ms", re.findall(r"\d+\.\d\d s", printed)[0]]
    assert not re.search(r"\d+\.\d+ m?s", sanitized(printed)), sanitized(printed)


def test_lesson_6_stores_the_timeouts_its_cells_set():
    lesson6 = next(p for p in NOTEBOOKS if p.name.startswith("06_"))
    stale = []
    for cell in cells(lesson6):
        source = "".join(cell["source"])
        shown = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
        for figure in re.findall(r"(?:within|after) (\d+(?:\.\d+)?) s\b", shown):
            if not re.search(rf"timeout={re.escape(figure)}\b", source):
                stale.append(f"{figure} s shown, not set in: {source.splitlines()[-1][:60]}")
    assert stale == []
