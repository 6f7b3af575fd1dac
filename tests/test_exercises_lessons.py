"""What holds for every lesson's exercises, one test each, parametrized over the lessons: the exercises in the
order the notebook builds them, the imports a check assumes, the reference solutions as they stand, and the
notebook with every solution pasted in (for a lesson that talks to a model, through an OpenAI-compatible server:
the real-model path). Ids name the lesson (`[l4]`) or the exercise (`[l4-policy]`).
Each lesson's own right and wrong solutions, with their hints, stay in tests/test_exercises_lN.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import exercise_checks as ex
from course.exercises import exercise_cells
from course.paths import ROOT
from course.scripted import ScriptedModel
from course.stories import lesson1, lesson2, lesson3, lesson4, lesson6, lesson7


@dataclass(frozen=True)
class Lesson:
    notebook: str
    ids: tuple[str, ...]  # written out, so that the order test compares the notebook with something
    # False where one GIVEN serves several exercises (lessons 5 and 7): it holds what the checks assume, which the
    # notebook must have imported by the exercise cell, not everything the notebook imported before it.
    given_exactly: bool = True
    cell_timeout: int = 60  # seconds a cell of the notebook with the solutions pasted may take
    timeout: int = 120  # seconds a test of the whole lesson may take (the notebook's above all)
    # The story the lesson's notebook tells the model: its solutions-pasted run talks to it served over HTTP, with
    # OPENAI_BASE_URL set, so the notebook takes connect()'s `compatible` branch, as with a real model's server.
    story: Callable | None = None
    # Each cell of the solutions-pasted notebook run twice in a row, as a learner who runs a cell again (lesson 5:
    # servers built, tools registered and a budget spent again): the second run must not fail.
    twice: bool = False

    @property
    def name(self) -> str:
        return self.ids[0].split("-")[0]

    @property
    def number(self) -> int:
        return int(self.name[1:])

    @property
    def path(self) -> Path:
        return ROOT / "notebooks" / self.notebook


LESSONS = [
    Lesson("01_tool_calling.ipynb",
           ("l1-tool-definition", "l1-refund-params", "l1-tool-message", "l1-round-trip", "l1-bad-calls"),
           story=lesson1.order_status),
    Lesson("02_agent_loop.ipynb",
           ("l2-limit-reached", "l2-agent-loop", "l2-repeat-key", "l2-skip-repeats", "l2-finish", "l2-assemble"),
           story=lesson2.latest_order),
    Lesson("03_document_search.ipynb",
           ("l3-sections", "l3-rank", "l3-search-docs", "l3-hit-at-k", "l3-best-per-doc", "l3-assemble"),
           cell_timeout=120, timeout=180, story=lesson3.document_search),
    Lesson("04_permissions.ipynb",
           ("l4-refund-limit", "l4-policy", "l4-guard", "l4-log", "l4-allowlist", "l4-assemble"),
           story=lesson4.support_desk),
    Lesson("05_mcp_server.ipynb",
           ("l5-constrained-tool", "l5-annotations", "l5-advice", "l5-trim", "l5-budget", "l5-assemble"),
           given_exactly=False, twice=True),
    Lesson("06_mcp_client.ipynb", ("l6-list-tools", "l6-to-openai", "l6-result-text", "l6-execute", "l6-agent",
                                    "l6-assemble"),
           cell_timeout=90, timeout=180, story=lesson6.refund_desk),
    Lesson("07_model_adapters.ipynb", ("l7-read-response", "l7-error-flag", "l7-stream", "l7-success-rate",
                                        "l7-assemble"),
           given_exactly=False, story=lesson7.policy_desk),  # through Chat Completions and the Responses API
    Lesson("08_architecture_and_security.ipynb",
           ("l8-resource-template", "l8-route-tenant", "l8-injection-rule", "l8-changed-tool", "l8-assemble")),
    Lesson("09_beyond_tools.ipynb",
           ("l9-form-fields", "l9-answer-problems", "l9-secret-question", "l9-structured-result", "l9-progress-line",
            "l9-token-check"), given_exactly=False),
]


def each_lesson(lessons=LESSONS) -> list:
    return [pytest.param(lesson, id=lesson.name, marks=pytest.mark.timeout(lesson.timeout)) for lesson in lessons]


def each_exercise(lessons=LESSONS) -> list:
    return [pytest.param(lesson, id, id=id) for lesson in lessons for id in lesson.ids]


@pytest.mark.parametrize("lesson", each_lesson())
def test_the_lessons_exercises_come_in_the_order_the_lesson_builds_things(lesson):
    ex.assert_in_the_order_the_lesson_builds_them(lesson.path, list(lesson.ids))
    ex.assert_registered_for_lesson(lesson.number, list(lesson.ids))


@pytest.mark.parametrize("lesson, id", each_exercise([lesson for lesson in LESSONS if lesson.given_exactly]))
def test_what_a_check_imports_before_the_cell_is_what_the_notebook_imported_before_it(lesson, id):
    ex.assert_given_imports_what_the_notebook_imported_before(lesson.path, id)


@pytest.mark.parametrize("lesson, id", each_exercise([lesson for lesson in LESSONS if not lesson.given_exactly]))
def test_every_import_the_check_assumes_has_run_in_the_notebook_by_the_exercise_cell(lesson, id):
    ex.assert_given_imports_ran_by_the_exercise_cell(lesson.path, id)


@pytest.mark.parametrize("lesson", each_lesson())
def test_every_solution_runs_on_its_own_as_a_script(lesson, tmp_path):
    ex.run_solutions_as_scripts(list(lesson.ids), tmp_path)


@pytest.mark.parametrize("lesson, id", each_exercise())
def test_the_reference_solution_passes_on_every_draw(lesson, id):
    ex.passes(id, ex.solution(id))


@pytest.mark.parametrize("lesson, id", each_exercise())
def test_each_exercise_says_where_its_reference_solution_is_and_that_it_is_a_last_resort(lesson, id):
    task = ex.task(lesson.path, id)
    assert f"[`solutions/{id}.py`](../solutions/{id}.py)" in task and "last resort" in task.lower(), task


@pytest.mark.parametrize("lesson", each_lesson([lesson for lesson in LESSONS if lesson.story is None]))
def test_the_notebook_with_every_solution_pasted_passes_every_check(lesson, monkeypatch):
    monkeypatch.setenv("COURSE_APPROVER", "scripted")  # the kernel inherits it: no buttons without a browser
    ex.assert_every_check_passes_with_the_solutions_pasted(lesson.path, list(lesson.ids), timeout=lesson.cell_timeout,
                                                            twice=lesson.twice)


@pytest.mark.parametrize("lesson", each_lesson([lesson for lesson in LESSONS if lesson.story is not None]))
def test_the_notebook_with_every_solution_pasted_passes_every_check_against_an_openai_compatible_server(
        lesson, monkeypatch):
    server = ScriptedModel(lesson.story)
    with server.serve() as url:  # the kernel inherits this process's environment
        monkeypatch.setenv("COURSE_APPROVER", "scripted")
        monkeypatch.delenv("COURSE_BACKEND", raising=False)
        monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        nb = ex.assert_every_check_passes_with_the_solutions_pasted(lesson.path, list(lesson.ids),
                                                                     timeout=lesson.cell_timeout, twice=lesson.twice)
    shown = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert f"OpenAI-compatible server at {url}" in shown
    assert "the scripted model instead" not in shown
    if lesson.name == "l7":  # the same MCP half, through both APIs, streaming too
        streamed = {e["endpoint"] for e in server.exchanges if e["request"].get("stream")}
        assert {e["endpoint"] for e in server.exchanges} == {"chat", "responses"} == streamed


def test_every_notebook_with_exercises_is_a_lesson_above():
    with_exercises = [nb.name for nb in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")) if exercise_cells(str(nb))]
    assert [lesson.notebook for lesson in LESSONS] == with_exercises
