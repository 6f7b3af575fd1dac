"""Gaps in the vocabulary rule and the folder pick that issue 20's review found after the rebuild: a shared
value changed through the cell's own function, and a learner's folder with two notebooks of the graded lesson."""

from __future__ import annotations

import html
from pathlib import Path

import nbformat
import pytest

from course.grading import report
from course.grading.runner import grade_class
from course.grading.sandbox import Sandbox
from course.grading.vocabulary import review

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("source, lesson", [
    ("def f(d):\n    d.clear()\nf(guards.REQUESTS)\n", 8),
    ("def f(d):\n    d['issue_refund'] = None\nf(guards.REQUESTS)\n", 8),
    ("def f(x, d):\n    del d['issue_refund']\nr = guards.REQUESTS\nf(1, r)\n", 8),
    ("def f(*, d):\n    d.pop('issue_refund')\nf(d=guards.REQUESTS)\n", 8),
    ("def f(d):\n    d.update({})\ndef g(d):\n    f(d)\ng(guards.REQUESTS)\n", 8),
    ("def f(d):\n    d.clear()\nf(*[guards.REQUESTS])\n", 8),
    ("def f(d):\n    d.clear()\nf(**{'d': guards.REQUESTS})\n", 8),
    ("import heapq\ndef f(v):\n    heapq.heappush(v, 'X')\nf(DEFAULT_INHERITED_ENV_VARS)\n", 6),
    ("f = lambda d: d.clear()\nf(guards.REQUESTS)\n", 8),
    ("class C:\n    def m(self, d):\n        d.clear()\nC().m(guards.REQUESTS)\n", 8),
    ("class C:\n    @staticmethod\n    def m(d):\n        d.clear()\nC.m(guards.REQUESTS)\n", 8),
    ("def f(v):\n    w = v\n    w.append('OPENAI_API_KEY')\nf(DEFAULT_INHERITED_ENV_VARS)\n", 6),
])
def test_a_shared_value_passed_to_the_cells_own_function_that_changes_its_argument_is_flagged(source, lesson):
    reasons = review(source, lesson)
    assert any("changes its argument" in r and r.startswith("line ") for r in reasons), reasons


@pytest.mark.parametrize("source, lesson", [
    ("def f(d):\n    d.clear()\n    return d\nf({})\nf(dict(guards.REQUESTS))\n", 8),
    ("def f(d):\n    d.clear()\n    return d\nf(**{'d': {}})\n", 8),
    ("def f(d):\n    return len(d)\nf(guards.REQUESTS)\n", 8),
    ("class C:\n    def __init__(self):\n        self.d = {}\n    def m(self, d):\n        self.d.update(d)\n"
     "C().m(guards.REQUESTS)\n", 8),
])
def test_the_cells_own_function_changing_its_own_values_stays_inside_the_vocabulary(source, lesson):
    assert not [r for r in review(source, lesson) if "changes" in r], review(source, lesson)


# Found in review: a module the lesson imports by name (`from course.host import guards`), reached through its
# package instead, let its names through unchecked: `course.host.guards.REQUESTS` was inside, `guards.REQUESTS` not.
@pytest.mark.parametrize("source, reason", [
    ("import course.host\ncourse.host.guards.REQUESTS\n", "`course.host.guards.REQUESTS`: the lesson's code never"),
    ("import course.host as h\nprint(h.guards.REQUESTS)\n", "`course.host.guards.REQUESTS`: the lesson's code never"),
    ("import course.host\nr = course.host.guards.REQUESTS\nr.clear()\n", "`course.host.guards.REQUESTS`: the"),
    ("import course.host\ng = course.host.guards\ng.REQUESTS.clear()\n", "passes the module `course.host.guards` on"),
])
def test_a_module_reached_through_its_package_has_its_names_checked_as_when_it_is_imported(source, reason):
    assert any(reason in r for r in review(source, 8)), review(source, 8)


@pytest.mark.parametrize("source", ["import copy\nf = copy.copy\n", "import datetime\nt = datetime.datetime\n",
                                    "import datetime\nisinstance(1, datetime.datetime)\n"])
def test_a_plain_modules_own_name_handed_on_is_not_taken_for_a_module(source):
    assert not [r for r in review(source, 1) if "passes the module" in r], review(source, 1)


def test_a_folder_with_two_notebooks_of_the_graded_lesson_says_which_one_was_graded(tmp_path):
    anna = tmp_path / "Anna"
    anna.mkdir()
    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    nbformat.write(nb, anna / "04_permissions.ipynb")
    nbformat.write(nb, anna / "04_permissions (copy).ipynb")
    with Sandbox("process") as sandbox:
        (learner,) = grade_class([anna], sandbox)
    assert learner.path.name == "04_permissions.ipynb" and not learner.problem
    (notice,) = learner.notices
    assert "04_permissions (copy).ipynb" in notice and "04_permissions.ipynb is graded" in notice, notice
    page = report.write([learner], tmp_path / "out", copies=False)[str(learner.path)].read_text(encoding="utf-8")
    assert html.escape(notice) in page
